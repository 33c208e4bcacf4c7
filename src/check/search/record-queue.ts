// A first-in-first-out queue of variable-length records of 16-bit words, for the
// compact bfs frontier's waiting entries (search/bfs-compact.ts). Records live in chunks of
// CHUNK words, each record inside one chunk; a chunk is dropped once read. A queue
// in one growing array would hold up to 1.5 times its records, and 2.5 times while
// it copies itself into a larger array, at the moment the search is largest.

const CHUNK = 1 << 15;

export class RecordQueue {
  /** Chunks from the one being read (first) to the one being written (last). */
  private chunks: Uint16Array[] = [];
  /** Words written into each chunk. */
  private ends: number[] = [];
  /** Next word to read in `chunks[0]`. */
  private head = 0;

  /** Bytes held. */
  get bytes(): number {
    let n = 0;
    for (const c of this.chunks) n += c.byteLength;
    return n;
  }

  /** Where the record being written starts (set by `reserve`). */
  writeAt = 0;
  /** Where the oldest record starts (set by `peek`). */
  readAt = 0;

  /**
   * Room for a record of `len` words: returns the chunk to write it into and sets
   * `writeAt` to where it starts; `commit` (with its end) appends it.
   */
  reserve(len: number): Uint16Array {
    const last = this.chunks.length - 1;
    if (last >= 0 && this.ends[last]! + len <= this.chunks[last]!.length) {
      this.writeAt = this.ends[last]!;
      return this.chunks[last]!;
    }
    const c = new Uint16Array(Math.max(CHUNK, len));
    this.chunks.push(c);
    this.ends.push(0);
    this.writeAt = 0;
    return c;
  }

  commit(end: number): void {
    this.ends[this.ends.length - 1] = end;
  }

  /** The chunk holding the oldest record (which starts at `readAt`), or undefined when empty. */
  peek(): Uint16Array | undefined {
    while (this.chunks.length > 0 && this.head >= this.ends[0]!) {
      if (this.chunks.length === 1) return undefined;
      this.chunks.shift();
      this.ends.shift();
      this.head = 0;
    }
    if (this.chunks.length === 0) return undefined;
    this.readAt = this.head;
    return this.chunks[0];
  }

  /** The oldest record has been read up to `end`. */
  take(end: number): void {
    this.head = end;
  }

  clear(): void {
    this.chunks = [];
    this.ends = [];
    this.head = 0;
  }
}
