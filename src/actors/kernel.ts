// The semantics: `initialWorld`, `enabled` and `apply`. Every mode (checker,
// simulator, replay, live runner) drives these three functions and nothing else.
// `enabled` and the step constructors live in steps.ts, the per-step world copy
// in draft.ts; this module interprets what actors do.
import type { AnyMachineSnapshot } from 'xstate';
import { UnsupportedFeatureError, XS, isAddressStub, snapshotStateText, type CollectedAction, type StepResult } from './xstate-adapter.ts';
import { ScenarioError, actorName, isMachineSnapshot, type CompiledActor, type ReducerResult, type Scenario } from './scenario.ts';
import { ModelError, isModelError } from './model-error.ts';
import { queryOf } from './query.ts';
import { Draft, EMPTY, addTimer, cancelTimer } from './draft.ts';
import { timerStepId } from './steps.ts';
import type { StepMemo } from './step-memo.ts';
import { ENV, type ActorStatus, type Message, type Step, type TraceEvent, type World } from './types.ts';

export { enabled, isFault, isQuiescent, isOffered, offersInput, inputStep, tickStep } from './steps.ts';

/** Options of `apply` and `initialWorld`. */
export interface ApplyOptions {
  /** Record context changes on `state` events and reducers' state changes as `context` events, which monitors do not see (costs a shallow diff per step). Default true. */
  readonly detail?: boolean;
  /** Reuse machine step results for (snapshot, message) pairs already stepped (see step-memo.ts). */
  readonly memo?: StepMemo;
}

/** The world after a step and the trace events the step caused. */
export interface ApplyResult {
  /** The next world (the input world is never changed). */
  readonly world: World;
  /** What the step did, in order. */
  readonly events: readonly TraceEvent[];
}

function targetOf(sc: Scenario, actor: CompiledActor, params: any): number {
  const to = params.to;
  let id: string | undefined;
  if (isAddressStub(to)) id = to.id;
  else if (typeof to === 'string') id = to;
  else if (to && typeof to === 'object' && typeof to.id === 'string') {
    throw new ScenarioError(
      `actor '${actor.id}' sent to a real xstate actor ref ('${to.id}'); address world actors with send(id, msg) or sendTo(({ system }) => system.get(id), msg)`,
    );
  }
  const type = (params.event ?? params.msg)?.type;
  if (id === undefined) throw new ModelError(`actor '${actor.id}' sent '${String(type)}' with no target (its address is ${JSON.stringify(to) ?? 'undefined'}: an input or context field it was built from may be missing)`, { actor: actor.id });
  const i = id === 'env' ? sc.envIndex : sc.index.get(id);
  if (i === undefined) {
    throw new ModelError(`actor '${actor.id}' sent '${String(type)}' to '${id}', which is not an actor of scenario '${sc.name}'; known actors: ${sc.ids.join(', ')}`, { actor: actor.id, value: id });
  }
  return i;
}

function send(d: Draft, from: number, to: number, msg: Message): void {
  const sc = d.sc;
  if (to === sc.envIndex) {
    d.events.push({ kind: 'output', from: actorName(sc, from), msg });
    return;
  }
  d.events.push({ kind: 'send', from: actorName(sc, from), to: actorName(sc, to), msg });
  d.enqueue(from, to, msg);
}

