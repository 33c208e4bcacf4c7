// Canonical 64-bit fingerprints of worlds, built from per-actor parts (fingerprint/hash.ts
// hashes the values). A step changes few actors, so a world's fingerprint reuses
// its parent's per-actor lanes for the rest.
//
// Not hashed: `world.anon` (the counter that names anonymous delayed sends). Those
// ids are names, not state: two worlds that differ only in them behave the same.
import type { Scenario, World } from '../../actors/index.ts';
import { Hasher, finA, finB, mixA, mixB, type Fp, type SnapshotLike } from './hash.ts';

export { Hasher, type Fp } from './hash.ts';

/**
 * A world's per-actor hash parts, kept by the search for its successors (see
 * `WorldHasher.world`): int32 values, in a plain array (cheap to make) or an
 * Int32Array (compact, for long-lived queues). Readers normalise with `>>> 0` / `| 0`.
 */
export type Lanes = ArrayLike<number>;

// Per-actor ints in a world's lanes: the actor's part (snapshot, status, inbox),
// its snapshot's hash, and the sums of its record (`sn` = -1: not a plain record).
const A_LANE = 0;
const A_SNAP = 2;
const A_SUMS = 4;
const LANE = 7;
const SNAP_CACHE_LIMIT = 1 << 14;
/** Snapshot cache misses after which the cache turns itself off if under 2% of its lookups hit (fewer with one actor, as the step memo: step-memo.ts). */
const SNAP_CACHE_PROBE = 4096;
const SNAP_CACHE_PROBE_ONE_ACTOR = 512;

const NO_RECORD = 0,
  PLAIN = 1,
  SNAPSHOT = 2;

function isPlainRecord(o: unknown): boolean {
  if (typeof o !== 'object' || o === null) return false;
  const proto = Object.getPrototypeOf(o);
  return (proto === Object.prototype || proto === null) && !('machine' in o);
}

/**
 * Which record a snapshot's hash is built on, as `Hasher.hash` hashes it: a plain
 * object (a reducer's state) is a record itself; an xstate snapshot (plain object
 * with `machine`, `value`, `context`) hashes its plain-object context as a record.
 */
function recordKind(s: unknown): number {
  if (isPlainRecord(s)) return PLAIN;
  if (typeof s !== 'object' || s === null || Array.isArray(s)) return NO_RECORD;
  const proto = Object.getPrototypeOf(s);
  if (proto !== Object.prototype && proto !== null) return NO_RECORD;
  const r = s as Record<string, unknown>;
  return 'machine' in r && 'value' in r && 'context' in r && isPlainRecord(r.context) ? SNAPSHOT : NO_RECORD;
}

/**
 * Fingerprints worlds of one scenario. With symmetry groups, the fingerprint is the
 * minimum over the permutations of each group of the hash of the world with the
 * members' ids renamed and their slots permuted, so symmetric worlds collide.
 */
export class WorldHasher {
  private readonly perms: { hasher: Hasher; slot: Int32Array }[];
  /** Lane A of the last `world` call. */
  ha = 0;
  /** Lane B of the last `world` call. */
  hb = 0;
  /** True when worlds are canonicalised over symmetry permutations. */
  readonly symmetric: boolean;

  constructor(sc: Scenario, symmetry: boolean) {
    const n = sc.ids.length;
    const identity = Int32Array.from({ length: n + 1 }, (_, i) => i);
    this.perms = [{ hasher: new Hasher(), slot: identity }];
    const groups = symmetry ? (sc.symmetry ?? []).filter((g) => g.length > 1) : [];
    if (groups.length > 0) {
      let all: Int32Array[] = [identity];
      for (const g of groups) {
        const idx = g.map((id) => sc.index.get(id)!);
        const next: Int32Array[] = [];
        for (const base of all) for (const p of permutations(idx.length)) {
          const s = base.slice();
          for (let k = 0; k < idx.length; k++) s[idx[k]!] = idx[p[k]!]!;
          next.push(s);
        }
        all = next;
        if (all.length > 720) throw new Error(`symmetry groups of scenario '${sc.name}' allow ${all.length}+ permutations; keep groups small (at most 720 permutations in all)`);
      }
      this.perms = all.map((slot) => {
        const rename = new Map<string, string>();
        for (let i = 0; i < n; i++) if (slot[i] !== i) rename.set(sc.ids[i]!, sc.ids[slot[i]!]!);
        return { hasher: rename.size === 0 ? new Hasher() : new Hasher(rename), slot };
      });
    }
    this.symmetric = this.perms.length > 1;
    this.snapCache = this.symmetric ? undefined : new Map();
    this.snapProbe = n === 1 ? SNAP_CACHE_PROBE_ONE_ACTOR : SNAP_CACHE_PROBE;
  }

