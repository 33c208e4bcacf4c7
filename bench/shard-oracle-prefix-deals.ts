// Deals a shard can compute from the prefix alone (no knowledge of what lies below the
// frontier), replayed on the explicit graph (shard-oracle-graph.ts) so the oracle can
// score them exactly: the checker's own ancestry deal, and components of shared ancestry.
import { dealFrontier } from '../src/check/shard.ts';
import type { ExplicitGraph } from './shard-oracle-graph.ts';

/**
 * The checker's own deal at a depth cut: ancestry bitsets over the first level with at
 * least 16 * 2 worlds, merged over every step between consecutive levels, as runPrefix does.
 */
export function ancestryDeal(g: ExplicitGraph, d: number, partition?: number): Uint8Array | undefined {
  const L = (k: number) => g.levelStart[k + 1]! - g.levelStart[k]!;
  let p = partition ?? 0;
  while (partition === undefined && p <= d && L(p) < 32) p++;
  if (p > d) return undefined;
  const words = (L(p) + 31) >>> 5;
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
  for (let v = g.levelStart[d + 1]!; v < g.levelStart[d + 2]!; v++) level.push(anc.get(v)!);
  return Uint8Array.from(dealFrontier(level, 2));
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