/** Interprets a machine's actions in the order xstate emitted them. */
function interpret(d: Draft, actor: CompiledActor, actions: readonly CollectedAction[]): void {
  const sc = d.sc;
  for (const a of actions) {
    switch (a.type) {
      case XS.sendTo: {
        const p = a.params;
        const to = targetOf(sc, actor, p);
        if (typeof p.delay === 'number') {
          const id = p.id ?? `anon:${d.anon++}`;
          const due = d.now + p.delay;
          addTimer(d, { owner: actor.index, to, id, due, event: p.event });
          d.events.push({ kind: 'timer-set', actor: actor.id, id, due, msg: p.event });
        } else send(d, actor.index, to, p.event);
        break;
      }
      case XS.raise: {
        const p = a.params;
        if (typeof p.delay === 'number') {
          const id = p.id ?? `anon:${d.anon++}`;
          const due = d.now + p.delay;
          addTimer(d, { owner: actor.index, to: actor.index, id, due, event: p.event });
          d.events.push({ kind: 'timer-set', actor: actor.id, id, due, msg: p.event });
        }
        // An undelayed raise was already processed inside the macrostep.
        break;
      }
      case XS.cancel: {
        const id = String(a.params.sendId);
        if (cancelTimer(d, actor.index, id)) d.events.push({ kind: 'timer-cancel', actor: actor.id, id });
        break;
      }
      case XS.emit:
        d.events.push({ kind: 'emit', actor: actor.id, msg: a.params.event });
        break;
      case XS.log:
        d.events.push({ kind: 'log', actor: actor.id, data: a.params?.value ?? a.params });
        break;
      case XS.spawnChild:
      case XS.stopChild:
        throw new ScenarioError(
          `actor '${actor.id}' uses invoke/spawn (${a.type}${a.params?.src ? ` of '${String(a.params.src)}'` : ''}); the interleave kernel keeps every actor flat in the world: declare the child as a scenario actor and address it with send(id, msg), and model promise-like effects as messages to a storage or effect actor whose reply is a step`,
        );
      default:
        if (a.type.startsWith('xstate.')) {
          throw new ScenarioError(`actor '${actor.id}' asked for built-in action '${a.type}', which the interleave kernel does not interpret`);
        }
        if (a.exec) {
          try {
            a.exec(a.info, a.params);
          } catch (e) {
            d.events.push({ kind: 'error', actor: actor.id, message: `action '${a.type}' threw: ${errText(e)}` });
          }
        }
    }
  }
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Errors that are mistakes in the model rather than behaviour of a machine: they
 * stop the run with a `ScenarioError` instead of becoming an `error` trace event.
 * Returns undefined for an ordinary error (a throwing action, guard or assign).
 */
function modelError(actor: CompiledActor, e: unknown): Error | undefined {
  if (e instanceof ScenarioError || isModelError(e)) return e;
  if (e instanceof UnsupportedFeatureError) return new ScenarioError(e.message);
  const m = e instanceof Error ? /^Unable to send event to actor '([^']*)'/.exec(e.message) : null;
  if (!m) return undefined;
  if (m[1] === '#_parent') {
    return new ScenarioError(`actor '${actor.id}' used sendParent but has no parent: declare it in the scenario as { logic, parent: '<actor id>' }`);
  }
  return new ScenarioError(
    `actor '${actor.id}' sent to '${m[1]}' by name; xstate looks names up among invoked children, which the interleave kernel does not have: use send('${m[1]}', msg) from src/actors/dsl.ts or sendTo(({ system }) => system.get('${m[1]}'), msg)`,
  );
}

/** An unhandled event, marked with the scenario's policy so readers of the trace need not know the scenario. */
function unhandledEvent(d: Draft, actor: CompiledActor, from: number, msg: Message, state: string): TraceEvent {
  return { kind: 'unhandled', actor: actor.id, from: actorName(d.sc, from), msg, state, policy: d.sc.unhandled ?? 'error' };
}

/**
 * True when a trace event fails the run: a machine error, a monitor failure, or an
 * unhandled event under the scenario's default `unhandled: 'error'` policy.
 */
export function isFailureEvent(e: TraceEvent): boolean {
  return e.kind === 'error' || e.kind === 'monitor-fail' || (e.kind === 'unhandled' && e.policy !== 'trace');
}

function contextDiff(prev: any, next: any): Record<string, unknown> | undefined {
  if (prev === next || typeof next !== 'object' || next === null) return undefined;
  const out: Record<string, unknown> = {};
  let any = false;
  for (const k of Object.keys(next)) {
    if (prev?.[k] !== next[k]) {
      out[k] = next[k];
      any = true;
    }
  }
  for (const k of Object.keys(prev ?? {})) {
    if (!(k in next)) {
      out[k] = undefined;
      any = true;
    }
  }
  return any ? out : undefined;
}

const isPlainRecord = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
};

/**
 * With detail, a reducer's new state as a `context` event: the top-level keys that changed
 * (a state that is not a plain object whole, under the key ''). Monitors never see these
 * events (see observe), so a run with detail fails exactly where one without does.
 */
function recordContext(d: Draft, actor: string, prev: unknown, next: unknown): void {
  if (prev === next) return;
  const changed = isPlainRecord(next) && (prev === undefined || isPlainRecord(prev)) ? contextDiff(prev, next) : { '': next };
  if (changed) d.events.push({ kind: 'context', actor, changed });
}

