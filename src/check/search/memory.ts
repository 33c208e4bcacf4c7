// Memory of the whole search, not only the visited set: the process's resident set
// and its JS heap (plus typed arrays, which live outside the heap), sampled at every
// slice (about every 50 ms) and when exploration ends (shrinking is not counted). Peaks, not end values: a bfs frontier
// shrinks as the search finishes.
import type { MemoryStats } from '../types.ts';

interface Usage {
  rss: number;
  heap: number;
}

function usage(): Usage | undefined {
  if (typeof process === 'undefined' || typeof process.memoryUsage !== 'function') return undefined;
  const m = process.memoryUsage();
  // external counts ArrayBuffers (the visited set, compact frontiers), which heapUsed does not.
  return { rss: m.rss, heap: m.heapUsed + m.external };
}

export class MemoryMeter {
  private readonly start: Usage | undefined = usage();
  private peakRss = this.start?.rss ?? 0;
  private peakHeap = this.start?.heap ?? 0;

  /** Records the current usage (cheap: one `process.memoryUsage()` call). */
  sample(): void {
    const u = usage();
    if (!u) return;
    if (u.rss > this.peakRss) this.peakRss = u.rss;
    if (u.heap > this.peakHeap) this.peakHeap = u.heap;
  }

  /** The peaks, and per distinct state: the whole process's RSS, and the heap's growth since the check began. */
  stats(distinct: number): MemoryStats | undefined {
    const s = this.start;
    if (!s) return undefined;
    const per = (x: number) => (distinct > 0 ? Math.round(x / distinct) : 0);
    return {
      peakRssBytes: this.peakRss,
      peakHeapBytes: this.peakHeap,
      startRssBytes: s.rss,
      startHeapBytes: s.heap,
      rssBytesPerState: per(this.peakRss),
      heapGrowthBytesPerState: per(Math.max(0, this.peakHeap - s.heap)),
    };
  }
}
