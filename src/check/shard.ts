// Sharded exhaustive search: one dfs/bfs split into `count` slices that run with no
// communication (separate processes or machines) and whose union visits every
// reachable world. The argument, the duplicated work and the limits: docs/sharding.md.
//
// Every shard runs the same breadth-first prefix, without any reduction, until the
// next level (the frontier: the distinct worlds first met at depth d + 1) holds at
// least `prefix * count` worlds. The frontier is dealt out by `dealFrontier` (below);
// a shard explores from its own, with its own visited set seeded with the prefix and
// the whole frontier, so it never re-enters the prefix nor another shard's frontier world.
// Every successor of a prefix world is in the prefix or the frontier (complete levels),
// so a path from the initial world to any world w leaves the prefix through a frontier
// world f; from the last frontier world on it the path avoids both, and f's owner
// explores w. Any deal is complete; the deal only decides the duplicated work and balance.
import { createHash } from 'node:crypto';
import { apply, enabled, type Scenario, type World } from '../actors/index.ts';
import { stepViolation } from './properties.ts';
import type { Session } from './session.ts';
import { VisitedSet } from './visited.ts';
import type { PropertyRef } from './types.ts';

/** Frontier worlds per shard the prefix waits for (balance vs. prefix size and duplicated work). */
export const DEFAULT_SHARD_PREFIX = 64;

/**
 * The partition level: the first prefix level with at least this many worlds per shard.
 * Every later prefix world records which partition-level worlds it descends from, by
 * every prefix step (not only the first that found it); `dealFrontier` keeps frontier
 * worlds with shared ancestry together. Chosen on airflow-checkpoints (items=3 to 5, W=2,
 * 2 shards): 16 gave duplication 1.12-1.24 and a larger shard of 61-63% at prefix 64-256
 * per shard (1.33 and 72% at 32); 8-12 did as well at prefix 32-64 but 1.6-1.7 and
 * 84-91% at 128-256 (a few ancestries span most of the frontier); 24-32 gave 1.19-1.28
 * and 68-77%.
 */
export const PARTITION_WORLDS_PER_SHARD = 16;

/** A shard takes at most this factor over an even share of the frontier worlds. */
export const FRONTIER_SLACK = 1.1;

/** A frontier world this shard explores from, and the prefix schedule that reaches it. */
export interface ShardRoot {
  readonly world: World;
  readonly schedule: readonly string[];
}

/** What the prefix left for this shard's search. */
export interface ShardPlan {
  readonly index: number;
  readonly count: number;
  readonly roots: ShardRoot[];
  /** Other shards' frontier worlds: seeded as visited, not this shard's states. */
  readonly foreign: VisitedSet;
  /** Other shards' frontier worlds, in frontier order (shared-visited mode starts from them too, claims.ts). */
  readonly others: ShardRoot[];
  /** Worlds of the prefix (depth <= prefixDepth), checked by every shard. */
  readonly prefixStates: number;
  readonly prefixDepth: number;
  readonly frontier: number;
  /** Depth of the partition level (`dealFrontier`), undefined when the frontier came first. */
  readonly partitionDepth: number | undefined;
}

/** The partition and what this shard did, in `result.shard` (the same prefix on every shard). */
export interface ShardInfo {
  /** 0-based, as in `CheckOptions.shard`. */
  index: number;
  /** How many shards in all. */
  count: number;
  /** The frontier target per shard (`CheckOptions.shardPrefix`). */
  prefix: number;
  /** Depth of the last prefix level: worlds this deep or less are checked by every shard. */
  prefixDepth: number;
  /** Distinct worlds in the prefix (counted in every shard's `distinctStates`). */
  prefixStates: number;
  /** Distinct worlds at depth prefixDepth + 1, split over the shards. */
  frontier: number;
  /** Frontier worlds this shard explored from. */
  roots: number;
  /** Depth of the level whose worlds' descendants are kept together (absent: the frontier was dealt round robin). */
  partitionDepth?: number;
  /** sha256 of this shard's visited fingerprints (sorted 64-bit, little-endian), other shards' frontier left out. */
  digest: string;
}

