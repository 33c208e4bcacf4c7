// Builds the `amber-loop` scenario from its parameters: the coordinator, one
// worker per operator, one materialization reader per (input port, storage URI),
// the store, and the properties I1–I13.
import { defineScenario, type Scenario } from '../../actors/index.ts';
import { coordinatorMachine } from './coordinator.ts';
import type { Design } from './operators.ts';
import { amberProperties } from './properties.ts';
import { readerMachine } from './reader.ts';
import { storeLogic } from './store.ts';
import { buildWorkflow, type Topology, type Workflow } from './topology.ts';
import { COORDINATOR, STORE, workerMachine } from './worker.ts';

export interface AmberParams {
  readonly design: Design;
  readonly topology: Topology;
  readonly rows: number;
  /** F_overlap: a reader's fetch may get 403 while its worker's main loop reads. */
  readonly overlapFault: boolean;
  /** F_recreate: a doc may be recreated while a reader is mid-stream. */
  readonly recreateFault: boolean;
  readonly missingConfig: boolean;
  readonly deletedInput: boolean;
  readonly deletedInputKind: 'files' | 'table';
  readonly updateError: boolean;
  readonly backEdgeWriteError: boolean;
  readonly largeTable: boolean;
  readonly maxCellBytes: number;
  readonly endWorkerRace: boolean;
  readonly reservedTable: 'none' | 'init' | 'update-rebind' | 'update-delete';
  readonly bodyState: 'none' | 'before' | 'after' | 'blank';
  /** [open] §9.3. */
  readonly holdOrder: 'consume-first' | 'hold-first';
  /** [open] §1.2: what a GET of a deleted key answers. */
  readonly missingKey: '403' | '404';
  /** Also check the design invariants I2 (no main-loop read during streaming) and I3 (deferred placement). */
  readonly designChecks: boolean;
  readonly endWorkerAttempts: number;
  /** Faults one run may take (F_overlap / F_recreate outcomes). */
  readonly faultBudget: number;
  /** Python pass-through hops in a single loop's body (the cost model's k). */
  readonly bodyHops: number;
  /** Overrides the large table's per-row payload bytes (benchmarks size the table with it). */
  readonly payloadBytes: number;
}

export const DEFAULT_PARAMS: AmberParams = {
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

export function workflowOf(p: AmberParams): Workflow {
  return buildWorkflow({
    topology: p.topology,
    rows: p.rows,
    payloadBytes: p.payloadBytes > 0 ? p.payloadBytes : p.largeTable ? largePayloadBytes(p) : 0,
    updateError: p.updateError,
    reservedTable: p.reservedTable,
    bodyState: p.bodyState,
    missingConfig: p.missingConfig,
    bodyHops: p.bodyHops,
  });
}

export function amberScenario(partial: Partial<AmberParams> = {}): Scenario {
  const p: AmberParams = { ...DEFAULT_PARAMS, ...partial };
  const wf = workflowOf(p);
  const actors: Record<string, any> = {
    [COORDINATOR]: coordinatorMachine(wf.plan, { endWorkerRace: p.endWorkerRace, endWorkerAttempts: p.endWorkerAttempts, retryMs: 200 }),
    [STORE]: storeLogic({
      missingKey: p.missingKey,
      overlapFault: p.overlapFault,
      recreateFault: p.recreateFault,
      deletedInput: p.deletedInput ? p.deletedInputKind : 'none',
      backEdgeWriteError: p.backEdgeWriteError,
      maxCellBytes: p.maxCellBytes,
    }),
  };
  const wopts = { design: p.design, holdOrder: p.holdOrder, endWorkerRace: p.endWorkerRace };
  for (const op of wf.ops) actors[op.id] = workerMachine(op, wopts);
  const reader = readerMachine();
  for (const r of wf.readers) actors[r.id] = { logic: reader, input: { id: r.id, worker: r.worker, store: STORE } };
  const faulty = p.overlapFault || p.recreateFault;
  const props = amberProperties(p, wf);
  return defineScenario({
    name: 'amber-loop',
    description: `Amber loop (${p.topology}, ${p.rows} rows) with design ${p.design}`,
    actors,
    start: [{ to: COORDINATOR, msg: { type: 'StartWorkflow' } }],
    faults: { budget: faulty ? p.faultBudget : 0, outcomes: [STORE] },
    ...props,
    params: { ...p },
  });
}
