// Memory of a whole exhaustive search, not only the visited set (issue 15): bfs with
// the compact frontier (entries as parent + step, worlds re-derived; the default)
// against the frontier of whole worlds (`frontier: 'worlds'`), and dfs, on
// materialize-peeks workers=2 slotRelease=walk-end cut at 800,000 distinct states.
// Each configuration runs in a child process of its own, so its RSS is its own.
// Goal: <= 200 B of RSS per distinct state at 800,000 states, with distinct states
// per CPU second within 25% of the worlds frontier's.
//
//   npm run bench -- memory                  (three runs of about a minute of CPU each, idle)
//   npm run bench -- memory --states=200000  (another cut)
//   npm run bench -- memory --quick          (50,000 states)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CheckOptions, CheckStats } from '../src/check/index.ts';
import { printTable, type Cell } from './table.ts';

const CHILD = fileURLToPath(new URL('./memory-child.mjs', import.meta.url));
const MB = 1048576;

interface Out {
  stats: CheckStats;
  complete: boolean;
  ok: boolean;
  cutBy?: string;
  options: Record<string, unknown>;
  cpuMs: number;
  /** Heap + typed arrays in use after a forced collection when the search ended, minus before it began. */
  live?: number;
}

function measure(options: CheckOptions, states: number): Out {
  const cfg = { family: 'materialize-peeks', params: { workers: 2, slotRelease: 'walk-end' }, options: { ...options, maxStates: states } };
  const p = spawnSync(process.execPath, ['--expose-gc', CHILD, JSON.stringify(cfg)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (p.status !== 0) throw new Error(`memory bench child failed (${p.status}): ${p.stderr}`);
  const line = p.stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as Out;
}

export default async function memory(args: string[]): Promise<void> {
  const arg = args.find((a) => a.startsWith('--states='));
  const states = arg ? Number(arg.slice('--states='.length)) : args.includes('--quick') ? 50_000 : 800_000;
  const runs: [string, CheckOptions][] = [
    ['bfs, frontier: worlds (before)', { strategy: 'bfs', frontier: 'worlds' }],
    ['bfs, frontier: compact (default)', { strategy: 'bfs', frontier: 'compact' }],
    ['dfs', { strategy: 'dfs' }],
  ];
  const rows: Cell[][] = [];
  let base = 0;
  for (const [label, o] of runs) {
    const r = measure(o, states);
    const s = r.stats;
    const m = s.memory!;
    const rate = (s.distinctStates * 1000) / r.cpuMs;
    if (!base) base = rate;
    rows.push([
      label,
      s.distinctStates,
      r.complete ? 'complete' : `cut by ${r.cutBy ?? '?'}`,
      s.maxDepth,
      Math.round(r.cpuMs / 100) / 10,
      Math.round(rate),
      Number((rate / base).toFixed(2)),
      Math.round(m.peakRssBytes / MB),
      m.rssBytesPerState,
      Math.round((m.peakRssBytes - m.startRssBytes) / s.distinctStates),
      m.heapGrowthBytesPerState,
      r.live === undefined ? '' : Math.round(r.live / s.distinctStates),
      Number(s.bytesPerState.toFixed(1)),
    ]);
  }
  printTable(
    `materialize-peeks workers=2 slotRelease=walk-end, POR on, cut at ${states.toLocaleString('en-US')} distinct states`,
    ['search', 'distinct', 'result', 'depth', 'CPU s', 'distinct/CPU s', 'rate vs worlds', 'peak RSS MB', 'RSS B/state', 'RSS growth B/state', 'heap growth B/state', 'live B/state', 'visited B/state'],
    rows,
    'One child process per row (node --expose-gc), so each RSS is its own. Rates per CPU second of the child (process.cpuUsage):\n' +
      'the machine is shared, wall time mostly measures others. RSS B/state = peak RSS / distinct (the runtime and tsx-loaded modules,\n' +
      'about 110 MB, included); RSS growth = (peak - RSS when the check began) / distinct; heap growth = peak (heap used + typed arrays)\n' +
      'minus the start, per distinct state (garbage not yet collected included); live = heap + typed arrays after a forced collection\n' +
      'when the search ends, frontier or stack still held, minus before it began (what the search needs: visited set, frontier, the\n' +
      'step memo and hash caches); visited = the fingerprint set alone.',
  );
}
