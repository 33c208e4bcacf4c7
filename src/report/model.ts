// A trace as a list of steps: what each step did, who it moved, and the states of
// every actor after it. Text, Mermaid and the HTML viewer all render this model.
import type { TraceEventData, TraceFileData } from './schema.ts';
import { stateAfter, stateChange } from './state-change.ts';
import { jsonTextPieces } from './script-json.ts';

type Ev = TraceEventData & Record<string, any>;

export interface StepView {
  /** 0 is the initial world; k is the effect of schedule[k-1]. */
  readonly n: number;
  /** The schedule's step id (empty for step 0). */
  readonly id: string;
  readonly kind: 'init' | 'deliver' | 'timer' | 'fault' | 'drop' | 'tick' | 'input' | 'other';
  /** Receiver or the actor the step is about. */
  readonly actor: string;
  /** Sender for deliveries, drops and inputs. */
  readonly from?: string;
  /** Message type, fault name or timer id. */
  readonly what: string;
  /** Delivery outcome other than the normal one (`403`, `ambiguous`). */
  readonly outcome?: string;
  /** Step at which the delivered message was sent (for sloped arrows); -1 if unknown. */
  readonly sentAt: number;
  /** State changes (context-only changes are in `changed`). */
  readonly moves: readonly StateMove[];
  /** Per actor, the context fields (a reducer's state fields) this step changed. */
  readonly changed: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Every actor's state after this step. */
  readonly states: Readonly<Record<string, string>>;
  /** Side events in words: unhandled, error, monitor-fail, output, io, log, emit, dropped. */
  readonly notes: readonly string[];
  /** The notes worth a line in the text step list: failures, losses, outputs, I/O that did not succeed. */
  readonly alerts: readonly string[];
  readonly failed: boolean;
  readonly events: readonly Ev[];
}

/** One actor's state change in a step. */
export interface StateMove {
  readonly actor: string;
  /** The whole state values before and after. */
  readonly from: string;
  readonly to: string;
  /** What changed, in short (`executing.{LS: running → done}`): see stateChange. */
  readonly change: string;
  /** The state after, in short (`executing.{LS:done}`): see stateAfter. */
  readonly after: string;
}

export interface TraceView {
  readonly actors: readonly string[];
  readonly steps: readonly StepView[];
}

function msgType(m: unknown): string {
  return typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string' ? (m as { type: string }).type : '?';
}

