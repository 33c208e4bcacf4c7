// Resident memory of an exhaustive search beyond what it holds (issue 15). A search
// allocates fast and keeps little of it (most successor worlds are revisits), and by
// default V8 sizes its heap for throughput:
// - it grows the young generation to its largest (two 16 MB semi-spaces on 64-bit
//   Node 20), which then stays resident;
// - it lets the old generation fill to up to four times what survived the last full
//   collection before collecting again.
// On materialize-peeks (bfs, 800,000 states, run from dist/) the two were about 185 MB
// of the 305 MB the search added to the RSS. While a compact search runs, new space keeps its initial
// 1 MB and the old generation grows by 10% (at least 16 MB) between collections;
// `npm run bench -- memory` measures the CPU this costs (none measurable there: the
// objects that survive a scavenge are the same, and a small nursery stays in cache).
// Searches whose heap holds every state (the frontier of worlds, liveness's graph)
// only get the small young generation: collecting a large old generation every 10%
// would cost more than the memory saved.
//
// V8 reads both flags whenever it sizes a space, so they can be set at run time
// (v8.setFlagsFromString). They are global to the process, so they are set while at
// least one search runs and put back to V8's defaults after the last one, and left
// alone when the process was started with a flag that sizes the heap (node options win).
import { setFlagsFromString } from 'node:v8';

const USER_FLAGS = /--(?:semi[-_]space[-_]growth[-_]factor|(?:max|min)[-_]semi[-_]space[-_]size|heap[-_]growing[-_]percent)\b/;
/** V8's defaults (node --v8-options): growth factor 2, growing percent 0 (dynamic). */
const YOUNG = ['--semi-space-growth-factor=1', '--semi-space-growth-factor=2'] as const;
const OLD = ['--heap-growing-percent=10', '--heap-growing-percent=0'] as const;

const running = { young: 0, old: 0 };

function setByUser(): boolean {
  return process.execArgv.some((a) => USER_FLAGS.test(a)) || USER_FLAGS.test(process.env.NODE_OPTIONS ?? '');
}

function hold(kind: 'young' | 'old', flags: readonly [string, string]): () => void {
  if (running[kind]++ === 0) setFlagsFromString(flags[0]);
  return () => {
    if (--running[kind] === 0) setFlagsFromString(flags[1]);
  };
}

/**
 * Keeps V8's heap close to what a search holds until the returned function is called
 * (once; nested and concurrent searches share the setting). `compact`: the search
 * holds little per state (compact bfs frontier, dfs), so the old generation is kept
 * tight too.
 */
export function leanHeap(compact: boolean): () => void {
  if (setByUser()) return () => {};
  const release = [hold('young', YOUNG)];
  if (compact) release.push(hold('old', OLD));
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const r of release) r();
  };
}
