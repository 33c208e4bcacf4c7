// `npm run bench -- shard`: one exhaustive check in one process against the same check
// split in 2 shards run as 2 processes side by side (`check --shard i/2 --result`, then
// `interleave merge`), on airflow-checkpoints (taskConcurrency=2, faultBudget=2 as the
// family's default, --items=N, default 9: 2,025,298 distinct states, about a minute of wall
// and 65 s of CPU in one process on an idle machine; the size, "about a minute"). Prints wall time, CPU time (user + system of each process,
// from its result file), distinct states per shard and their share of the single search
// (balance), and the duplication factor: distinct states summed over the shards / distinct
// states of the single process. Goal on an idle 2-core machine: 2 shards >= 1.7x faster in
// wall time, duplication <= 1.3. On a loaded machine wall time means little: read the
// shares and the duplication (counts, the same under any load) and the CPU columns.
//   --items=N      input items (the size of the check: 6 is 112,028 states, 8 is 605,668
//                  (about 15 s in one process), 9 is 2,025,298)
//   --prefix=C     --shard-prefix (partition-level worlds per shard, default the checker's)
//   --strategy=S   dfs (default) or bfs
//   --mode=M       prefix (the no-communication split), exchange (shards exchange worlds
//                  through a shared directory, --exchange DIR), claims (shards share their
//                  visited fingerprints, --share-visited DIR), a list (prefix,claims), both
//                  (prefix and exchange) or all (default: every mode)
//   --dist         run the compiled dist/ (built first with `npm run build`), as the installed
//                  package runs, instead of the sources through tsx
//   --shards=N     exchange mode only: N shards, all started at once (default 2); the table
//                  sums their CPU against the --no-por single run's, with the traffic
//   --floor        exchange mode only: also the floor of the summed CPU without any exchange:
//                  the --no-por single run cut at 1/N of its distinct states (--max-states),
//                  alone and as N copies at once (what N processes that only stepped their
//                  share spend: fixed per-process cost and warm-up, then oversubscription)
//   --repeat=N     rounds (default 1): each runs the single process, then the shards; the
//                  detailed tables are the last round's, then one row per round and the
//                  median speed-ups (wall times drift on a shared machine: compare in a round)
// Exchange rows compare with a --no-por single run too (exchange runs without POR; on
// airflow POR removes no states, so both single runs count the same states) and add what
// each shard sent to the other (worlds and bytes); claims rows add the claims sent.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './table.ts';
import { buildDist } from './build-dist.ts';
import { claimsRows, type Single } from './shard-claims.ts';
import { flag } from './flags.ts';

const BIN = fileURLToPath(new URL('../bin/interleave.js', import.meta.url));
/** Set by `--dist`: the checks run dist/ (bin/interleave.js reads INTERLEAVE_DIST). */
let dist = false;

