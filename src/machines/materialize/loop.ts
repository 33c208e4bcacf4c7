// The timely worker's loop (docs/materialize.md) as a pure function of (context, event):
// maintenance -> step_or_park -> handle_pending_commands -> process_peeks. A unit
// of work that takes time (a step, an inline walk, a slice, the cursor setup of an
// offload) ends with the worker's self-message `Loop{ms}`; its latency in the
// simulator is the unit's length, and the checker delivers it at any point. Events
// that arrive meanwhile are only buffered, so dispatch and retirement can only
// happen between steps (invariant 11).
//
// This file is the step loop; gates and placement are in placement.ts, retirement
// and answers in retire.ts, the context and the transition draft in worker-ctx.ts.
import { addHold, allowCompaction, applyArrival, maintain } from './trace.ts';
import { stashKey, workerId, type Activation, type Command, type WalkResult } from './types.ts';
import type { Message } from '../../actors/types.ts';
import { Turn, insertPending, type Effect, type WorkerCtx } from './worker-ctx.ts';
import { dispatch, slice } from './placement.ts';
import { cancel, release, retireOffload, retireStash } from './retire.ts';

/** The worker's reaction to one event: the next context and what it sends and emits. */
export function react(c: WorkerCtx, ev: Message): { readonly ctx: WorkerCtx; readonly fx: readonly Effect[] } {
  const t = new Turn(c);
  switch (ev.type) {
    case 'PeekCmd':
    case 'CancelPeekCmd':
    case 'AllowCompaction':
    case 'SetCap': {
      const after = c.phase === 'stepping' && c.cfg.cmdVisibility === 'current' ? c.stepNo : c.stepNo + 1;
      t.set({ arrived: [...c.arrived, { cmd: ev as unknown as Command, after }] });
      if (ev.type === 'PeekCmd') t.emit({ type: 'Arrive', w: c.w, uuid: (ev as any).peek.uuid });
      arrival(t);
      break;
    }
    case 'InsertCycle':
      t.set({ chains: [...c.chains, (ev as any).chain] });
      arrival(t);
      break;
    case 'WalkResult': {
      // The oneshot: kept only while its pending entry exists (a cancelled peek's late answer is dropped).
      const r = ev as unknown as WalkResult;
      if (c.pending.some((p) => p.kind === 'offload' && p.peek.uuid === r.uuid)) t.set({ results: [...c.results, r] });
      if (r.guard) release(t, r.uuid);
      arrival(t);
      break;
    }
    case 'stash.upload.ok':
    case 'stash.upload.error': {
      const key = String((ev as any).uuid);
      if (c.pending.some((p) => p.kind === 'stash' && stashKey(p.peek.uuid, c.w) === key)) {
        t.set({ stashReplies: [...c.stashReplies, { key, ok: ev.type === 'stash.upload.ok', message: (ev as any).message }] });
      }
      arrival(t);
      break;
    }
    case 'stash.cancel.ok':
    case 'stash.cancel.error':
      break;
    case 'Loop':
      if (c.phase === 'stepping') endStep(t);
      else {
        for (const f of c.after) t.fx.push(f);
        t.set({ after: [] });
      }
      serve(t);
      break;
    default:
      throw new Error(`worker ${c.w} has no case for '${ev.type}'`);
  }
  return { ctx: t.c, fx: t.fx };
}

/** Something arrived: a parked worker unparks (its next step runs the command channel); otherwise the token sticks. */
function arrival(t: Turn): void {
  if (t.c.phase === 'parked') startIteration(t, true);
  else t.set({ wake: true });
}