function brief(v: unknown, max = 80): string {
  let s = '';
  try {
    // JSON piece by piece, up to `max`: a value with huge strings is never stringified whole.
    if (typeof v === 'string') s = v;
    else for (const piece of jsonTextPieces(v)) if ((s += piece).length > max) break;
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function noteOf(e: Ev): string | undefined {
  switch (e.kind) {
    case 'unhandled':
      return `${e.actor} has no transition for ${msgType(e.msg)} from ${e.from} in state ${e.state}`;
    case 'error':
      return `${e.actor} error: ${e.message}`;
    case 'monitor-fail':
      return `monitor ${e.monitor} failed: ${e.message}`;
    case 'output':
      return `${e.from} → env ${msgType(e.msg)}`;
    case 'io':
      return `${e.actor} ${e.op}${e.key !== undefined ? ` ${e.key}` : ''} → ${e.outcome}`;
    case 'log':
      return `${e.actor} log ${brief(e.data)}`;
    case 'dropped':
      return `${msgType(e.msg)} from ${e.from} to ${e.to} dropped (${e.reason})`;
    case 'emit':
      return `${e.actor} emits ${msgType(e.msg)}`;
    default:
      return typeof e.kind === 'string' && !['deliver', 'send', 'state', 'context', 'timer-set', 'timer-fire', 'timer-cancel', 'tick', 'fault'].includes(e.kind) ? `${e.kind} ${brief(e)}` : undefined;
  }
}

/** Builds the step model of a counterexample (or of its passing neighbour). */
export function traceView(schedule: readonly string[], trace: readonly unknown[]): TraceView {
  const events = trace as readonly Ev[];
  const byStep: Ev[][] = Array.from({ length: schedule.length + 1 }, () => []);
  const actors: string[] = [];
  const see = (a: unknown) => {
    if (typeof a === 'string' && !actors.includes(a)) actors.push(a);
  };
  for (const e of events) {
    if (e.step >= 0 && e.step < byStep.length) byStep[e.step]!.push(e);
    // A reducer's context events do not place it: its lifeline stays where its first message puts it.
    for (const k of ['actor', 'from', 'to'] as const) if (e.kind !== 'state' && e.kind !== 'context' && e.kind !== 'monitor-fail') see(e[k]);
    if (e.kind === 'state') see(e.actor);
  }
  // env first, so inputs come from the left.
  actors.sort((a, b) => (a === 'env' ? -1 : b === 'env' ? 1 : 0));
  const states: Record<string, string> = {};
  const inFlight = new Map<string, number[]>();
  const steps: StepView[] = [];
  for (let n = 0; n < byStep.length; n++) {
    const evs = byStep[n]!;
    const id = n === 0 ? '' : (schedule[n - 1] ?? '');
    let kind: StepView['kind'] = n === 0 ? 'init' : 'other';
    let actor = '';
    let from: string | undefined;
    let what = id;
    let outcome: string | undefined;
    let sentAt = -1;
    const moves: StateMove[] = [];
    const changed: Record<string, Record<string, unknown>> = {};
    const notes: string[] = [];
    const alerts: string[] = [];
    let failed = false;
    // The first event that says what the step was (a delivery, a timer, a fault) claims it.
    let claimed = n === 0;
    // A delivery with a fault outcome, and a drop, are reported as a fault event then the
    // delivery (or `dropped`): the delivery or the drop says what the step was.
    const faultyDelivery = evs.some((e) => e.kind === 'deliver' && typeof e.outcome === 'string');
    const primary = (k: StepView['kind']): boolean => {
      if (claimed) return false;
      claimed = true;
      kind = k;
      return true;
    };
    for (const e of evs) {
      switch (e.kind) {
        case 'deliver': {
          if (primary(id.startsWith('input:') ? 'input' : 'deliver')) {
            actor = e.to;
            from = e.from;
            what = msgType(e.msg);
            outcome = typeof e.outcome === 'string' ? e.outcome : undefined;
          }
          const q = inFlight.get(`${e.from}\u0000${e.to}`);
          const s = q?.shift();
          if (actor === e.to && from === e.from) sentAt = s ?? -1;
          break;
        }
        case 'dropped': {
          if (primary('drop')) {
            actor = e.to;
            from = e.from;
            what = msgType(e.msg);
          }
          const q = inFlight.get(`${e.from}\u0000${e.to}`);
          const s = q?.shift();
          if (actor === e.to && from === e.from) sentAt = s ?? -1;
          break;
        }
        case 'send': {
          const key = `${e.from}\u0000${e.to}`;
          if (!inFlight.has(key)) inFlight.set(key, []);
          inFlight.get(key)!.push(n);
          if (id.startsWith('input:') && primary('input')) {
            actor = e.to;
            from = e.from;
            what = msgType(e.msg);
          }
          break;
        }
        case 'timer-fire':
          if (primary('timer')) {
            actor = e.actor;
            // An `after` timer's message is named like the timer: say it once.
            what = msgType(e.msg) === e.id || msgType(e.msg) === '?' ? e.id : `${e.id} ${msgType(e.msg)}`;
          }
          break;
        case 'fault':
          if (!faultyDelivery && !id.startsWith('drop:') && primary('fault')) {
            actor = e.actor;
            what = e.fault;
          }
          if (e.fault === 'crash') for (const k of inFlight.keys()) if (k.endsWith(`\u0000${e.actor}`)) inFlight.delete(k);
          break;
        case 'tick':
          if (primary('tick')) what = `${e.at}ms`;
          break;
        case 'state':
          states[e.actor] = e.to;
          if (e.from !== e.to) moves.push({ actor: e.actor, from: e.from, to: e.to, change: stateChange(e.from, e.to), after: stateAfter(e.from, e.to) });
          if (e.changed && typeof e.changed === 'object') changed[e.actor] = { ...(changed[e.actor] ?? {}), ...e.changed };
          break;
        case 'context':
          if (e.changed && typeof e.changed === 'object') changed[e.actor] = { ...(changed[e.actor] ?? {}), ...e.changed };
          break;
        case 'monitor-fail':
        case 'error':
          failed = true;
          break;
      }
      const note = noteOf(e);
      if (note !== undefined) {
        notes.push(note);
        const quiet = ['io', 'log', 'emit'].includes(e.kind) && !(e.kind === 'io' && e.outcome !== 'ok');
        if (!quiet) alerts.push(note);
      }
    }
    steps.push({ n, id, kind, actor, ...(from !== undefined ? { from } : {}), what, ...(outcome !== undefined ? { outcome } : {}), sentAt, moves, changed, states: { ...states }, notes, alerts, failed, events: evs });
  }
  return { actors, steps };
}

/** The view of a whole trace file. */
export function fileView(f: TraceFileData): TraceView {
  return traceView(f.schedule, f.trace);
}

/** One step in a line, for lists where its id would be read: `LE.r0 → store  Fetch !403`. */
export function stepSummary(s: StepView): string {
  switch (s.kind) {
    case 'deliver':
      return `${s.from ?? '?'} → ${s.actor}  ${s.what}${s.outcome !== undefined ? ` !${s.outcome}` : ''}`;
    case 'input':
      return `${s.from ?? 'env'} ⇒ ${s.actor}  ${s.what}`;
    case 'drop':
      return `${s.from ?? '?'} ✗→ ${s.actor}  ${s.what} (dropped)`;
    case 'timer':
      return `${s.actor} ⏲ ${s.what}`;
    case 'fault':
      return `${s.actor} ✗ ${s.what}`;
    case 'tick':
      return `time → ${s.what}`;
    default:
      return s.id;
  }
}

/** The actors some step after the initial world is about: receiver, sender, or an actor that moved. */
export function busyActors(view: TraceView): string[] {
  const busy = new Set<string>();
  for (const s of view.steps) {
    if (s.n === 0) continue;
    if (s.actor) busy.add(s.actor);
    if (s.from !== undefined) busy.add(s.from);
    for (const m of s.moves) busy.add(m.actor);
  }
  return view.actors.filter((a) => busy.has(a));
}
