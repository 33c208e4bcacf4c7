// `npm run bench -- shard --mode=claims` (shard.bench.ts): 2 shards sharing their visited
// fingerprints through a directory (`--share-visited DIR`), 2 processes, against the
// default single run and the --no-por single run (the mode runs without POR). Per shard:
// exploration time (a shard that ends much earlier than the other shows an imbalance), CPU,
// distinct states it visited itself, its share, the claims it sent, the frontier worlds it
// started (own + the other shard's) and the claims it received for worlds it had visited
// too (work done twice).
import { availableParallelism, loadavg } from 'node:os';
import { printTable } from './table.ts';
import { run, type Result } from './shard.bench.ts';

/** A 1-process run: its result file and wall time (s). */
export interface Single {
  r: Result;
  wall: number;
}

export async function claimsRows(dir: string, check: string[], read: (f: string) => Result, single: Single, noporRun: Single, items: number, strategy: string, prefix: string | undefined): Promise<void> {
  const load0 = loadavg()[0]!;
  const { r: one, wall: wall1 } = single;
  const { r: nopor, wall: wallN } = noporRun;
  const shardArgs = prefix ? ['--shard-prefix', prefix] : [];
  const t0 = performance.now();
  const codes = await Promise.all([1, 2].map((i) => run([...check, ...shardArgs, '--shard', `${i}/2`, '--share-visited', 'cdir', '--result', `c${i}.json`], dir)));
  const wall2 = (performance.now() - t0) / 1000;
  const merged = await run(['merge', 'c1.json', 'c2.json'], dir);
  if (codes.some((c) => c !== 0) || merged !== 0) throw new Error(`a check failed: shared-visited shards ${codes.join(', ')}, merge ${merged} (files in ${dir})`);
  const s = [read('c1.json'), read('c2.json')];
  const base = nopor.stats.distinctStates;
  const sum = s[0]!.stats.distinctStates + s[1]!.stats.distinctStates;
  const cpuMax = Math.max(s[0]!.cpuMs, s[1]!.cpuMs) / 1000;
  const x = (r: Result) => r.shard.shareVisited!;
  const roots = (r: Result) => `${x(r).rootsStarted.own} + ${x(r).rootsStarted.others}`;
  const rows = [
    ['1 process (POR on, the default)', wall1, one.cpuMs / 1000, one.stats.distinctStates, one.stats.distinctStates / base, '', '', '', wall1 / wall1, 1],
    ['1 process, --no-por', wallN, nopor.cpuMs / 1000, base, 1, '', '', '', wall1 / wallN, one.cpuMs / nopor.cpuMs],
    [`2 shards, shared visited (prefix ${s[0]!.shard.prefixStates} states, frontier ${s[0]!.shard.frontier})`, wall2, (s[0]!.cpuMs + s[1]!.cpuMs) / 1000, sum, sum / base, x(s[0]!).claimsSent + x(s[1]!).claimsSent, '', x(s[0]!).duplicate + x(s[1]!).duplicate, wall1 / wall2, one.cpuMs / 1000 / cpuMax],
    ...s.map((r, k) => [`  shard ${k + 1}/2 (own frontier worlds ${r.shard.roots})`, r.stats.ms / 1000, r.cpuMs / 1000, r.stats.distinctStates, r.stats.distinctStates / base, x(r).claimsSent, roots(r), x(r).duplicate, '', '']),
  ];
  const larger = Math.max(s[0]!.stats.distinctStates, s[1]!.stats.distinctStates);
  printTable(
    `airflow-checkpoints items=${items} W=2, ${strategy}: 1 process vs 2 shards sharing visited fingerprints (--share-visited DIR), 2 processes`,
    ['run', 'wall s', 'CPU s', 'distinct states', 'share of 1 process (no POR)', 'claims sent', 'frontier worlds started (own + other)', 'claims received for worlds visited here too', 'wall speed-up', 'CPU speed-up (slowest shard)'],
    rows,
    `duplication ${(sum / base).toFixed(3)} (distinct states summed over the shards / the --no-por single run; goal <= 1.3); ` +
      `the larger shard holds ${((100 * larger) / base).toFixed(1)}% of the states (1.7x needs <= 59%). ` +
      `Speed-ups are against the default 1-process run (POR on). Load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${availableParallelism()} cores; ` +
      'shard rows: wall = exploration time from the result file (a shard that ends much earlier than the other had nothing left to take). CPU speed-up = 1-process CPU / slowest shard CPU. Goal: wall >= 1.7x with duplication <= 1.3.',
  );
}
