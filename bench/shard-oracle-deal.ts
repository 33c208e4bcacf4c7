// Two-way deals of a cut's frontier, scored exactly on its reach classes
// (shard-oracle-reach.ts), and the bounds that hold for every deal.
//
// A shard holding frontier worlds A expands work(A) = |P| + |A| + the weight of the
// classes whose bitset meets A. (The CLI's distinctStates also counts the other shard's
// frontier worlds, seeded into its visited set but never expanded.)
//
// Bounds over every deal in which both shards hold a frontier world, |R| = all worlds:
// - larger share >= (|P| + max_f |R(f)|) / |R|: the shard holding the frontier world
//   that reaches most expands at least that.
// - duplication >= (|R| + |P| + common) / |R|, common = the worlds below the cut every
//   frontier world reaches (both shards expand them, and the prefix);
// - duplication >= (2|P| + r1 + r2) / |R|, r1 <= r2 the two smallest |R(f)|: each
//   shard expands the prefix and all of some R(f).
// - larger share >= duplication / 2 (the larger of two is at least their mean).
import type { Reach } from './shard-oracle-reach.ts';

export interface Score {
  /** Worlds expanded by each shard. */
  readonly work: readonly [number, number];
  /** (work0 + work1) / |R|. */
  readonly duplication: number;
  /** max(work) / |R|. */
  readonly larger: number;
}

export interface Bounds {
  readonly larger: number;
  readonly duplication: number;
}

/** Exact counts of a deal (owner[i] in {0, 1} per frontier world). */
export class DealState {
  /** Per class: members on shard 0 and shard 1. */
  readonly cnt0: Int32Array;
  readonly cnt1: Int32Array;
  readonly work: [number, number];
  constructor(
    readonly r: Reach,
    readonly total: number,
    readonly owner: Uint8Array,
  ) {
    const C = r.weight.length;
    this.cnt0 = new Int32Array(C);
    this.cnt1 = new Int32Array(C);
    this.work = [r.cut.prefixSize, r.cut.prefixSize];
    for (const o of owner) this.work[o]!++;
    for (let c = 0; c < C; c++) {
      for (let w = 0; w < r.words; w++) {
        for (let x = r.bits[c * r.words + w]!; x !== 0; x &= x - 1) {
          if (owner[w * 32 + (31 - Math.clz32(x & -x))]) this.cnt1[c]!++;
          else this.cnt0[c]!++;
        }
      }
      if (this.cnt0[c]! > 0) this.work[0] += r.weight[c]!;
      if (this.cnt1[c]! > 0) this.work[1] += r.weight[c]!;
    }
  }

  score(): Score {
    return { work: [this.work[0], this.work[1]], duplication: (this.work[0] + this.work[1]) / this.total, larger: Math.max(this.work[0], this.work[1]) / this.total };
  }

  /** Work of both shards if frontier world i changed shard (nothing changes). */
  moved(i: number): [number, number] {
    const r = this.r;
    const from = this.owner[i]!;
    const mine = from ? this.cnt1 : this.cnt0;
    const theirs = from ? this.cnt0 : this.cnt1;
    let lose = 1,
      gain = 1;
    const w = i >>> 5,
      bit = 1 << (i & 31);
    for (let c = 0; c < r.weight.length; c++) {
      if ((r.bits[c * r.words + w]! & bit) === 0) continue;
      if (mine[c] === 1) lose += r.weight[c]!;
      if (theirs[c] === 0) gain += r.weight[c]!;
    }
    const out: [number, number] = [this.work[0], this.work[1]];
    out[from] -= lose;
    out[1 - from] += gain;
    return out;
  }

  move(i: number): void {
    const r = this.r;
    const from = this.owner[i]!;
    const to = 1 - from;
    const mine = from ? this.cnt1 : this.cnt0;
    const theirs = from ? this.cnt0 : this.cnt1;
    const w = i >>> 5,
      bit = 1 << (i & 31);
    this.work[from]--;
    this.work[to]++;
    for (let c = 0; c < r.weight.length; c++) {
      if ((r.bits[c * r.words + w]! & bit) === 0) continue;
      if (--mine[c]! === 0) this.work[from] -= r.weight[c]!;
      if (theirs[c]!++ === 0) this.work[to] += r.weight[c]!;
    }
    this.owner[i] = to;
  }
}

/** |R|: the prefix, the frontier and the worlds below. */
export function totalOf(r: Reach): number {
  return r.cut.prefixSize + r.cut.frontier.length + r.below;
}

export function bounds(r: Reach): Bounds {
  const total = totalOf(r);
  const P = r.cut.prefixSize;
  const sorted = [...r.reach].sort((a, b) => a - b);
  const max = sorted[sorted.length - 1] ?? 0;
  const two = sorted.length >= 2 ? 2 * P + sorted[0]! + sorted[1]! : Infinity;
  const duplication = Math.max(total + P + r.common, two) / total;
  return { larger: Math.max((P + max) / total, duplication / 2), duplication };
}

