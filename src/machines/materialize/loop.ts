// The timely worker's loop (spec §1.1.4) as a pure function of (context, event):
// maintenance -> step_or_park -> handle_pending_commands -> process_peeks. A unit
// of work that takes time (a step, an inline walk, a slice, the cursor setup of an
// offload) ends with the worker's self-message `Loop{ms}`; its latency in the
// simulator is the unit's length, and the checker delivers it at any point. Events
// that arrive meanwhile are only buffered, so dispatch and retirement can only
// happen between steps (invariant 11).
import { addHold, allowCompaction, applyArrival, compactionFrontier, dropHold, gate, maintain, snapshot } from './trace.ts';
import { stashContent, stashWanted, walk, walkMs, walkPositions } from './walk.ts';
import {
  CLIENT, POOL, STASH, stashKey, workerId,
  type Activation, type Arrangement, type Command, type PeekResponse, type PeekSpec, type Placement, type Row, type Snapshot, type WalkResult, type WorkerConfig,
} from './types.ts';
import type { Message } from '../../actors/types.ts';

export type Phase = 'parked' | 'stepping' | 'serving';

export type Pending =
  /** Not dispatched yet (not ready, or arriving now): holds `since <= t`. */
  | { readonly kind: 'index'; readonly peek: PeekSpec }
  /** Walking on the blocking pool; the hold was dropped at dispatch. `guard`: the entry owns the slot (variant B). */
  | { readonly kind: 'offload'; readonly peek: PeekSpec; readonly guard: boolean }
  /** An inline or capped walk diverted: the worker uploads to the stash, holding `since <= t`. */
  | { readonly kind: 'stash'; readonly peek: PeekSpec; readonly placement: Placement; readonly snap: Snapshot }
  /** C2: a walk in slices on the worker, its cursor pinned, its hold kept. */
  | { readonly kind: 'sliced'; readonly peek: PeekSpec; readonly done: number; readonly total: number; readonly response: PeekResponse; readonly snap: Snapshot; readonly rows: number };

export interface Counters {
  readonly inline: number;
  readonly offloaded: number;
  readonly capped: number;
}

export interface WorkerCtx {
  readonly w: number;
  readonly cfg: WorkerConfig;
  /** `index_peek_offload_max_inflight` as of now (a dyncfg; SetCap changes it). */
  readonly cap: number;
  readonly capAtLastClaim: number;
  readonly phase: Phase;
  readonly stepNo: number;
  readonly trace: Arrangement;
  /** Commands received but not yet visible: `after` is the step whose end reveals them. */
  readonly arrived: readonly { readonly cmd: Command; readonly after: number }[];
  readonly visible: readonly Command[];
  /** The pending-peek map, ordered by uuid. */
  readonly pending: readonly Pending[];
  /** Offloaded answers sitting in their oneshots, not yet retired. */
  readonly results: readonly WalkResult[];
  /** Replies of inline stash uploads, not yet seen by process_peeks. */
  readonly stashReplies: readonly { readonly key: string; readonly ok: boolean; readonly message?: string }[];
  readonly inFlight: number;
  /** Slot ledger: the uuids whose slot is claimed and not returned. */
  readonly held: readonly string[];
  /** Releases of a slot that was not held (must stay 0). */
  readonly slotFaults: number;
  readonly counters: Counters;
  /** Walks dispatched; of those, reached an outcome; cancelled after dispatch. */
  readonly walks: { readonly started: number; readonly outcomes: number; readonly canceled: number };
  /** Operator work: chains of activations, one activation of each chain per step. */
  readonly chains: readonly (readonly Activation[])[];
  readonly running: readonly Activation[];
  readonly serve: { readonly stage: 'commands' | 'peeks'; readonly queue: readonly string[]; readonly pass: number };
  /** What the current unit does when it ends (its responses and sends). */
  readonly after: readonly Effect[];
  /** The sticky unpark token. */
  readonly wake: boolean;
  /** Responses sent (all peeks, all outcomes). */
  readonly responded: number;
}

export type Effect =
  | { readonly kind: 'send'; readonly to: string; readonly msg: Message }
  | { readonly kind: 'emit'; readonly msg: Message };

export interface WorkerInput {
  readonly w: number;
  readonly cfg: WorkerConfig;
  readonly trace: Arrangement;
}

export function initWorker(input: WorkerInput): WorkerCtx {
  return {
    w: input.w,
    cfg: input.cfg,
    cap: input.cfg.cap,
    capAtLastClaim: input.cfg.cap,
    phase: 'parked',
    stepNo: 0,
    trace: input.trace,
    arrived: [],
    visible: [],
    pending: [],
    results: [],
    stashReplies: [],
    inFlight: 0,
    held: [],
    slotFaults: 0,
    counters: { inline: 0, offloaded: 0, capped: 0 },
    walks: { started: 0, outcomes: 0, canceled: 0 },
    chains: [],
    running: [],
    serve: { stage: 'commands', queue: [], pass: 0 },
    after: [],
    wake: false,
    responded: 0,
  };
}

