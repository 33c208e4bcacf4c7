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
// counter; those names are not state (see fingerprint/fingerprint.ts), so they still commute.
//
// Sleep sets prune transitions, never states: every reachable state is still
// visited, so invariants (checked on every state) stay sound, and fewer transitions
// (and fewer generated states) are computed. With state caching, a state met again
// with a sleep set that is not a superset of the one it was explored with must
// explore the difference; the visited set keeps an 8-bit mark of each state's sleep
// set over its enabled steps (exact up to 7 enabled steps; beyond, one bit stands for
// all the rest, so a revisit explores a superset of what the exact algorithm would,
// which is sound).
import type { Scenario, Step, TraceEvent } from '../../actors/index.ts';

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
    const w = sc.monitorDefs[m]!.watches;
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

/** Bits of a sleep-set mark: bit j for the j-th enabled step, the last bit for all the rest. */
export const MARK_BITS = 8;

/**
 * A state's sleep set as a mark over its enabled steps (`enabled` order is fixed
 * for a world): bit j set when the j-th enabled step is asleep; the last bit stands
 * for every step from position MARK_BITS - 1 on (an over-approximation).
 */
export function markOf(sleep: readonly Step[], all: readonly Step[]): number {
  if (sleep.length === 0) return 0;
  let m = 0;
  for (let j = 0; j < all.length; j++) if (inSet(all[j]!, sleep)) m |= 1 << Math.min(j, MARK_BITS - 1);
  return m;
}

/** Steps a revisit must explore: possibly asleep at the first visit (per `mark`), not asleep now. */
export function wokenSteps(mark: number, all: readonly Step[], sleep: readonly Step[]): Step[] {
  const out: Step[] = [];
  for (let j = 0; j < all.length; j++) {
    if ((mark & (1 << Math.min(j, MARK_BITS - 1))) !== 0 && !inSet(all[j]!, sleep)) out.push(all[j]!);
  }
  return out;
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
