// How a sharded search deals its frontier (distributed/shard.ts runs the prefix; docs/sharding.md has
// the figures). Any deal is complete; the deal only decides the duplicated work and the
// balance, so everything here is a heuristic, computed alike by every shard from the
// prefix alone (integer counts, fixed orders: no clocks, no randomness).
//
// The prefix looks a few levels past a partition level. Every world below it records
// which partition-level worlds it descends from (its ancestry); worlds with the same
// ancestry form a class. A shard that holds one of a class's ancestors will explore that
// class's worlds (and, roughly, what lies below them), so the deal of the partition
// level is scored like a real deal: a shard's work is its partition worlds plus the
// weight of every class it touches, and the deal minimises the largest shard's work,
// then the total. Each frontier world then goes to the shard holding most of its
// ancestors. Weighing classes, not frontier worlds, is what evens the shards: a frontier
// world's future, not the world, is the work (docs/sharding.md, docs/measurements.md).

/** Worlds below the partition level with the same ancestry, and what they weigh. */
export interface AncestryClass {
  /** Bitset over the partition level's worlds (bit k: the k-th world in level order). */
  readonly anc: Uint32Array;
  readonly weight: number;
}

/** Accumulates classes by ancestry (equal bitsets add their weights). */
export class AncestryClasses {
  private readonly byKey = new Map<string, { anc: Uint32Array; weight: number }>();

  add(anc: Uint32Array, weight: number): void {
    if (weight <= 0) return;
    const key = anc.join(',');
    const c = this.byKey.get(key);
    if (c) c.weight += weight;
    else this.byKey.set(key, { anc: anc.slice(), weight });
  }

  /** In first-added order (deterministic for a deterministic prefix). */
  list(): AncestryClass[] {
    return [...this.byKey.values()];
  }
}

/** Rounds of single moves in `dealPartition`'s local search (each round stops early when nothing improves). */
export const DEAL_ROUNDS = 8;

/** The positions of the set bits of an ancestry bitset, ascending. */
export function bitsOf(a: Uint32Array): number[] {
  const out: number[] = [];
  for (let w = 0; w < a.length; w++) for (let x = a[w]!; x !== 0; x &= x - 1) out.push(w * 32 + (31 - Math.clz32(x & -x)));
  return out;
}

/**
 * The shard of each partition-level world (`size` of them). A shard's work is the
 * partition worlds it holds plus the weight of every class one of whose ancestors it
 * holds; the deal minimises the largest work (no lower than an even share), then the
 * sum. Greedy first (worlds that reach most first, each to the shard it grows least
 * while that shard stays under an even share, else to the one whose work stays
 * smallest), then single moves while one lowers that cost.
 */
export function dealPartition(size: number, classes: readonly AncestryClass[], count: number): number[] {
  const C = classes.length;
  const members = classes.map((c) => bitsOf(c.anc));
  const of: number[][] = Array.from({ length: size }, () => []);
  members.forEach((m, c) => {
    for (const i of m) of[i]!.push(c);
  });
  const w = classes.map((c) => c.weight);
  const reach = of.map((cs) => cs.reduce((s, c) => s + w[c]!, 1));
  const total = w.reduce((s, x) => s + x, size);
  const even = total / count;
  const order = reach.map((_, i) => i).sort((x, y) => reach[y]! - reach[x]! || x - y);
  const cnt = new Int32Array(count * C);
  const work = new Float64Array(count);
  const held = new Int32Array(count);
  const owner = new Array<number>(size).fill(0);
  const grow = (i: number, s: number): number => {
    let g = 1;
    for (const c of of[i]!) if (cnt[s * C + c] === 0) g += w[c]!;
    return g;
  };
  const place = (i: number, s: number, sign: 1 | -1): void => {
    owner[i] = s;
    held[s]! += sign;
    for (const c of of[i]!) {
      if (sign > 0 ? cnt[s * C + c]++ === 0 : --cnt[s * C + c]! === 0) work[s]! += sign * w[c]!;
    }
    work[s]! += sign;
  };
  for (const i of order) {
    let best = -1;
    let bestKey = Infinity;
    let bestTie = Infinity;
    let anyFits = false;
    for (let s = 0; s < count; s++) {
      const g = grow(i, s);
      const fits = work[s]! + g <= even;
      if (fits && !anyFits) {
        anyFits = true;
        best = -1;
        bestKey = Infinity;
      }
      if (anyFits && !fits) continue;
      // Under an even share: the smallest growth (then the lighter shard); else the smallest result.
      const key = fits ? g : work[s]! + g;
      const tie = work[s]!;
      if (key < bestKey || (key === bestKey && tie < bestTie)) {
        best = s;
        bestKey = key;
        bestTie = tie;
      }
    }
    place(i, best, 1);
  }
  // cost = max(largest work, even share) dominates; then the sum.
  const big = 2 * total + 1;
  const costAfter = (from: number, to: number, lose: number, gain: number): number => {
    let max = even;
    let sum = 0;
    for (let s = 0; s < count; s++) {
      const x = work[s]! - (s === from ? lose : 0) + (s === to ? gain : 0);
      if (x > max) max = x;
      sum += x;
    }
    return max * big + sum;
  };
  for (let round = 0; round < DEAL_ROUNDS; round++) {
    let better = false;
    for (const i of order) {
      const from = owner[i]!;
      if (held[from]! <= 1) continue;
      let lose = 1;
      for (const c of of[i]!) if (cnt[from * C + c] === 1) lose += w[c]!;
      const now = costAfter(from, from, 0, 0);
      let bestTo = -1;
      let bestCost = now;
      for (let t = 0; t < count; t++) {
        if (t === from) continue;
        const c = costAfter(from, t, lose, grow(i, t));
        if (c < bestCost) {
          bestCost = c;
          bestTo = t;
        }
      }
      if (bestTo >= 0) {
        place(i, from, -1);
        place(i, bestTo, 1);
        better = true;
      }
    }
    if (!better) break;
  }
  return owner;
}

/**
 * The shard of each frontier world from its ancestry and the partition's deal: the shard
 * holding most of its ancestors (ties: the shard with fewer frontier worlds so far, then
 * the lower index). A world with no recorded ancestry goes to the shard with fewest.
 */
export function dealByAncestry(anc: readonly (Uint32Array | undefined)[], partitionOwner: readonly number[], count: number): number[] {
  const load = new Array<number>(count).fill(0);
  const votes = new Array<number>(count);
  return anc.map((a) => {
    votes.fill(0);
    if (a) for (const k of bitsOf(a)) votes[partitionOwner[k]!]!++;
    let best = 0;
    for (let s = 1; s < count; s++) if (votes[s]! > votes[best]! || (votes[s] === votes[best] && load[s]! < load[best]!)) best = s;
    load[best]!++;
    return best;
  });
}
