// `npm run bench -- shard`: one exhaustive check in one process against the same check
// split in 2 shards run as 2 processes side by side (`check --shard i/2 --result`, then
// `interleave merge`), on airflow-checkpoints (taskConcurrency=2, faultBudget=2 as the
// family's default, --items=N, default 8: 605,668 distinct states, about 70 s of CPU in one
// process on an idle machine). Prints wall time, CPU time (user + system of each process,
// from its result file), distinct states per shard and their share of the single search
// (balance), and the duplication factor: distinct states summed over the shards / distinct
// states of the single process. Goal on an idle 2-core machine: 2 shards >= 1.7x faster in
// wall time, duplication <= 1.3. On a loaded machine wall time means little: read the
// shares and the duplication (counts, the same under any load) and the CPU columns.
//   --items=N      input items (the size of the check: 6 is 112,028 states, 8 is 605,668)
//   --prefix=C     --shard-prefix (partition-level worlds per shard, default the checker's)
//   --strategy=S   dfs (default) or bfs
//   --mode=M       prefix (the no-communication split), exchange (shards exchange worlds
//                  through a shared directory, --exchange DIR), claims (shards share their
//                  visited fingerprints, --share-visited DIR), both (prefix and exchange) or
//                  all (default: every mode)
// Exchange and claims rows compare with a --no-por single run too (both modes run without
// POR; on airflow POR removes no states, so both single runs count the same states) and
// add what each shard sent to the other (worlds and bytes; fingerprints).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './table.ts';
import { claimsRows, type Single } from './shard-claims.ts';

const BIN = fileURLToPath(new URL('../bin/interleave.js', import.meta.url));

function flag(argv: readonly string[], name: string): string | undefined {
  return argv.find((x) => x.startsWith(`--${name}=`))?.slice(name.length + 3);
}

export function run(args: readonly string[], cwd: string): Promise<number | null> {
  return new Promise((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const k of ['INTERLEAVE_SHARD', 'JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID']) delete env[k];
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: 'ignore' });
    child.on('close', (code) => done(code));
  });
}

export interface Result {
  ok: boolean;
  complete: boolean;
  cpuMs: number;
  stats: { distinctStates: number; states: number; ms: number };
  shard: {
    prefixStates?: number;
    frontier?: number;
    roots?: number;
    exchange?: { worldsSent: number; bytesSent: number; worldsReceivedNew: number };
    shareVisited?: { claimsSent: number; claimsReceived: number; foreign: number; duplicate: number; rootsStarted: { own: number; others: number }; rootsSkipped: number };
  };
}

export default async function shardBench(argv: readonly string[]): Promise<void> {
  const items = Number(flag(argv, 'items') ?? 8);
  const prefix = flag(argv, 'prefix');
  const strategy = flag(argv, 'strategy') ?? 'dfs';
  const mode = flag(argv, 'mode') ?? 'all';
  const modes = { all: ['prefix', 'exchange', 'claims'], both: ['prefix', 'exchange'], prefix: ['prefix'], exchange: ['exchange'], claims: ['claims'] }[mode];
  if (!modes) throw new Error(`--mode takes prefix, exchange, claims, both (prefix and exchange) or all; got '${mode}'`);
  const dir = mkdtempSync(join(tmpdir(), 'interleave-bench-shard-'));
  const check = ['check', 'airflow-checkpoints', '--param', `items=${items}`, '--param', 'taskConcurrency=2', '--strategy', strategy, '--max-states', '100000000', '--no-determinism-check'];
  const read = (f: string): Result => JSON.parse(readFileSync(join(dir, f), 'utf8'));
  const load0 = loadavg()[0]!;

  let t0 = performance.now();
  const code1 = await run([...check, '--result', 'single.json'], dir);
  const wall1 = (performance.now() - t0) / 1000;
  if (code1 !== 0) throw new Error(`the 1-process check failed: exit ${code1} (files in ${dir})`);
  let nopor: Single | undefined;
  if (modes.includes('exchange') || modes.includes('claims')) {
    t0 = performance.now();
    const codeN = await run([...check, '--no-por', '--result', 'nopor.json'], dir);
    if (codeN !== 0) throw new Error(`the --no-por 1-process check failed: exit ${codeN} (files in ${dir})`);
    nopor = { r: read('nopor.json'), wall: (performance.now() - t0) / 1000 };
  }
  const singleRun: Single = { r: read('single.json'), wall: wall1 };
  if (modes.includes('exchange')) await exchangeRows(dir, check, read, singleRun, nopor!, items, strategy);
  if (modes.includes('claims')) await claimsRows(dir, check, read, singleRun, nopor!, items, strategy, prefix);
  if (!modes.includes('prefix')) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  t0 = performance.now();
  const shardArgs = prefix ? ['--shard-prefix', prefix] : [];
  const codes = await Promise.all([1, 2].map((i) => run([...check, ...shardArgs, '--shard', `${i}/2`, '--result', `s${i}.json`], dir)));
  const wall2 = (performance.now() - t0) / 1000;
  const merged = await run(['merge', 's1.json', 's2.json'], dir);
  if (code1 !== 0 || codes.some((c) => c !== 0) || merged !== 0) throw new Error(`a check failed: single exit ${code1}, shards ${codes.join(', ')}, merge ${merged} (files in ${dir})`);

  const one = read('single.json');
  const s = [read('s1.json'), read('s2.json')];
  const single = one.stats.distinctStates;
  const sum = s[0]!.stats.distinctStates + s[1]!.stats.distinctStates;
  const cpu2 = (s[0]!.cpuMs + s[1]!.cpuMs) / 1000;
  const cpuMax = Math.max(s[0]!.cpuMs, s[1]!.cpuMs) / 1000;
  const largest = Math.max(s[0]!.stats.distinctStates, s[1]!.stats.distinctStates);
  const rows = [
    ['1 process', wall1, one.cpuMs / 1000, single, 1, '', ''],
    [`2 shards (prefix ${s[0]!.shard.prefixStates} states, frontier ${s[0]!.shard.frontier}: ${s[0]!.shard.roots} + ${s[1]!.shard.roots})`, wall2, cpu2, sum, sum / single, wall1 / wall2, one.cpuMs / 1000 / cpuMax],
    ...s.map((r, k) => [`  shard ${k + 1}/2`, r.stats.ms / 1000, r.cpuMs / 1000, r.stats.distinctStates, r.stats.distinctStates / single, '', '']),
  ];
  printTable(
    `airflow-checkpoints items=${items} W=2, ${strategy}: 1 process vs 2 shards as 2 processes`,
    ['run', 'wall s', 'CPU s', 'distinct states', 'share of 1 process', 'wall speed-up', 'CPU speed-up (slowest shard)'],
    rows,
    `duplication ${(sum / single).toFixed(3)} (distinct states summed over the shards / 1 process; goal <= 1.3); ` +
      `balance: the larger shard holds ${((100 * largest) / single).toFixed(1)}% of the 1-process states (50% is even; 1.7x needs <= 59%). ` +
      `Load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${availableParallelism()} cores; shard rows: wall = exploration time from the result file. ` +
      'CPU speed-up = 1-process CPU / slowest shard CPU: the wall speed-up an idle machine with a core per shard would give. Goal: wall >= 1.7x.',
  );
  rmSync(dir, { recursive: true, force: true });
}

