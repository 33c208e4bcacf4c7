// `npm run bench -- swarm`: the swarm's speed-up over worker threads and its workers'
// start-up. Runs `check amber-loop --param design=read-at-endchannel --strategy swarm
// --runs R --workers W` (a passing check: every run is done) through this clone's
// bin/interleave.js, for W = 0 (the runs in the main thread, no worker to start) and each
// W of --workers=1,2 (default). Prints wall and CPU of the whole command, the workers'
// mean start-up (thread start to the scenario rebuilt, from `check --json`), its share of
// the wall time, and the speed-up over W = 1. --runs=R (default 3000) sets the run
// length; speed-ups mean something only on idle cores (the note gives the load).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../test/helpers/pack.ts';
import { printTable, type Cell } from './table.ts';
import { flag } from './flags.ts';

/** CPU seconds of reaped children so far (Linux). */
function childCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}

interface Row {
  workers: number;
  wall: number;
  cpu: number;
  startupMs: number | undefined;
  runs: number;
}

function run(workers: number, runs: number): Row {
  const args = ['check', 'amber-loop', '--param', 'design=read-at-endchannel', '--strategy', 'swarm', '--runs', String(runs), '--workers', String(workers), '--json'];
  const c0 = childCpu();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(REPO, 'bin/interleave.js'), ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 1 << 26 });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`interleave ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-400)}`);
  const j = JSON.parse(r.stdout) as { stats: { runs: number }; swarm?: { workerStartupMs: { mean: number } } };
  return { workers, wall, cpu: childCpu() - c0, startupMs: j.swarm?.workerStartupMs.mean, runs: j.stats.runs };
}

export default async function bench(argv: string[]): Promise<void> {
  const runs = Number(flag(argv, 'runs') ?? 3000);
  const ws = (flag(argv, 'workers') ?? '1,2').split(',').map(Number);
  const load0 = loadavg()[0]!;
  const results = [0, ...ws].map((w) => run(w, runs));
  const one = results.find((r) => r.workers === 1);
  const rows: Cell[][] = results.map((r) => [
    r.workers === 0 ? '0 (main thread)' : String(r.workers),
    r.runs,
    r.wall,
    r.cpu,
    r.startupMs === undefined ? '' : r.startupMs / 1000,
    r.startupMs === undefined ? '' : `${((r.startupMs / 1000 / r.wall) * 100).toFixed(1)}%`,
    one && r.workers > 0 ? `${(one.wall / r.wall).toFixed(2)}×` : '',
    r.workers > 1 ? `≥ ${(0.8 * r.workers).toFixed(1)}×` : '',
  ]);
  printTable(
    `swarm over worker threads: check amber-loop --param design=read-at-endchannel --strategy swarm --runs ${runs}`,
    ['workers', 'runs', 'wall s', 'CPU s', 'worker start-up s (mean)', 'start-up / wall', 'speed-up over W = 1', 'goal'],
    rows,
    `Wall and CPU of the whole command (node start to exit). 1-minute load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on ${availableParallelism()} cores.`,
  );
}