/** One loop iteration from the top: maintenance, then step_or_park. */
function startIteration(t: Turn, woken: boolean): void {
  const c = t.c;
  t.set({ trace: maintain(c.trace) });
  const chains = t.c.chains;
  if (chains.length > 0) {
    const running = chains.map((ch) => ch[0]!);
    const rest = chains.map((ch) => ch.slice(1)).filter((ch) => ch.length > 0);
    let ms = 0;
    for (const a of running) ms += a.ms;
    beginStep(t, running, rest, ms);
    return;
  }
  const parkedWork = t.c.pending.some((p) => p.kind === 'sliced') || t.c.arrived.length > 0;
  if (woken || t.c.wake || parkedWork) {
    beginStep(t, [], chains, c.cfg.costs.shortStepMs);
    return;
  }
  t.set({ phase: 'parked' });
}

function beginStep(t: Turn, running: readonly Activation[], chains: readonly (readonly Activation[])[], ms: number): void {
  const stepNo = t.c.stepNo + 1;
  t.set({ phase: 'stepping', stepNo, running, chains, wake: false });
  t.emit({ type: 'StepStart', w: t.c.w, ms });
  t.send(workerId(t.c.w), { type: 'Loop', ms, unit: 'step' });
}

/** `step_or_park` returned: the activations' data is in, and the commands of this step become visible. */
function endStep(t: Turn): void {
  let trace = t.c.trace;
  for (const a of t.c.running) if (a.batch) trace = applyArrival(trace, a.batch);
  const stepNo = t.c.stepNo;
  const now: Command[] = [];
  const later: { cmd: Command; after: number }[] = [];
  for (const a of t.c.arrived) {
    if (a.after <= stepNo) now.push(a.cmd);
    else later.push(a);
  }
  for (const cmd of now) if (cmd.type === 'PeekCmd') t.emit({ type: 'Visible', w: t.c.w, uuid: cmd.peek.uuid });
  t.emit({ type: 'StepEnd', w: t.c.w });
  t.set({
    trace,
    running: [],
    arrived: later,
    visible: [...t.c.visible, ...now],
    phase: 'serving',
    serve: { stage: 'commands', queue: [], pass: t.c.cfg.fuel.perPass },
  });
}

/** Steps 3 and 4: handle commands, then sweep the pending map; stop at the first unit that takes time. */
function serve(t: Turn): void {
  for (;;) {
    const c = t.c;
    if (c.serve.stage === 'commands') {
      if (c.visible.length > 0) {
        const [cmd, ...rest] = c.visible;
        t.set({ visible: rest });
        if (command(t, cmd!)) return;
        continue;
      }
      t.set({ serve: { ...c.serve, stage: 'peeks', queue: c.pending.map((p) => p.peek.uuid) } });
      continue;
    }
    if (c.serve.queue.length > 0) {
      const [uuid, ...rest] = c.serve.queue;
      t.set({ serve: { ...c.serve, queue: rest } });
      if (processPeek(t, uuid!)) return;
      continue;
    }
    startIteration(t, false);
    return;
  }
}

/** handle_pending_commands, one command. True when it started a unit that takes time. */
function command(t: Turn, cmd: Command): boolean {
  switch (cmd.type) {
    case 'PeekCmd': {
      const p = cmd.peek;
      if (t.c.pending.some((x) => x.peek.uuid === p.uuid)) return false;
      t.set({ pending: insertPending(t.c.pending, { kind: 'index', peek: p }), trace: addHold(t.c.trace, p.t) });
      return processPeek(t, p.uuid);
    }
    case 'CancelPeekCmd':
      cancel(t, cmd.uuid);
      return false;
    case 'AllowCompaction':
      t.set({ trace: allowCompaction(t.c.trace, cmd.frontier) });
      return false;
    case 'SetCap':
      t.set({ cap: cmd.cap });
      return false;
  }
}

/** `process_peek`: gates and placement for a new peek, retirement for an offloaded one, pumping for the rest. */
function processPeek(t: Turn, uuid: string): boolean {
  const p = t.c.pending.find((x) => x.peek.uuid === uuid);
  if (!p) return false;
  switch (p.kind) {
    case 'index':
      return dispatch(t, p.peek);
    case 'offload':
      return retireOffload(t, p);
    case 'stash':
      return retireStash(t, p);
    case 'sliced':
      return slice(t, p);
  }
}
