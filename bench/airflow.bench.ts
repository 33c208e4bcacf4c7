// Airflow iterable-task checkpoints (src/machines/airflow): the discrete-event
// simulation of both designs at the seed's sizes, and the model checker on the
// small exhaustive models.
//
// 1. Calibration C (s = 2 ms per request, the lock held until the loop resumes):
//    per N and design, the store writes of try 1 (one index fails), the reads of
//    the retry, the simulated wall time of each try, the old/new ratios, and the
//    real time the simulation took.
// 2. The real run (a state-store write about 0.42 s): the first attempt at 16,194.
// 3. The rejected overwrite-one-key: bytes written, quadratic in N.
// 4. The checker, exhaustive dfs: states, distinct states per CPU second, and the
//    transitions saved by partial-order reduction (sleep sets; states are never
//    pruned, so the distinct count is the same with and without).
//
//   npm run bench -- airflow            (about a minute of CPU)
//   npm run bench -- airflow --quick    (N = 1,000 and the two smaller models)
//   npm run bench -- airflow --full     (adds N = 5 with a write fault and a kill)
//   npm run bench -- airflow --verdicts (only the verdicts of the check scenarios: airflow-verdicts.ts)
import { check } from '../src/check/index.ts';
import { buildAirflow } from '../src/machines/airflow/scenario.ts';
import type { AirflowConfig } from '../src/machines/airflow/config.ts';
import { CALIBRATION_C, CALIBRATION_REAL, compareDesigns, type Comparison } from '../src/machines/airflow/simulation.ts';
import { printTable } from './table.ts';
import { printVerdicts } from './airflow-verdicts.ts';

const s = (ms: number) => Number((ms / 1000).toFixed(2));

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function rows(c: Comparison): (string | number)[][] {
  const out: (string | number)[][] = [];
  for (const [name, d] of [['per-index', c.old], ['per-round', c.new]] as const) {
    out.push([c.items, name, d.first.writes, d.retry.reads, s(d.first.wallMs), s(d.retry.wallMs), name === 'per-round' ? c.ratioFirst.toFixed(3) : '', name === 'per-round' ? c.ratioRetry.toFixed(3) : '', s(d.realMs), d.steps]);
  }
  return out;
}

export default async function (argv: string[]): Promise<void> {
  if (argv.includes('--verdicts')) return printVerdicts(argv.includes('--no-por'));
  const quick = argv.includes('--quick');
  const full = argv.includes('--full');
  const sizes = quick ? [1000] : [1000, 5000, 16194];

  const table: (string | number)[][] = [];
  for (const n of sizes) table.push(...rows(compareDesigns(n, CALIBRATION_C, 1)));
  printTable(
    'Checkpoints per index vs per round, calibration C (W = 16, one failing index on try 1)',
    ['N', 'design', 'writes try 1', 'reads retry', 'sim wall try 1 (s)', 'sim wall retry (s)', 'old/new try 1', 'old/new retry', 'real s to simulate', 'steps'],
    table,
    `${CALIBRATION_C.note}. Seed: 1.56x / 1.8x at all three sizes.`,
  );

  if (!quick) {
    const real = compareDesigns(16194, CALIBRATION_REAL, 1);
    printTable(
      'The real run, N = 16,194 (first attempt)',
      ['design', 'writes', 'sim wall (s)', 'sim wall (h:mm)', 'real s to simulate'],
      [
        ['per-index', real.old.first.writes, s(real.old.first.wallMs), hm(real.old.first.wallMs), s(real.old.realMs)],
        ['per-round', real.new.first.writes, s(real.new.first.wallMs), hm(real.new.first.wallMs), s(real.new.realMs)],
      ],
      `old/new ${real.ratioFirst.toFixed(2)}x (seed: 2 h 14 vs 27 min, 4.96x). ${CALIBRATION_REAL.note}.`,
    );
  }

  const bytes: (string | number)[][] = [];
  for (const n of quick ? [1000] : [1000, 5000]) {
    const c = compareDesigns(n, CALIBRATION_C, 1, { overwrite: true });
    bytes.push([n, c.old.first.bytes, c.new.first.bytes, c.overwrite!.first.bytes, (c.overwrite!.first.bytes / c.new.first.bytes).toFixed(1)]);
  }
  printTable('Bytes of checkpoint values written on try 1 (100 B per entry)', ['N', 'per-index', 'per-round', 'overwrite-one-key', 'overwrite / per-round'], bytes, 'overwrite-one-key rewrites every outcome so far: about b*N^2/(2W) bytes.');

  const models: [string, Partial<AirflowConfig>][] = [
    ['N=5 W=2, no fault', { items: 5, W: 2 }],
    ['N=5 W=2, one hard kill', { items: 5, W: 2, faultBudget: 1, hardKill: true, markerGuard: true }],
    ['N=4 W=2, write fault + hard kill', { items: 4, W: 2, faultBudget: 2, writeError: true, hardKill: true, markerGuard: true }],
  ];
  if (full) models.push(['N=5 W=2, write fault + hard kill', { items: 5, W: 2, faultBudget: 2, writeError: true, hardKill: true, markerGuard: true }]);
  const chk: (string | number)[][] = [];
  for (const [name, over] of models) {
    const sc = buildAirflow(over);
    const c0 = cpuMs();
    const withPor = await check(sc, { strategy: 'dfs', shrink: false });
    const c1 = cpuMs();
    const without = await check(sc, { strategy: 'dfs', shrink: false, por: false });
    chk.push([
      name,
      withPor.ok && withPor.complete ? 'holds, complete' : withPor.violation ? withPor.violation.property.name : 'cut',
      withPor.stats.distinctStates!,
      withPor.stats.states,
      without.stats.states,
      `${(100 * (1 - withPor.stats.transitions / Math.max(1, without.stats.transitions))).toFixed(0)}%`,
      Math.round((withPor.stats.distinctStates! * 1000) / Math.max(1, c1 - c0)),
    ]);
  }
  printTable(
    'Model checker, per round, exhaustive dfs (all properties)',
    ['model', 'result', 'distinct states', 'states generated (POR)', 'states generated (no POR)', 'transitions saved by POR', 'distinct states / CPU s'],
    chk,
    'POR: sleep sets over deliveries to different receivers; monitors declare the events they watch. The H6 guard is on (without it a kill after the marker breaks INV-14).',
  );
}

function hm(ms: number): string {
  const m = Math.round(ms / 60000);
  return `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}`;
}
