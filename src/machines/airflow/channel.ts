// The request channel from the task process to its supervisor (comms.py): one
// request at a time. An async send waits for the lock (FIFO); a sync send while an
// async one holds it is DeadlockImminentError, never a hang (ordering O1/O3, INV-1).

export type Role =
  | 'marker-read' // phase A: the completion marker
  | 'batch-read' // phase A: _iterable_batch_<n>
  | 'all-read' // phase A, overwrite-one-key design
  | 'index-read' // old design: _iterable_<i>
  | 'since-set' // phase A after a clear-after-success: {completed:false, since}
  | 'probe-read' // phase A, rerunNumbering=appendAfterExisting: find the first free n
  | 'round' // phase B: an async round write
  | 'ckpt' // old design: one index's checkpoint write
  | 'push' // an XCom push (or re-push on replay)
  | 'rest' // phase C: the sync rest write
  | 'marker-set'; // phase C: the completion marker

export interface Req {
  readonly rid: number;
  readonly op: 'get' | 'set' | 'xcom';
  readonly key: string;
  readonly role: Role;
  readonly sync: boolean;
  readonly value?: unknown;
  readonly bytes: number;
  /** The index this request belongs to (index-read, ckpt, push). */
  readonly i?: number;
  /** The batch number (batch-read, round, rest). */
  readonly n?: number;
}

export interface ChannelState {
  /** The request holding the lock, until its response is consumed on the loop. */
  readonly holder: Req | null;
  /** True when the holder's coroutine was cancelled: its response is discarded. */
  readonly orphan: boolean;
  readonly waiters: readonly Req[];
}

export const IDLE: ChannelState = { holder: null, orphan: false, waiters: [] };

export class DeadlockImminentError extends Error {
  override name = 'DeadlockImminentError';
}

/** Async send: take the lock if free (the request goes out now), else queue FIFO. */
export function asend(ch: ChannelState, req: Req): { ch: ChannelState; out: Req | null } {
  if (ch.holder === null) return { ch: { holder: req, orphan: false, waiters: ch.waiters }, out: req };
  return { ch: { ...ch, waiters: [...ch.waiters, req] }, out: null };
}

/** Sync send: only when nobody holds the channel. */
export function syncSend(ch: ChannelState, req: Req): { ch: ChannelState; out: Req } | { error: DeadlockImminentError } {
  if (ch.holder !== null || ch.waiters.length > 0) {
    return { error: new DeadlockImminentError(`sync ${req.op} of '${req.key}' while request ${ch.holder?.rid ?? ch.waiters[0]!.rid} holds the channel`) };
  }
  return { ch: { holder: req, orphan: false, waiters: [] }, out: req };
}

/** The response to the holder was consumed: release, and hand the lock to the next waiter. */
export function release(ch: ChannelState): { ch: ChannelState; out: Req | null } {
  const [next, ...rest] = ch.waiters;
  if (next === undefined) return { ch: IDLE, out: null };
  return { ch: { holder: next, orphan: false, waiters: rest }, out: next };
}

/**
 * Cancels the waiting requests that `drop` selects, and orphans the holder if it
 * is selected. With the H5 guard the holder keeps the lock until its response
 * arrives; without it the lock is freed at once (the H5 hazard).
 */
export function cancel(ch: ChannelState, drop: (r: Req) => boolean, h5Guard: boolean): ChannelState {
  const waiters = ch.waiters.filter((r) => !drop(r));
  if (ch.holder !== null && drop(ch.holder)) {
    return h5Guard ? { holder: ch.holder, orphan: true, waiters } : { holder: null, orphan: false, waiters };
  }
  return { ...ch, waiters };
}

export function isIdle(ch: ChannelState): boolean {
  return ch.holder === null && ch.waiters.length === 0;
}