  /**
   * Lanes are computed into one scratch array (most worlds are revisits or leaves,
   * whose lanes nobody keeps); `lastLanes` copies them for a world that will have
   * successors.
   */
  private scratch: number[] | undefined;
  /**
   * Snapshot objects already hashed (without symmetry): their hash and record sums.
   * The step memo hands the same next snapshot to every world where a pair recurs,
   * so most changed actors' snapshots were hashed before. Bounded like the memo, and
   * off once lookups show it rarely hits (when the memo is off, every changed
   * snapshot is a new object): it would only keep snapshots alive for the collector.
   */
  private snapCache: Map<object, number[]> | undefined;
  private readonly snapProbe: number;
  private snapMisses = 0;
  private snapHits = 0;
  private scratchValid = false;

  /** Per-actor lanes of the last world hashed without symmetry (a copy: reused for its successors). */
  get lastLanes(): number[] | undefined {
    // A plain array: copying one is several times cheaper than allocating a typed array.
    return this.scratchValid ? this.scratch!.slice() : undefined;
  }

  /**
   * Lane `half` (0: A, 1: B) of actor `i`'s snapshot hash in the last world hashed without
   * symmetry (no copy; undefined under symmetry). Exchange mode may own worlds by one actor's snapshot.
   */
  snapshotLane(i: number, half: 0 | 1): number | undefined {
    return this.scratchValid ? this.scratch![i * LANE + A_SNAP + half] : undefined;
  }

  /**
   * Sets `ha`/`hb` to the world's fingerprint. Given the world it was derived from
   * and that world's `lastLanes`, actors whose snapshot, status and inbox are the
   * same objects reuse their lanes, so a step costs only the actors it touched.
   */
  world(w: World, base?: World, baseLanes?: Lanes): void {
    if (this.perms.length === 1) {
      const p = this.perms[0]!;
      const lanes = this.actorLanes(w, p.hasher, p.slot, base, baseLanes);
      this.combine(w, p.hasher, p.slot, lanes, base, baseLanes);
      this.scratchValid = true;
      return;
    }
    this.scratchValid = false;
    let ba = 0,
      bb = 0,
      first = true;
    for (const p of this.perms) {
      this.combine(w, p.hasher, p.slot, this.actorLanes(w, p.hasher, p.slot));
      if (first || this.ha < ba || (this.ha === ba && this.hb < bb)) {
        ba = this.ha;
        bb = this.hb;
        first = false;
      }
    }
    this.ha = ba;
    this.hb = bb;
  }

  /** The world's fingerprint as a fresh `Fp` (allocates; the search itself reads `ha`/`hb` after `world`). */
  fp(w: World): Fp {
    this.world(w);
    return { a: this.ha, b: this.hb };
  }

