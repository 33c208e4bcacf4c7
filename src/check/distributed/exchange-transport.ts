// Worlds between shards: for each (sender, receiver) pair an append-only sequence of
// batch files `in-<to>/<from>-<k>.b` (k = 0, 1, 2, …), each written whole and renamed
// into place, read by the receiver in order and deleted once consumed. A record is one
// world its owner should explore: its fingerprint (so the owner drops one it has seen
// without decoding it), the encoded world (codec/world-codec.ts), and its path from the
// initial world as step positions (distributed/exchange-paths.ts), so a violation anywhere is a
// schedule from the initial world.
//
// With the world travel the sender's per-actor hash lanes (src/check/fingerprint), so its
// owner hashes its successors incrementally without hashing the world itself again.
// The worlds of one (sender, receiver) pair are encoded with one segment link
// (codec/segment-link.ts): a segment carried before on the pair is a number, so the
// receiver decodes that pair's records in the order they were written.
//
//   batch  := "IXB3" runTag:u32 count:u32 record*
//   record := a:u32 b:u32 worldLength:varint world pathLength:varint path laneCount:varint lane:i32*
import type { DirIo } from './exchange-dir.ts';

const MAGIC = 0x33425849; // "IXB3" little-endian

/** The 32-bit tag of a run id written in every batch (a batch of another run is refused). */
export function runTag(runId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) h = Math.imul(h ^ runId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export const batchName = (from: number, to: number, k: number): string => `in-${to}/${from}-${k}.b`;

/** A growable byte buffer with little-endian u32 and varint writers. */
class Bytes {
  buf = new Uint8Array(1 << 12);
  view = new DataView(this.buf.buffer);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u32(x: number): void {
    this.room(4);
    this.view.setUint32(this.length, x >>> 0, true);
    this.length += 4;
  }
  varint(x: number): void {
    this.room(5);
    while (x >= 0x80) {
      this.buf[this.length++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.length++] = x;
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  reset(): void {
    this.length = 0;
  }
}

/** Batches being filled, one per receiver; a full one (or any, on `flushAll`) is written. */
export class Outbox {
  /** Batches renamed into the directory (the `sent` counter of termination detection). */
  sent = 0;
  records = 0;
  bytes = 0;
  private readonly open: (Bytes | undefined)[];
  private readonly counts: number[];
  private readonly seq: number[];
  /** When each open batch got its first record (the caller's clock). */
  private readonly since: number[];
  /** The caller's work counter (worlds expanded) when each open batch got its first record. */
  private readonly sinceWork: number[];

  constructor(
    private readonly io: DirIo,
    private readonly tag: number,
    private readonly index: number,
    count: number,
    /** Write a batch once it holds this many bytes. */
    private readonly batchBytes: number,
  ) {
    this.open = new Array<Bytes | undefined>(count).fill(undefined);
    this.counts = new Array<number>(count).fill(0);
    this.seq = new Array<number>(count).fill(0);
    this.since = new Array<number>(count).fill(0);
    this.sinceWork = new Array<number>(count).fill(0);
  }

  /**
   * Writes the batches that hold at least `minRecords` worlds or `minBytes` bytes, or got their
   * first record at least `maxAgeMs` before `now` or `maxAgeWork` worlds expanded before `work`:
   * a busy shard sends fewer, larger batches, and ages counted in work hold as many worlds on a
   * loaded machine as on an idle one.
   */
  flushReady(now: number, minBytes: number, maxAgeMs: number, minRecords = Infinity, work = 0, maxAgeWork = Infinity): void {
    for (let to = 0; to < this.open.length; to++) {
      const n = this.counts[to]!;
      if (n > 0 && (n >= minRecords || this.open[to]!.length >= minBytes || now - this.since[to]! >= maxAgeMs || work - this.sinceWork[to]! >= maxAgeWork)) this.flush(to);
    }
  }

  add(to: number, a: number, b: number, world: Uint8Array, path: Uint8Array, lanes: ArrayLike<number> | undefined, now = 0, work = 0): void {
    let o = this.open[to];
    if (!o) {
      o = this.open[to] = new Bytes();
    }
    if (o.length === 0) {
      this.since[to] = now;
      this.sinceWork[to] = work;
      o.u32(MAGIC);
      o.u32(this.tag);
      o.u32(0);
    }
    o.u32(a);
    o.u32(b);
    o.varint(world.length);
    o.bytes(world);
    o.varint(path.length);
    o.bytes(path);
    const nl = lanes?.length ?? 0;
    o.varint(nl);
    for (let k = 0; k < nl; k++) o.u32(lanes![k]!);
    this.counts[to]!++;
    if (o.length >= this.batchBytes) this.flush(to);
  }

  /** True when some batch holds records not written yet. */
  get pending(): boolean {
    return this.counts.some((c) => c > 0);
  }

  flush(to: number): void {
    const o = this.open[to];
    const n = this.counts[to]!;
    if (!o || n === 0) return;
    o.view.setUint32(8, n, true);
    this.io.write(batchName(this.index, to, this.seq[to]!++), o.buf.subarray(0, o.length));
    this.bytes += o.length;
    this.records += n;
    this.sent++;
    this.counts[to] = 0;
    o.reset();
  }

  flushAll(): void {
    for (let to = 0; to < this.open.length; to++) this.flush(to);
  }
}

/** A record read from a batch (views into the batch's bytes). */
export interface Arrival {
  /** The sending shard. */
  from: number;
  a: number;
  b: number;
  world: Uint8Array;
  path: Uint8Array;
  /** The sender's hash lanes of the world (signed 32-bit), or undefined (under symmetry). */
  lanes: Int32Array | undefined;
}

/** The next batches from every other shard, in each sender's order. */
export class Inbox {
  /** Batches consumed (the `received` counter of termination detection). */
  received = 0;
  records = 0;
  bytes = 0;
  private readonly next: number[];
  private turn = 0;
  private held: { from: number; data: Uint8Array } | undefined;

  constructor(
    private readonly io: DirIo,
    private readonly tag: number,
    private readonly index: number,
    private readonly count: number,
  ) {
    this.next = new Array<number>(count).fill(0);
  }

  /** Looks for a waiting batch (senders in turn); true when one is held for `take`. */
  peek(): boolean {
    if (this.held) return true;
    // One directory listing, then reads only of the batches listed (a read per sender costs an error each when none waits).
    const listed = this.io.list ? new Set(this.io.list(`in-${this.index}`)) : undefined;
    if (listed?.size === 0) return false;
    for (let k = 0; k < this.count; k++) {
      const from = (this.turn + k) % this.count;
      if (from === this.index) continue;
      const name = batchName(from, this.index, this.next[from]!);
      if (listed && !listed.has(name.slice(name.indexOf('/') + 1))) continue;
      const data = this.io.read(name);
      if (!data) continue;
      this.turn = (from + 1) % this.count;
      this.held = { from, data };
      return true;
    }
    return false;
  }

  /** True when `name` (in this shard's inbox) may be a batch not consumed yet: not a temporary file, nor one this shard deleted. */
  awaits(name: string): boolean {
    const m = /^(\d+)-(\d+)\.b$/.exec(name);
    return m !== null && Number(m[2]) >= (this.next[Number(m[1])] ?? Infinity);
  }

  /** Consumes the batch `peek` found: counts it, deletes its file, returns its records. */
  take(): Arrival[] {
    const h = this.held;
    if (!h) return [];
    this.held = undefined;
    const name = batchName(h.from, this.index, this.next[h.from]!++);
    const out = parseBatch(h.data, this.tag, name, h.from);
    this.io.remove(name);
    this.received++;
    this.records += out.length;
    this.bytes += h.data.length;
    return out;
  }
}

function readVarint(d: Uint8Array, at: { i: number }): number {
  let x = 0;
  let shift = 0;
  for (;;) {
    const c = d[at.i++]!;
    x += (c & 0x7f) * 2 ** shift;
    if (c < 0x80) return x;
    shift += 7;
  }
}

export function parseBatch(d: Uint8Array, tag: number, name: string, from: number): Arrival[] {
  const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
  if (d.length < 12 || view.getUint32(0, true) !== MAGIC) throw new Error(`exchange batch ${name} is not a batch file`);
  if (view.getUint32(4, true) !== tag) throw new Error(`exchange batch ${name} belongs to another run`);
  const n = view.getUint32(8, true);
  const out: Arrival[] = [];
  const at = { i: 12 };
  for (let k = 0; k < n; k++) {
    const a = view.getUint32(at.i, true);
    const b = view.getUint32(at.i + 4, true);
    at.i += 8;
    const wl = readVarint(d, at);
    const world = d.subarray(at.i, at.i + wl);
    at.i += wl;
    const pl = readVarint(d, at);
    const path = d.subarray(at.i, at.i + pl);
    at.i += pl;
    const nl = readVarint(d, at);
    let lanes: Int32Array | undefined;
    if (nl > 0) {
      lanes = new Int32Array(nl);
      for (let k = 0; k < nl; k++) lanes[k] = view.getInt32(at.i + 4 * k, true);
      at.i += 4 * nl;
    }
    out.push({ from, a, b, world, path, lanes });
  }
  if (at.i !== d.length) throw new Error(`exchange batch ${name} has ${d.length - at.i} bytes past its ${n} records`);
  return out;
}
