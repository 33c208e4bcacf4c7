// Deals a shard can compute from the prefix alone (no knowledge of what lies below the
// frontier), replayed on the explicit graph (shard-oracle-graph.ts) so the oracle can
// score them exactly: the checker's own deal, and components of shared ancestry.
import { AncestryClasses, bitsOf, dealByAncestry, dealPartition } from '../src/check/distributed/shard-deal.ts';
import type { ExplicitGraph } from './shard-oracle-graph.ts';

/**
 * The checker's deal (src/check/distributed/shard.ts, runPrefix) with its frontier at level d + 1 and
 * its partition level `lookahead` levels above: ancestry bitsets over the partition
 * level, merged over every step between consecutive levels as runPrefix does; classes
 * of frontier worlds weighted by their enabled steps; dealPartition, then each frontier
 * world with most of its ancestors.
 */
export function checkerDeal(g: ExplicitGraph, d: number, lookahead: number): Uint8Array | undefined {
  return checkerDealWeighted(g, d, lookahead, (v) => g.enabledCount[v]!)?.owner;
}

/** The checker's deal with frontier world v weighing `weight(v)`, and the larger share its own class weights predict. */
export function checkerDealWeighted(g: ExplicitGraph, d: number, lookahead: number, weight: (v: number) => number): { owner: Uint8Array; predicted: number } | undefined {
  const p = d + 1 - lookahead;
  if (p < 0 || d + 2 >= g.levelStart.length) return undefined;
  const size = g.levelStart[p + 1]! - g.levelStart[p]!;
  const words = (size + 31) >>> 5;
  let anc = new Map<number, Uint32Array>();
  for (let v = g.levelStart[p]!; v < g.levelStart[p + 1]!; v++) {
    const a = new Uint32Array(words);
    const k = v - g.levelStart[p]!;
    a[k >>> 5] = 1 << (k & 31);
    anc.set(v, a);
  }
  for (let k = p; k <= d; k++) {
    const next = new Map<number, Uint32Array>();
    const lo = g.levelStart[k + 1]!,
      hi = g.levelStart[k + 2]!;
    for (const [v, a] of anc) {
      for (let e = g.off[v]!; e < g.off[v + 1]!; e++) {
        const u = g.succ[e]!;
        if (u < lo || u >= hi) continue;
        const b = next.get(u);
        if (b) for (let w = 0; w < words; w++) b[w]! |= a[w]!;
        else next.set(u, a.slice());
      }
    }
    anc = next;
  }
  const level: Uint32Array[] = [];
  const classes = new AncestryClasses();
  for (let v = g.levelStart[d + 1]!; v < g.levelStart[d + 2]!; v++) {
    level.push(anc.get(v)!);
    classes.add(anc.get(v)!, weight(v));
  }
  const part = dealPartition(size, classes.list(), 2);
  // What dealPartition minimised: a shard's partition worlds plus every class it touches.
  const work = [0, 0];
  for (const s of part) work[s]!++;
  for (const c of classes.list()) {
    const on = [false, false];
    for (const k of bitsOf(c.anc)) on[part[k]!] = true;
    if (on[0]) work[0]! += c.weight;
    if (on[1]) work[1]! += c.weight;
  }
  return { owner: Uint8Array.from(dealByAncestry(level, part, 2)), predicted: Math.max(work[0]!, work[1]!) / (work[0]! + work[1]!) };
}

/**
 * Components of shared ancestry: the partition level is `up` levels above the frontier
 * (level d + 1); two frontier worlds are in one component when some chain of frontier
 * worlds links them through common partition-level ancestors. Components go to the
 * shard with fewer frontier worlds, largest first (a component's size in frontier worlds
 * is the only weight the prefix knows). An experiment: the checker does not use it.
 */
export function componentDeal(g: ExplicitGraph, d: number, up: number): Uint8Array | undefined {
  const p = d + 1 - up;
  if (p < 0) return undefined;
  const plo = g.levelStart[p]!,
    phi = g.levelStart[p + 1]!;
  const parent = Int32Array.from({ length: phi - plo }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  // One partition-level ancestor per world; a world met from two labels joins them.
  let label = new Map<number, number>();
  for (let v = plo; v < phi; v++) label.set(v, v - plo);
  for (let j = p; j <= d; j++) {
    const lo = g.levelStart[j + 1]!,
      hi = g.levelStart[j + 2]!;
    const next = new Map<number, number>();
    for (const [v, a] of label) {
      for (let e = g.off[v]!; e < g.off[v + 1]!; e++) {
        const u = g.succ[e]!;
        if (u < lo || u >= hi) continue;
        const b = next.get(u);
        if (b === undefined) next.set(u, a);
        else {
          const x = find(a),
            y = find(b);
          if (x !== y) parent[Math.max(x, y)] = Math.min(x, y);
        }
      }
    }
    label = next;
  }
  const lo = g.levelStart[d + 1]!,
    hi = g.levelStart[d + 2]!;
  const size = new Map<number, number>();
  for (let v = lo; v < hi; v++) {
    const c = find(label.get(v)!);
    size.set(c, (size.get(c) ?? 0) + 1);
  }
  const load = [0, 0];
  const side = new Map<number, number>();
  for (const [c, n] of [...size].sort((x, y) => y[1] - x[1] || x[0] - y[0])) {
    const k = load[0]! <= load[1]! ? 0 : 1;
    side.set(c, k);
    load[k]! += n;
  }
  const owner = new Uint8Array(hi - lo);
  for (let v = lo; v < hi; v++) owner[v - lo] = side.get(find(label.get(v)!))!;
  return owner;
}
