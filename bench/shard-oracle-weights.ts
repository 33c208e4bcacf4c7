// `npm run bench -- shard-oracle --weights`: would better estimates of what lies below a
// frontier world make the checker's deal better? The same deal (checkerDealWeighted) with
// each frontier world weighing its enabled steps (the checker's choice), 1, the worlds
// within k levels below it (what a shard could count by looking further), or its exact
// future |R(f)| (only the oracle knows it); each scored exactly on the whole graph, next
// to the larger share the deal itself predicted and the best deal the oracle finds.
import { SHARD_LOOKAHEAD_LEVELS } from '../src/check/distributed/shard.ts';
import type { ExplicitGraph } from './shard-oracle-graph.ts';
import { checkerDealWeighted } from './shard-oracle-prefix-deals.ts';
import type { Cut, Reach } from './shard-oracle-reach.ts';
import { DealState, greedyDeal, improve, totalOf, type Score } from './shard-oracle-deal.ts';
import type { Cell } from './table.ts';

/** Distinct worlds within `k` levels below frontier world v (v included), leaving out the prefix and the frontier (levels <= d + 1). */
export function worldsWithin(g: ExplicitGraph, d: number, v: number, k: number): number {
  const lo = g.levelStart[d + 2]!;
  const seen = new Set<number>();
  let level = [v];
  for (let i = 0; i < k && level.length > 0; i++) {
    const next: number[] = [];
    for (const x of level) {
      for (let e = g.off[x]!; e < g.off[x + 1]!; e++) {
        const u = g.succ[e]!;
        if (u < lo || seen.has(u)) continue;
        seen.add(u);
        next.push(u);
      }
    }
    level = next;
  }
  return 1 + seen.size;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pair = (s: Score) => `${s.duplication.toFixed(2)} / ${pct(s.larger)}`;

/** Column titles of `weightRow`. */
export const WEIGHT_COLUMNS = ['cut', 'frontier', 'enabled steps (the checker)', 'deal predicted', '1 each', 'worlds within 2', 'within 4', 'within 6', 'exact future', 'best deal found'];

/** One cut's row: each weighting's duplication / larger share, the prediction of the checker's own weighting, and the oracle's best deal. */
export function weightRow(g: ExplicitGraph, cut: Cut, r: Reach, d: number, capShare: number): Cell[] | undefined {
  const total = totalOf(r);
  const future = new Map<number, number>();
  cut.frontier.forEach((v, i) => future.set(v, r.reach[i]!));
  const weights: ((v: number) => number)[] = [
    (v) => g.enabledCount[v]!,
    () => 1,
    (v) => worldsWithin(g, d, v, 2),
    (v) => worldsWithin(g, d, v, 4),
    (v) => worldsWithin(g, d, v, 6),
    (v) => future.get(v)!,
  ];
  const deals = weights.map((w) => checkerDealWeighted(g, d, SHARD_LOOKAHEAD_LEVELS, w));
  if (deals.some((x) => x === undefined)) return undefined;
  const score = (owner: Uint8Array) => new DealState(r, total, owner).score();
  const key = (x: Score) => Math.max(x.larger, capShare) * 4 + x.duplication;
  let best: Score | undefined;
  for (const start of [greedyDeal(r, total, capShare), deals[0]!.owner]) {
    const x = improve(r, total, capShare, start).score();
    if (!best || key(x) < key(best)) best = x;
  }
  const [first, ...rest] = deals.map((x) => pair(score(x!.owner)));
  return [cut.name, cut.frontier.length, first!, pct(deals[0]!.predicted), ...rest, pair(best!)];
}
