// Growable byte writer and its reader: the primitive reads and writes of the world codec.

/** Node's native one-byte string conversions (the engine of `toString('latin1')` and `write(s, 'latin1')`). */
interface Latin1Buffer extends Buffer {
  latin1Slice(start: number, end: number): string;
  latin1Write(s: string, offset: number, length?: number): number;
}

/** A Buffer over the same bytes as `b`, with the latin1 conversions. */
export function latin1View(b: Uint8Array): Latin1Buffer {
  return (b instanceof Buffer ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)) as Latin1Buffer;
}

// Bytes kept for later (cached encodings, intern keys) are kept as one-byte strings: a
// small typed array costs an off-heap allocation and a view object apiece, which
// dominated encoding, while a string is one heap object that Maps hash and compare natively.

/** Growable byte buffer with the primitive writes every encoder here needs. */
export class ByteWriter {
  buf = latin1View(Buffer.alloc(4096));
  view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  /** The same bytes as a plain Uint8Array (slicing a Buffer makes a Buffer, which costs more). */
  private plain = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  pos = 0;

  /** Where the current piece began (see `begin`): growing keeps only the bytes from there. */
  private start = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos - this.start + n) size *= 2;
    const next = latin1View(Buffer.alloc(size));
    this.buf.copy(next, 0, this.start, this.pos);
    this.pos -= this.start;
    this.start = 0;
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
    this.plain = new Uint8Array(next.buffer, next.byteOffset, next.byteLength);
  }

  u8(x: number): void {
    this.ensure(1);
    this.buf[this.pos++] = x;
  }

  /** Unsigned LEB128, for counts, lengths and indices (any safe non-negative integer). */
  uint(x: number): void {
    this.ensure(10);
    while (x >= 0x80) {
      this.buf[this.pos++] = (x % 0x80) | 0x80;
      x = Math.floor(x / 0x80);
    }
    this.buf[this.pos++] = x;
  }

  f64(x: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, x, true);
    this.pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Appends the bytes of a one-byte string (see `text`). */
  latin1(s: string): void {
    const n = s.length;
    this.ensure(n);
    if (n < 48) {
      // A native call costs more than copying a short string by hand.
      const buf = this.buf;
      let p = this.pos;
      for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
      this.pos = p;
    } else this.pos += this.buf.latin1Write(s, this.pos);
  }

  /** What was written since `from`, as a one-byte string. */
  text(from = 0): string {
    return this.buf.latin1Slice(from, this.pos);
  }

  /**
   * Starts a piece that `finish` hands out as a view. Pieces are carved one after the other
   * out of 1 MB chunks that are never written again once handed out, so a piece costs
   * no allocation of its own (a chunk stays alive while any of its pieces does).
   */
  begin(): void {
    if (this.buf.length - this.pos < 1 << 16) {
      this.buf = latin1View(Buffer.alloc(1 << 20));
      this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
      this.plain = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
      this.pos = 0;
    }
    this.start = this.pos;
  }

  /** The piece written since `begin`, as a view of the chunk. */
  finish(): Uint8Array {
    return this.plain.subarray(this.start, this.pos);
  }

  /** A copy of what was written since `from` (a Uint8Array of its own). */
  take(from = 0): Uint8Array {
    return this.plain.slice(from, this.pos);
  }
}

/** Reads what `ByteWriter` wrote. */
export class ByteReader {
  view: DataView;
  pos = 0;
  constructor(public buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  u8(): number {
    if (this.pos >= this.buf.length) throw new Error('truncated input');
    return this.buf[this.pos++]!;
  }

  uint(): number {
    let x = 0,
      scale = 1,
      b: number;
    do {
      b = this.u8();
      x += (b & 0x7f) * scale;
      scale *= 0x80;
    } while (b & 0x80);
    return x;
  }

  f64(): number {
    const x = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return x;
  }

  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error('truncated input');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
}
