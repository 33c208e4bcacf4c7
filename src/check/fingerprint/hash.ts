// Canonical 64-bit structural hashes of values. Two 32-bit lanes with different
// mixing functions give one 64-bit key. Objects worth it are cached by identity
// (WeakMap), which is sound because world values are immutable. Arrays hash in
// order; plain objects, Maps and Sets order-insensitively (a commutative sum over
// entries), so insertion order never makes a "new" state. xstate snapshots hash
// {value, status, context} plus what else decides their future: the history values
// (as sets of state-node ids) and a final output or error when set; typed arrays by bytes; Dates by time; Arrow tables, batches and schemas once
// by content.

/** The fields of an xstate snapshot that decide its future, besides its context. */
export interface SnapshotLike {
  readonly value: unknown;
  readonly status: unknown;
  readonly historyValue?: object | null;
  readonly output?: unknown;
  readonly error?: unknown;
}

/** A 64-bit fingerprint as two unsigned 32-bit lanes. */
export interface Fp {
  /** Lane A (murmur3 rounds), unsigned 32 bits. */
  readonly a: number;
  /** Lane B (xxhash32 rounds), unsigned 32 bits. */
  readonly b: number;
}

// Lane A: murmur3 rounds. Lane B: xxhash32 rounds. Independent enough for a 64-bit key.
export function mixA(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}
export function mixB(h: number, k: number): number {
  h = (h + Math.imul(k, 0x85ebca77)) | 0;
  h = (h << 13) | (h >>> 19);
  return Math.imul(h, 0x9e3779b1);
}
export function finA(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
export function finB(h: number): number {
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  h = Math.imul(h, 0x297a2d39);
  return (h ^ (h >>> 15)) >>> 0;
}

// Type tags keep values of different types apart (0 vs '0' vs false vs null).
const T_UNDEF = 1, T_NULL = 2, T_TRUE = 3, T_FALSE = 4, T_INT = 5, T_NUM = 6, T_STR = 7, T_ARR = 8, T_OBJ = 9, T_MAP = 10, T_SET = 11, T_BYTES = 12, T_BIG = 13, T_FN = 14, T_SNAP = 15, T_TABLE = 16, T_DATE = 18;

/**
 * Objects whose hash took at least this many values are cached by identity. The cache
 * is a WeakMap, whose entries every garbage collection (young ones too) must process,
 * and caching small objects saves little: the world parts a step leaves alone reuse
 * their hash from the parent's lanes anyway (fingerprint/fingerprint.ts). Arrow tables
 * and large payloads are still cached.
 */
const CACHE_MIN_WORK = 256;

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** Hashes any value of a world into two lanes. One instance per renaming (symmetry). */
export class Hasher {
  private readonly cache = new WeakMap<object, Fp>();
  /** Output lanes of the last `hash` call (avoids allocating on primitives). */
  ha = 0;
  /** Lane B of the last `hash` call (see `ha`). */
  hb = 0;

  /** `rename` maps actor ids to other actor ids (symmetry canonicalisation); strings only. */
  constructor(private readonly rename?: ReadonlyMap<string, string>) {}

  /** Values hashed so far (leaves and cache hits): decides which objects are worth caching. */
  private work = 0;

  /** Hashes one value (any JSON-like value, Map, Set or xstate snapshot) into `ha`/`hb`. */
  hash(v: unknown): void {
    this.work++;
    switch (typeof v) {
      case 'undefined':
        this.ha = T_UNDEF;
        this.hb = T_UNDEF;
        return;
      case 'boolean':
        this.ha = this.hb = v ? T_TRUE : T_FALSE;
        return;
      case 'number':
        if ((v | 0) === v) {
          this.ha = finA(mixA(T_INT, v));
          this.hb = finB(mixB(T_INT, v));
        } else {
          f64[0] = v;
          this.ha = finA(mixA(mixA(T_NUM, u32[0]!), u32[1]!));
          this.hb = finB(mixB(mixB(T_NUM, u32[0]!), u32[1]!));
        }
        return;
      case 'string':
        this.str(this.rename?.get(v) ?? v);
        return;
      case 'bigint':
        this.str(v.toString());
        this.ha = finA(mixA(this.ha, T_BIG));
        this.hb = finB(mixB(this.hb, T_BIG));
        return;
      case 'function':
        this.str((v as { name?: string }).name ?? '');
        this.ha = finA(mixA(this.ha, T_FN));
        this.hb = finB(mixB(this.hb, T_FN));
        return;
      case 'symbol':
        this.str(String(v));
        return;
    }
    if (v === null) {
      this.ha = this.hb = T_NULL;
      return;
    }
    const o = v as object;
    const c = this.cache.get(o);
    if (c !== undefined) {
      this.ha = c.a;
      this.hb = c.b;
      this.work++;
      return;
    }
    const w0 = this.work;
    this.object(o);
    // Caching costs a WeakMap entry (and GC work); tiny objects are cheaper to rehash.
    if (this.work - w0 >= CACHE_MIN_WORK) this.cache.set(o, { a: this.ha, b: this.hb });
  }

  /**
   * Sets `ha`/`hb` to the hash of an array whose `count` elements hash to the pairs
   * `lanes[at + 2k]`, `lanes[at + 2k + 1]` (int32 or uint32): `hash` of the array
   * itself, from hashes computed earlier.
   */
  seqOfLanes(lanes: ArrayLike<number>, at: number, count: number): void {
    let a = T_ARR ^ count,
      b = T_ARR + count;
    for (let i = 0; i < count; i++) {
      const ha = lanes[at + 2 * i]! >>> 0,
        hb = lanes[at + 2 * i + 1]! >>> 0;
      a = mixA(a, ha);
      a = mixA(a, hb);
      b = mixB(b, hb);
      b = mixB(b, ha);
    }
    this.ha = finA(a);
    this.hb = finB(b);
  }

  private readonly strCache = new Map<string, Fp>();
  /** Characters of the strings in `strCache` (bounds its memory). */
  private strChars = 0;

  /**
   * Strings are cached by value: a Map lookup costs the engine's own string hash,
   * computed once per string object, so long strings met again (payloads, keys
   * held in contexts) are not rehashed char by char.
   */
  private str(s: string): void {
    if (s.length <= 4096) {
      const c = this.strCache.get(s);
      if (c !== undefined) {
        this.ha = c.a;
        this.hb = c.b;
        return;
      }
      this.strRaw(s);
      if (this.strCache.size < 1 << 16 && this.strChars < 1 << 24) {
        this.strChars += s.length;
        this.strCache.set(s, { a: this.ha, b: this.hb });
      }
      return;
    }
    this.strRaw(s);
  }

  private strRaw(s: string): void {
    let a = T_STR ^ s.length,
      b = T_STR + s.length;
    let i = 0;
    for (; i + 1 < s.length; i += 2) {
      const k = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
      a = mixA(a, k);
      b = mixB(b, k);
    }
    if (i < s.length) {
      a = mixA(a, s.charCodeAt(i));
      b = mixB(b, s.charCodeAt(i));
    }
    this.ha = finA(a);
    this.hb = finB(b);
  }

  private bytes(u8: Uint8Array, tag: number): void {
    let a = tag ^ u8.length,
      b = tag + u8.length;
    const n4 = u8.length & ~3;
    // Little-endian words read by hand (a DataView per call costs more than the hashing of small buffers).
    for (let i = 0; i < n4; i += 4) {
      const k = u8[i]! | (u8[i + 1]! << 8) | (u8[i + 2]! << 16) | (u8[i + 3]! << 24);
      a = mixA(a, k);
      b = mixB(b, k);
    }
    for (let i = n4; i < u8.length; i++) {
      a = mixA(a, u8[i]!);
      b = mixB(b, u8[i]!);
    }
    this.ha = finA(a);
    this.hb = finB(b);
  }

  /** Ordered combination of a sequence of values. */
  private seq(tag: number, xs: ArrayLike<unknown>): void {
    let a = tag ^ xs.length,
      b = tag + xs.length;
    for (let i = 0; i < xs.length; i++) {
      this.hash(xs[i]);
      a = mixA(a, this.ha);
      a = mixA(a, this.hb);
      b = mixB(b, this.hb);
      b = mixB(b, this.ha);
    }
    this.ha = finA(a);
    this.hb = finB(b);
  }

  /** Order-insensitive combination of key/value pairs (a commutative sum of pair hashes). */
  private pairs(tag: number, entries: Iterable<readonly [unknown, unknown]>): void {
    let sa = 0,
      sb = 0,
      n = 0;
    for (const [k, x] of entries) {
      if (x === undefined) continue;
      this.hash(k);
      let a = mixA(tag, this.ha),
        b = mixB(tag, this.hb);
      this.hash(x);
      a = finA(mixA(mixA(a, this.ha), this.hb));
      b = finB(mixB(mixB(b, this.hb), this.ha));
      sa = (sa + a) | 0;
      sb = (sb + b) | 0;
      n++;
    }
    this.ha = finA(mixA(sa, n ^ tag));
    this.hb = finB(mixB(sb, n + tag));
  }

  private object(o: object): void {
    if (Array.isArray(o)) return this.seq(T_ARR, o);
    const proto = Object.getPrototypeOf(o);
    // Fast path: plain data (contexts, messages) that is not an xstate snapshot.
    if ((proto === Object.prototype || proto === null) && !('machine' in o)) return this.record(o as Record<string, unknown>);
    if (ArrayBuffer.isView(o)) return this.bytes(o instanceof Uint8Array ? o : new Uint8Array(o.buffer, o.byteOffset, o.byteLength), T_BYTES);
    if (o instanceof Map) return this.pairs(T_MAP, o.entries());
    if (o instanceof Set) return this.pairs(T_SET, [...o].map((x) => [x, true] as const));
    if (o instanceof Date) return this.seq(T_DATE, [o.getTime()]);
    const r = o as Record<string, any>;
    if ('machine' in r && 'value' in r && 'context' in r) {
      // An xstate snapshot: never hash `machine` or `_nodes`.
      this.hash(r.context);
      this.snapshot(r as SnapshotLike, this.ha, this.hb);
      return;
    }
    if (isArrowTable(r)) return this.table(r, T_TABLE);
    // Batches and schemas by content too: arrow adds fields to them lazily (a schema's
    // dictionaries map when a batch is serialised), so hashing them as plain objects
    // made the same world hash differently depending on the path that reached it.
    if (isArrowBatch(r)) return this.table(r, T_TABLE + 2);
    if (isArrowSchema(r)) return this.seq(T_TABLE + 3, r.fields.map((f: any) => `${f.name}:${String(f.type)}:${f.nullable}`));
    if (isArrowData(r)) return this.arrowData(r);
    this.record(r);
  }

  /** `pairs` for a plain object, without allocating entries. */
  private record(r: Record<string, unknown>): void {
    this.recordSums(r);
    this.recordHash(this.sa, this.sb, this.sn);
  }

  // Incremental hashing of records. A record's hash is a function of the sums of
  // its (key, value) terms (`sa`, `sb`, mod 2^32) and their count (`sn`), so the
  // hash of a record that differs from a known one in a few keys costs only those
  // keys (fingerprint/fingerprint.ts uses it for an actor's next context).

  /** Sums of the last `recordSums` / `recordDelta`. */
  sa = 0;
  /** Lane B sum of the last `recordSums` / `recordDelta`. */
  sb = 0;
  /** Entries summed by the last `recordSums` / `recordDelta`. */
  sn = 0;

  /** Sets `ha`/`hb` to the term of (k, x) in a record's sums. */
  private term(k: string, x: unknown): void {
    this.hash(k);
    const a0 = mixA(T_OBJ, this.ha),
      b0 = mixB(T_OBJ, this.hb);
    this.hash(x);
    const a = finA(mixA(mixA(a0, this.ha), this.hb));
    this.hb = finB(mixB(mixB(b0, this.hb), this.ha));
    this.ha = a;
  }

  /** Sets `sa`/`sb`/`sn` to the sums of a record's own defined entries. */
  recordSums(r: Record<string, unknown>): void {
    let sa = 0,
      sb = 0,
      n = 0;
    for (const k in r) {
      if (!Object.prototype.hasOwnProperty.call(r, k)) continue;
      const x = r[k];
      if (x === undefined) continue;
      this.term(k, x);
      sa = (sa + this.ha) | 0;
      sb = (sb + this.hb) | 0;
      n++;
    }
    this.sa = sa;
    this.sb = sb;
    this.sn = n;
  }

  /**
   * Sets `sa`/`sb`/`sn` to the sums of `next`, given `prev` and its sums: only the
   * entries whose value is not the same (===) in both are hashed.
   */
  recordDelta(prev: Record<string, unknown>, next: Record<string, unknown>, sa: number, sb: number, n: number): void {
    const own = Object.prototype.hasOwnProperty;
    for (const k in next) {
      if (!own.call(next, k)) continue;
      const x = next[k];
      const y = own.call(prev, k) ? prev[k] : undefined;
      if (x === y) continue;
      if (y !== undefined) {
        this.term(k, y);
        sa = (sa - this.ha) | 0;
        sb = (sb - this.hb) | 0;
        n--;
      }
      if (x !== undefined) {
        this.term(k, x);
        sa = (sa + this.ha) | 0;
        sb = (sb + this.hb) | 0;
        n++;
      }
    }
    for (const k in prev) {
      if (!own.call(prev, k) || own.call(next, k)) continue;
      const y = prev[k];
      if (y === undefined) continue;
      this.term(k, y);
      sa = (sa - this.ha) | 0;
      sb = (sb - this.hb) | 0;
      n--;
    }
    this.sa = sa;
    this.sb = sb;
    this.sn = n;
  }

  /** Sets `ha`/`hb` to the hash of a record with these sums. */
  recordHash(sa: number, sb: number, n: number): void {
    this.ha = finA(mixA(sa, n ^ T_OBJ));
    this.hb = finB(mixB(sb, n + T_OBJ));
  }

  /**
   * Sets `ha`/`hb` to the hash of an xstate snapshot whose context hashes to (ca, cb):
   * its state value, status, history values, and output / error when set. History
   * decides where a re-entered compound state resumes, so two snapshots that differ
   * only in it behave differently.
   */
  snapshot(snap: SnapshotLike, ca: number, cb: number): void {
    let a = T_SNAP,
      b = T_SNAP;
    this.hash(snap.value);
    a = mixA(mixA(a, this.ha), this.hb);
    b = mixB(mixB(b, this.hb), this.ha);
    this.hash(snap.status);
    a = mixA(a, this.ha);
    b = mixB(b, this.hb);
    const hv = snap.historyValue;
    if (hv !== undefined && hv !== null) {
      this.history(hv);
      a = mixA(mixA(a, this.ha), this.hb);
      b = mixB(mixB(b, this.hb), this.ha);
    }
    if (snap.output !== undefined) {
      this.hash(snap.output);
      a = mixA(mixA(mixA(a, T_SNAP + 1), this.ha), this.hb);
      b = mixB(mixB(mixB(b, T_SNAP + 1), this.hb), this.ha);
    }
    if (snap.error !== undefined) {
      this.hash(snap.error instanceof Error ? `${snap.error.name}: ${snap.error.message}` : snap.error);
      a = mixA(mixA(mixA(a, T_SNAP + 2), this.ha), this.hb);
      b = mixB(mixB(mixB(b, T_SNAP + 2), this.hb), this.ha);
    }
    this.ha = finA(mixA(mixA(a, ca), cb));
    this.hb = finB(mixB(mixB(b, cb), this.ha));
  }

  private readonly historyCache = new WeakMap<object, Fp>();

  /**
   * xstate's `historyValue`: history node id -> the state nodes it remembers. Hashed
   * as a set of (history id, set of remembered node ids): xstate reads each list as a
   * set, and its order follows the path that entered the states. Ids are state-node
   * paths, never actor ids, so they are not renamed. Empty (no history yet) adds 0.
   */
  private history(hv: object): void {
    const c = this.historyCache.get(hv);
    if (c !== undefined) {
      this.ha = c.a;
      this.hb = c.b;
      return;
    }
    let sa = 0,
      sb = 0,
      n = 0;
    for (const key in hv) {
      const nodes = (hv as Record<string, unknown>)[key];
      if (!Array.isArray(nodes)) continue;
      const ids = nodes.map((x) => String((x as { id?: unknown })?.id ?? x)).sort();
      this.str(`${key}=${ids.join('\u0000')}`);
      sa = (sa + this.ha) | 0;
      sb = (sb + this.hb) | 0;
      n++;
    }
    this.ha = n === 0 ? 0 : finA(mixA(sa, n ^ T_SNAP));
    this.hb = n === 0 ? 0 : finB(mixB(sb, n + T_SNAP));
    this.historyCache.set(hv, { a: this.ha, b: this.hb });
  }

  /**
   * Arrow table, by content: per column its name, type and logical values
   * (`toArray()`, so buffer padding and chunking do not matter) plus validity.
   * Cached by table identity, so each table is read once.
   */
  private table(t: any, tag: number): void {
    const parts: unknown[] = [];
    for (const f of t.schema.fields) {
      const col = t.getChild(f.name);
      parts.push(`${f.name}:${String(f.type)}`);
      if (!col) continue;
      parts.push(col.toArray());
      if (col.nullCount > 0) parts.push(Uint8Array.from({ length: col.length }, (_, i) => (col.isValid(i) ? 1 : 0)));
    }
    this.seq(tag, parts);
    this.work += 1 << 10;
  }

  private arrowData(d: any): void {
    const parts: unknown[] = [d.length, d.offset, d.nullCount, d.values, d.valueOffsets, d.nullBitmap, d.typeIds, d.children ?? [], d.dictionary?.data ?? null];
    this.seq(T_TABLE + 1, parts);
  }
}

function isArrowTable(v: any): boolean {
  return typeof v.numRows === 'number' && v.schema && Array.isArray(v.schema.fields) && Array.isArray(v.batches) && typeof v.getChild === 'function';
}
function isArrowBatch(v: any): boolean {
  return typeof v.numRows === 'number' && v.schema && Array.isArray(v.schema.fields) && v.data !== undefined && typeof v.getChildAt === 'function' && typeof v.getChild === 'function';
}
function isArrowSchema(v: any): boolean {
  return Array.isArray(v.fields) && v.metadata instanceof Map && v.dictionaries instanceof Map;
}
function isArrowData(v: any): boolean {
  return v.constructor?.name === 'Data' && typeof v.type === 'object' && Array.isArray(v.children) && typeof v.length === 'number';
}
