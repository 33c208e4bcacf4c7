// A bounded table of decoded values by their encoded bytes: the same bytes give the same
// object, so structures received from other processes share identity with those received
// before. Keyed by the bytes themselves as a one-byte string (codec/byte-io.ts), which the Map
// hashes and compares natively: a hit is always an exact byte match, never a hash match.
// Emptied when full, like the step memo.

/** Decoded values by their bytes, at most `limit` of them. */
export class InternTable {
  private map = new Map<string, unknown>();

  constructor(private readonly limit: number) {}

  /** The value held for exactly these bytes, or undefined. */
  get(bytes: string): unknown {
    return this.map.get(bytes);
  }

  /** Holds `value` for these bytes. */
  add(bytes: string, value: unknown): void {
    if (this.limit <= 0) return;
    if (this.map.size >= this.limit) this.map = new Map();
    this.map.set(bytes, value);
  }
}