  /**
   * Hash of each actor's part under a renaming (actor `i` is stored at slot
   * `slot[i]`): snapshot, status and inbox, with channel senders renamed.
   *
   * Layout: `LANE` ints per actor (see `A_*`), then the monitors' and the timers'
   * parts, then each monitor's state hash (filled by `combine`). An actor whose
   * snapshot is the base world's reuses the snapshot's hash; one whose record (xstate
   * context or reducer state) is new hashes only the entries that differ from the
   * base record's (`recordDelta`).
   */
  private actorLanes(w: World, h: Hasher, slot: Int32Array, base?: World, given?: Lanes): number[] {
    const n = w.snaps.length;
    const baseLanes = given !== undefined && given === this.scratch ? this.scratch.slice() : given;
    let out = this.scratch;
    const size = n * LANE + 4 + 2 * w.monitors.length;
    if (out === undefined || out.length !== size) out = this.scratch = new Array<number>(size).fill(0);
    this.scratchValid = false;
    for (let i = 0; i < n; i++) {
      const o = i * LANE;
      const s = w.snaps[i];
      const same = base !== undefined && baseLanes !== undefined && base.snaps[i] === s;
      if (same && base.inbox[i] === w.inbox[i] && base.status[i] === w.status[i]) {
        for (let k = 0; k < LANE; k++) out[o + k] = baseLanes[o + k]!;
        continue;
      }
      if (same) {
        for (let k = A_SNAP; k < LANE; k++) out[o + k] = baseLanes[o + k]!;
        h.ha = baseLanes[o + A_SNAP]! >>> 0;
        h.hb = baseLanes[o + A_SNAP + 1]! >>> 0;
      } else this.snapshot(h, s, out, o, base?.snaps[i], baseLanes);
      let a = mixA(0x5bd1e995, slot[i]!),
        b = mixB(0x5bd1e995, slot[i]!);
      a = mixA(mixA(a, h.ha), h.hb);
      b = mixB(mixB(b, h.hb), h.ha);
      const st = w.status[i]!;
      const code = st === 'up' ? 1 : st === 'crashed' ? 2 : 3;
      a = mixA(a, code);
      b = mixB(b, code);
      // Channels: an unordered set of (renamed sender, queue).
      let ca = 0,
        cb = 0;
      for (const ch of w.inbox[i]!) {
        h.hash(ch.queue);
        ca = (ca + finA(mixA(mixA(mixA(0x27d4eb2d, slot[ch.from] ?? ch.from), h.ha), h.hb))) | 0;
        cb = (cb + finB(mixB(mixB(mixB(0x27d4eb2d, slot[ch.from] ?? ch.from), h.hb), h.ha))) | 0;
      }
      a = mixA(mixA(a, ca), w.inbox[i]!.length);
      b = mixB(mixB(b, cb), w.inbox[i]!.length);
      out[o + A_LANE] = finA(a);
      out[o + A_LANE + 1] = finB(b);
    }
    return out;
  }

  /**
   * Hashes snapshot `s` (exactly as `Hasher.hash(s)` would) into `h.ha`/`h.hb` and
   * records its hash and record sums at `out[o..]`. With the previous snapshot of
   * the same actor and its sums in `baseLanes`, only the changed entries are hashed.
   */
  private snapshot(h: Hasher, s: unknown, out: number[], o: number, prev: unknown, baseLanes: Lanes | undefined): void {
    const cache = this.snapCache;
    if (cache !== undefined && typeof s === 'object' && s !== null) {
      const c = cache.get(s);
      if (c !== undefined) {
        this.snapHits++;
        for (let k = 0; k < LANE - A_SNAP; k++) out[o + A_SNAP + k] = c[k]!;
        h.ha = c[0]! >>> 0;
        h.hb = c[1]! >>> 0;
        return;
      }
      this.snapshotFresh(h, s, out, o, prev, baseLanes);
      if (++this.snapMisses === this.snapProbe && this.snapHits * 50 < this.snapMisses + this.snapHits) {
        this.snapCache = undefined;
        return;
      }
      if (cache.size >= SNAP_CACHE_LIMIT) cache.clear();
      cache.set(s, out.slice(o + A_SNAP, o + LANE));
      return;
    }
    this.snapshotFresh(h, s, out, o, prev, baseLanes);
  }

  private snapshotFresh(h: Hasher, s: unknown, out: number[], o: number, prev: unknown, baseLanes: Lanes | undefined): void {
    const kind = recordKind(s);
    if (kind === NO_RECORD) {
      h.hash(s);
      out[o + A_SUMS + 2] = -1;
    } else {
      const rec = (kind === SNAPSHOT ? (s as { context: Record<string, unknown> }).context : s) as Record<string, unknown>;
      if (baseLanes !== undefined && baseLanes[o + A_SUMS + 2]! >= 0 && recordKind(prev) === kind) {
        const prec = (kind === SNAPSHOT ? (prev as { context: Record<string, unknown> }).context : prev) as Record<string, unknown>;
        if (prec === rec) {
          h.sa = baseLanes[o + A_SUMS]!;
          h.sb = baseLanes[o + A_SUMS + 1]!;
          h.sn = baseLanes[o + A_SUMS + 2]!;
        } else h.recordDelta(prec, rec, baseLanes[o + A_SUMS]!, baseLanes[o + A_SUMS + 1]!, baseLanes[o + A_SUMS + 2]!);
      } else h.recordSums(rec);
      out[o + A_SUMS] = h.sa;
      out[o + A_SUMS + 1] = h.sb;
      out[o + A_SUMS + 2] = h.sn;
      h.recordHash(h.sa, h.sb, h.sn);
      if (kind === SNAPSHOT) {
        h.snapshot(s as SnapshotLike, h.ha, h.hb);
      }
    }
    out[o + A_SNAP] = h.ha;
    out[o + A_SNAP + 1] = h.hb;
  }

