// The swarm's deal of run indices to worker threads: blocks taken on demand, in index
// order, so uneven run lengths do not leave a thread idle. See distributed/swarm.ts.
/** The smallest block of run indices a worker takes: its request costs a message round trip. */
const MIN_BLOCK = 16;

/**
 * Hands out a shard's run positions (index = first + position * stride) in blocks, in
 * order: a quarter of each worker's share of what is left (guided scheduling), at least
 * MIN_BLOCK, so early blocks are large and the last ones small.
 */
export class SwarmBlocks {
  private next = 0;
  private readonly total: number;
  constructor(
    runs: number,
    private readonly first: number,
    private readonly stride: number,
    private readonly workers: number,
  ) {
    this.total = runs > first ? Math.ceil((runs - first) / stride) : 0;
  }

  /** The next block as run indices [from, to) of the stride sequence, or undefined when none is left. */
  take(): { from: number; to: number } | undefined {
    const left = this.total - this.next;
    if (left <= 0) return undefined;
    const size = Math.min(left, Math.max(MIN_BLOCK, Math.ceil(left / (4 * this.workers))));
    const p = this.next;
    this.next += size;
    return { from: this.first + p * this.stride, to: this.first + this.next * this.stride };
  }
}
