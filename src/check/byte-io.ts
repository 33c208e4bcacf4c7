// Growable byte writer and its reader: the primitive reads and writes of the world codec.

/** Growable byte buffer with the primitive writes every encoder here needs. */
export class ByteWriter {
  buf = new Uint8Array(1024);
  view = new DataView(this.buf.buffer);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
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

  /** A copy of what was written since `from`. */
  take(from = 0): Uint8Array {
    return this.buf.slice(from, this.pos);
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
