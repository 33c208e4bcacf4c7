// The verdicts of the airflow-checkpoints check scenarios (the exhaustive and hazard
// models of test/machines/airflow/check.test.ts and test/machines/airflow/lease.test.ts, the family's default
// and a few fault mixes): verdict, distinct states, transitions, counterexample steps and CPU
// per scenario, POR on (with --no-por also off). A model change that merges states must leave
// every verdict and counterexample length as it was (docs/airflow.md, "State space", has the
// before/after table of the last such change).
//
//   npm run bench -- airflow --verdicts           (a few minutes of CPU)
//   npm run bench -- airflow --verdicts --no-por  (each scenario with and without POR)
import { check, type CheckOptions, type CheckResult } from '../src/check/index.ts';
import { buildAirflow } from '../src/machines/airflow/scenario.ts';
import { parseOutcomes, type AirflowConfig } from '../src/machines/airflow/config.ts';
import { printTable } from './table.ts';

const X = 5_000_000;
const ROWS: [string, Partial<AirflowConfig>, CheckOptions][] = [
  ['N5 W2 no fault', { items: 5, W: 2 }, { strategy: 'dfs', maxStates: X, shrink: false }],
  ['N5 W2 write+kill, H6 guard', { items: 5, W: 2, faultBudget: 2, writeError: true, hardKill: true, markerGuard: true }, { strategy: 'dfs', maxStates: X, shrink: false }],
  ...(['per-round', 'overwrite-one-key', 'per-index'] as const).map((design) => [`INV-2 only, ${design}`, { design, items: 4, W: 2, faultBudget: 2, writeError: true, ambiguousWrite: true, hardKill: true, only: ['INV-2'] }, { strategy: 'dfs', maxStates: X, shrink: false }] as [string, Partial<AirflowConfig>, CheckOptions]),
  ['INV-12 only, N4 W2 kill', { items: 4, W: 2, faultBudget: 1, hardKill: true, markerGuard: true, only: ['INV-12'] }, { strategy: 'dfs', maxStates: X, shrink: false }],
  ['H1 poison carry', { items: 4, W: 2, tries: 2, entryBytes: 600, rowCapBytes: 1000, markerGuard: true }, { strategy: 'bfs' }],
  ['H1 object-storage', { items: 4, W: 2, tries: 2, entryBytes: 600, rowCapBytes: 1000, markerGuard: true, backend: 'object-storage' }, { strategy: 'bfs' }],
  ['H1 per-index', { items: 4, W: 2, tries: 2, entryBytes: 600, rowCapBytes: 1000, markerGuard: true, design: 'per-index' }, { strategy: 'bfs' }],
  ['H2 stale batch', { items: 3, W: 2, tries: 3, faultBudget: 2, hardKill: true, externalDelete: true, markerGuard: true, script: parseOutcomes('ssf') }, { strategy: 'bfs' }],
  ['H2 staleGuard', { items: 3, W: 2, tries: 3, faultBudget: 2, hardKill: true, externalDelete: true, markerGuard: true, script: parseOutcomes('ssf'), staleGuard: true }, { strategy: 'dfs', shrink: false }],
  ['H6 kill after marker', { items: 3, W: 2, faultBudget: 1, hardKill: true }, { strategy: 'bfs' }],
  ['H5 no guard', { items: 4, W: 2, h5Guard: false, script: parseOutcomes('sx') }, { strategy: 'bfs' }],
  ['lease 2 proc', { items: 2, W: 1, tries: 2, lease: true, processes: 2 }, { strategy: 'dfs', maxStates: 1_000_000 }],
  ['no lease 2 proc (LEASE-1)', { items: 2, W: 1, tries: 2, processes: 2 }, { strategy: 'dfs', maxStates: 1_000_000 }],
  ['lease no fencing (LEASE-2)', { items: 2, W: 1, tries: 2, lease: true, processes: 2, fencing: false }, { strategy: 'dfs', maxStates: 1_000_000 }],
  ['lease 2 proc + kill', { items: 2, W: 1, tries: 2, lease: true, processes: 2, faultBudget: 1, hardKill: true }, { strategy: 'dfs', maxStates: 1_000_000 }],
  ['lease 1 proc + kill N3', { items: 3, W: 2, lease: true, faultBudget: 1, hardKill: true, markerGuard: true }, { strategy: 'dfs', maxStates: 1_000_000 }],
  ['family default with markerGuard=false (the PR)', { items: 5, W: 16, faultBudget: 2, writeError: true, hardKill: true, markerGuard: false }, { strategy: 'dfs', maxStates: 100_000, maxDepth: 600 }],
  ['family default (interleave check airflow-checkpoints)', { items: 5, W: 16, faultBudget: 2, writeError: true, hardKill: true, markerGuard: true }, { strategy: 'dfs', maxStates: 100_000, maxDepth: 600 }],
  ['N3 W16 ambiguous+read err+delete', { items: 3, W: 16, faultBudget: 2, writeError: true, ambiguousWrite: true, readError: true, externalDelete: true, hardKill: true, markerGuard: true }, { strategy: 'dfs', maxStates: 1_000_000 }],
  ['N3 W2 clear keep, sigterm', { items: 3, W: 2, tries: 3, faultBudget: 1, hardKill: true, clear: 'keep', softKill: 'sigterm', markerGuard: true }, { strategy: 'dfs', maxStates: 1_000_000 }],
  ['N3 W2 overwrite-one-key all faults', { items: 3, W: 2, design: 'overwrite-one-key', faultBudget: 2, writeError: true, ambiguousWrite: true, hardKill: true, markerGuard: true }, { strategy: 'dfs', maxStates: 1_000_000 }],
  ['N3 W2 per-index all faults', { items: 3, W: 2, design: 'per-index', faultBudget: 2, writeError: true, ambiguousWrite: true, hardKill: true, markerGuard: true }, { strategy: 'dfs', maxStates: 1_000_000 }],
];

function verdict(r: CheckResult): string {
  if (!r.violation) return r.complete ? 'holds, complete' : `cut (${r.cutBy})`;
  const p = r.violation.property;
  const named = p.message.split(':')[0]!;
  return named === p.name ? `violated ${p.name}` : `violated ${p.name} (${named})`;
}

export async function verdictRows(withoutPor: boolean): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  for (const [name, over, opts] of ROWS) {
    for (const por of withoutPor ? [true, false] : [true]) {
      const t = process.cpuUsage();
      const r = await check(buildAirflow(over), { ...opts, por });
      const c = process.cpuUsage(t);
      rows.push([name, por ? 'on' : 'off', verdict(r), r.stats.distinctStates!, r.stats.transitions, r.violation ? r.violation.schedule.length : '', Math.round((c.user + c.system) / 1000)]);
    }
  }
  return rows;
}

export async function printVerdicts(withoutPor: boolean): Promise<void> {
  printTable(
    'airflow-checkpoints check scenarios: verdicts',
    ['scenario', 'POR', 'verdict', 'distinct states', 'transitions', 'counterexample steps', 'CPU ms'],
    await verdictRows(withoutPor),
    'The scenarios of test/machines/airflow/check.test.ts and test/machines/airflow/lease.test.ts, the family default (dfs, budget 100,000) and fault mixes; counterexamples shrunk where the tests shrink them.',
  );
}
