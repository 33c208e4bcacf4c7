// The segments one sender already carried to one receiver, so a snapshot, message or
// monitor state that crossed once crosses again as a number. Most actors do not change
// between the worlds a shard sends, so after the first few worlds a world is mostly
// numbers. Sender and receiver each hold one table per direction and fill it by the same
// rule, in the same order (the receiver decodes every world of the stream, in order, even
// one it has seen), so the numbers agree without being sent. Bounded: when full, both ends
// empty their table before adding the next segment.

/** Segments shorter than this are written out: a number would save little. */
export const LINK_MIN_BYTES = 16;

/** Default entries per table: a shard holds two tables per peer, so this bounds what links keep alive (segments are a few hundred bytes). */
export const LINK_DEFAULT_LIMIT = 1 << 12;

/** One direction of a link: what the sender wrote out, numbered in order. */
export class SegmentLink {
  /** Sender's side: the number of each segment written out (one-byte strings, codec/byte-io.ts). */
  readonly ids = new Map<string, number>();
  /** Receiver's side: the value of each segment read, by number. */
  values: unknown[] = [];
  /** Segments that crossed as a number (sender) or were read as one (receiver). */
  refs = 0;

  constructor(readonly limit = LINK_DEFAULT_LIMIT) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`a segment link holds at least 1 entry, got ${limit}`);
  }

  /** Sender: the number of a segment carried before, or undefined after numbering it (it is written out). */
  number(bytes: string): number | undefined {
    const id = this.ids.get(bytes);
    if (id !== undefined) {
      this.refs++;
      return id;
    }
    if (this.ids.size >= this.limit) this.ids.clear();
    this.ids.set(bytes, this.ids.size);
    return undefined;
  }

  /** Receiver: numbers a segment read in full (the sender numbered it when writing it). */
  add(value: unknown): void {
    if (this.values.length >= this.limit) this.values = [];
    this.values.push(value);
  }

  /** Receiver: the value of segment `id`. */
  value(id: number): unknown {
    if (id >= this.values.length) throw new Error(`segment #${id} was never carried on this link (it holds ${this.values.length}): batches were lost or read out of order`);
    this.refs++;
    return this.values[id];
  }
}
