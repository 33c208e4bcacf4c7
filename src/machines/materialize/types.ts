// Vocabulary of the peek model (Materialize PR #38429): peeks, arrangement data,
// responses, the four candidate designs and the messages the actors exchange.
// Times are totally ordered integers, so a frontier is one number: `upper` is the
// first time that may still change, `since` the logical compaction frontier.

export type Time = number;

/** The four candidates: placement (on/off the worker) x preemption (complete/yield). */
export type Design = 'inline' | 'offload' | 'yield' | 'offload-yield';
export const DESIGNS: readonly Design[] = ['inline', 'offload', 'yield', 'offload-yield'];

/** Where the slot guard lives (docs/materialize.md): in the blocking closure (A) or in the pending entry (B). */
export type SlotRelease = 'walk-end' | 'retire';
/** When `mz_index_peek_walks_total` moves: at the placement decision, or when a walk reaches an outcome. */
export type CountAt = 'dispatch' | 'outcome';
/** When a command that arrives during a step becomes visible (docs/materialize.md). */
export type CmdVisibility = 'current' | 'next';

export type Placement = 'inline' | 'offloaded' | 'capped';
export type Substrate = Placement;

/** One update of the oks trace: a (key, val) row at `time` with multiplicity `diff`. */
export interface Update {
  readonly key: string;
  readonly val: string;
  readonly time: Time;
  readonly diff: number;
}
/** One update of the errs trace: an error (its text is the key) at `time`. */
export interface ErrUpdate {
  readonly key: string;
  readonly time: Time;
  readonly diff: number;
}
/** An immutable batch (an `Arc` batch in the real system): walks pin these by reference. */
export interface Batch<U = Update> {
  readonly id: number;
  readonly updates: readonly U[];
}

/** A trace bundle: the oks and errs arrangements of one index on one worker. */
export interface Arrangement {
  readonly oks: readonly Batch[];
  readonly errs: readonly Batch<ErrUpdate>[];
  readonly oksUpper: Time;
  readonly errsUpper: Time;
  readonly oksSince: Time;
  readonly errsSince: Time;
  /** What the controller allowed (AllowCompaction); since never passes a pending peek's hold. */
  readonly allowed: Time;
  /** One entry per pending index peek: its time (a multiset, sorted). */
  readonly holds: readonly Time[];
  readonly nextBatchId: number;
  /** `since` at the last physical merge (maintenance merges again once it moves). */
  readonly mergedAt: Time;
}

/** The cursors a dispatch takes: the batch lists, by reference. */
export interface Snapshot {
  readonly oks: readonly Batch[];
  readonly errs: readonly Batch<ErrUpdate>[];
  /** True when a spare oks cursor was taken (stash-eligible peeks offloaded). */
  readonly spare: boolean;
}

export interface Finishing {
  /** Sort rows (ascending) before limit/offset; a non-empty order_by is not streamable. */
  readonly orderBy: boolean;
  readonly limit?: number;
  readonly offset: number;
}

export interface PeekSpec {
  readonly uuid: string;
  readonly t: Time;
  /** Literal constraint (a point lookup), or absent for a full scan. */
  readonly key?: string;
  readonly finishing: Finishing;
  readonly maxResultSize: number;
  /** Query class, for metrics (`lookup`, `scan`, `hot`...). */
  readonly cls: string;
  /**
   * Cursor positions the walk visits, when the fixture declares the index size
   * instead of materialising it (simulation); otherwise the updates visited.
   */
  readonly positions?: number;
  /** Per-worker sizes (a hot key lives on one worker). */
  readonly positionsByWorker?: readonly number[];
}

export type Row = readonly [row: string, copies: number];

export type PeekResponse =
  | { readonly kind: 'rows'; readonly rows: readonly Row[] }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'stashed'; readonly shard: string; readonly rows: number; readonly bytes: number; readonly content: readonly Row[] }
  | { readonly kind: 'canceled' };

export interface StashConfig {
  /** `enable_compute_peek_response_stash` with a persist location configured. */
  readonly enabled: boolean;
  /** `compute_peek_response_stash_threshold_bytes` (default 10 KiB). */
  readonly threshold: number;
}

