// `interleave check|simulate airflow-checkpoints`: batched checkpoints of Airflow's
// iterable tasks (PR #62922, commit e5abeccb1e). One key per round of
// task_concurrency outcomes (per-round) against one key per index (per-index) and
// the rejected overwrite-one-key; faults F1-F12 as switches; the appendix's open
// points as parameters with the protocol's defaults.
import { ScenarioError } from '../../actors/index.ts';
import { defineFamily, type ParamValues, type SimulationReport } from '../../actors/family.ts';
import { DEFAULT_CONFIG as D, configOf, parseOutcomes, parseResumeState, type AirflowConfig } from './config.ts';
import { buildAirflow } from './scenario.ts';
import { CALIBRATION_C, CALIBRATION_CHANNEL_ONLY, CALIBRATION_REAL, compareDesigns, type Comparison, type DesignRun } from './simulation.ts';

const b = (description: string, def: boolean) => ({ type: 'bool' as const, default: def, description });

function keyList(text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((x) => {
    const n = Number(x.trim());
    if (!Number.isInteger(n) || n < 0) throw new ScenarioError(`deleteKeys must be batch numbers separated by commas (e.g. '2' or '2,3'); got '${text}'`);
    return n;
  });
}

export function configFromParams(p: ParamValues): AirflowConfig {
  return configOf({
    design: p.design as AirflowConfig['design'],
    items: Number(p.items),
    W: Number(p.taskConcurrency),
    tries: Number(p.tries),
    script: parseOutcomes(String(p.outcomes)),
    backend: p.backend as AirflowConfig['backend'],
    opMs: Number(p.opMs),
    entryBytes: Number(p.entryBytes),
    maxValueStorageBytes: Number(p.maxValueStorageBytes),
    rowCapBytes: Number(p.rowCapBytes),
    recordFirst: Boolean(p.recordFirst),
    writeAwait: p.writeAwait as AirflowConfig['writeAwait'],
    markerFailureFails: Boolean(p.markerFailureFails),
    rerunNumbering: p.rerunNumbering as AirflowConfig['rerunNumbering'],
    oldReads: p.oldReads as AirflowConfig['oldReads'],
    staleGuard: Boolean(p.staleGuard),
    h5Guard: Boolean(p.h5Guard),
    markerGuard: Boolean(p.markerGuard),
    liveness: Boolean(p.liveness),
    faultBudget: Number(p.faultBudget),
    writeError: Boolean(p.writeError),
    ambiguousWrite: Boolean(p.ambiguousWrite),
    readError: Boolean(p.readError),
    hardKill: Boolean(p.hardKill),
    softKill: p.softKill as AirflowConfig['softKill'],
    softKillTry: Number(p.softKillTry),
    externalDelete: Boolean(p.externalDelete),
    deleteKeys: keyList(String(p.deleteKeys)),
    deleteBeforeTry: Number(p.deleteBeforeTry),
    clear: p.clear as AirflowConfig['clear'],
    lease: Boolean(p.lease),
    fencing: Boolean(p.fencing),
    processes: Number(p.processes),
    resumeTry: Number(p.resumeTry),
    resumeRows: parseResumeState(String(p.resumeState)),
  });
}

const ms = (x: number) => Number((x / 1000).toFixed(2));

function designRow(label: string, d: DesignRun): (string | number)[] {
  return [label, d.first.writes, d.retry.reads, ms(d.first.wallMs), ms(d.retry.wallMs), d.first.bytes, Math.round(d.realMs)];
}

function designData(d: DesignRun) {
  return {
    design: d.design,
    firstAttempt: { storeWrites: d.first.writes, pushes: d.first.pushes, runs: d.first.runs, wallMs: d.first.wallMs, bytesWritten: d.first.bytes },
    retry: { storeReads: d.retry.reads, replays: d.retry.replays, runs: d.retry.runs, wallMs: d.retry.wallMs },
    simulatedSteps: d.steps,
    realMs: Math.round(d.realMs),
  };
}

