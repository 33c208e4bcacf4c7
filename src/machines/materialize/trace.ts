// The arrangement (a `TraceBundle`: oks and errs traces of one index on one
// worker): frontiers, the compaction frontier, peek holds, immutable batches and
// the physical merge that rewrites them. Pure functions over `Arrangement`.
import type { Arrangement, BatchArrival, ErrUpdate, Snapshot, Time, Update } from './types.ts';

export interface ArrangementInit {
  readonly updates?: readonly Update[];
  readonly errs?: readonly ErrUpdate[];
  readonly upper: Time;
  readonly since?: Time;
}

export function arrangement(init: ArrangementInit): Arrangement {
  const since = init.since ?? 0;
  return {
    oks: init.updates && init.updates.length > 0 ? [{ id: 1, updates: sortUpdates(init.updates) }] : [],
    errs: init.errs && init.errs.length > 0 ? [{ id: 2, updates: sortErrs(init.errs) }] : [],
    oksUpper: init.upper,
    errsUpper: init.upper,
    oksSince: since,
    errsSince: since,
    allowed: since,
    holds: [],
    nextBatchId: 3,
    mergedAt: since,
  };
}

function sortUpdates(us: readonly Update[]): Update[] {
  return [...us].sort((a, b) => cmp(a.key, b.key) || cmp(a.val, b.val) || a.time - b.time);
}
function sortErrs(us: readonly ErrUpdate[]): ErrUpdate[] {
  return [...us].sort((a, b) => cmp(a.key, b.key) || a.time - b.time);
}
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `compaction_frontier()`: the join (the later) of the oks and errs logical compaction frontiers. */
export function compactionFrontier(a: Arrangement): Time {
  return Math.max(a.oksSince, a.errsSince);
}

export type Gate = { readonly kind: 'not-ready' } | { readonly kind: 'compacted'; readonly message: string } | { readonly kind: 'ok' };

/** The gates of docs/materialize.md, in order: oks upper, errs upper, compaction frontier. */
export function gate(a: Arrangement, t: Time): Gate {
  if (a.oksUpper <= t) return { kind: 'not-ready' };
  if (a.errsUpper <= t) return { kind: 'not-ready' };
  const f = compactionFrontier(a);
  if (!(f <= t)) return { kind: 'compacted', message: compactionError(f, t) };
  return { kind: 'ok' };
}

export function compactionError(frontier: Time, t: Time): string {
  return `Arrangement compaction frontier ([${frontier}]) is beyond the time of the attempted read (${t})`;
}

/** Takes cursors: clones the batch lists (the `Arc`s), nothing else. */
export function snapshot(a: Arrangement, spare: boolean): Snapshot {
  return { oks: a.oks, errs: a.errs, spare };
}

/** The lowest time any handle holds: the controller's allowance and every pending peek. */
function holdFloor(a: Arrangement): Time {
  return a.holds.length > 0 ? Math.min(a.allowed, a.holds[0]!) : a.allowed;
}

/** Logical compaction follows the meet of all handles, and never goes back. */
function recompact(a: Arrangement): Arrangement {
  const f = holdFloor(a);
  const oksSince = Math.max(a.oksSince, f);
  const errsSince = Math.max(a.errsSince, f);
  return oksSince === a.oksSince && errsSince === a.errsSince ? a : { ...a, oksSince, errsSince };
}

export function allowCompaction(a: Arrangement, frontier: Time): Arrangement {
  return frontier <= a.allowed ? a : recompact({ ...a, allowed: frontier });
}

/** A pending index peek clones the trace handle with logical compaction at `t`. */
export function addHold(a: Arrangement, t: Time): Arrangement {
  const holds = [...a.holds, t].sort((x, y) => x - y);
  return { ...a, holds };
}

export function dropHold(a: Arrangement, t: Time): Arrangement {
  const k = a.holds.indexOf(t);
  if (k < 0) return a;
  const holds = a.holds.slice();
  holds.splice(k, 1);
  return recompact({ ...a, holds });
}

/** The arrangement operator applies new data: a fresh immutable batch, then the upper moves. */
export function applyArrival(a: Arrangement, b: BatchArrival): Arrangement {
  let next = a;
  let id = a.nextBatchId;
  if (b.updates && b.updates.length > 0) next = { ...next, oks: [...next.oks, { id: id++, updates: sortUpdates(b.updates) }] };
  if (b.errs && b.errs.length > 0) next = { ...next, errs: [...next.errs, { id: id++, updates: sortErrs(b.errs) }] };
  return { ...next, nextBatchId: id, oksUpper: Math.max(next.oksUpper, b.upper), errsUpper: Math.max(next.errsUpper, b.upper) };
}

/**
 * Physical compaction (trace maintenance): merges all batches into one, advancing
 * times below `since` to `since` and consolidating. New batch objects; batches a
 * walk pinned before are untouched.
 */
export function maintain(a: Arrangement): Arrangement {
  const since = compactionFrontier(a);
  if (since === a.mergedAt && a.oks.length <= 1 && a.errs.length <= 1) return a;
  let id = a.nextBatchId;
  const oks = consolidate(a.oks.flatMap((b) => b.updates), since, (u) => `${u.key}\u0000${u.val}`) as Update[];
  const errs = consolidate(a.errs.flatMap((b) => b.updates), since, (u) => u.key) as ErrUpdate[];
  return {
    ...a,
    oks: oks.length > 0 ? [{ id: id++, updates: sortUpdates(oks) }] : [],
    errs: errs.length > 0 ? [{ id: id++, updates: sortErrs(errs) }] : [],
    nextBatchId: id,
    mergedAt: since,
  };
}

function consolidate<U extends { time: Time; diff: number }>(us: readonly U[], since: Time, keyOf: (u: U) => string): U[] {
  const acc = new Map<string, U>();
  for (const u of us) {
    const time = Math.max(u.time, since);
    const k = `${keyOf(u)}\u0001${time}`;
    const prev = acc.get(k);
    acc.set(k, prev ? { ...prev, diff: prev.diff + u.diff } : { ...u, time });
  }
  return [...acc.values()].filter((u) => u.diff !== 0);
}