export function assertShard(shard: { index: number; count: number }): void {
  if (!Number.isInteger(shard.count) || shard.count < 1 || !Number.isInteger(shard.index) || shard.index < 0 || shard.index >= shard.count) {
    throw new Error(`shard must be index/count with 0 <= index < count, got ${shard.index}/${shard.count}`);
  }
}

interface Level {
  world: World;
  schedule: string[];
  /** Once the partition level is reached: a bitset of the partition-level worlds it descends from. */
  anc?: Uint32Array;
}

/**
 * Runs the shared prefix on the session: visits (and checks) every world up to the
 * frontier, seeds the visited set with the whole frontier, and returns this shard's
 * roots. A violation in the prefix is recorded in `s.found` (every shard finds it).
 */
export function runPrefix(s: Session, index: number, count: number, perShard: number): ShardPlan {
  const sc: Scenario = s.sc;
  const target = Math.max(1, perShard) * count;
  const checkRevisits = s.hasher.symmetric || s.opts.inspect?.violation !== undefined;
  const report = (property: PropertyRef, schedule: string[]): boolean => {
    if (s.opts.inspect?.violation?.(property, schedule)) return false;
    s.found = { property, schedule };
    return true;
  };
  let partitionDepth: number | undefined;
  const plan = (roots: ShardRoot[], foreign: VisitedSet, depth: number, frontier: number, others: ShardRoot[] = []): ShardPlan => ({ index, count, roots, foreign, others, prefixStates: s.visited.size - frontier, prefixDepth: depth, frontier, partitionDepth: frontier > 0 ? partitionDepth : undefined });

  const init = s.start();
  if (init.violation && report(init.violation, [])) return plan([], new VisitedSet(), 0, 0);
  // `level` holds the worlds at `depth`, visited and counted; each is checked when expanded.
  let level: Level[] = [{ world: init.world, schedule: [] }];
  let depth = 0;
  for (;;) {
    if (level.length >= target || level.length === 0 || depth >= s.maxDepthBudget) break;
    if (level.length >= PARTITION_WORLDS_PER_SHARD * count && !level[0]!.anc) {
      partitionDepth = depth;
      const words = (level.length + 31) >>> 5;
      level.forEach((n, k) => {
        n.anc = new Uint32Array(words);
        n.anc[k >>> 5] = 1 << (k & 31);
      });
    }
    const next: Level[] = [];
    // The next level's worlds by fingerprint: a step into one of them from another parent adds that parent's ancestry.
    const nextIndex = level[0]!.anc ? new Map<string, Level>() : undefined;
    for (const n of level) {
      if (arriveChecks(s, n, report)) return plan([], new VisitedSet(), depth, 0);
      const all = enabled(sc, n.world);
      for (const t of all) {
        const r = apply(sc, n.world, t, { detail: false });
        s.determinism?.check(n.world, t, r.world, r.events);
        s.transitions++;
        s.states++;
        const fresh = s.visit(r.world);
        const schedule = [...n.schedule, t.id];
        const v = stepViolation(sc, r.world, r.events, fresh || checkRevisits);
        if (v && report(v, schedule)) return plan([], new VisitedSet(), depth, 0);
        if (fresh) {
          const m: Level = n.anc ? { world: r.world, schedule, anc: n.anc.slice() } : { world: r.world, schedule };
          next.push(m);
          nextIndex?.set(`${s.hasher.ha},${s.hasher.hb}`, m);
        } else if (nextIndex) {
          const m = nextIndex.get(`${s.hasher.ha},${s.hasher.hb}`);
          if (m) for (let k = 0; k < m.anc!.length; k++) m.anc![k]! |= n.anc![k]!;
        }
      }
    }
    level = next;
    depth++;
  }
  if (level.length > 0 && depth >= s.maxDepthBudget && level.length < target) {
    // The depth bound ends the search inside the prefix: the last level is checked, not expanded.
    for (const n of level) if (arriveChecks(s, n, report)) break;
    s.cutBy ??= 'maxDepth';
    return plan([], new VisitedSet(), depth, 0);
  }
  const owner = dealFrontier(level.map((n) => n.anc), count);
  const roots: ShardRoot[] = [];
  const others: ShardRoot[] = [];
  const foreign = new VisitedSet();
  level.forEach((n, k) => {
    if (owner[k] === index) roots.push(n);
    else {
      others.push(n);
      s.hasher.world(n.world);
      foreign.add(s.hasher.ha, s.hasher.hb);
    }
  });
  // Prefix worlds are depth <= depth - 1 once a frontier exists.
  return plan(roots, foreign, level.length > 0 ? depth - 1 : depth, level.length, others);
}