export function simulationReport(c: Comparison, note: string): SimulationReport {
  const rows = [designRow('per-index (before)', c.old), designRow('per-round (after)', c.new)];
  if (c.overwrite) rows.push(designRow('overwrite-one-key (rejected)', c.overwrite));
  return {
    title: `airflow-checkpoints: N = ${c.items}, calibration ${c.calibration}`,
    tables: [
      {
        title: `Checkpoints, first attempt (one failing index) and retry, N = ${c.items}`,
        // Simulated (virtual) time and this machine's time side by side: the headers say which is which.
        columns: ['design', 'writes (try 1)', 'reads (retry)', 'try 1 (simulated s)', 'retry (simulated s)', 'bytes written (try 1)', 'simulation took (ms)'],
        rows,
        note: `the old design (per-index) takes ${c.ratioFirst.toFixed(3)}x the new one's simulated time on the first attempt, ${c.ratioRetry.toFixed(3)}x on the retry. Calibration ${c.calibration}: ${note}`,
      },
    ],
    data: {
      items: c.items,
      calibration: { name: c.calibration, note },
      designs: { 'per-index': designData(c.old), 'per-round': designData(c.new), ...(c.overwrite ? { 'overwrite-one-key': designData(c.overwrite) } : {}) },
      ratios: { firstAttempt: c.ratioFirst, retry: c.ratioRetry },
    },
  };
}

