// The visited set: open addressing (linear probing) over one Uint32Array holding
// 64-bit fingerprints as two 32-bit lanes, 8 bytes a slot. V8 caps a Set at 2^24
// entries and a Set<string> costs many times more per state; this has neither problem.
//
// Growth: by 1.5x at 7/8 load, so the load stays within 7/12..7/8 and a state costs
// 9.1 to 13.7 bytes (8 / load). Doubling would drop the load to 7/16 right after
// growing (18 bytes a state); 1.5x keeps every size under 16 bytes. Capacities are
// not powers of two, so a key maps to its home slot by multiply-and-floor
// (Lemire's fast range) instead of a mask.
//
// With partial-order reduction a parallel Uint8Array keeps, per state, an 8-bit
// mark of the sleep set it was explored with (see por/sleep-sets.ts): 10.3 to 15.4 bytes a state.
// For liveness a parallel Int32Array keeps each state's node number in the stored
// graph (liveness/state-graph.ts): 4 bytes a slot more. Breadth-first POR keeps each state's
// depth in a parallel Uint16Array (2 bytes a slot, see `setAux`).

const EMPTY = 0;
const TWO32 = 4294967296;
/** The largest per-state number `setAux` keeps. */
export const AUX_MAX = 0xffff;

/** A set of 64-bit fingerprints (two 32-bit lanes each), 9 to 14 bytes a state: the checker's visited set. Optional per-slot marks, node ids and a number (`aux`). */
export class VisitedSet {
  private keys: Uint32Array;
  private marks: Uint8Array | undefined;
  private ids: Int32Array | undefined;
  /** Optional per-state number (breadth-first POR keeps each state's depth here for the cycle proviso). */
  private aux: Uint16Array | undefined;
  private cap: number;
  /** Fingerprints held. */
  size = 0;
  /** Slot of the last `add` or `has`, for `mark` / `setMark`. */
  private last = -1;

  constructor(withMarks = false, initialCapacity = 1024, withIds = false, withAux = false) {
    this.cap = Math.max(16, Math.ceil(initialCapacity));
    this.keys = new Uint32Array(this.cap * 2);
    this.marks = withMarks ? new Uint8Array(this.cap) : undefined;
    this.ids = withIds ? new Int32Array(this.cap) : undefined;
    this.aux = withAux ? new Uint16Array(this.cap) : undefined;
  }

  /** Slots allocated. */
  get capacity(): number {
    return this.cap;
  }

  /** Bytes held by the tables. */
  get bytes(): number {
    return this.keys.byteLength + (this.marks?.byteLength ?? 0) + (this.ids?.byteLength ?? 0) + (this.aux?.byteLength ?? 0);
  }

  private home(a: number, b: number, cap: number): number {
    const h = (a ^ Math.imul(b, 0x9e3779b1)) >>> 0;
    const i = Math.floor((h / TWO32) * cap);
    return i < cap ? i : cap - 1;
  }

  /** Adds a fingerprint; returns true when it was not there yet. The slot is remembered for `setMark`. */
  add(a: number, b: number): boolean {
    a >>>= 0;
    b >>>= 0;
    if (a === EMPTY && b === EMPTY) b = 1;
    if ((this.size + 1) * 8 > this.cap * 7) this.grow();
    const keys = this.keys;
    const cap = this.cap;
    let i = this.home(a, b, cap);
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
      if (ka === a && kb === b) {
        this.last = i;
        return false;
      }
      if (++i === cap) i = 0;
    }
  }

  /** True when the fingerprint is held. The slot is remembered for `mark`/`id`/`getAux`. */
  has(a: number, b: number): boolean {
    a >>>= 0;
    b >>>= 0;
    if (a === EMPTY && b === EMPTY) b = 1;
    const keys = this.keys;
    const cap = this.cap;
    let i = this.home(a, b, cap);
    for (;;) {
      const ka = keys[i * 2]!,
        kb = keys[i * 2 + 1]!;
      if (ka === EMPTY && kb === EMPTY) return false;
      if (ka === a && kb === b) {
        this.last = i;
        return true;
      }
      if (++i === cap) i = 0;
    }
  }

  /** Calls `fn` with the two lanes of every fingerprint held (slot order). */
  forEach(fn: (a: number, b: number) => void): void {
    const keys = this.keys;
    for (let i = 0; i < this.cap; i++) {
      const a = keys[i * 2]!,
        b = keys[i * 2 + 1]!;
      if (a !== EMPTY || b !== EMPTY) fn(a, b);
    }
  }

  /** The mark of the slot touched by the last `add`/`has`. */
  mark(): number {
    return this.marks![this.last]!;
  }

  /** Sets the mark of the slot touched by the last `add`/`has` (sets built `withMarks`). */
  setMark(m: number): void {
    this.marks![this.last] = m;
  }

  /** The node number of the slot touched by the last `add`/`has` (sets built `withIds`). */
  id(): number {
    return this.ids![this.last]!;
  }

  /** Sets the node number of the slot touched by the last `add`/`has` (sets built `withIds`). */
  setId(v: number): void {
    this.ids![this.last] = v;
  }

  /** True when the set was built `withAux`. */
  get hasAux(): boolean {
    return this.aux !== undefined;
  }

  /** The per-state number of the slot touched by the last `add`/`has` (see `aux`), at most `AUX_MAX`. */
  getAux(): number {
    return this.aux![this.last]!;
  }

  /**
   * Sets the per-state number of the slot touched by the last `add`/`has`. Values
   * above `AUX_MAX` are kept as `AUX_MAX` (2 bytes a slot). The one user, the
   * breadth-first cycle proviso (aux <= depth: expand fully), then errs towards full
   * expansion, which is always sound.
   */
  setAux(v: number): void {
    this.aux![this.last] = v < AUX_MAX ? v : AUX_MAX;
  }

  private grow(): void {
    const old = this.keys;
    const oldMarks = this.marks;
    const oldIds = this.ids;
    const oldAux = this.aux;
    const oldCap = this.cap;
    const cap = Math.ceil(oldCap * 1.5);
    this.keys = new Uint32Array(cap * 2);
    this.marks = oldMarks ? new Uint8Array(cap) : undefined;
    this.ids = oldIds ? new Int32Array(cap) : undefined;
    this.aux = oldAux ? new Uint16Array(cap) : undefined;
    this.cap = cap;
    const keys = this.keys;
    for (let j = 0; j < oldCap; j++) {
      const a = old[j * 2]!,
        b = old[j * 2 + 1]!;
      if (a === EMPTY && b === EMPTY) continue;
      let i = this.home(a, b, cap);
      while (keys[i * 2] !== EMPTY || keys[i * 2 + 1] !== EMPTY) if (++i === cap) i = 0;
      keys[i * 2] = a;
      keys[i * 2 + 1] = b;
      if (oldMarks) this.marks![i] = oldMarks[j]!;
      if (oldIds) this.ids![i] = oldIds[j]!;
      if (oldAux) this.aux![i] = oldAux[j]!;
    }
  }
}
