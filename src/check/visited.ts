// The visited set: open addressing (linear probing) over one Uint32Array holding
// 64-bit fingerprints as two 32-bit lanes, 8 bytes a slot, grown by doubling at
// 7/8 load (so 9 to 18 bytes per state, 8 / load, about 12 on average). V8 caps a
// Set at 2^24 entries and a Set<string> costs about 80 bytes a state; this has
// neither problem.
//
// With partial-order reduction a parallel Uint8Array keeps, per state, an 8-bit
// mark of the sleep set it was explored with (see por.ts).

const EMPTY = 0;

export class VisitedSet {
  private keys: Uint32Array;
  private marks: Uint8Array | undefined;
  private mask: number;
  size = 0;
  /** Slot of the last `add` or `find`, for `mark` / `setMark`. */
  private last = -1;

  constructor(withMarks = false, initialCapacity = 1 << 10) {
    let cap = 16;
    while (cap < initialCapacity) cap <<= 1;
    this.keys = new Uint32Array(cap * 2);
    this.marks = withMarks ? new Uint8Array(cap) : undefined;
    this.mask = cap - 1;
  }

  get capacity(): number {
    return this.mask + 1;
  }

  /** Bytes held by the tables. */
  get bytes(): number {
    return this.keys.byteLength + (this.marks?.byteLength ?? 0);
  }

  /** Adds a fingerprint; returns true when it was not there yet. The slot is remembered for `setMark`. */
  add(a: number, b: number): boolean {
    if (a === EMPTY && b === EMPTY) b = 1;
    if ((this.size + 1) * 8 > this.capacity * 7) this.grow();
    const keys = this.keys;
    let i = (a ^ Math.imul(b, 0x9e3779b1)) & this.mask;
    for (;;) {
      const ka = keys[i * 2]!,
        kb = keys[i * 2 + 1]!;
      if (ka === EMPTY && kb === EMPTY) {
        keys[i * 2] = a;
        keys[i * 2 + 1] = b;
        this.size++;
        this.last = i;
        return true;
      }
      if (ka === a >>> 0 && kb === b >>> 0) {
        this.last = i;
        return false;
      }
      i = (i + 1) & this.mask;
    }
  }

  has(a: number, b: number): boolean {
    if (a === EMPTY && b === EMPTY) b = 1;
    const keys = this.keys;
    let i = (a ^ Math.imul(b, 0x9e3779b1)) & this.mask;
    for (;;) {
      const ka = keys[i * 2]!,
        kb = keys[i * 2 + 1]!;
      if (ka === EMPTY && kb === EMPTY) return false;
      if (ka === a >>> 0 && kb === b >>> 0) {
        this.last = i;
        return true;
      }
      i = (i + 1) & this.mask;
    }
  }

  /** The mark of the slot touched by the last `add`/`has`. */
  mark(): number {
    return this.marks![this.last]!;
  }

  setMark(m: number): void {
    this.marks![this.last] = m;
  }

  private grow(): void {
    const old = this.keys;
    const oldMarks = this.marks;
    const cap = this.capacity * 2;
    this.keys = new Uint32Array(cap * 2);
    this.marks = oldMarks ? new Uint8Array(cap) : undefined;
    this.mask = cap - 1;
    for (let j = 0; j < old.length / 2; j++) {
      const a = old[j * 2]!,
        b = old[j * 2 + 1]!;
      if (a === EMPTY && b === EMPTY) continue;
      let i = (a ^ Math.imul(b, 0x9e3779b1)) & this.mask;
      while (this.keys[i * 2] !== EMPTY || this.keys[i * 2 + 1] !== EMPTY) i = (i + 1) & this.mask;
      this.keys[i * 2] = a;
      this.keys[i * 2 + 1] = b;
      if (oldMarks) this.marks![i] = oldMarks[j]!;
    }
  }
}