export interface Costs {
  /** Virtual ms per cursor position. */
  readonly posMs: number;
  /** Virtual ms per emitted row. */
  readonly rowMs: number;
  /** Virtual ms per `cursor()` call (C1 pays it 2 or 3 times). */
  readonly cursorMs: number;
  /** The step after an unpark (the command-channel operator runs). */
  readonly shortStepMs: number;
  /** Duration of the arrangement operator step that applies a batch arrival. */
  readonly batchStepMs: number;
}

export interface YieldFuel {
  /** `peek_yielding` work budget per peek per activation, in positions. */
  readonly perPeek: number;
  /** `peek_yielding_total` budget across all peeks per pass, in positions. */
  readonly perPass: number;
}

export interface WorkerConfig {
  readonly design: Design;
  readonly cap: number;
  readonly slotRelease: SlotRelease;
  readonly countAt: CountAt;
  readonly cmdVisibility: CmdVisibility;
  readonly stash: StashConfig;
  readonly costs: Costs;
  readonly fuel: YieldFuel;
  readonly workers: number;
}

/** One operator activation; a chain of them runs one per step (spine merges after an insert). */
export interface Activation {
  readonly ms: number;
  /** Data the arrangement operator applies when this activation has run. */
  readonly batch?: BatchArrival;
}

export interface BatchArrival {
  readonly updates?: readonly Update[];
  readonly errs?: readonly ErrUpdate[];
  /** The upper after this batch. */
  readonly upper: Time;
}

// Messages ------------------------------------------------------------------

export interface PeekCmd { readonly type: 'PeekCmd'; readonly peek: PeekSpec }
export interface CancelPeekCmd { readonly type: 'CancelPeekCmd'; readonly uuid: string }
export interface AllowCompaction { readonly type: 'AllowCompaction'; readonly frontier: Time }
/** A dyncfg update (`index_peek_offload_max_inflight`), delivered as a command. */
export interface SetCap { readonly type: 'SetCap'; readonly cap: number }
export type Command = PeekCmd | CancelPeekCmd | AllowCompaction | SetCap;

/** Operator work for one worker: a chain of activations, one per step. */
export interface InsertCycle { readonly type: 'InsertCycle'; readonly chain: readonly Activation[] }

/** Worker -> pool: spawn an offloaded walk over the snapshot. */
export interface SpawnWalk {
  readonly type: 'SpawnWalk';
  readonly w: number;
  readonly peek: PeekSpec;
  readonly snapshot: Snapshot;
  readonly stash: StashConfig;
  readonly costs: Costs;
  /** Walk in slices (C3): same answer, cancellation observed between slices. */
  readonly sliced: boolean;
  readonly slice: number;
}

/** Pool -> worker: the oneshot carrying the walk's answer, plus the unpark. */
export interface WalkResult {
  readonly type: 'WalkResult';
  readonly uuid: string;
  readonly response: PeekResponse;
  /** The walk diverted to the stash (its upload has ended when this arrives). */
  readonly diverted: boolean;
  /** Still holds the slot guard (variant A: returned with this message). */
  readonly guard: boolean;
}

export interface WorkerResponse {
  readonly type: 'WorkerResponse';
  readonly w: number;
  readonly uuid: string;
  readonly response: PeekResponse;
}

export interface MergedResponse {
  readonly type: 'MergedResponse';
  readonly uuid: string;
  readonly cls: string;
  readonly response: PeekResponse;
}

/** The worker's self-message that ends a unit of work (a step, a walk): its latency is the unit's length. */
export interface Loop { readonly type: 'Loop'; readonly ms: number; readonly unit: 'step' | 'work' }

export const workerId = (w: number): string => `w${w}`;
export const POOL = 'pool';
export const CLIENT = 'client';
export const WORKLOAD = 'workload';
export const STASH = 'stash';
/** Upload key in the stash: one shard part per (peek, worker). */
export const stashKey = (uuid: string, w: number): string => `${uuid}.w${w}`;
