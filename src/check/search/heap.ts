// Resident memory of an exhaustive search beyond what it holds. A search allocates
// fast and keeps little of it (most successor worlds are revisits), and by default V8
// sizes its heap for throughput: it grows the young generation to its largest, which
// then stays resident, and lets the old generation fill to several times what survived
// the last full collection before collecting again. Together that is most of the
// memory a search adds to the RSS (docs/measurements.md).
// While a search runs, new space keeps its initial size. A compact bfs (its frontier is
// what it holds) lets the old generation grow by 10% (at least 16 MB) between
// collections. A dfs lets it grow by 50%: its heap holds little but the caches, and at
// 10% it collects so often that V8's marking threads take a second core for little
// memory saved.
// Searches whose heap holds every state (the frontier of worlds, liveness's graph)
// only get the small young generation: collecting a large old generation often
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
const OLD_DEFAULT = '--heap-growing-percent=0';

let young = 0;
/** Old-generation growth (percent) of each search running, tightest first applied. */
const olds: number[] = [];

function setByUser(): boolean {
  return process.execArgv.some((a) => USER_FLAGS.test(a)) || USER_FLAGS.test(process.env.NODE_OPTIONS ?? '');
}

/** The tightest old-generation growth of the running searches, if any asks for one. */
const tightest = (): number | undefined => (olds.length > 0 ? Math.min(...olds) : undefined);

/** Changes the running searches' growths with `change`, then sets V8's to the tightest (or back to V8's default) if that moved. */
function updateOld(change: () => void): void {
  const before = tightest();
  change();
  const now = tightest();
  if (now !== before) setFlagsFromString(now === undefined ? OLD_DEFAULT : `--heap-growing-percent=${now}`);
}

/** Old-generation growth between collections: a dfs holds little per state, a compact bfs its frontier. */
export const OLD_GROWTH = { dfs: 50, compactBfs: 10 } as const;

/**
 * Keeps V8's heap close to what a search holds until the returned function is called
 * (once; nested and concurrent searches share the setting: the young generation stays
 * small while any runs, the old generation grows by the smallest `oldGrowth` of those
 * running). `oldGrowth`: percent the old generation may grow between collections
 * (`OLD_GROWTH`); undefined leaves it to V8 (searches whose heap holds every state).
 */
export function leanHeap(oldGrowth?: number): () => void {
  if (setByUser()) return () => {};
  if (young++ === 0) setFlagsFromString(YOUNG[0]);
  if (oldGrowth !== undefined) updateOld(() => olds.push(oldGrowth));
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--young === 0) setFlagsFromString(YOUNG[1]);
    if (oldGrowth !== undefined) updateOld(() => olds.splice(olds.indexOf(oldGrowth), 1));
  };
}