/**
 * The shard of each frontier world (by position in the level, which every shard computes
 * alike). Two frontier worlds that descend from the same partition-level world often
 * reach the same worlds below the frontier (interleavings of one early choice meet
 * again), so a greedy deal keeps ancestries together: worlds with the most ancestors
 * first, each to the shard whose frontier worlds already cover most of its ancestors,
 * while that shard holds fewer than FRONTIER_SLACK times an even share. Without
 * ancestry (no partition level before the frontier) this is a round robin.
 */
export function dealFrontier(anc: readonly (Uint32Array | undefined)[], count: number): number[] {
  const owner = new Array<number>(anc.length).fill(0);
  const cap = Math.max(1, Math.ceil((anc.length / count) * FRONTIER_SLACK));
  const load = new Array<number>(count).fill(0);
  const bits = anc.map((a) => {
    const out: number[] = [];
    if (a) for (let w = 0; w < a.length; w++) for (let x = a[w]!; x !== 0; x &= x - 1) out.push(w * 32 + (31 - Math.clz32(x & -x)));
    return out;
  });
  // Per partition-level world, the shards already holding one of its descendants: only
  // those (and the emptiest other shard) are candidates, so many shards stay cheap.
  const holders: number[][] = [];
  const held = Array.from({ length: count }, () => new Set<number>());
  const order = anc.map((_, k) => k).sort((x, y) => bits[y]!.length - bits[x]!.length || x - y);
  for (const k of order) {
    const mine = bits[k]!;
    const hits = new Map<number, number>();
    for (const b of mine) for (const i of holders[b] ?? []) hits.set(i, (hits.get(i) ?? 0) + 1);
    let best = -1;
    let bestNew = Infinity;
    const consider = (i: number, fresh: number): void => {
      if (load[i]! >= cap) return;
      if (fresh < bestNew || (fresh === bestNew && (load[i]! < load[best]! || (load[i] === load[best] && i < best)))) {
        best = i;
        bestNew = fresh;
      }
    };
    for (const [i, h] of hits) consider(i, mine.length - h);
    let emptiest = -1;
    for (let i = 0; i < count; i++) if (!hits.has(i) && load[i]! < cap && (emptiest < 0 || load[i]! < load[emptiest]!)) emptiest = i;
    if (emptiest >= 0) consider(emptiest, mine.length);
    owner[k] = best;
    load[best]!++;
    for (const b of mine) {
      if (held[best]!.has(b)) continue;
      held[best]!.add(b);
      (holders[b] ??= []).push(best);
    }
  }
  return owner;
}

/** What `arrive` checks on a world first met: reachability, depth, quiescence, end properties. */
function arriveChecks(s: Session, n: Level, report: (p: PropertyRef, schedule: string[]) => boolean): boolean {
  const { end } = s.firstVisit(n.world, n.schedule.length, false);
  return end !== undefined && report(end, n.schedule);
}

/** This shard's visited fingerprints, sorted, other shards' frontier worlds left out. */
export function shardFingerprints(s: Session, foreign: VisitedSet | undefined): BigUint64Array {
  const out = new BigUint64Array(s.visited.size);
  let k = 0;
  s.visited.forEach((a, b) => {
    if (foreign && foreign.size > 0 && foreign.has(a, b)) return;
    out[k++] = (BigInt(a) << 32n) | BigInt(b);
  });
  return out.subarray(0, k).sort();
}

/** SHA-256 (hex) of a sorted fingerprint list: shards' digests are compared to a single search's in tests. */
export function fingerprintDigest(fps: BigUint64Array): string {
  const buf = Buffer.alloc(fps.length * 8);
  fps.forEach((x, i) => buf.writeBigUInt64LE(x, i * 8));
  return createHash('sha256').update(buf).digest('hex');
}
