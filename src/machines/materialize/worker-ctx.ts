// The timely worker's context, the draft of one action (Turn) that the loop's
// actions write into, the pending-peek map (ordered by uuid), and the unit of
// worker time whose effects happen when it ends. Where the worker is in its loop
// is the chart's state (worker.ts), not a field here.
import { workerId, type Activation, type Arrangement, type Command, type PeekResponse, type PeekSpec, type Placement, type Snapshot, type WalkResult, type WorkerConfig } from './types.ts';
import type { Message } from '../../actors/types.ts';
import { assign } from 'xstate';
import { act } from './effects.ts';

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
  /** Steps begun, and the last step whose step_or_park returned (equal between steps; invariant 11 reads them). */
  readonly stepNo: number;
  readonly stepEnded: number;
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
  /** The sweep of step 4: the uuids still to visit (its head is the peek under process_peek; in step 3 the peek just admitted), and the C2 fuel left in this pass. */
  readonly serve: { readonly queue: readonly string[]; readonly pass: number };
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
    stepNo: 0,
    stepEnded: 0,
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
    serve: { queue: [], pass: 0 },
    after: [],
    wake: false,
    responded: 0,
  };
}

/** A mutable draft for one transition; the context itself stays immutable. */
export class Turn {
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

/** A worker action: its body writes into a Turn over the context; the Turn's effects are performed in order. */
export function turn<P = undefined>(body: (t: Turn, ev: Message, params: P) => void): any {
  return act<WorkerCtx, P>((c, ev, params) => {
    const t = new Turn(c);
    body(t, ev, params);
    return { ctx: t.c, fx: t.fx };
  });
}

/** Inside step_or_park (a step begun and not returned): no dispatch or retirement may happen. */
export function inStep(c: WorkerCtx): boolean {
  return c.stepNo !== c.stepEnded;
}

/** A worker action that only changes the context (no effects): a plain xstate `assign`. */
export function update<P = undefined>(body: (c: WorkerCtx, ev: Message, params: P) => Partial<WorkerCtx>): any {
  return assign(({ context, event }: { context: WorkerCtx; event: Message }, params: P) => body(context, event, params));
}

export function insertPending(ps: readonly Pending[], p: Pending): Pending[] {
  const out = ps.filter((x) => x.peek.uuid !== p.peek.uuid);
  let k = 0;
  while (k < out.length && out[k]!.peek.uuid < p.peek.uuid) k++;
  out.splice(k, 0, p);
  return out;
}
export function removePending(t: Turn, uuid: string): void {
  t.set({ pending: t.c.pending.filter((p) => p.peek.uuid !== uuid) });
}
export function replacePending(t: Turn, p: Pending): void {
  t.set({ pending: t.c.pending.map((x) => (x.peek.uuid === p.peek.uuid ? p : x)) });
}

/** A unit of worker time: effects happen when it ends. A zero-length unit ends at once. */
export function unit(t: Turn, ms: number, end: readonly Effect[]): boolean {
  if (ms <= 0) {
    for (const f of end) t.fx.push(f);
    return false;
  }
  t.set({ after: end });
  t.send(workerId(t.c.w), { type: 'Loop', ms, unit: 'work' });
  return true;
}
