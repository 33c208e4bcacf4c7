// `interleave check amber-loop`: Texera Amber loops (PR #6971). The defaults show the
// race CI hit: the read at consume (D1) overlaps the worker's own materialization
// reader, the reader's fetch gets 403, it exits without EndChannel, and the loop hangs.
import { defineFamily, type ParamValues } from '../../actors/family.ts';
import { simulateDesigns } from './cost.ts';
import { DESIGNS, type Design } from './operators.ts';
import { DEFAULT_PARAMS, STARTS, amberScenario, startOf, type AmberParams } from './scenario.ts';
import { TOPOLOGIES, type Topology } from './topology.ts';

const b = (description: string, def: boolean) => ({ type: 'bool' as const, default: def, description });

export function paramsOf(p: ParamValues): AmberParams {
  return {
    start: p.start as AmberParams['start'],
    design: p.design as Design,
    topology: p.topology as Topology,
    rows: Number(p.rows),
    overlapFault: Boolean(p.overlapFault),
    recreateFault: Boolean(p.recreateFault),
    missingConfig: Boolean(p.missingConfig),
    deletedInput: Boolean(p.deletedInput),
    deletedInputKind: p.deletedInputKind as AmberParams['deletedInputKind'],
    updateError: Boolean(p.updateError),
    backEdgeWriteError: Boolean(p.backEdgeWriteError),
    largeTable: Boolean(p.largeTable),
    maxCellBytes: Number(p.maxCellBytes),
    endWorkerRace: Boolean(p.endWorkerRace),
    reservedTable: p.reservedTable as AmberParams['reservedTable'],
    bodyState: p.bodyState as AmberParams['bodyState'],
    holdOrder: p.holdOrder as AmberParams['holdOrder'],
    missingKey: p.missingKey as AmberParams['missingKey'],
    designChecks: Boolean(p.designChecks),
    endWorkerAttempts: Number(p.endWorkerAttempts),
    faultBudget: Number(p.faultBudget),
    bodyHops: Number(p.bodyHops),
    payloadBytes: Number(p.payloadBytes),
    liveness: Boolean(p.liveness),
  };
}

const d = DEFAULT_PARAMS;