export function run(args: readonly string[], cwd: string): Promise<number | null> {
  return new Promise((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', INTERLEAVE_DIST: dist ? '1' : '0' };
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
    exchange?: { worldsSent: number; bytesSent: number; batchesSent: number; worldsReceived: number; worldsReceivedNew: number; startup?: { cpuMs: number } };
    shareVisited?: { claimsSent: number; claimsReceived: number; foreign: number; duplicate: number; rootsStarted: { own: number; others: number }; rootsSkipped: number };
  };
}

export default async function shardBench(argv: readonly string[]): Promise<void> {
  const items = Number(flag(argv, 'items') ?? 9);
  const prefix = flag(argv, 'prefix');
  const strategy = flag(argv, 'strategy') ?? 'dfs';
  const mode = flag(argv, 'mode') ?? 'all';
  const repeat = Number(flag(argv, 'repeat') ?? 1);
  const shards = Number(flag(argv, 'shards') ?? 2);
  if (!Number.isInteger(shards) || shards < 2) throw new Error(`--shards takes a whole number of exchange shards >= 2; got '${flag(argv, 'shards')}'`);
  const named: Record<string, string[]> = { all: ['prefix', 'exchange', 'claims'], both: ['prefix', 'exchange'] };
  const modes = named[mode] ?? mode.split(',');
  if (!modes.every((m) => ['prefix', 'exchange', 'claims'].includes(m))) throw new Error(`--mode takes prefix, exchange, claims or a comma-separated list of them, both (prefix and exchange) or all; got '${mode}'`);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat takes a whole number of rounds >= 1; got '${flag(argv, 'repeat')}'`);
  dist = argv.includes('--dist');
  const floor = argv.includes('--floor');
  if (dist) buildDist();
  const dir = mkdtempSync(join(tmpdir(), 'interleave-bench-shard-'));
  const check = ['check', 'airflow-checkpoints', '--param', `items=${items}`, '--param', 'taskConcurrency=2', '--strategy', strategy, '--max-states', '100000000', '--no-determinism-check'];
  const read = (f: string): Result => JSON.parse(readFileSync(join(dir, f), 'utf8'));
  const load0 = loadavg()[0]!;
  const rounds: { single: number; prefix?: number; claims?: number }[] = [];

  for (let round = 1; round <= repeat; round++) {
    // Each round runs the single process and then the shards, so a drift in the machine's speed
    // (seen here: the same single run from 33 s to 49 s within an hour) lands in both halves of its ratio.
    const last = round === repeat;
    let t0 = performance.now();
    const code1 = await run([...check, '--result', 'single.json'], dir);
    const wall1 = (performance.now() - t0) / 1000;
    if (code1 !== 0) throw new Error(`the 1-process check failed: exit ${code1} (files in ${dir})`);
    const singleRun: Single = { r: read('single.json'), wall: wall1 };
    const row: (typeof rounds)[number] = { single: wall1 };
    rounds.push(row);
    if (modes.includes('exchange') && last) {
      t0 = performance.now();
      const codeN = await run([...check, '--no-por', '--result', 'nopor.json'], dir);
      if (codeN !== 0) throw new Error(`the --no-por 1-process check failed: exit ${codeN} (files in ${dir})`);
      await exchangeRows(dir, check, read, singleRun, { r: read('nopor.json'), wall: (performance.now() - t0) / 1000 }, items, strategy, shards);
      if (floor) await floorRows(dir, check, read, read('nopor.json'), items, strategy, shards);
    }
    if (modes.includes('claims')) row.claims = await claimsRows(dir, check, read, singleRun, items, strategy, prefix, last);
    if (modes.includes('prefix')) row.prefix = await prefixRows(dir, check, read, singleRun, items, strategy, prefix, last);
  }
  if (repeat > 1) roundsTable(rounds, items, strategy, load0);
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length % 2 === 1 ? a[(a.length - 1) / 2]! : (a[a.length / 2 - 1]! + a[a.length / 2]!) / 2;
};

/** One row per round (its single run and its shards' wall times), then the median speed-ups. */
function roundsTable(rounds: { single: number; prefix?: number; claims?: number }[], items: number, strategy: string, load0: number): void {
  const sp = (k: 'prefix' | 'claims') => rounds.filter((r) => r[k] !== undefined).map((r) => r.single / r[k]!);
  const rows = rounds.map((r, i) => [`round ${i + 1}`, r.single, r.prefix ?? '', r.prefix ? r.single / r.prefix : '', r.claims ?? '', r.claims ? r.single / r.claims : '']);
  const p = sp('prefix');
  const c = sp('claims');
  rows.push(['median', median(rounds.map((r) => r.single)), '', p.length ? median(p) : '', '', c.length ? median(c) : '']);
  printTable(
    `airflow-checkpoints items=${items} W=2, ${strategy}, ${dist ? 'compiled dist/' : 'sources through tsx'}: wall time of 1 process and of 2 shards as 2 processes, ${rounds.length} rounds`,
    ['round', '1 process wall s', '2 shards (no communication) wall s', 'speed-up', '2 shards (shared visited) wall s', 'speed-up'],
    rows,
    `Each round runs the single process, then the shards. Speed-up = the round's single wall / its shards' wall; the median is over rounds. Load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${availableParallelism()} cores. Goal: >= 1.7x.`,
  );
}

/** 2 shards with no communication, against the round's single run; prints the table when `print`; returns the shards' wall time (s). */
async function prefixRows(dir: string, check: string[], read: (f: string) => Result, singleRun: Single, items: number, strategy: string, prefix: string | undefined, print: boolean): Promise<number> {
  const load0 = loadavg()[0]!;
  const { r: one, wall: wall1 } = singleRun;
  const t0 = performance.now();
  const shardArgs = prefix ? ['--shard-prefix', prefix] : [];
  const codes = await Promise.all([1, 2].map((i) => run([...check, ...shardArgs, '--shard', `${i}/2`, '--result', `s${i}.json`], dir)));
  const wall2 = (performance.now() - t0) / 1000;
  const merged = await run(['merge', 's1.json', 's2.json'], dir);
  if (codes.some((c) => c !== 0) || merged !== 0) throw new Error(`a check failed: shards ${codes.join(', ')}, merge ${merged} (files in ${dir})`);
  if (!print) return wall2;
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
  return wall2;
}

/** n shards in exchange mode, all started at once, summed against the --no-por single run (the CPU and traffic of the whole run). */
function exchangeSummary(s: Result[], nopor: Result, wall: number, items: number, strategy: string, load0: number): void {
  const x = (r: Result) => r.shard.exchange!;
  const sum = (f: (r: Result) => number) => s.reduce((a, r) => a + f(r), 0);
  const cpu = sum((r) => r.cpuMs) / 1000;
  const sent = sum((r) => x(r).worldsSent);
  const received = sum((r) => x(r).worldsReceived);
  const startShare = Math.max(...s.map((r) => (x(r).startup?.cpuMs ?? 0) / r.cpuMs));
  const states = sum((r) => r.stats.distinctStates);
  const base = nopor.stats.distinctStates;
  printTable(
    `airflow-checkpoints items=${items}, ${strategy}: ${s.length} exchange shards (--exchange DIR) started at once, ${dist ? 'compiled dist/' : 'sources through tsx'}`,
    ['run', 'wall s', 'CPU s', 'CPU / 1 process', 'states / 1 process', 'largest shard / even', 'worlds sent a state', 'bytes a world', 'duplicates', 'batches', 'start-up, largest share'],
    [
      ['1 process, --no-por', nopor.stats.ms / 1000, nopor.cpuMs / 1000, 1, 1, '', '', '', '', '', ''],
      [`${s.length} shards`, wall, cpu, cpu / (nopor.cpuMs / 1000), states / base, Math.max(...s.map((r) => r.stats.distinctStates)) / (base / s.length), sent / base, sum((r) => x(r).bytesSent) / Math.max(1, sent), `${((100 * (received - sum((r) => x(r).worldsReceivedNew))) / Math.max(1, received)).toFixed(1)}%`, sum((r) => x(r).batchesSent), `${(100 * startShare).toFixed(1)}%`],
    ],
    `CPU = user + system of each process (from its result file), summed: on a machine with fewer cores than shards the only fair figure (wall is the machine's load). Start-up: process start to the first owned world, as a share of the shard's CPU. Goals at n = 16: CPU <= 1.25x, states <= 1.05x, start-up <= 5%. Load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${availableParallelism()} cores.`,
  );
}

/**
 * The floor of exchange mode's summed CPU on this machine: the --no-por single run cut at
 * 1/n of its distinct states, alone (fixed per-process cost and warm-up: caches and JIT
 * start cold in every process) and as n copies at once (plus running n processes on the
 * machine's cores). No exchange at all: what n shards would spend if sending worlds were free.
 */
async function floorRows(dir: string, check: string[], read: (f: string) => Result, nopor: Result, items: number, strategy: string, n: number): Promise<void> {
  const load0 = loadavg()[0]!;
  const share = Math.ceil(nopor.stats.distinctStates / n);
  const cut = [...check.filter((a, k) => a !== '--max-states' && check[k - 1] !== '--max-states'), '--no-por', '--max-states', String(share)];
  // A run cut by --max-states exits with a non-zero code by design: its result file is what counts.
  await run([...cut, '--result', 'floor-1.json'], dir);
  const alone = read('floor-1.json');
  const ids = Array.from({ length: n }, (_, k) => k + 1);
  await Promise.all(ids.map((i) => run([...cut, '--result', `floor-${n}-${i}.json`], dir)));
  const copies = ids.map((i) => read(`floor-${n}-${i}.json`));
  const base = nopor.cpuMs / 1000;
  const perState = (r: Result) => (1000 * r.cpuMs) / r.stats.states;
  const together = copies.reduce((a, r) => a + r.cpuMs, 0) / 1000;
  printTable(
    `airflow-checkpoints items=${items}, ${strategy}: the floor of ${n} exchange shards' CPU, no exchange (1 process --no-por cut at 1/${n} of its distinct states, ${share})`,
    ['run', 'CPU s', 'CPU us a state', 'CPU summed / 1 process'],
    [
      ['1 process, --no-por, whole search', base, perState(nopor), 1],
      [`1 process cut at 1/${n}, alone, x ${n}`, (n * alone.cpuMs) / 1000, perState(alone), (n * alone.cpuMs) / 1000 / base],
      [`${n} such processes at once, summed`, together, copies.reduce((a, r) => a + perState(r), 0) / n, together / base],
    ],
    `CPU = user + system from each result file. Row 2: what ${n} shards that only stepped their share would spend (each process loads the code, builds the scenario and warms its caches and JIT alone); row 3 adds running ${n} processes side by side on ${availableParallelism()} cores. Exchange mode's summed CPU above this row is the exchange's own cost (codec, batch files, polls, termination). Load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
  );
}

/** n shards in exchange mode (2 by default), against the single run and a --no-por single run. */
async function exchangeRows(dir: string, check: string[], read: (f: string) => Result, single: Single, noporRun: Single, items: number, strategy: string, n: number): Promise<void> {
  const load0 = loadavg()[0]!;
  const { r: one, wall: wall1 } = single;
  const { r: nopor, wall: wallN } = noporRun;
  const t0 = performance.now();
  const ids = Array.from({ length: n }, (_, k) => k + 1);
  const codes = await Promise.all(ids.map((i) => run([...check, '--shard', `${i}/${n}`, '--exchange', 'xdir', '--result', `x${i}.json`], dir)));
  const wall2 = (performance.now() - t0) / 1000;
  const merged = await run(['merge', ...ids.map((i) => `x${i}.json`)], dir);
  if (codes.some((c) => c !== 0) || merged !== 0) throw new Error(`a check failed: exchange shards ${codes.join(', ')}, merge ${merged} (files in ${dir})`);
  if (n !== 2) return exchangeSummary(ids.map((i) => read(`x${i}.json`)), nopor, wall2, items, strategy, load0);
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