/** Hands `msg` from `from` to actor `to` and applies what it does. */
function receive(d: Draft, from: number, to: number, msg: Message, outcome: string | undefined): void {
  const sc = d.sc;
  const actor = sc.actorList[to]!;
  if (d.stat(to) !== 'up') {
    d.events.push({ kind: 'dropped', from: actorName(sc, from), to: actor.id, msg, reason: `receiver is ${d.stat(to)}` });
    return;
  }
  if (actor.kind === 'external') return;
  if (actor.kind === 'reducer') {
    const state = d.snap(to);
    const key = d.memo !== undefined && typeof state === 'object' && state !== null ? state : undefined;
    let r = key && d.memo!.getReduced<ReducerResult<unknown>>(to, key, msg, from, outcome, d.now);
    if (!r) {
      try {
        r = actor.logic.receive(state, msg, { self: actor.id, from: actorName(sc, from), outcome, now: d.now });
      } catch (e) {
        const bad = modelError(actor, e);
        if (bad) throw bad;
        d.setStat(to, 'error');
        d.events.push({ kind: 'error', actor: actor.id, message: `receive('${msg.type}') threw: ${errText(e)}` });
        return;
      }
      if (key) d.memo!.setReduced(to, key, msg, from, outcome, d.now, r);
    }
    if (r.unhandled) {
      d.events.push(unhandledEvent(d, actor, from, msg, 'reducer'));
      return;
    }
    d.setSnap(to, r.state);
    if (d.detail) recordContext(d, actor.id, state, r.state);
    if (r.events) for (const ev of r.events) d.events.push(ev);
    if (r.send) for (const s of r.send) send(d, to, targetOf(sc, actor, s), s.msg);
    return;
  }
  const prev = d.snap(to) as AnyMachineSnapshot;
  let res = d.memo?.get<MemoStep>(to, prev, msg);
  if (res === undefined) {
    const same = d.memo?.getSame<StepResult>(to, prev, msg);
    if (same !== undefined) {
      // An equal pair stepped before, from another snapshot object: its result. Its
      // "unchanged" (its own snapshot) means this one unchanged; otherwise the step's
      // events compare its next snapshot with the one it was stepped from (which parts
      // of the context are new objects), as they did for that pair.
      const from = same.snapshot as AnyMachineSnapshot;
      res = same.res.snapshot === from ? { ...same.res, snapshot: prev } : { ...same.res, from };
    } else {
      try {
        res = actor.stepper.step(prev, msg);
      } catch (e) {
        const bad = modelError(actor, e);
        if (bad) throw bad;
        d.setStat(to, 'error');
        d.events.push({ kind: 'error', actor: actor.id, message: `on '${msg.type}' in state '${snapshotStateText(prev)}': ${errText(e)}` });
        return;
      }
      d.memo?.setSame(to, prev, msg, res);
    }
    d.memo?.set(to, prev, msg, res);
  }
  if (res.unhandled) {
    const state = snapshotStateText(prev);
    d.events.push(unhandledEvent(d, actor, from, msg, prev.status === 'active' ? state : `${state} (${prev.status})`));
    return;
  }
  settle(d, actor, res.from ?? prev, res.snapshot, res.actions);
}

/** A machine step as the memo keeps it: `from`, when it was stepped from an equal snapshot object other than the actor's. */
type MemoStep = StepResult & { readonly from?: AnyMachineSnapshot };

/** Commits a machine's next snapshot, reports the state change, then runs its actions. */
function settle(d: Draft, actor: CompiledActor & { kind: 'machine' }, prev: AnyMachineSnapshot | undefined, next: AnyMachineSnapshot, actions: readonly CollectedAction[]): void {
  d.setSnap(actor.index, next);
  if (next.status === 'error') {
    d.setStat(actor.index, 'error');
    d.events.push({ kind: 'error', actor: actor.id, message: `machine entered error status: ${errText(next.error)}` });
  }
  if (prev !== next) {
    const fromV = prev ? snapshotStateText(prev) : '(start)';
    const toV = snapshotStateText(next);
    const changed = d.detail ? contextDiff(prev?.context, next.context) : undefined;
    if (fromV !== toV || prev?.context !== next.context) {
      d.events.push(changed ? { kind: 'state', actor: actor.id, from: fromV, to: toV, changed } : { kind: 'state', actor: actor.id, from: fromV, to: toV });
    }
  }
  interpret(d, actor, actions);
}