/** The `amber-loop` family: Texera Amber's loop designs checked for the read race (see docs/amber.md). */
export const amberLoopFamily = defineFamily({
  name: 'amber-loop',
  description: 'Texera Amber loops (PR #6971): the loop table read at consume races the worker\'s own reader (403, no EndChannel, hang); reading at EndChannel fixes it',
  params: {
    start: {
      type: 'enum',
      values: STARTS,
      default: 'materialized',
      description:
        "materialized: begin when the first Loop End region is scheduled, the earlier regions' outputs in the store (derived by exploring every run of those regions; used only when they all meet in one world with no fault or violation on the way, else from scratch); scratch: begin before StartWorkflow",
    },
    design: { type: 'enum', values: DESIGNS, default: d.design, description: 'table-in-state (D0, before the PR), read-at-consume (D1, first commit), read-at-endchannel (D2, final)' },
    topology: { type: 'enum', values: TOPOLOGIES, default: d.topology, description: 'single, nested (rows x rows), jvm-chain, nested-jvm-chain, fan-in' },
    rows: { type: 'int', min: 1, max: 50, default: d.rows, description: 'rows of the input table (iterations of a per-row loop)' },
    overlapFault: b("F_overlap: a reader's fetch may get 403 while its worker's main loop has a read in flight", d.overlapFault),
    recreateFault: b('F_recreate: a doc may be recreated just before a mid-stream reader fetches from it', d.recreateFault),
    missingConfig: b('loopStartPortUris lacks the Loop Start ids (scenario 8)', d.missingConfig),
    deletedInput: b("the loop input table's files are deleted (or the table dropped) before the Loop End reads it (scenario 7)", d.deletedInput),
    deletedInputKind: { type: 'enum', values: ['files', 'table'], default: d.deletedInputKind, description: 'with deletedInput: delete the data files (403) or drop the table (missing)' },
    updateError: b('the user update raises (scenario 9)', d.updateError),
    backEdgeWriteError: b('the back-edge put_one/close fails after the jump RPC (scenario 15)', d.backEdgeWriteError),
    largeTable: b('a wide input table whose D0 state row exceeds maxCellBytes (scenario 16)', d.largeTable),
    maxCellBytes: { type: 'int', min: 64, default: d.maxCellBytes, description: 'MAX_CELL_BYTES: the largest State content cell a hop can store' },
    endWorkerRace: b('EndWorker overtakes the RPC replies; the first termination attempt fails and is retried (scenario 17, #6960)', d.endWorkerRace),
    reservedTable: { type: 'enum', values: ['none', 'init', 'update-rebind', 'update-delete'], default: d.reservedTable, description: "user code touches the reserved name 'table' (scenario 11)" },
    bodyState: { type: 'enum', values: ['none', 'before', 'after', 'blank'], default: d.bodyState, description: 'a body UDF emits its own unstamped state before/after the loop state, or blanks the envelope (scenario 13)' },
    holdOrder: { type: 'enum', values: ['consume-first', 'hold-first'], default: d.holdOrder, description: '[open] whether the has-exception hold runs after the deferred consume (as reviewed) or before it' },
    missingKey: { type: 'enum', values: ['403', '404'], default: d.missingKey, description: '[open] what a GET of a deleted key answers (MinIO: 403)' },
    liveness: b('also check I12 (every loop terminates with the reference output) as a liveness property of every run, cycles included (no POR)', d.liveness),
    designChecks: b('also check I2 (no main-loop read while its readers stream) and I3 (consume only after EndChannel alignment): they flag D1 at the first consume', d.designChecks),
    endWorkerAttempts: { type: 'int', min: 1, max: 1000, default: d.endWorkerAttempts, description: 'EndWorker attempts before the coordinator gives up (200 ms apart)' },
    faultBudget: { type: 'int', min: 0, max: 4, default: d.faultBudget, description: 'F_overlap / F_recreate faults one run may take' },
    bodyHops: { type: 'int', min: 0, max: 8, default: d.bodyHops, description: 'Python pass-through hops in a single loop body (k)' },
    payloadBytes: { type: 'int', min: 0, default: d.payloadBytes, description: 'bytes of a wide string column per input row (0: none, or sized by largeTable)' },
  },
  build: (p) => amberScenario(paramsOf(p)),
  simulate: (p, { seed, onProgress }) => simulateDesigns(paramsOf(p), seed, undefined, onProgress),
  checkDefaults: (p) => ({ strategy: 'bfs', maxStates: p.topology === 'nested' || p.topology === 'nested-jvm-chain' ? 2_000_000 : 500_000, maxDepth: 5_000 }),
  hint: (p, violated) => {
    const lines: string[] = [];
    // Say when the materialized start did not apply (the check then ran from StartWorkflow).
    const st = p.start === 'materialized' ? startOf(amberScenario(paramsOf(p))) : undefined;
    const fellBack = st?.kind === 'scratch';
    if (st?.kind === 'scratch') lines.push(`checked from StartWorkflow: start=materialized does not apply here (${st.reason})`);
    if (violated && p.design !== 'read-at-endchannel') {
      const given = (skip: string) =>
        Object.entries(p)
          .filter(([k, v]) => k !== skip && v !== amberLoopFamily.params[k]?.default)
          .map(([k, v]) => ` --param ${k}=${String(v)}`)
          .join('');
      const extra = given('design');
      // Only F_overlap is this PR's race; the other switches break every design alike.
      const ownRaceOnly = !p.recreateFault && !p.deletedInput && !p.updateError && !p.backEdgeWriteError && !p.missingConfig && !p.largeTable;
      lines.push(
        ownRaceOnly
          ? `the PR's final design (read at EndChannel) passes with the same faults: npx interleave check amber-loop --param design=read-at-endchannel${extra}`
          : `compare the PR's final design (read at EndChannel) under the same switches (faults other than overlapFault break every design): npx interleave check amber-loop --param design=read-at-endchannel${extra}`,
      );
      if (p.design === 'read-at-consume' && !p.designChecks) lines.push('the cause, at the first consume (I2: main-loop read while the reader streams): npx interleave check amber-loop --param designChecks=true --param overlapFault=false');
      if (p.start === 'materialized' && !fellBack) lines.push(`the same check from StartWorkflow (the earlier regions' steps too): npx interleave check amber-loop --param start=scratch${given('start')}`);
    } else if (!violated && p.design === 'read-at-endchannel' && p.overlapFault) lines.push('the first commit (read at consume) hangs under the same faults: npx interleave check amber-loop');
    return lines.length > 0 ? lines.join('\n') : undefined;
  },
});
