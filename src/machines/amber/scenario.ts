// Builds the `amber-loop` scenario from its parameters: the coordinator, one
// worker per operator, one materialization reader per (input port, storage URI),
// the store, and the properties I1–I13.
import { defineScenario, type Scenario } from '../../actors/index.ts';
import { coordinatorMachine, type CoordinatorContext, type CoordinatorState } from './coordinator.ts';
import { amberLegend } from './legend.ts';
import { deriveStart, type StartSeed } from './materialized.ts';
import { amberProperties } from './properties.ts';
import { readerMachine, type ReaderState } from './reader.ts';
import { storeLogic } from './store.ts';
import { buildWorkflow, type Workflow } from './topology.ts';
import { COORDINATOR, STORE, workerMachine, type WorkerState } from './worker.ts';

export { STARTS, DEFAULT_PARAMS, largePayloadBytes, expectsHold, type Start, type AmberParams } from './params.ts';
import { DEFAULT_PARAMS, largePayloadBytes, type AmberParams } from './params.ts';

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

/** How a scenario starts: the seed it boots from, or why it starts from scratch. */
export type StartInfo = { readonly kind: 'materialized'; readonly seed: StartSeed } | { readonly kind: 'scratch'; readonly reason?: string };

const startInfo = new WeakMap<Scenario, StartInfo>();
/** Per parameter set: the derived start and the workflow it was derived with. */
const seeds = new Map<string, { readonly wf: Workflow; readonly d: ReturnType<typeof deriveStart> }>();

/** The start a scenario built by `amberScenario` boots from. */
export function startOf(sc: Scenario): StartInfo {
  return startInfo.get(sc) ?? { kind: 'scratch' };
}

/** Schedule level of the first Loop End region. */
export function loopEndLevel(wf: Workflow): number {
  const les = new Set(wf.ops.filter((o) => o.kind === 'loopEnd').map((o) => o.id));
  return wf.plan.levels.findIndex((l) => l.some((op) => les.has(op)));
}

/** The amber-loop scenario for given parameters (`partial` on top of `AMBER_DEFAULT_PARAMS`, which start from scratch). */
export function amberScenario(partial: Partial<AmberParams> = {}): Scenario {
  const p: AmberParams = { ...DEFAULT_PARAMS, ...partial };
  if (p.start === 'scratch') {
    const scratch = build(p, workflowOf(p));
    startInfo.set(scratch, { kind: 'scratch' });
    return scratch;
  }
  // Derived once per parameter set (the derivation is deterministic). Later builds reuse
  // its workflow, so their messages carry the very objects the seed world holds, and a
  // trace's `changed` details do not depend on what the process built before.
  const key = JSON.stringify(p);
  let derived = seeds.get(key);
  if (!derived) {
    const wf = workflowOf(p);
    derived = { wf, d: deriveStart(build(p, wf), loopEndLevel(wf)) };
    seeds.set(key, derived);
  }
  const { wf, d } = derived;
  if (!d.ok) {
    const sc = build(p, wf, undefined, d.reason);
    startInfo.set(sc, { kind: 'scratch', reason: d.reason });
    return sc;
  }
  const sc = build(p, wf, d.seed);
  startInfo.set(sc, { kind: 'materialized', seed: d.seed });
  return sc;
}

function build(p: AmberParams, wf: Workflow, seed?: StartSeed, noSeed?: string): Scenario {
  const input = (id: string) => seed?.contexts[id];
  const actors: Record<string, any> = {
    [COORDINATOR]: {
      logic: coordinatorMachine(wf.plan, { endWorkerRace: p.endWorkerRace, endWorkerAttempts: p.endWorkerAttempts, retryMs: 200 }, seed?.states[COORDINATOR] as CoordinatorState | undefined),
      input: input(COORDINATOR) as CoordinatorContext | undefined,
    },
    [STORE]: {
      logic: storeLogic({
        missingKey: p.missingKey,
        overlapFault: p.overlapFault,
        recreateFault: p.recreateFault,
        deletedInput: p.deletedInput ? p.deletedInputKind : 'none',
        backEdgeWriteError: p.backEdgeWriteError,
        maxCellBytes: p.maxCellBytes,
      }),
      input: input(STORE),
    },
  };
  const wopts = { design: p.design, holdOrder: p.holdOrder, endWorkerRace: p.endWorkerRace };
  for (const op of wf.ops) actors[op.id] = { logic: workerMachine(op, wopts, seed?.states[op.id] as WorkerState | undefined), input: input(op.id) };
  const readers = new Map<ReaderState, ReturnType<typeof readerMachine>>();
  const reader = (st: ReaderState) => readers.get(st) ?? readers.set(st, readerMachine(st)).get(st)!;
  for (const r of wf.readers) {
    const st = (seed?.states[r.id] ?? 'idle') as ReaderState;
    actors[r.id] = { logic: reader(st), input: { id: r.id, worker: r.worker, store: STORE, ...(seed ? { ctx: input(r.id) } : {}) } };
  }
  const faulty = p.overlapFault || p.recreateFault;
  const props = amberProperties(p, wf);
  const monitors = seed && props.monitors ? Object.fromEntries(Object.entries(props.monitors).map(([n, m]) => [n, { ...m, init: seed.monitors[n] }])) : props.monitors;
  const where = seed
    ? `, from the ${wf.plan.levels[loopEndLevel(wf)]!.join('+')} region's scheduling (earlier regions materialized: ${seed.prefix.schedule.length} steps, every one of their ${seed.explored} worlds explored)`
    : noSeed
      ? `, from scratch (start=materialized does not apply: ${noSeed})`
      : '';
  const start: Scenario['start'] = seed ? seed.start : [{ to: COORDINATOR, msg: { type: 'StartWorkflow' } }];
  return defineScenario({
    name: 'amber-loop',
    description: `Amber loop (${p.topology}, ${p.rows} rows) with design ${p.design}${where}`,
    actors,
    start,
    faults: { budget: faulty ? p.faultBudget : 0, outcomes: [STORE] },
    ...props,
    monitors,
    params: { ...p },
    legend: amberLegend(wf, p.design),
  });
}
