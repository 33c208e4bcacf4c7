// Gates passed, the placement decision (docs/materialize.md) and the walk on the
// chosen substrate: offloaded to the blocking pool (a slot claimed), inline on the
// worker to completion (diverting to the stash when too large), or in slices (C2).
// Each piece is one action's body; which one runs is the worker chart's choice
// (process_peek in worker.ts), and the durations here are what its guards read.
import { dropHold, compactionFrontier, snapshot } from './trace.ts';
import { stashContent, stashWanted, walk, walkMs, walkPositions, type WalkReport } from './walk.ts';
import { POOL, STASH, stashKey, type PeekResponse, type PeekSpec, type Placement, type Snapshot } from './types.ts';
import { inStep, removePending, replacePending, unit, type Effect, type Pending, type Turn, type WorkerCtx } from './worker-ctx.ts';
import { count, outcome, respond, respondEffect } from './retire.ts';

type Sliced = Pending & { kind: 'sliced' };

/** The placement of a peek that passed its gates: flag off -> inline; a free slot -> offloaded; at the cap -> capped. */
export function placementOf(c: WorkerCtx): Placement {
  return !offloadFlag(c) ? 'inline' : c.inFlight < c.cap ? 'offloaded' : 'capped';
}

function offloadFlag(c: WorkerCtx): boolean {
  return c.cfg.design === 'offload' || c.cfg.design === 'offload-yield';
}

/** The compaction gate refused the read: answer its error; no counter, slot or cursor. */
export function reject(t: Turn, peek: PeekSpec, message: string): void {
  removePending(t, peek.uuid);
  t.set({ trace: dropHold(t.c.trace, peek.t) });
  t.emit({ type: 'Rejected', w: t.c.w, uuid: peek.uuid, inStep: inStep(t.c) });
  respond(t, peek.uuid, { kind: 'error', message });
}

/** The placement decision, as the metric and the dispatch monitor see it. */
function placed(t: Turn, peek: PeekSpec, placement: Placement): void {
  const c = t.c;
  t.emit({
    type: 'Dispatch', w: c.w, uuid: peek.uuid, placement, inStep: inStep(c), t: peek.t, frontier: compactionFrontier(c.trace),
    oksUpper: c.trace.oksUpper, errsUpper: c.trace.errsUpper, inFlight: c.inFlight, cap: c.cap, flag: offloadFlag(c),
  });
  t.set({ walks: { ...c.walks, started: c.walks.started + 1 } });
  if (c.cfg.countAt === 'dispatch') count(t, placement);
}

/** Virtual ms the cursor setup of an offload takes (2 cursors, 3 with the spare one when stash-eligible). */
export function offloadMs(c: WorkerCtx, peek: PeekSpec): number {
  return c.cfg.costs.cursorMs * (stashWanted(peek, c.cfg.stash) ? 3 : 2);
}

/** Claim a slot, take the cursors (a spare one when stash-eligible), drop the hold, spawn. */
export function offload(t: Turn, peek: PeekSpec): void {
  placed(t, peek, 'offloaded');
  const c = t.c;
  const spare = stashWanted(peek, c.cfg.stash);
  const snap = snapshot(c.trace, spare);
  t.set({
    inFlight: c.inFlight + 1,
    held: [...c.held, peek.uuid],
    capAtLastClaim: c.cap,
    trace: dropHold(c.trace, peek.t),
  });
  replacePending(t, { kind: 'offload', peek, guard: c.cfg.slotRelease === 'retire' });
  t.emit({ type: 'SlotClaim', w: c.w, uuid: peek.uuid });
  const spawn: Effect = {
    kind: 'send', to: POOL,
    msg: { type: 'SpawnWalk', w: c.w, peek, snapshot: snap, stash: c.cfg.stash, costs: c.cfg.costs, sliced: c.cfg.design === 'offload-yield', slice: c.cfg.fuel.perPeek },
  };
  unit(t, offloadMs(c, peek), [spawn]);
}

/** A walk on the worker over its current trace: what it reads, what it finds, how long it takes. */
export interface WorkerWalk {
  readonly snap: Snapshot;
  readonly report: WalkReport;
  readonly ms: number;
}

export function workerWalk(c: WorkerCtx, peek: PeekSpec): WorkerWalk {
  const snap = snapshot(c.trace, false);
  const report = walk(snap.oks, snap.errs, peek, c.cfg.stash);
  return { snap, report, ms: walkMs(peek, report.positions, report.rowsEmitted, c.cfg.costs, c.w) + c.cfg.costs.cursorMs * 2 };
}

