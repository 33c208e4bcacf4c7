// `npm run bench -- shard --mode=claims` (shard.bench.ts): 2 shards sharing their visited
// fingerprints through a directory (`--share-visited DIR`), 2 processes, against the
// default single run (both with POR's sleep sets; on airflow they prune 1.4% of the
// transitions and no states). Per shard:
// exploration time (a shard that ends much earlier than the other shows an imbalance), CPU,
// distinct states it visited itself, its share, the claims it sent, the frontier worlds it
// started (own + the other shard's) and the claims it received for worlds it had visited
// too (work done twice).
import { rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { printTable } from './table.ts';
import { run, type Result } from './shard.bench.ts';

/** A 1-process run: its result file and wall time (s). */
export interface Single {
  r: Result;
  wall: number;
}

/** 2 shared-visited shards against the round's single run; prints the table when `print`; returns the shards' wall time (s). */
export async function claimsRows(dir: string, check: string[], read: (f: string) => Result, single: Single, items: number, strategy: string, prefix: string | undefined, print: boolean): Promise<number> {
  const load0 = loadavg()[0]!;
  const { r: one, wall: wall1 } = single;
  const shardArgs = prefix ? ['--shard-prefix', prefix] : [];
  rmSync(join(dir, 'cdir'), { recursive: true, force: true });
  const t0 = performance.now();
  const codes = await Promise.all([1, 2].map((i) => run([...check, ...shardArgs, '--shard', `${i}/2`, '--share-visited', 'cdir', '--result', `c${i}.json`], dir)));
  const wall2 = (performance.now() - t0) / 1000;
  const merged = await run(['merge', 'c1.json', 'c2.json'], dir);
  if (codes.some((c) => c !== 0) || merged !== 0) throw new Error(`a check failed: shared-visited shards ${codes.join(', ')}, merge ${merged} (files in ${dir})`);
  if (!print) return wall2;
  const s = [read('c1.json'), read('c2.json')];
  const base = one.stats.distinctStates;
  const sum = s[0]!.stats.distinctStates + s[1]!.stats.distinctStates;
  const cpuMax = Math.max(s[0]!.cpuMs, s[1]!.cpuMs) / 1000;
  const x = (r: Result) => r.shard.shareVisited!;
  const roots = (r: Result) => `${x(r).rootsStarted.own} + ${x(r).rootsStarted.others}`;
  const rows = [
    ['1 process', wall1, one.cpuMs / 1000, base, 1, '', '', '', 1, 1],
    [`2 shards, shared visited (prefix ${s[0]!.shard.prefixStates} states, frontier ${s[0]!.shard.frontier})`, wall2, (s[0]!.cpuMs + s[1]!.cpuMs) / 1000, sum, sum / base, x(s[0]!).claimsSent + x(s[1]!).claimsSent, '', x(s[0]!).duplicate + x(s[1]!).duplicate, wall1 / wall2, one.cpuMs / 1000 / cpuMax],
    ...s.map((r, k) => [`  shard ${k + 1}/2 (own frontier worlds ${r.shard.roots})`, r.stats.ms / 1000, r.cpuMs / 1000, r.stats.distinctStates, r.stats.distinctStates / base, x(r).claimsSent, roots(r), x(r).duplicate, '', '']),
  ];
  const larger = Math.max(s[0]!.stats.distinctStates, s[1]!.stats.distinctStates);
  printTable(
    `airflow-checkpoints items=${items} W=2, ${strategy}: 1 process vs 2 shards sharing visited fingerprints (--share-visited DIR), 2 processes`,
    ['run', 'wall s', 'CPU s', 'distinct states', 'share of 1 process', 'claims sent', 'frontier worlds started (own + other)', 'claims received for worlds visited here too', 'wall speed-up', 'CPU speed-up (slowest shard)'],
    rows,
    `duplication ${(sum / base).toFixed(3)} (distinct states summed over the shards / the single run; goal <= 1.3); ` +
      `the larger shard holds ${((100 * larger) / base).toFixed(1)}% of the states (1.7x needs <= 59%). ` +
      `Load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${availableParallelism()} cores; ` +
      'shard rows: wall = exploration time from the result file (a shard that ends much earlier than the other had nothing left to take). CPU speed-up = 1-process CPU / slowest shard CPU. Goal: wall >= 1.7x with duplication <= 1.3.',
  );
  return wall2;
}