/** A mutable draft for one transition; the context itself stays immutable. */
class Turn {
  fx: Effect[] = [];
  private owned = false;
  constructor(public c: WorkerCtx) {}
  /** Copies the context once per transition, then writes into the copy (never into a committed context). */
  set(patch: Partial<WorkerCtx>): void {
    if (!this.owned) {
      this.c = { ...this.c };
      this.owned = true;
    }
    Object.assign(this.c as { -readonly [K in keyof WorkerCtx]: WorkerCtx[K] }, patch);
  }
  send(to: string, msg: Message): void {
    this.fx.push({ kind: 'send', to, msg });
  }
  emit(msg: Message): void {
    this.fx.push({ kind: 'emit', msg });
  }
}

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

function insertPending(ps: readonly Pending[], p: Pending): Pending[] {
  const out = ps.filter((x) => x.peek.uuid !== p.peek.uuid);
  let k = 0;
  while (k < out.length && out[k]!.peek.uuid < p.peek.uuid) k++;
  out.splice(k, 0, p);
  return out;
}
function removePending(t: Turn, uuid: string): void {
  t.set({ pending: t.c.pending.filter((p) => p.peek.uuid !== uuid) });
}
function replacePending(t: Turn, p: Pending): void {
  t.set({ pending: t.c.pending.map((x) => (x.peek.uuid === p.peek.uuid ? p : x)) });
}

/** `process_peek`: gates and placement for a new peek, retirement for an offloaded one, pumping for the rest. */
function processPeek(t: Turn, uuid: string): boolean {
  const p = t.c.pending.find((x) => x.peek.uuid === uuid);
  if (!p) return false;
  switch (p.kind) {
    case 'index':
      return dispatch(t, p.peek);
    case 'offload': {
      const r = t.c.results.find((x) => x.uuid === uuid);
      if (!r) return false;
      t.set({ results: t.c.results.filter((x) => x !== r) });
      removePending(t, uuid);
      if (p.guard) release(t, uuid);
      t.emit({ type: 'Retire', w: t.c.w, uuid, phase: t.c.phase });
      outcome(t, 'offloaded', r.response);
      respond(t, uuid, r.response);
      return false;
    }
    case 'stash': {
      const key = stashKey(uuid, t.c.w);
      const r = t.c.stashReplies.find((x) => x.key === key);
      if (!r) return false;
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
      return false;
    }
    case 'sliced':
      return slice(t, p);
  }
}

/** Gates (spec §2.1), then the placement decision (§2.2) and the walk on its substrate. */
function dispatch(t: Turn, peek: PeekSpec): boolean {
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
function slice(t: Turn, p: Pending & { kind: 'sliced' }): boolean {
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

/** A unit of worker time: effects happen when it ends. A zero-length unit ends at once. */
function unit(t: Turn, ms: number, end: readonly Effect[]): boolean {
  if (ms <= 0) {
    for (const f of end) t.fx.push(f);
    return false;
  }
  t.set({ after: end });
  t.send(workerId(t.c.w), { type: 'Loop', ms, unit: 'work' });
  return true;
}

/** `handle_cancel_peek`: remove the entry, answer Canceled at once; a running blocking walk keeps going. */
function cancel(t: Turn, uuid: string): void {
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
function release(t: Turn, uuid: string): void {
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

function count(t: Turn, placement: Placement): void {
  const k = placement;
  t.set({ counters: { ...t.c.counters, [k]: t.c.counters[k] + 1 } });
}

function outcome(t: Turn, placement: Placement, r: PeekResponse): void {
  if (r.kind === 'canceled') return;
  t.set({ walks: { ...t.c.walks, outcomes: t.c.walks.outcomes + 1 } });
  if (t.c.cfg.countAt === 'outcome') count(t, placement);
}

function respondEffect(w: number, uuid: string, response: PeekResponse): Effect {
  return { kind: 'send', to: CLIENT, msg: { type: 'WorkerResponse', w, uuid, response } };
}

function respond(t: Turn, uuid: string, response: PeekResponse): void {
  t.fx.push(respondEffect(t.c.w, uuid, response));
  t.set({ responded: t.c.responded + 1 });
}

/** Rows of a response, for reports. */
export function responseRows(r: PeekResponse): readonly Row[] {
  return r.kind === 'rows' ? r.rows : r.kind === 'stashed' ? r.content : [];
}
