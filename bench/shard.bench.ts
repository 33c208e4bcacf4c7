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
//   --prefix=C     --shard-prefix (frontier worlds per shard, default the checker's)
//   --strategy=S   dfs (default) or bfs
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './table.ts';

const BIN = fileURLToPath(new URL('../bin/interleave.js', import.meta.url));

function flag(argv: readonly string[], name: string): string | undefined {
  return argv.find((x) => x.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function run(args: readonly string[], cwd: string): Promise<number | null> {
  return new Promise((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const k of ['INTERLEAVE_SHARD', 'JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID']) delete env[k];
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: 'ignore' });
    child.on('close', (code) => done(code));
  });
}

interface Result {
  ok: boolean;
  complete: boolean;
  cpuMs: number;
  stats: { distinctStates: number; states: number; ms: number };
  shard: { prefixStates?: number; frontier?: number; roots?: number };
}

export default async function shardBench(argv: readonly string[]): Promise<void> {
  const items = Number(flag(argv, 'items') ?? 8);
  const prefix = flag(argv, 'prefix');
  const strategy = flag(argv, 'strategy') ?? 'dfs';
  const dir = mkdtempSync(join(tmpdir(), 'interleave-bench-shard-'));
  const check = ['check', 'airflow-checkpoints', '--param', `items=${items}`, '--param', 'taskConcurrency=2', '--strategy', strategy, '--max-states', '100000000', '--no-determinism-check'];
  const read = (f: string): Result => JSON.parse(readFileSync(join(dir, f), 'utf8'));
  const load0 = loadavg()[0]!;

  let t0 = performance.now();
  const code1 = await run([...check, '--result', 'single.json'], dir);
  const wall1 = (performance.now() - t0) / 1000;
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
