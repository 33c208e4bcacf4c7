// `npm run bench -- scaling`: bench/scaling.sh from a clone. One exhaustive check in one
// process, then n exchange shards all started at once for each n, then a swarm over W
// worker threads; wall, CPU, speed-ups. The script needs only node and an interleave, so the
// same table runs on a machine without npm (from the packed package: IL=… bench/scaling.sh).
//   --items=N        airflow-checkpoints items (default 9: 2,025,298 distinct states)
//   --shards=4,8,16  exchange shard counts (default 4,8,16)
//   --workers=1,2    swarm worker counts (default 1,2,4,8,16)
//   --runs=R         swarm runs (default 3000)
//   --out=DIR        where the result files and table.md go (default a new temporary folder)
//   --dist           run the compiled dist/ (built first), as the installed package runs
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist } from './build-dist.ts';
import { flag } from './flags.ts';

export default function scaling(argv: readonly string[]): void {
  const dist = argv.includes('--dist');
  if (dist) buildDist();
  const out = flag(argv, 'out') ?? mkdtempSync(join(tmpdir(), 'interleave-scaling-'));
  const env: NodeJS.ProcessEnv = { ...process.env, INTERLEAVE_DIST: dist ? '1' : '0' };
  for (const [k, name] of [['ITEMS', 'items'], ['SHARDS', 'shards'], ['WORKERS', 'workers'], ['RUNS', 'runs']] as const) {
    const v = flag(argv, name);
    if (v !== undefined) env[k] = v.split(',').join(' ');
  }
  const r = spawnSync('bash', [fileURLToPath(new URL('./scaling.sh', import.meta.url)), out], { env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`bench/scaling.sh exited ${String(r.status)}`);
}
