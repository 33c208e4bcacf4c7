// The amber-loop model's parameters, their defaults, and what follows from them alone.
import type { Design } from './operators.ts';
import type { Topology } from './topology.ts';

export type Start = 'materialized' | 'scratch';
export const STARTS: readonly Start[] = ['materialized', 'scratch'];

/** The amber-loop model's parameters (`AMBER_DEFAULT_PARAMS` has the defaults; `interleave list` describes each). */
export interface AmberParams {
  /**
   * `scratch`: the world before StartWorkflow. `materialized`: the world when the first
   * Loop End region is scheduled, derived from every run of the earlier regions
   * (materialized.ts); from scratch when those runs do not all meet there.
   */
  readonly start: Start;
  /** The loop design: `table-in-state` (D0, before the PR), `read-at-consume` (D1, first commit), `read-at-endchannel` (D2, final). */
  readonly design: Design;
  /** The workflow's shape: `single`, `nested` (rows × rows), `jvm-chain`, `nested-jvm-chain` or `fan-in`. */
  readonly topology: Topology;
  /** Rows of the input table (iterations of a per-row loop). */
  readonly rows: number;
  /** F_overlap: a reader's fetch may get 403 while its worker's main loop reads. */
  readonly overlapFault: boolean;
  /** F_recreate: a doc may be recreated while a reader is mid-stream. */
  readonly recreateFault: boolean;
  /** `loopStartPortUris` lacks the Loop Start ids. */
  readonly missingConfig: boolean;
  /** The loop input table's files are deleted (or the table dropped) before the Loop End reads it. */
  readonly deletedInput: boolean;
  /** With `deletedInput`: delete the data files (403) or drop the table (missing). */
  readonly deletedInputKind: 'files' | 'table';
  /** The user's update code raises. */
  readonly updateError: boolean;
  /** The back edge's put_one/close fails after the jump RPC. */
  readonly backEdgeWriteError: boolean;
  /** A wide input table whose D0 state row exceeds `maxCellBytes`. */
  readonly largeTable: boolean;
  /** The largest State content cell a hop can store, in bytes (MAX_CELL_BYTES). */
  readonly maxCellBytes: number;
  /** EndWorker overtakes the RPC replies: the first termination attempt fails and is retried. */
  readonly endWorkerRace: boolean;
  /** User code touches the reserved name `table` (at init, rebinding it in update, or deleting it in update). */
  readonly reservedTable: 'none' | 'init' | 'update-rebind' | 'update-delete';
  /** A body UDF emits its own unstamped state before or after the loop state, or blanks the envelope. */
  readonly bodyState: 'none' | 'before' | 'after' | 'blank';
  /** Open point (docs/amber.md): whether the has-exception hold runs after the deferred consume or before it. */
  readonly holdOrder: 'consume-first' | 'hold-first';
  /** Open point (docs/amber.md): what a GET of a deleted key answers. */
  readonly missingKey: '403' | '404';
  /** Also check the design invariants I2 (no main-loop read during streaming) and I3 (deferred placement). */
  readonly designChecks: boolean;
  /** EndWorker attempts before the coordinator gives up (200 ms apart). */
  readonly endWorkerAttempts: number;
  /** Faults one run may take (F_overlap / F_recreate outcomes). */
  readonly faultBudget: number;
  /** Python pass-through hops in a single loop's body (the cost model's k). */
  readonly bodyHops: number;
  /** Overrides the large table's per-row payload bytes (benchmarks size the table with it). */
  readonly payloadBytes: number;
  /** Also check I12 as a liveness property of every run, cycles included (the checker then runs without POR). */
  readonly liveness: boolean;
}

/** Direct callers (live runs, simulations, benches) run the whole workflow; the family's checks default to `materialized`. */
export const DEFAULT_PARAMS: AmberParams = {
  start: 'scratch',
  design: 'read-at-consume',
  topology: 'single',
  rows: 3,
  overlapFault: true,
  recreateFault: false,
  missingConfig: false,
  deletedInput: false,
  deletedInputKind: 'files',
  updateError: false,
  backEdgeWriteError: false,
  largeTable: false,
  maxCellBytes: 65_536,
  endWorkerRace: false,
  reservedTable: 'none',
  bodyState: 'none',
  holdOrder: 'consume-first',
  missingKey: '403',
  designChecks: false,
  endWorkerAttempts: 150,
  faultBudget: 1,
  bodyHops: 0,
  payloadBytes: 0,
  liveness: false,
};

/** Bytes per row of the wide column in the large-table scenario: the table's IPC comfortably exceeds maxCellBytes. */
export function largePayloadBytes(p: Pick<AmberParams, 'rows' | 'maxCellBytes'>): number {
  return Math.ceil((p.maxCellBytes * 1.2) / Math.max(1, p.rows));
}

/** True when a switch forces an error the run must report and hold on (so completion is not expected). */
export function expectsHold(p: AmberParams): boolean {
  return (
    p.missingConfig ||
    p.deletedInput ||
    p.updateError ||
    p.backEdgeWriteError ||
    p.reservedTable !== 'none' ||
    p.bodyState === 'blank' ||
    (p.largeTable && p.design === 'table-in-state')
  );
}