  /**
   * Actors (an unordered sum: a renaming permutes them), clock, timers, faults,
   * monitors. Timers and monitors reuse the base world's parts when they are the
   * same arrays (most steps set no timer and move no monitor).
   */
  private combine(w: World, h: Hasher, slot: Int32Array, lanes: number[], base?: World, baseLanes?: Lanes): void {
    const n = w.snaps.length;
    let sa = 0,
      sb = 0;
    for (let i = 0; i < n; i++) {
      sa = (sa + lanes[i * LANE + A_LANE]!) | 0;
      sb = (sb + lanes[i * LANE + A_LANE + 1]!) | 0;
    }
    let a = mixA(mixA(0x1234567, sa), w.now),
      b = mixB(mixB(0x1234567, sb), w.now);
    // Timers: a set (their order follows from their content).
    let ta = 0,
      tb = 0;
    const t2 = n * LANE + 2;
    if (base && baseLanes && base.timers === w.timers) {
      ta = baseLanes[t2]!;
      tb = baseLanes[t2 + 1]!;
    } else {
      for (const t of w.timers) {
        let x = mixA(mixA(mixA(0x3c6ef372, slot[t.owner] ?? t.owner), slot[t.to] ?? t.to), t.due),
          y = mixB(mixB(mixB(0x3c6ef372, slot[t.owner] ?? t.owner), slot[t.to] ?? t.to), t.due);
        h.hash(t.id.startsWith('anon:') ? 'anon' : t.id);
        x = mixA(x, h.ha);
        y = mixB(y, h.hb);
        h.hash(t.event);
        x = mixA(mixA(x, h.ha), h.hb);
        y = mixB(mixB(y, h.hb), h.ha);
        ta = (ta + finA(x)) | 0;
        tb = (tb + finB(y)) | 0;
      }
    }
    lanes[t2] = ta;
    lanes[t2 + 1] = tb;
    a = mixA(mixA(mixA(a, ta), w.timers.length), w.faults);
    b = mixB(mixB(mixB(b, tb), w.timers.length), w.faults);
    if (w.monitors.length > 0) {
      const m2 = n * LANE;
      const mon = n * LANE + 4;
      const M = w.monitors.length;
      if (base && baseLanes && base.monitors === w.monitors) {
        for (let k = 0; k < 2 * M; k++) lanes[mon + k] = baseLanes[mon + k]!;
        h.ha = baseLanes[m2]! >>> 0;
        h.hb = baseLanes[m2 + 1]! >>> 0;
      } else {
        // Each monitor's state is hashed on its own and kept in the lanes: a step moves
        // a few monitors, and the others reuse their parent's hash. Folded as `hash`
        // folds an array, so the fingerprint is that of the whole list.
        const reuse = base !== undefined && baseLanes !== undefined && base.monitors.length === M;
        for (let m = 0; m < M; m++) {
          const x = w.monitors[m];
          if (reuse && base.monitors[m] === x) {
            lanes[mon + 2 * m] = baseLanes[mon + 2 * m]!;
            lanes[mon + 2 * m + 1] = baseLanes[mon + 2 * m + 1]!;
          } else {
            h.hash(x);
            lanes[mon + 2 * m] = h.ha;
            lanes[mon + 2 * m + 1] = h.hb;
          }
        }
        h.seqOfLanes(lanes, mon, M);
      }
      lanes[m2] = h.ha;
      lanes[m2 + 1] = h.hb;
      a = mixA(mixA(a, h.ha), h.hb);
      b = mixB(mixB(b, h.hb), h.ha);
    }
    if (w.failure !== undefined) {
      h.hash(w.failure);
      a = mixA(mixA(a, h.ha), h.hb);
      b = mixB(mixB(b, h.hb), h.ha);
    }
    // Budgeted environment inputs: how often each was sent decides what is still offered.
    if (w.inputs !== undefined) {
      for (const c of w.inputs) {
        a = mixA(a, c);
        b = mixB(b, c);
      }
    }
    this.ha = finA(a);
    this.hb = finB(b);
  }
}

function permutations(k: number): number[][] {
  if (k === 0) return [[]];
  const out: number[][] = [];
  for (const p of permutations(k - 1)) for (let i = 0; i <= p.length; i++) out.push([...p.slice(0, i), k - 1, ...p.slice(i)]);
  return out;
}

/** A fingerprint as 16 hex digits. */
export function fpHex(fp: Fp): string {
  return fp.a.toString(16).padStart(8, '0') + fp.b.toString(16).padStart(8, '0');
}
