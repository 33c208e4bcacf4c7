// Memory of the whole search, not only the visited set: the process's resident set
// and its JS heap (plus typed arrays, which live outside the heap), sampled at every
// slice (at most every 50 ms) and when exploration ends (shrinking is not counted). Peaks, not end values: a bfs frontier
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

/** Shortest pause between two samples (a search slice's length). */
const SAMPLE_MS = 50;

export class MemoryMeter {
  private readonly start: Usage | undefined = usage();
  private peakRss = this.start?.rss ?? 0;
  private peakHeap = this.start?.heap ?? 0;

  private last = -Infinity;

  /**
   * Records the current usage (one `process.memoryUsage()` call), at most once per
   * `SAMPLE_MS` unless `always`: an idle exchange shard wakes far more often than a slice.
   */
  sample(always = false): void {
    const now = performance.now();
    if (!always && now - this.last < SAMPLE_MS) return;
    this.last = now;
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