/**
 * What the deal search minimises: the larger share, but no lower than `cap` (the share
 * that meets the speed-up goal), then the duplication.
 */
function cost(work: readonly [number, number], cap: number, total: number): number {
  return Math.max(work[0], work[1], cap) * (2 * total + 1) + work[0] + work[1];
}

/**
 * Greedy: frontier worlds that reach most first, each to the shard whose work grows
 * least unless that shard would pass `cap` worlds (then the one whose larger side
 * stays smallest).
 */
export function greedyDeal(r: Reach, total: number, capShare: number): Uint8Array {
  const cap = capShare * total;
  const C = r.weight.length;
  const owner = new Uint8Array(r.cut.frontier.length);
  const cnt = [new Int32Array(C), new Int32Array(C)] as const;
  const work = [r.cut.prefixSize, r.cut.prefixSize];
  const order = [...r.reach.keys()].sort((a, b) => r.reach[b]! - r.reach[a]! || a - b);
  for (const i of order) {
    const w = i >>> 5,
      bit = 1 << (i & 31);
    const grow = [1, 1];
    for (let c = 0; c < C; c++) {
      if ((r.bits[c * r.words + w]! & bit) === 0) continue;
      if (cnt[0][c] === 0) grow[0]! += r.weight[c]!;
      if (cnt[1][c] === 0) grow[1]! += r.weight[c]!;
    }
    const after = (k: number) => Math.max(work[k]! + grow[k]!, work[1 - k]!);
    const fits = [work[0]! + grow[0]! <= cap, work[1]! + grow[1]! <= cap];
    let k: number;
    if (fits[0] !== fits[1]) k = fits[0] ? 0 : 1;
    else if (fits[0]) k = grow[0]! < grow[1]! || (grow[0] === grow[1] && work[0]! <= work[1]!) ? 0 : 1;
    else k = after(0) <= after(1) ? 0 : 1;
    owner[i] = k;
    work[k]! += grow[k]!;
    for (let c = 0; c < C; c++) if (r.bits[c * r.words + w]! & bit) cnt[k]![c]!++;
  }
  return owner;
}

/**
 * Local search from a deal: single moves (first improvement, in order of reach), then
 * swaps among the 24 best-scoring moves of each side, until neither improves `cost` or
 * `rounds` pass. Returns the improved deal's state.
 */
export function improve(r: Reach, total: number, capShare: number, start: Uint8Array, rounds = 8): DealState {
  const st = new DealState(r, total, start.slice());
  const cap = capShare * total;
  const F = st.owner.length;
  const order = [...r.reach.keys()].sort((a, b) => r.reach[b]! - r.reach[a]! || a - b);
  for (let round = 0; round < rounds; round++) {
    let better = false;
    const gain: { i: number; c: number }[] = [];
    for (const i of order) {
      const now = cost(st.work, cap, total);
      const c = cost(st.moved(i), cap, total);
      if (c < now && sideCount(st.owner, st.owner[i]!) > 1) {
        st.move(i);
        better = true;
      } else gain.push({ i, c: c - now });
    }
    // Swaps: the moves that hurt least on each side, tried in pairs.
    const side = (k: number) =>
      gain
        .filter((x) => st.owner[x.i] === k)
        .sort((a, b) => a.c - b.c)
        .slice(0, 24);
    const a = side(0),
      b = side(1);
    for (const x of a) {
      for (const y of b) {
        if (st.owner[x.i] !== 0 || st.owner[y.i] !== 1) continue;
        const now = cost(st.work, cap, total);
        st.move(x.i);
        st.move(y.i);
        if (cost(st.work, cap, total) < now) better = true;
        else {
          st.move(y.i);
          st.move(x.i);
        }
      }
    }
    if (!better || F < 2) break;
  }
  return st;
}

function sideCount(owner: Uint8Array, k: number): number {
  let n = 0;
  for (const o of owner) if (o === k) n++;
  return n;
}

/**
 * Every deal of a small frontier (Gray code order: one world changes shard per step,
 * world 0 stays on shard 0, since swapping the shards changes nothing): the exact best
 * under `cost`. Only for frontiers of at most `limit` worlds.
 */
export function exhaustiveDeal(r: Reach, total: number, capShare: number, limit = 20): DealState | undefined {
  const F = r.cut.frontier.length;
  if (F < 2 || F > limit) return undefined;
  const cap = capShare * total;
  const st = new DealState(r, total, new Uint8Array(F));
  let best: Uint8Array | undefined;
  let bestCost = Infinity;
  for (let k = 1; k < 1 << (F - 1); k++) {
    // Gray code: step k flips the world at the lowest set bit of k (worlds 1..F-1).
    st.move(1 + (31 - Math.clz32(k & -k)));
    const c = cost(st.work, cap, total);
    if (c < bestCost) {
      bestCost = c;
      best = st.owner.slice();
    }
  }
  return best ? new DealState(r, total, best) : undefined;
}