/** Brings actor `i` to its initial state (at the start, and on restart). */
function boot(d: Draft, i: number): void {
  const actor = d.sc.actorList[i]!;
  if (actor.kind === 'reducer') {
    const state = actor.logic.init(actor.input);
    d.setSnap(i, state);
    if (d.detail) recordContext(d, actor.id, undefined, state);
    return;
  }
  if (actor.kind === 'external') {
    d.setSnap(i, undefined);
    return;
  }
  let res = d.memo?.getStart<StepResult>(i);
  if (res === undefined) {
    try {
      res = actor.stepper.initial(actor.input);
    } catch (e) {
      const bad = modelError(actor, e);
      if (bad) throw bad;
      d.setStat(i, 'error');
      d.events.push({ kind: 'error', actor: actor.id, message: `initial state threw: ${errText(e)}` });
      return;
    }
    d.memo?.setStart(i, res);
  }
  settle(d, actor, undefined, res.snapshot, res.actions);
}

function observe(sc: Scenario, base: World, d: Draft): World {
  if (sc.monitorDefs.length === 0 || d.events.length === 0) return d.finish(base.monitors, base.failure);
  let failure = base.failure;
  const monitors = base.monitors.slice();
  const provisional = d.finish(monitors, failure);
  const q = queryOf(sc, provisional);
  let fails: TraceEvent[] | undefined;
  for (let m = 0; m < sc.monitorDefs.length; m++) {
    const def = sc.monitorDefs[m]!;
    let s = monitors[m];
    for (const ev of d.events) {
      if (ev.kind === 'context') continue;
      const r = def.observe(s, ev, q);
      if (r && typeof r === 'object' && 'fail' in r && typeof (r as { fail: unknown }).fail === 'string') {
        const message = (r as { fail: string }).fail;
        if (!failure) failure = { monitor: sc.monitorNames[m]!, message };
        (fails ??= []).push({ kind: 'monitor-fail', monitor: sc.monitorNames[m]!, message });
        break;
      }
      s = r;
    }
    monitors[m] = s;
  }
  if (fails) for (const f of fails) d.events.push(f);
  // Keep the parent's array when no monitor moved, so the checker's fingerprint can reuse its hash.
  let same = true;
  for (let m = 0; same && m < monitors.length; m++) same = monitors[m] === base.monitors[m];
  // The provisional world is this step's own: it becomes the result (the query that
  // showed it to the monitors is not kept), with the failure and the monitors' array.
  const out = provisional as { -readonly [K in keyof World]: World[K] };
  out.monitors = same ? base.monitors : monitors;
  out.failure = failure;
  return out;
}

/** The world before any step: every actor in its initial state, start messages in flight. */
export function initialWorld(sc: Scenario, opts: ApplyOptions = {}): ApplyResult {
  const n = sc.ids.length;
  const empty: World = {
    snaps: new Array(n).fill(undefined),
    status: new Array<ActorStatus>(n).fill('up'),
    inbox: new Array(n).fill(EMPTY),
    now: 0,
    timers: [],
    faults: 0,
    monitors: sc.monitorDefs.map((m) => m.init),
    failure: undefined,
    anon: 0,
    ...(sc.inputSlots > 0 ? { inputs: new Array<number>(sc.inputSlots).fill(0) } : {}),
  };
  const d = new Draft(sc, empty, opts.detail ?? true);
  d.memo = opts.memo;
  for (let i = 0; i < n; i++) boot(d, i);
  for (const s of sc.start ?? []) {
    const from = s.from === undefined || s.from === 'env' ? sc.envIndex : sc.index.get(s.from)!;
    send(d, from, sc.index.get(s.to)!, s.msg);
  }
  const world = observe(sc, empty, d);
  return { world, events: d.events };
}

/** Applies one step. The step must be one `enabled` returned for this world (or an `input`). */
export function apply(sc: Scenario, w: World, step: Step, opts: ApplyOptions = {}): ApplyResult {
  try {
    return applyStep(sc, w, step, opts);
  } catch (e) {
    if (isModelError(e) && e.world === undefined) placeModelError(sc, w, step, e);
    throw e;
  }
}

/** Says where a model error raised inside a step happened: the step, the message handled, the receiver's state. */
function placeModelError(sc: Scenario, w: World, step: Step, e: ModelError): void {
  e.world = w;
  e.step = step.id;
  let where = `at step '${step.id}'`;
  if (step.kind === 'deliver' || step.kind === 'input') {
    const to = sc.actorList[step.to]!;
    const head = step.kind === 'deliver' ? w.inbox[step.to]!.find((c) => c.from === step.from)?.queue[0] : step.msg;
    const snap = w.snaps[step.to];
    const state = isMachineSnapshot(snap) ? ` in state '${snapshotStateText(snap as AnyMachineSnapshot)}'` : '';
    where = `while '${to.id}'${state} handled '${String(head?.type)}' from '${actorName(sc, step.from)}' (step '${step.id}')`;
  }
  e.message = `${e.message}; ${where}`;
}

