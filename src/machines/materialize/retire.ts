// Retirement and answers: a peek's response to the client, the outcome counters,
// the slot ledger of offloaded walks, and the two ways a pending peek ends without
// a walk on the worker: its offloaded answer or its stash upload comes back, or it
// is cancelled.
import { dropHold } from './trace.ts';
import { stashContent } from './walk.ts';
import { CLIENT, POOL, STASH, stashKey, type PeekResponse, type Placement, type WalkResult } from './types.ts';
import { inStep, removePending, type Effect, type Pending, type Turn, type WorkerCtx } from './worker-ctx.ts';

/** The answer of an offloaded peek, when it sits in its oneshot. */
export function oneshotOf(c: WorkerCtx, uuid: string): WalkResult | undefined {
  return c.results.find((x) => x.uuid === uuid);
}

/** The reply of a stashing peek's upload, when it came back. */
export function uploadReplyOf(c: WorkerCtx, uuid: string): WorkerCtx['stashReplies'][number] | undefined {
  const key = stashKey(uuid, c.w);
  return c.stashReplies.find((x) => x.key === key);
}

/** An offloaded peek whose answer sits in its oneshot: retire it (not a unit of time). */
export function retireOffload(t: Turn, p: Pending & { kind: 'offload' }): void {
  const uuid = p.peek.uuid;
  const r = oneshotOf(t.c, uuid)!;
  t.set({ results: t.c.results.filter((x) => x !== r) });
  removePending(t, uuid);
  if (p.guard) release(t, uuid);
  t.emit({ type: 'Retire', w: t.c.w, uuid, inStep: inStep(t.c) });
  outcome(t, 'offloaded', r.response);
  respond(t, uuid, r.response);
}

/** A stashing peek whose upload replied: answer with the stash shard or the upload error. */
export function retireStash(t: Turn, p: Pending & { kind: 'stash' }): void {
  const uuid = p.peek.uuid;
  const r = uploadReplyOf(t.c, uuid)!;
  t.set({ stashReplies: t.c.stashReplies.filter((x) => x !== r) });
  // The pump reads a fresh iterator over a clone of the bundle, still held at t.
  const c = stashContent(t.c.trace.oks, p.peek);
  const response: PeekResponse = r.ok
    ? { kind: 'stashed', shard: `s${uuid}`, rows: c.rows.length, bytes: c.bytes, content: c.rows }
    : { kind: 'error', message: `peek response stash upload failed: ${r.message ?? 'unknown'}` };
  t.emit({ type: 'StashUploadEnd', w: t.c.w, uuid, ok: r.ok });
  t.emit({ type: 'WalkAnswer', w: t.c.w, uuid, peek: p.peek, snap: p.snap, stash: t.c.cfg.stash, response, substrate: p.placement });
  removePending(t, uuid);
  t.set({ trace: dropHold(t.c.trace, p.peek.t) });
  outcome(t, p.placement, response);
  respond(t, uuid, response);
}

/** `handle_cancel_peek`: remove the entry, answer Canceled at once; a running blocking walk keeps going. */
export function cancel(t: Turn, uuid: string): void {
  const p = t.c.pending.find((x) => x.peek.uuid === uuid);
  if (!p) return;
  removePending(t, uuid);
  if (p.kind !== 'offload') t.set({ trace: dropHold(t.c.trace, p.peek.t) });
  if (p.kind !== 'index') t.set({ walks: { ...t.c.walks, canceled: t.c.walks.canceled + 1 } });
  if (p.kind === 'offload') {
    if (p.guard) release(t, uuid);
    t.set({ results: t.c.results.filter((r) => r.uuid !== uuid) });
    t.send(POOL, { type: 'AbandonWalk', w: t.c.w, uuid });
  }
  if (p.kind === 'stash') {
    t.set({ stashReplies: t.c.stashReplies.filter((r) => r.key !== stashKey(uuid, t.c.w)) });
    t.send(STASH, { type: 'stash.cancel', uuid: stashKey(uuid, t.c.w) });
  }
  t.emit({ type: 'Canceled', w: t.c.w, uuid, kind: p.kind });
  respond(t, uuid, { kind: 'canceled' });
}

/** Drops a slot guard: exactly once per claim (a second drop is a ledger fault). */
export function release(t: Turn, uuid: string): void {
  const c = t.c;
  const k = c.held.indexOf(uuid);
  if (k < 0) {
    t.set({ slotFaults: c.slotFaults + 1 });
    return;
  }
  const held = c.held.slice();
  held.splice(k, 1);
  t.set({ held, inFlight: c.inFlight - 1 });
  t.emit({ type: 'SlotRelease', w: c.w, uuid });
}

export function count(t: Turn, placement: Placement): void {
  const k = placement;
  t.set({ counters: { ...t.c.counters, [k]: t.c.counters[k] + 1 } });
}

export function outcome(t: Turn, placement: Placement, r: PeekResponse): void {
  if (r.kind === 'canceled') return;
  t.set({ walks: { ...t.c.walks, outcomes: t.c.walks.outcomes + 1 } });
  if (t.c.cfg.countAt === 'outcome') count(t, placement);
}

export function respondEffect(w: number, uuid: string, response: PeekResponse): Effect {
  return { kind: 'send', to: CLIENT, msg: { type: 'WorkerResponse', w, uuid, response } };
}

export function respond(t: Turn, uuid: string, response: PeekResponse): void {
  t.fx.push(respondEffect(t.c.w, uuid, response));
  t.set({ responded: t.c.responded + 1 });
}
