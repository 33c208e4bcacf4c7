// The checkpoint writer (CheckpointBatches + PendingCheckpoints, docs/airflow.md) as a
// pure state machine: rounds of W outcomes in completion order, one key per round
// under a lock, a failed write carried into the next, n advancing only on a
// confirmed write. The overwrite-one-key variant (rejected by the seed) shares it.
//
// Completion order decides which W outcomes make a round, not their order inside it:
// a try records an index once and every reader folds a value by index. So pending
// entries, a carry and the new part of a value are kept in index order, one form per
// set (in completion order every order of the same outcomes was a different state).
import type { Entry } from './config.ts';

export interface Write {
  readonly n: number;
  readonly value: readonly Entry[];
  /** The index whose record closed the round (its coroutine awaits the write), or -1. */
  readonly closer: number;
}

export interface WriterState {
  readonly nextN: number;
  readonly pending: readonly Entry[];
  readonly carried: readonly Entry[];
  /** The write holding the writer lock. */
  readonly inflight: Write | null;
  /** Cuts waiting for the lock, with the index that closed each. */
  readonly waiting: readonly { readonly cut: readonly Entry[]; readonly closer: number }[];
  /** overwrite-one-key: every entry the key holds so far. */
  readonly all: readonly Entry[] | null;
}

export function newWriter(nextN: number, all: readonly Entry[] | null = null): WriterState {
  return { nextN, pending: [], carried: [], inflight: null, waiting: [], all };
}

/** Entries in index order: the one form of a set of one try's entries. */
const byIndex = (xs: readonly Entry[]): Entry[] => [...xs].sort((p, q) => p.i - q.i);

function valueOf(w: WriterState, cut: readonly Entry[]): readonly Entry[] {
  return w.all === null ? byIndex([...w.carried, ...cut]) : [...w.all, ...byIndex([...w.carried, ...cut])];
}

function begin(w: WriterState, cut: readonly Entry[], closer: number): { w: WriterState; start: Write } {
  const start = { n: w.nextN, value: valueOf(w, cut), closer };
  return { w: { ...w, inflight: start }, start };
}

/** Records one outcome; when W are pending, cuts a round and starts its write if the lock is free. */
export function record(w: WriterState, e: Entry, W: number, closer: number): { w: WriterState; start: Write | null } {
  const pending = byIndex([...w.pending, e]);
  if (pending.length < W) return { w: { ...w, pending }, start: null };
  // A round is cut as soon as W are pending, so a cut takes all of them (the one record
  // that cuts nothing, a fail-fast's with no W, is the try's last).
  if (pending.length > W) throw new Error(`round writer: ${pending.length} entries pending with W = ${W}; a round is cut at W`);
  const cut = pending.slice(0, W);
  const next = { ...w, pending: pending.slice(W) };
  if (next.inflight !== null) return { w: { ...next, waiting: [...next.waiting, { cut, closer }] }, start: null };
  return begin(next, cut, closer);
}

function takeNext(w: WriterState): { w: WriterState; start: Write | null } {
  const [first, ...rest] = w.waiting;
  if (first === undefined) return { w, start: null };
  return begin({ ...w, waiting: rest }, first.cut, first.closer);
}

/** The write of key `inflight.n` was confirmed. */
export function writeOk(w: WriterState): { w: WriterState; start: Write | null } {
  const done = w.inflight!;
  const all = w.all === null ? null : done.value;
  return takeNext({ ...w, nextN: w.all === null ? w.nextN + 1 : w.nextN, carried: [], inflight: null, all });
}

/** The write failed (an Exception): its entries are carried into the next write. */
export function writeErr(w: WriterState): { w: WriterState; start: Write | null } {
  const done = w.inflight!;
  const carried = w.all === null ? done.value : done.value.slice(w.all.length);
  return takeNext({ ...w, carried, inflight: null });
}

/** A BaseException (cancellation) during the write, and cuts still waiting for the lock: all kept for the rest. */
export function cancelWrites(w: WriterState): WriterState {
  let carried = w.carried;
  if (w.inflight !== null) carried = w.all === null ? w.inflight.value : w.inflight.value.slice(w.all.length);
  for (const c of w.waiting) carried = [...carried, ...c.cut];
  return { ...w, carried: byIndex(carried), inflight: null, waiting: [] };
}

/** After the loop: what the sync rest write carries (nothing to write if empty). */
export function restOf(w: WriterState): readonly Entry[] {
  const fresh = byIndex([...w.carried, ...w.pending]);
  if (fresh.length === 0) return [];
  return w.all === null ? fresh : [...w.all, ...fresh];
}

/** Entries recorded but not durable: the kill window (docs/airflow.md). An in-flight value already holds the carry. */
export function killWindow(w: WriterState): readonly Entry[] {
  const head = w.inflight === null ? w.carried : w.all === null ? w.inflight.value : w.inflight.value.slice(w.all.length);
  return [...head, ...w.waiting.flatMap((c) => c.cut), ...w.pending];
}
