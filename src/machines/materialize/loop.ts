// The actions of the timely worker's loop (docs/materialize.md): what an arrival
// buffers, how an iteration starts (maintenance, then step_or_park), what the end
// of a step reveals, and the commands of step 3. Which of them runs when is the
// worker chart's business (worker.ts); process_peek is in process-peek.ts.
//
// A unit of work that takes time (a step, an inline walk, a slice, the cursor
// setup of an offload) ends with the worker's self-message `Loop{ms}`; its
// latency in the simulator is the unit's length, and the checker delivers it at
// any point. Events that arrive meanwhile are only buffered, so dispatch and
// retirement can only happen between steps (invariant 11).
import { addHold, allowCompaction, applyArrival, maintain } from './trace.ts';
import { stashKey, workerId, type Activation, type Command, type PeekCmd, type WalkResult } from './types.ts';
import { insertPending, turn, update, type Turn, type WorkerCtx } from './worker-ctx.ts';
import { cancel, release } from './retire.ts';

// Arrivals ------------------------------------------------------------------

/** A command arrives: it becomes visible at the end of the step running now (or the next), or of the step an unpark starts. */
export const bufferCommand = turn<{ readonly duringStep: boolean }>((t, ev, p) => {
  const c = t.c;
  const after = p.duringStep && c.cfg.cmdVisibility === 'current' ? c.stepNo : c.stepNo + 1;
  t.set({ arrived: [...c.arrived, { cmd: ev as unknown as Command, after }] });
  if (ev.type === 'PeekCmd') t.emit({ type: 'Arrive', w: c.w, uuid: (ev as unknown as PeekCmd).peek.uuid });
});

/** Operator work arrives: a chain of activations, one per step. */
export const addChain = update((c, ev) => ({ chains: [...c.chains, ev.chain as readonly Activation[]] }));

/** The oneshot: kept only while its pending entry exists (a cancelled peek's late answer is dropped); variant A's guard comes back with it. */
export const keepWalkResult = turn((t, ev) => {
  const r = ev as unknown as WalkResult;
  if (t.c.pending.some((p) => p.kind === 'offload' && p.peek.uuid === r.uuid)) t.set({ results: [...t.c.results, r] });
  if (r.guard) release(t, r.uuid);
});

/** An inline stash upload replied: kept for process_peeks while the stashing entry exists. */
export const keepUploadReply = turn((t, ev) => {
  const c = t.c;
  const key = String(ev.uuid);
  if (c.pending.some((p) => p.kind === 'stash' && stashKey(p.peek.uuid, c.w) === key)) {
    t.set({ stashReplies: [...c.stashReplies, { key, ok: ev.type === 'stash.upload.ok', message: ev.message as string | undefined }] });
  }
});

/** The sticky unpark token: an arrival while the worker is busy makes the next iteration step. */
export const setWake = update(() => ({ wake: true }));

// The iteration ------------------------------------------------------------

/** Step 1: trace maintenance (the physical merge). */
export const maintainTrace = update((c) => ({ trace: maintain(c.trace) }));

/** step_or_park with operators activated: one activation of every chain runs. */
export const stepOperators = turn((t) => {
  const chains = t.c.chains;
  const running = chains.map((ch) => ch[0]!);
  const rest = chains.map((ch) => ch.slice(1)).filter((ch) => ch.length > 0);
  let ms = 0;
  for (const a of running) ms += a.ms;
  beginStep(t, running, rest, ms);
});

/** step_or_park woken with no operator work: the short step in which the command channel runs. */
export const stepShort = turn((t) => beginStep(t, [], t.c.chains, t.c.cfg.costs.shortStepMs));

function beginStep(t: Turn, running: readonly Activation[], chains: readonly (readonly Activation[])[], ms: number): void {
  const stepNo = t.c.stepNo + 1;
  t.set({ stepNo, running, chains, wake: false });
  t.emit({ type: 'StepStart', w: t.c.w, ms });
  t.send(workerId(t.c.w), { type: 'Loop', ms, unit: 'step' });
}

/** `step_or_park` returned: the activations' data is in, and the commands of this step become visible. */
export const endStep = turn((t) => {
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
  t.set({ trace, stepEnded: stepNo, running: [], arrived: later, visible: [...t.c.visible, ...now], serve: { queue: [], pass: t.c.cfg.fuel.perPass } });
});

/** A unit of work on the worker ended: its effects (responses, the spawn, the upload) happen now. */
export const endUnit = turn((t) => {
  for (const f of t.c.after) t.fx.push(f);
  t.set({ after: [] });
});

// Step 3: handle_pending_commands --------------------------------------------

function takeCommand(t: Turn): Command {
  const [cmd, ...rest] = t.c.visible;
  t.set({ visible: rest });
  return cmd!;
}

export const cancelPeek = turn((t) => cancel(t, (takeCommand(t) as Command & { type: 'CancelPeekCmd' }).uuid));
export const allowCompactionCmd = update((c) => ({ trace: allowCompaction(c.trace, (c.visible[0] as Command & { type: 'AllowCompaction' }).frontier), visible: c.visible.slice(1) }));
export const setCap = update((c) => ({ cap: (c.visible[0] as Command & { type: 'SetCap' }).cap, visible: c.visible.slice(1) }));
/** A peek whose uuid is already pending: handle_peek ignores the repeat. */
export const dropCommand = update((c) => ({ visible: c.visible.slice(1) }));
/** handle_peek: a pending entry holding t; process_peek runs on it at once (it heads the sweep). */
export const admitPeek = update((c) => {
  const p = (c.visible[0] as PeekCmd).peek;
  return { visible: c.visible.slice(1), pending: insertPending(c.pending, { kind: 'index', peek: p }), trace: addHold(c.trace, p.t), serve: { ...c.serve, queue: [p.uuid] } };
});

// Step 4: process_peeks ----------------------------------------------------

/** The sweep visits every pending peek, in uuid order. */
export const beginSweep = update((c) => ({ serve: { ...c.serve, queue: c.pending.map((p) => p.peek.uuid) } }));

// Guards ---------------------------------------------------------------------

type Args = { readonly context: WorkerCtx };

export const loopGuards = {
  /** Operators are activated: step_or_park runs them. */
  operatorWork: ({ context }: Args) => context.chains.length > 0,
  /** Woken meanwhile, commands not yet visible, or a C2 walk parked: step_or_park does not park. */
  mustStep: ({ context: c }: Args) => c.wake || c.arrived.length > 0 || c.pending.some((p) => p.kind === 'sliced'),
  commandVisible: ({ context }: Args) => context.visible.length > 0,
  nextIsCancel: ({ context }: Args) => context.visible[0]?.type === 'CancelPeekCmd',
  nextIsAllowCompaction: ({ context }: Args) => context.visible[0]?.type === 'AllowCompaction',
  nextIsSetCap: ({ context }: Args) => context.visible[0]?.type === 'SetCap',
  nextIsPeek: ({ context }: Args) => context.visible[0]?.type === 'PeekCmd',
  /** The next command is a peek whose uuid is already pending. */
  repeatedPeek: ({ context: c }: Args) => {
    const cmd = c.visible[0];
    return cmd?.type === 'PeekCmd' && c.pending.some((x) => x.peek.uuid === cmd.peek.uuid);
  },
};