function applyStep(sc: Scenario, w: World, step: Step, opts: ApplyOptions): ApplyResult {
  const d = new Draft(sc, w, opts.detail ?? true);
  d.memo = opts.memo;
  switch (step.kind) {
    case 'deliver': {
      const msg = d.dequeue(step.from, step.to);
      if (step.outcome !== undefined) {
        d.faults++;
        d.events.push({ kind: 'fault', fault: step.outcome, actor: sc.ids[step.to]!, detail: `${msg.type} from ${actorName(sc, step.from)}` });
      }
      d.events.push(
        step.outcome === undefined
          ? { kind: 'deliver', from: actorName(sc, step.from), to: sc.ids[step.to]!, msg }
          : { kind: 'deliver', from: actorName(sc, step.from), to: sc.ids[step.to]!, msg, outcome: step.outcome },
      );
      receive(d, step.from, step.to, msg, step.outcome);
      break;
    }
    case 'timer': {
      // The step names its timer by position; a step taken from another world (a
      // cached or reordered schedule) may point elsewhere, so check the id and
      // fall back to finding the timer by it.
      let k = step.timer;
      if (!(k < w.timers.length && timerStepId(sc, w.timers[k]!) === step.id)) k = w.timers.findIndex((x) => timerStepId(sc, x) === step.id);
      if (k < 0) throw new ScenarioError(`timer step '${step.id}' is not pending in this world; pending: ${w.timers.map((x) => timerStepId(sc, x)).join(', ') || '(none)'}`);
      const t = w.timers[k]!;
      if (t.due !== w.timers[0]!.due) throw new ScenarioError(`timer step '${step.id}' is not due: '${timerStepId(sc, w.timers[0]!)}' fires first, at ${w.timers[0]!.due}`);
      const rest = w.timers.slice();
      rest.splice(k, 1);
      d.setTimers(rest);
      if (t.due > d.now) d.now = t.due;
      d.events.push({ kind: 'timer-fire', actor: sc.ids[t.owner]!, id: t.id, at: d.now, msg: t.event });
      if (t.to === t.owner) receive(d, t.owner, t.to, t.event, undefined);
      else if (t.to === sc.envIndex) d.events.push({ kind: 'output', from: sc.ids[t.owner]!, msg: t.event });
      else {
        d.events.push({ kind: 'send', from: sc.ids[t.owner]!, to: actorName(sc, t.to), msg: t.event });
        d.enqueue(t.owner, t.to, t.event);
      }
      break;
    }
    case 'crash': {
      d.faults++;
      d.setStat(step.actor, 'crashed');
      d.setChannels(step.actor, EMPTY);
      const kept = d.timerList().filter((t) => t.owner !== step.actor);
      if (kept.length !== d.timerList().length) d.setTimers(kept);
      d.events.push({ kind: 'fault', fault: 'crash', actor: sc.ids[step.actor]! });
      break;
    }
    case 'restart': {
      d.setStat(step.actor, 'up');
      d.events.push({ kind: 'fault', fault: 'restart', actor: sc.ids[step.actor]! });
      boot(d, step.actor);
      break;
    }
    case 'drop': {
      d.faults++;
      const msg = d.dequeue(step.from, step.to);
      d.events.push({ kind: 'fault', fault: 'drop', actor: sc.ids[step.to]!, detail: `${msg.type} from ${actorName(sc, step.from)}` });
      d.events.push({ kind: 'dropped', from: actorName(sc, step.from), to: sc.ids[step.to]!, msg, reason: 'fault: message lost' });
      break;
    }
    case 'input': {
      if (step.offered === undefined) {
        send(d, step.from, step.to, step.msg);
        break;
      }
      // The step carries its declaration's index: no search on the delivery path.
      const inp = sc.inputList[step.offered];
      if (inp?.step.id !== step.id) throw new ScenarioError(`input step '${step.id}' is not one of scenario '${sc.name}''s inputs`);
      if (inp.slot >= 0) d.countInput(inp.slot);
      d.events.push({ kind: 'deliver', from: ENV, to: sc.ids[step.to]!, msg: step.msg });
      receive(d, step.from, step.to, step.msg, undefined);
      break;
    }
    case 'tick': {
      if (step.to < d.now) throw new ScenarioError(`time cannot go back: tick to ${step.to} at ${d.now}`);
      d.now = step.to;
      d.events.push({ kind: 'tick', at: step.to });
      break;
    }
  }
  return { world: observe(sc, w, d), events: d.events };
}