/** The walk on the worker thread (placements Inline and Capped), to completion. */
export function walkInline(t: Turn, peek: PeekSpec, placement: Placement, ww: WorkerWalk): void {
  placed(t, peek, placement);
  const c = t.c;
  const { snap, report: r, ms } = ww;
  t.emit({ type: 'WalkStart', w: c.w, uuid: peek.uuid, substrate: placement });
  const end: Effect[] = [{ kind: 'emit', msg: { type: 'WalkEnd', w: c.w, uuid: peek.uuid, substrate: placement } }];
  if (r.outcome.kind === 'divert') {
    // Rows so far are thrown away; the peek becomes a stashing peek that keeps its hold.
    replacePending(t, { kind: 'stash', peek, placement, snap });
    const cont = stashContent(snap.oks, peek);
    end.push({ kind: 'emit', msg: { type: 'StashUploadStart', w: c.w, uuid: peek.uuid } });
    end.push({ kind: 'send', to: STASH, msg: { type: 'stash.upload', uuid: stashKey(peek.uuid, c.w), bytes: cont.bytes, rows: cont.rows.length } });
    unit(t, ms, end);
    return;
  }
  const response: PeekResponse = r.outcome.kind === 'rows' ? { kind: 'rows', rows: r.outcome.rows } : { kind: 'error', message: r.outcome.message };
  removePending(t, peek.uuid);
  t.set({ trace: dropHold(t.c.trace, peek.t) });
  end.push({ kind: 'emit', msg: { type: 'WalkAnswer', w: c.w, uuid: peek.uuid, peek, snap, stash: c.cfg.stash, response, substrate: placement } });
  outcome(t, placement, response); // the unit cannot be interrupted: counted when it starts
  end.push(respondEffect(c.w, peek.uuid, response));
  t.set({ responded: t.c.responded + 1 });
  unit(t, ms, end);
}

/** C2: the pending entry of a walk taken in slices (its answer is known; the slices only take the time). */
export function slicedEntry(c: WorkerCtx, peek: PeekSpec, ww: WorkerWalk): Sliced {
  const r = ww.report;
  const response: PeekResponse = r.outcome.kind === 'rows' ? { kind: 'rows', rows: r.outcome.rows } : { kind: 'error', message: r.outcome.kind === 'error' ? r.outcome.message : 'diverted' };
  return { kind: 'sliced', peek, done: 0, total: walkPositions(peek, r.positions, c.w), response, snap: ww.snap, rows: r.rowsEmitted };
}

/** C2: the next slice of `p`: at most min(per-peek, what is left of the pass) positions; none when the pass is spent. */
export interface SliceStep {
  /** The pass's fuel is spent: the walk waits for the next sweep. */
  readonly outOfFuel: boolean;
  readonly n: number;
  readonly done: number;
  readonly ms: number;
}

export function sliceStep(c: WorkerCtx, p: Sliced): SliceStep {
  const n = Math.min(c.cfg.fuel.perPeek, c.serve.pass, p.total - p.done);
  if (n <= 0 && p.total > p.done) return { outOfFuel: true, n: 0, done: p.done, ms: 0 };
  const k = Math.max(n, 0);
  const done = p.done + k;
  return { outOfFuel: false, n: k, done, ms: k * c.cfg.costs.posMs + (done >= p.total ? p.rows * c.cfg.costs.rowMs + c.cfg.costs.cursorMs * 2 : 0) };
}

/** C2 dispatch: the peek is placed inline and becomes a sliced entry; its first slice runs now. */
export function startSlices(t: Turn, p: Sliced, step: SliceStep): void {
  placed(t, p.peek, 'inline');
  replacePending(t, p);
  slice(t, p, step);
}

/** C2: one slice; the last one answers. */
export function slice(t: Turn, p: Sliced, step: SliceStep): void {
  const c = t.c;
  const { done, ms } = step;
  t.set({ serve: { ...c.serve, pass: c.serve.pass - step.n } });
  if (p.done === 0) t.emit({ type: 'WalkStart', w: c.w, uuid: p.peek.uuid, substrate: 'inline' });
  if (done < p.total) {
    replacePending(t, { ...p, done });
    unit(t, ms, []);
    return;
  }
  removePending(t, p.peek.uuid);
  t.set({ trace: dropHold(t.c.trace, p.peek.t) });
  const end: Effect[] = [
    { kind: 'emit', msg: { type: 'WalkEnd', w: c.w, uuid: p.peek.uuid, substrate: 'inline' } },
    { kind: 'emit', msg: { type: 'WalkAnswer', w: c.w, uuid: p.peek.uuid, peek: p.peek, snap: p.snap, stash: c.cfg.stash, response: p.response, substrate: 'inline' } },
  ];
  outcome(t, 'inline', p.response);
  end.push(respondEffect(c.w, p.peek.uuid, p.response));
  t.set({ responded: t.c.responded + 1 });
  unit(t, ms, end);
}