/** 2 shards in exchange mode, against the single run and a --no-por single run. */
async function exchangeRows(dir: string, check: string[], read: (f: string) => Result, single: Single, noporRun: Single, items: number, strategy: string): Promise<void> {
  const load0 = loadavg()[0]!;
  const { r: one, wall: wall1 } = single;
  const { r: nopor, wall: wallN } = noporRun;
  const t0 = performance.now();
  const codes = await Promise.all([1, 2].map((i) => run([...check, '--shard', `${i}/2`, '--exchange', 'xdir', '--result', `x${i}.json`], dir)));
  const wall2 = (performance.now() - t0) / 1000;
  const merged = await run(['merge', 'x1.json', 'x2.json'], dir);
  if (codes.some((c) => c !== 0) || merged !== 0) throw new Error(`a check failed: exchange shards ${codes.join(', ')}, merge ${merged} (files in ${dir})`);
  const s = [read('x1.json'), read('x2.json')];
  const base = nopor.stats.distinctStates;
  const sum = s[0]!.stats.distinctStates + s[1]!.stats.distinctStates;
  const cpuMax = Math.max(s[0]!.cpuMs, s[1]!.cpuMs) / 1000;
  const x = (r: Result) => r.shard.exchange!;
  const mb = (b: number) => b / 1048576;
  const rows = [
    ['1 process (POR on, the default)', wall1, one.cpuMs / 1000, one.stats.distinctStates, one.stats.distinctStates / base, '', '', 1, 1],
    ['1 process, --no-por', wallN, nopor.cpuMs / 1000, base, 1, '', '', wall1 / wallN, one.cpuMs / nopor.cpuMs],
    ['2 shards, exchange', wall2, (s[0]!.cpuMs + s[1]!.cpuMs) / 1000, sum, sum / base, x(s[0]!).worldsSent + x(s[1]!).worldsSent, mb(x(s[0]!).bytesSent + x(s[1]!).bytesSent), wall1 / wall2, one.cpuMs / 1000 / cpuMax],
    ...s.map((r, k) => [`  shard ${k + 1}/2`, r.stats.ms / 1000, r.cpuMs / 1000, r.stats.distinctStates, r.stats.distinctStates / base, x(r).worldsSent, mb(x(r).bytesSent), '', '']),
  ];
  printTable(
    `airflow-checkpoints items=${items} W=2, ${strategy}: 1 process vs 2 shards exchanging worlds (--exchange DIR), 2 processes`,
    ['run', 'wall s', 'CPU s', 'distinct states', 'share of 1 process (no POR)', 'worlds sent', 'MB sent', 'wall speed-up', 'CPU speed-up (slowest shard)'],
    rows,
    `duplication ${(sum / base).toFixed(3)} (distinct states summed over the shards / the --no-por single run; goal <= 1.3); ` +
      `the larger shard holds ${((100 * Math.max(s[0]!.stats.distinctStates, s[1]!.stats.distinctStates)) / base).toFixed(1)}% of the states. ` +
      `Speed-ups are against the default 1-process run (POR on). Load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${availableParallelism()} cores; ` +
      'shard rows: wall = exploration time from the result file. CPU speed-up = 1-process CPU / slowest shard CPU. Goal: wall >= 1.7x with duplication <= 1.3.',
  );
}