/** The `airflow-checkpoints` family: Airflow iterable-task checkpoint designs under kills, store faults and retries (see docs/airflow.md). */
export const airflowFamily = defineFamily({
  name: 'airflow-checkpoints',
  description: 'Airflow iterable tasks (PR #62922): checkpoints per round of task_concurrency outcomes vs one key per index; marker last, kill window, retry reads',
  params: {
    design: { type: 'enum', values: ['per-round', 'per-index', 'overwrite-one-key'], default: D.design, description: 'per-round (after e5abeccb1e), per-index (before), overwrite-one-key (rejected alternative)' },
    items: { type: 'int', min: 0, max: 100_000, default: D.items, description: 'N, the input items (indexed tasks)' },
    taskConcurrency: { type: 'int', min: 1, max: 64, default: 16, description: 'W: indexed tasks in flight and outcomes per round (Airflow default: cpu count); check small models with W = 2' },
    tries: { type: 'int', min: 1, max: 1_000_000, default: D.tries, description: 'tries of the task instance (retries + 1); keep it small when checking' },
    outcomes: { type: 'string', default: '', description: "F11 operator outcomes per index, e.g. 'ssfsk' or '37s f'; s success, k skip, f failure, n fail without retry, x fail-fast, d DeadlockImminentError; tries separated by '/'" },
    backend: { type: 'enum', values: ['database', 'object-storage'], default: D.backend, description: 'task state store backend (object storage: no size warning, no row cap)' },
    rowCapBytes: { type: 'int', min: 0, default: D.rowCapBytes, description: 'F8 row cap of the database backend (MySQL MEDIUMTEXT 16 MiB; 0 = none)' },
    maxValueStorageBytes: { type: 'int', min: 1, default: D.maxValueStorageBytes, description: 'F7 size above which a write logs a warning (and proceeds)' },
    entryBytes: { type: 'int', min: 1, default: D.entryBytes, description: 'serialised bytes of one entry (its result included)' },
    opMs: { type: 'number', min: 0, default: D.opMs, description: 'operator I/O per executed index, virtual ms' },
    faultBudget: { type: 'int', min: 0, max: 4, default: 2, description: 'faults one run may take (each switched-on fault costs one)' },
    writeError: b('F1/F9 a state-store write may fail (no effect)', true),
    ambiguousWrite: b('F2 a write may persist yet answer an error', D.ambiguousWrite),
    readError: b('F3 a startup read may fail', D.readError),
    hardKill: b('F4 the task process may be SIGKILLed at any step (restart = the next try)', true),
    softKill: { type: 'enum', values: ['none', 'sigterm', 'timeout'], default: D.softKill, description: 'F5 SIGTERM (no retry) or execution_timeout (retry) during try softKillTry' },
    softKillTry: { type: 'int', min: 1, default: D.softKillTry, description: 'the try that gets the soft kill' },
    externalDelete: b('F10 a batch may vanish (retention cleanup, bucket lifecycle) just before a retry reads it', D.externalDelete),
    deleteKeys: { type: 'string', default: '', description: "F10 batch numbers removed before try deleteBeforeTry, e.g. '2'" },
    deleteBeforeTry: { type: 'int', min: 2, default: D.deleteBeforeTry, description: 'the try before which deleteKeys are removed' },
    clear: { type: 'enum', values: ['none', 'keep', 'discard'], default: D.clear, description: 'F12 a manual clear after success, keeping or discarding the task state' },
    recordFirst: b('open point 3: record the entry before the XCom push', D.recordFirst),
    writeAwait: { type: 'enum', values: ['closing-slot', 'detached'], default: D.writeAwait, description: 'open point 4: who awaits a round write (the closing coroutine holds its slot)' },
    markerFailureFails: b('open point 5: a failed marker write fails the try', D.markerFailureFails),
    rerunNumbering: { type: 'enum', values: ['restartAt0', 'appendAfterExisting'], default: D.rerunNumbering, description: 'open point 6: batch numbering after a clear-after-success' },
    oldReads: { type: 'enum', values: ['in-coroutine', 'upfront'], default: D.oldReads, description: "open point 7: the per-index design's retry reads" },
    staleGuard: b('H2 guard: ignore a batch written by an older try than a lower key', D.staleGuard),
    h5Guard: b('H5 guard: hold the channel until a cancelled request is answered', D.h5Guard),
    markerGuard: b('H6 guard: take a completed marker for a clear only after a clear', true),
    liveness: b('also check LIV-1 (the task eventually succeeds) and LIV-3 (the startup read leads to its end) as liveness properties of every run, cycles included (no POR)', false),
    lease: b('the task lease: a process takes it before it runs, waits while another holds it, and takes it over once it expired (at any step: a missed heartbeat); writes are fenced by its token (LEASE-1, LEASE-2)', D.lease),
    fencing: b('with lease: the store refuses a write whose fencing token is not current (false: a broken store; LEASE-2 catches it)', D.fencing),
    processes: { type: 'int', min: 1, max: 2, default: D.processes, description: "task processes started at once on the task: 2 is a double dispatch or a zombie's successor (checked with the LEASE properties); without lease, LEASE-1 breaks" },
    resumeTry: { type: 'int', min: 1, default: D.resumeTry, fromTrace: true, description: 'the try the run starts at: a live run that resumed records the try it ran (earlier tries are past)' },
    resumeState: { type: 'string', default: '', fromTrace: true, description: 'JSON object of the task state keys and values the run starts with (a resumed live run records what it found)' },
    calibration: { type: 'enum', values: ['C', 'real-run', 'channel-only'], default: 'C', description: 'simulate: calibration C (s = 2 ms), the real run (0.42 s per state-store write) or channel-only time (no loop CPU)' },
  },
  build: (p) => buildAirflow(configFromParams(p)),
  checkDefaults: { strategy: 'dfs', maxStates: 100_000, maxDepth: 600 },
  simulate(p, { seed, onProgress }) {
    const cal = p.calibration === 'real-run' ? CALIBRATION_REAL : p.calibration === 'channel-only' ? CALIBRATION_CHANNEL_ONLY : CALIBRATION_C;
    const items = Number(p.items);
    const c = compareDesigns(items, cal, seed, { W: Number(p.taskConcurrency), overwrite: items <= 5000, ...(onProgress ? { onProgress } : {}) });
    return simulationReport(c, cal.note);
  },
  hint: (p, violated) =>
    violated && !p.markerGuard ? 'H6: a hard kill after the marker makes the retry rerun everything; --param markerGuard=true shows the rest holds' : undefined,
});
