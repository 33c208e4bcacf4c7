// Partial-order reduction by sleep sets (Godefroid 1996), with state caching.
//
// Independence. Two deliveries to *different* receivers commute: each changes only
// its receiver's snapshot and status, removes the head of one of its receiver's
// inbound channels and appends to channels its receiver sends on; neither can
// disable the other. The same holds for `drop` faults (a receiver's inbound head).
// Everything else is treated as dependent on everything:
// - timer steps advance the global clock, which deliveries read (`now`);
// - crash and restart reset an actor and its whole inbox, which any sender touches;
// - two fault steps share the fault budget (one may disable the other);
// - monitors see events in order. A scenario with monitors gets POR only when every
//   monitor declares `watches(event) -> boolean` (the events it may react to; all
//   others must leave its state unchanged), and then a step that produced a watched
//   event is dependent on everything. Without `watches`, POR is off for that scenario.
// Deliveries may also both name anonymous delayed sends from the global `anon`
// counter; those names are not state (see fingerprint.ts), so they still commute.
//
// Sleep sets prune transitions, never states: every reachable state is still
// visited, so invariants (checked on every state) stay sound, and fewer transitions
// (and fewer generated states) are computed. With state caching, a state met again
// with a sleep set that is not a superset of the one it was explored with must
// explore the difference; the visited set keeps a 32-bit over-approximation of each
// state's sleep set (one bit per hashed step id) for exactly that check.
import type { MonitorDef, Scenario, Step, TraceEvent } from '../actors/index.ts';

type Watches = (e: TraceEvent) => boolean;

export interface PorContext {
  readonly enabled: boolean;
  /** Why POR is off, when it was asked for. */
  readonly reason?: string;
  readonly watches: readonly Watches[];
}

export function porContext(sc: Scenario, wanted: boolean): PorContext {
  if (!wanted) return { enabled: false, watches: [] };
  const watches: Watches[] = [];
  for (let m = 0; m < sc.monitorDefs.length; m++) {
    const w = (sc.monitorDefs[m] as MonitorDef & { watches?: Watches }).watches;
    if (typeof w !== 'function') {
      return { enabled: false, reason: `monitor '${sc.monitorNames[m]}' does not declare watches(event), so every step may be visible to it`, watches: [] };
    }
    watches.push(w);
  }
  return { enabled: true, watches };
}

/** True when a step's events may change some monitor (then it commutes with nothing). */
export function visible(por: PorContext, events: readonly TraceEvent[]): boolean {
  if (por.watches.length === 0) return false;
  for (const e of events) for (const w of por.watches) if (w(e)) return true;
  return false;
}

function receiver(s: Step): number {
  return s.kind === 'deliver' || s.kind === 'drop' ? s.to : -1;
}

function isFaultStep(s: Step): boolean {
  return s.kind === 'drop' || (s.kind === 'deliver' && s.outcome !== undefined);
}

/** Static independence of two steps (monitor visibility is checked separately). */
export function independent(a: Step, b: Step): boolean {
  const ra = receiver(a),
    rb = receiver(b);
  if (ra < 0 || rb < 0 || ra === rb) return false;
  return !(isFaultStep(a) && isFaultStep(b));
}

const bits = new Map<string, number>();
/** The step's bit in a sleep-set mask. */
export function stepBit(id: string): number {
  let b = bits.get(id);
  if (b === undefined) {
    let h = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
    b = 1 << ((h ^ (h >>> 15)) & 31);
    if (bits.size < 100_000) bits.set(id, b);
  }
  return b;
}

export function maskOf(steps: readonly Step[]): number {
  let m = 0;
  for (const s of steps) m |= stepBit(s.id);
  return m;
}

export function inSet(s: Step, set: readonly Step[]): boolean {
  for (const x of set) if (x.id === s.id) return true;
  return false;
}

/** The sleep set after taking `t` (not visible) from a state with sleep set `sleep` and already explored siblings `done`. */
export function nextSleep(sleep: readonly Step[], done: readonly Step[], t: Step, tVisible: boolean): Step[] {
  if (tVisible || receiver(t) < 0) return [];
  const out: Step[] = [];
  for (const u of sleep) if (independent(u, t)) out.push(u);
  for (const u of done) if (independent(u, t)) out.push(u);
  return out;
}
