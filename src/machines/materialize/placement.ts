// Gates and placement (docs/materialize.md) of a dispatched peek, and its walk on the
// chosen substrate: offloaded to the blocking pool (a slot claimed), inline on the
// worker to completion (diverting to the stash when too large), or in slices (C2).
import { dropHold, gate, compactionFrontier, snapshot } from './trace.ts';
import { stashContent, stashWanted, walk, walkMs, walkPositions } from './walk.ts';
import { POOL, STASH, stashKey, type PeekResponse, type PeekSpec, type Placement } from './types.ts';
import { removePending, replacePending, unit, type Effect, type Pending, type Turn } from './worker-ctx.ts';
import { count, outcome, respond, respondEffect } from './retire.ts';

/** Gates, then the placement decision (docs/materialize.md) and the walk on its substrate. */
export function dispatch(t: Turn, peek: PeekSpec): boolean {
  const c = t.c;
  const g = gate(c.trace, peek.t);
  if (g.kind === 'not-ready') return false;
  if (g.kind === 'compacted') {
    removePending(t, peek.uuid);
    t.set({ trace: dropHold(t.c.trace, peek.t) });
    t.emit({ type: 'Rejected', w: c.w, uuid: peek.uuid, phase: c.phase });
    respond(t, peek.uuid, { kind: 'error', message: g.message });
    return false;
  }
  const flag = c.cfg.design === 'offload' || c.cfg.design === 'offload-yield';
  const placement: Placement = !flag ? 'inline' : c.inFlight < c.cap ? 'offloaded' : 'capped';
  t.emit({
    type: 'Dispatch', w: c.w, uuid: peek.uuid, placement, phase: c.phase, t: peek.t, frontier: compactionFrontier(c.trace),
    oksUpper: c.trace.oksUpper, errsUpper: c.trace.errsUpper, inFlight: c.inFlight, cap: c.cap, flag,
  });
  t.set({ walks: { ...c.walks, started: c.walks.started + 1 } });
  if (c.cfg.countAt === 'dispatch') count(t, placement);
  if (placement === 'offloaded') return offload(t, peek);
  if (c.cfg.design === 'yield') {
    const snap = snapshot(c.trace, false);
    const r = walk(snap.oks, snap.errs, peek, c.cfg.stash);
    if (r.outcome.kind !== 'divert') {
      const response: PeekResponse = r.outcome.kind === 'rows' ? { kind: 'rows', rows: r.outcome.rows } : { kind: 'error', message: r.outcome.message };
      const p: Pending = { kind: 'sliced', peek, done: 0, total: walkPositions(peek, r.positions, c.w), response, snap, rows: r.rowsEmitted };
      replacePending(t, p);
      return slice(t, p);
    }
  }
  return inlineWalk(t, peek, placement);
}

/** Claim a slot, take the cursors (a spare one when stash-eligible), drop the hold, spawn. */
function offload(t: Turn, peek: PeekSpec): boolean {
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
  return unit(t, c.cfg.costs.cursorMs * (spare ? 3 : 2), [spawn]);
}

/** The walk on the worker thread (placements Inline and Capped), to completion. */
function inlineWalk(t: Turn, peek: PeekSpec, placement: Placement): boolean {
  const c = t.c;
  const snap = snapshot(c.trace, false);
  const r = walk(snap.oks, snap.errs, peek, c.cfg.stash);
  const ms = walkMs(peek, r.positions, r.rowsEmitted, c.cfg.costs, c.w) + c.cfg.costs.cursorMs * 2;
  t.emit({ type: 'WalkStart', w: c.w, uuid: peek.uuid, substrate: placement });
  const end: Effect[] = [{ kind: 'emit', msg: { type: 'WalkEnd', w: c.w, uuid: peek.uuid, substrate: placement } }];
  if (r.outcome.kind === 'divert') {
    // Rows so far are thrown away; the peek becomes a stashing peek that keeps its hold.
    replacePending(t, { kind: 'stash', peek, placement, snap });
    const cont = stashContent(snap.oks, peek);
    end.push({ kind: 'emit', msg: { type: 'StashUploadStart', w: c.w, uuid: peek.uuid } });
    end.push({ kind: 'send', to: STASH, msg: { type: 'stash.upload', uuid: stashKey(peek.uuid, c.w), bytes: cont.bytes, rows: cont.rows.length } });
    return unit(t, ms, end);
  }
  const response: PeekResponse = r.outcome.kind === 'rows' ? { kind: 'rows', rows: r.outcome.rows } : { kind: 'error', message: r.outcome.message };
  removePending(t, peek.uuid);
  t.set({ trace: dropHold(t.c.trace, peek.t) });
  end.push({ kind: 'emit', msg: { type: 'WalkAnswer', w: c.w, uuid: peek.uuid, peek, snap, stash: c.cfg.stash, response, substrate: placement } });
  outcome(t, placement, response); // the unit cannot be interrupted: counted when it starts
  end.push(respondEffect(c.w, peek.uuid, response));
  t.set({ responded: t.c.responded + 1 });
  return unit(t, ms, end);
}
/** C2: one slice of at most min(per-peek, what is left of the pass) positions. */
export function slice(t: Turn, p: Pending & { kind: 'sliced' }): boolean {
  const c = t.c;
  const n = Math.min(c.cfg.fuel.perPeek, c.serve.pass, p.total - p.done);
  if (n <= 0 && p.total > p.done) return false;
  const done = p.done + Math.max(n, 0);
  t.set({ serve: { ...c.serve, pass: c.serve.pass - Math.max(n, 0) } });
  const ms = Math.max(n, 0) * c.cfg.costs.posMs + (done >= p.total ? p.rows * c.cfg.costs.rowMs + c.cfg.costs.cursorMs * 2 : 0);
  if (p.done === 0) t.emit({ type: 'WalkStart', w: c.w, uuid: p.peek.uuid, substrate: 'inline' });
  if (done < p.total) {
    replacePending(t, { ...p, done });
    return unit(t, ms, []);
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
  return unit(t, ms, end);
}
