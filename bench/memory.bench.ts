// Memory of a whole exhaustive search, not only the visited set (issue 15), on
// materialize-peeks workers=2 slotRelease=walk-end cut at 800,000 distinct states:
// - bfs with the frontier of whole worlds and V8's default heap (before issue 15),
// - bfs with the compact frontier (entries as parent + step, worlds re-derived) and
//   V8's default heap (`leanHeap: false`),
// - bfs and dfs as `check` runs them by default (compact frontier, lean young
//   generation: src/check/search/heap.ts),
// each from the TypeScript sources through tsx (as `interleave` runs in a clone), and
// the default bfs once more from dist/ (as the installed package runs; the benchmark
// builds it first with `npm run build`).
// Each configuration runs in a child process of its own, so its RSS is its own.
// Goal: <= 200 B of RSS per distinct state at 800,000 states, with distinct states
// per CPU second within 25% of the search before it.
//
//   npm run bench -- memory                  (five runs of about a minute of CPU each, idle)
//   npm run bench -- memory --states=200000  (another cut)
//   npm run bench -- memory --quick          (50,000 states)
//   npm run bench -- memory --no-build       (dist/ as it is, e.g. just built)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CheckOptions, CheckStats } from '../src/check/index.ts';
import { printTable, type Cell } from './table.ts';
import { buildDist } from './build-dist.ts';

const CHILD = fileURLToPath(new URL('./memory-child.mjs', import.meta.url));
const MB = 1048576;
const GOAL = 200;

interface Out {
  stats: CheckStats;
  complete: boolean;
  cutBy?: string;
  cpuMs: number;
  /** Heap + array buffers in use after a forced collection when the search ended, minus before it began. */
  live?: number;
}

function measure(options: CheckOptions, states: number, compiled: boolean): Out {
  const cfg = { family: 'materialize-peeks', params: { workers: 2, slotRelease: 'walk-end' }, compiled, options: { ...options, maxStates: states } };
  const p = spawnSync(process.execPath, ['--expose-gc', CHILD, JSON.stringify(cfg)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (p.status !== 0) throw new Error(`memory bench child failed (${p.status}): ${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').pop()!) as Out;
}

export default async function memory(args: string[]): Promise<void> {
  const arg = args.find((a) => a.startsWith('--states='));
  const states = arg ? Number(arg.slice('--states='.length)) : args.includes('--quick') ? 50_000 : 800_000;
  if (!args.includes('--no-build')) buildDist();
  const runs: [string, CheckOptions, boolean][] = [
    ['bfs, frontier: worlds, V8 heap (before)', { strategy: 'bfs', frontier: 'worlds', leanHeap: false }, false],
    ['bfs, compact, V8 heap', { strategy: 'bfs', frontier: 'compact', leanHeap: false }, false],
    ['bfs (default: compact, lean heap)', { strategy: 'bfs' }, false],
    ['dfs (default: lean heap)', { strategy: 'dfs' }, false],
    ['bfs (default), compiled dist/', { strategy: 'bfs' }, true],
  ];
  const rows: Cell[][] = [];
  let before = 0;
  for (const [label, o, compiled] of runs) {
    const r = measure(o, states, compiled);
    const s = r.stats;
    const m = s.memory!;
    const rate = (s.distinctStates! * 1000) / r.cpuMs;
    if (!before) before = rate;
    const perState = m.rssBytesPerState;
    rows.push([
      label,
      s.distinctStates!,
      r.complete ? 'complete' : `cut by ${r.cutBy ?? '?'}`,
      Math.round(r.cpuMs / 100) / 10,
      Math.round(rate),
      Number((rate / before).toFixed(2)),
      Math.round(m.startRssBytes / MB),
      Math.round(m.peakRssBytes / MB),
      perState,
      Math.round((m.peakRssBytes - m.startRssBytes) / s.distinctStates!),
      r.live === undefined ? '' : Math.round(r.live / s.distinctStates!),
      perState <= GOAL ? 'yes' : 'no',
    ]);
  }
  printTable(
    `materialize-peeks workers=2 slotRelease=walk-end, POR on, cut at ${states.toLocaleString('en-US')} distinct states`,
    ['search', 'distinct', 'result', 'CPU s', 'distinct/CPU s', 'rate vs before', 'RSS before MB', 'peak RSS MB', 'RSS B/state', 'RSS growth B/state', 'live B/state', `<= ${GOAL} B/state`],
    rows,
    'One child process per row (node --expose-gc), so each RSS is its own. Rates per CPU second of the child (process.cpuUsage, all\n' +
      'its threads): the machine is shared, wall time mostly measures others. RSS before = when the check began (node, the loaded\n' +
      'modules and, from the sources, tsx); RSS B/state = peak RSS of the whole process / distinct states (the goal\'s figure);\n' +
      'RSS growth = (peak - before) / distinct; live = heap + array buffers after a forced collection when the search ends, frontier\n' +
      'or stack still held, minus before it began (what the search needs: visited set, frontier, step memo and hash caches).',
  );
}
