// npm run bench -- amber-checks [--only=<regex>]
// Every amber-loop check configuration the tests and benchmarks use, with its verdict,
// distinct states, transitions and counterexample length (bfs unless noted): the
// reference a refactor of the Amber charts must reproduce row for row (a changed
// verdict is a bug in one of the two versions). Counts, not times.
import { check } from '../src/check/index.ts';
import { amberScenario, type AmberParams } from '../src/machines/amber/scenario.ts';
import { printTable } from './table.ts';

type C = [string, Partial<AmberParams>, Record<string, unknown>?];
const both = (name: string, p: Partial<AmberParams>): C[] => [[`${name} mat`, { ...p, start: 'materialized' }], [`${name} scr`, { ...p, start: 'scratch' }]];
const D2 = { design: 'read-at-endchannel' as const, overlapFault: false };
const cases: C[] = [
  // test/machines/amber/scenarios.test.ts (overlapFault false, both starts)
  ...both('S1 D2 single', D2),
  ...both('S2 D2 nested', { ...D2, topology: 'nested' }),
  ...both('S3 D2 jvm-chain', { ...D2, topology: 'jvm-chain' }),
  ...both('S7 D2 deleted files', { ...D2, deletedInput: true, deletedInputKind: 'files' }),
  ...both('S7 D2 deleted table', { ...D2, deletedInput: true, deletedInputKind: 'table' }),
  ...both('S8 D2 missingConfig', { ...D2, missingConfig: true }),
  ...both('S9 D2 updateError', { ...D2, updateError: true }),
  ...both('S11 D2 reserved init', { ...D2, reservedTable: 'init' }),
  ...both('S11 D2 reserved update-rebind', { ...D2, reservedTable: 'update-rebind' }),
  ...both('S11 D2 reserved update-delete', { ...D2, reservedTable: 'update-delete' }),
  ...both('S12 D2 fan-in', { ...D2, topology: 'fan-in' }),
  ...both('S13 D2 bodyState before', { ...D2, bodyState: 'before' }),
  ...both('S13 D2 bodyState after', { ...D2, bodyState: 'after' }),
  ...both('S13 D2 bodyState blank', { ...D2, bodyState: 'blank' }),
  ...both('S15 D2 backEdgeWriteError', { ...D2, backEdgeWriteError: true, endWorkerAttempts: 3 }),
  ...both('S16 D2 largeTable', { ...D2, largeTable: true }),
  ...both('S17 D2 endWorkerRace', { ...D2, endWorkerRace: true }),
  // test/machines/amber/race.test.ts
  ...both('race D1 designChecks', { design: 'read-at-consume', overlapFault: false, designChecks: true }),
  ...both('race D1 overlap (default)', {}),
  ['race D2 designChecks', { design: 'read-at-endchannel', designChecks: true }],
  ['race D2 designChecks nested2', { design: 'read-at-endchannel', designChecks: true, topology: 'nested', rows: 2 }],
  ['race D0', { design: 'table-in-state', designChecks: false }],
  ['race recreate D0', { design: 'table-in-state', overlapFault: false, recreateFault: true }],
  ['race recreate D1', { design: 'read-at-consume', overlapFault: false, recreateFault: true }],
  ['race recreate D2', { design: 'read-at-endchannel', overlapFault: false, recreateFault: true }],
  ['race pct D1 500', { start: 'materialized' }, { strategy: 'pct', seed: 7, runs: 500, countDistinct: true }],
  ['race pct D1 scr 500', { start: 'scratch' }, { strategy: 'pct', seed: 7, runs: 500, countDistinct: true }],
  ['race pct D1 100', { design: 'read-at-consume' }, { strategy: 'pct', seed: 7, runs: 100, countDistinct: true }],
  ['race pct D2 100', { design: 'read-at-endchannel' }, { strategy: 'pct', seed: 7, runs: 100, countDistinct: true }],
  // test/machines/amber/model.test.ts
  ['model D2 recreate 404', { design: 'read-at-endchannel', overlapFault: false, recreateFault: true, missingKey: '404' }],
  // test/machines/amber/start.test.ts cases
  ...both('start D1 nooverlap', { design: 'read-at-consume', overlapFault: false }),
  ...both('start D0', { design: 'table-in-state' }),
  ...both('start D1 nested2', { design: 'read-at-consume', topology: 'nested', rows: 2 }),
  ...both('start D2 deletedInput', { design: 'read-at-endchannel', deletedInput: true }),
  ...both('start D2 backEdge', { design: 'read-at-endchannel', backEdgeWriteError: true, endWorkerAttempts: 3 }),
  ...both('start D2 designChecks', { design: 'read-at-endchannel', designChecks: true }),
  ...both('start D2 nested2 designChecks', { design: 'read-at-endchannel', designChecks: true, topology: 'nested', rows: 2 }),
  ...both('start recreate', { recreateFault: true, overlapFault: false }),
  ...both('start D0 largeTable', { design: 'table-in-state', largeTable: true }),
  ...both('start reserved init', { reservedTable: 'init' }),
  // test/check/liveness/seeds.test.ts
  ['liveness D2', { design: 'read-at-endchannel', liveness: true }],
  ['liveness D1', { design: 'read-at-consume', liveness: true }],
  // bench/checker + bench/amber checker table
  ['bench D2 nested3 designChecks', { design: 'read-at-endchannel', designChecks: true, topology: 'nested', rows: 3 }],
  ['bench D2 nested3 recreate', { design: 'read-at-endchannel', topology: 'nested', rows: 3, recreateFault: true }],
  ['bench D2 fan-in designChecks', { design: 'read-at-endchannel', designChecks: true, topology: 'fan-in' }],
  ['bench D2 nested3', { design: 'read-at-endchannel', topology: 'nested', rows: 3 }],
];
export default async function (argv: string[]): Promise<void> {
  const only = argv.find((a) => a.startsWith('--only='));
  const re = only ? new RegExp(only.slice('--only='.length)) : undefined;
  const rows: (string | number)[][] = [];
  for (const [name, p, opts] of cases) {
    if (re && !re.test(name)) continue;
    const r = await check(amberScenario(p), { strategy: 'bfs', ...(opts ?? {}) } as any);
    const v = r.violation;
    const verdict = r.ok ? (r.complete ? 'holds, complete' : `holds, cut by ${r.cutBy}`) : `violated ${v!.property.kind} ${v!.property.name.split(' ')[0]}`;
    rows.push([name, verdict, r.stats.distinctStates!, r.stats.transitions, v ? v.schedule.length : '-', opts?.strategy === 'pct' ? `pct, ${r.stats.runs} runs` : 'bfs']);
  }
  printTable(
    'amber-loop check configurations of the tests and benchmarks (mat: start=materialized, scr: start=scratch; D0/D1/D2: table-in-state / read-at-consume / read-at-endchannel)',
    ['configuration', 'verdict', 'distinct', 'transitions', 'counterexample', 'search'],
    rows,
    'pct rows sample runs (seed 7): their counts are what those runs visited.',
  );
}
