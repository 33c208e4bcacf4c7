// Sharded exhaustive search: one dfs/bfs split into `count` slices that run with no
// communication (separate processes or machines) and whose union visits every
// reachable world. The argument, the duplicated work and the limits: docs/sharding.md.
//
// Every shard runs the same breadth-first prefix, without any reduction: until a level
// (the partition level) holds at least `prefix * count` worlds, then `lookahead` levels
// more (fewer when a level grows past LOOKAHEAD_GROWTH times that). The last level is
// the frontier: the distinct worlds first met at depth d + 1. Every world below the
// partition level records which partition-level worlds it descends from; distributed/shard-deal.ts
// deals the partition level so that shards share few descendants and get even weights,
// and each frontier world goes with most of its ancestors. A shard explores from its
// own frontier worlds, with its own visited set seeded with the prefix and the whole
// frontier, so it never re-enters the prefix nor another shard's frontier world.
// Every successor of a prefix world is in the prefix or the frontier (complete levels),
// so a path from the initial world to any world w leaves the prefix through a frontier
// world f; from the last frontier world on it the path avoids both, and f's owner
// explores w. Any deal is complete; the deal only decides the duplicated work and balance.
import { checkerMemo } from '../search/memo-key.ts';
import { createHash } from 'node:crypto';
import { apply, enabled, type Scenario, type Step, type World } from '../../actors/index.ts';
import type { Lanes } from '../fingerprint/fingerprint.ts';
import { stepViolation } from '../properties.ts';
import type { Session } from '../search/session.ts';
import { VisitedSet } from '../search/visited.ts';
import { AncestryClasses, dealByAncestry, dealPartition } from './shard-deal.ts';
import type { PropertyRef } from '../types.ts';

/**
 * Partition-level worlds per shard the prefix waits for: enough for the deal to even
 * the shards, few enough that every shard's copy of the prefix stays cheap. Chosen on
 * the bundled airflow model (docs/sharding.md).
 */
export const DEFAULT_SHARD_PREFIX = 128;

/**
 * Levels the prefix explores past the partition level before it deals (the lookahead).
 * Frontier worlds whose futures meet within it are kept on one shard; it costs those
 * levels in every shard. Fewer levels leave apart groups of worlds whose futures meet
 * later, and duplicate their work (docs/sharding.md).
 */
export const SHARD_LOOKAHEAD_LEVELS = 6;

/** The lookahead stops early once a level holds this many times the partition target (fast-growing models). */
export const LOOKAHEAD_GROWTH = 4;

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
  /** Other shards' frontier worlds, in frontier order (shared-visited mode starts from them too, distributed/claims.ts). */
  readonly others: ShardRoot[];
  /** Worlds of the prefix (depth <= prefixDepth), checked by every shard. */
  readonly prefixStates: number;
  readonly prefixDepth: number;
  readonly frontier: number;
  /** Depth of the partition level (distributed/shard-deal.ts), undefined when the search ended inside the prefix. */
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
  /** Depth of the partition level, whose worlds were dealt by their descendants (absent: the search ended inside the prefix). */
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
  /** Its per-actor hash lanes (undefined under symmetry), for its successors' incremental hashing. */
  lanes?: Lanes;
  /** Once the partition level is reached: a bitset of the partition-level worlds it descends from. */
  anc?: Uint32Array;
}

/**
 * Runs the shared prefix on the session: visits (and checks) every world up to the
 * frontier, seeds the visited set with the whole frontier, and returns this shard's
 * roots. A violation in the prefix is recorded in `s.found` (every shard finds it).
 * `lookahead`: levels past the partition level (SHARD_LOOKAHEAD_LEVELS by default).
 */
export function runPrefix(s: Session, index: number, count: number, perShard: number, lookahead = SHARD_LOOKAHEAD_LEVELS): ShardPlan {
  const sc: Scenario = s.sc;
  const target = Math.max(1, perShard) * count;
  const checkRevisits = s.hasher.symmetric || s.opts.inspect?.violation !== undefined;
  const report = (property: PropertyRef, schedule: string[]): boolean => {
    if (s.opts.inspect?.violation?.(property, schedule)) return false;
    s.found = { property, schedule };
    return true;
  };
  let partitionDepth: number | undefined;
  let partitionSize = 0;
  const plan = (roots: ShardRoot[], foreign: VisitedSet, depth: number, frontier: number, others: ShardRoot[] = []): ShardPlan => ({ index, count, roots, foreign, others, prefixStates: s.visited.size - frontier, prefixDepth: depth, frontier, partitionDepth: frontier > 0 ? partitionDepth : undefined });
  const atFrontier = (depth: number, size: number): boolean => partitionDepth !== undefined && (depth - partitionDepth >= lookahead || size >= LOOKAHEAD_GROWTH * target);

  const init = s.start();
  if (init.violation && report(init.violation, [])) return plan([], new VisitedSet(), 0, 0);
  // `level` holds the worlds at `depth`, visited and counted; each is checked when expanded.
  const memo = checkerMemo();
  s.hasher.world(init.world);
  let level: Level[] = [{ world: init.world, schedule: [], lanes: s.hasher.lastLanes }];
  let depth = 0;
  for (;;) {
    if (level.length === 0) break;
    if (partitionDepth === undefined && level.length >= target) {
      partitionDepth = depth;
      partitionSize = level.length;
      const words = (level.length + 31) >>> 5;
      level.forEach((n, k) => {
        n.anc = new Uint32Array(words);
        n.anc[k >>> 5] = 1 << (k & 31);
      });
    }
    if (atFrontier(depth, level.length) || depth >= s.maxDepthBudget) break;
    const next: Level[] = [];
    // The next level's worlds by fingerprint: a step into one of them from another parent adds that parent's ancestry.
    const nextIndex = level[0]!.anc ? new Map<string, Level>() : undefined;
    for (const n of level) {
      const all = arriveChecks(s, n, report);
      if (!all) return plan([], new VisitedSet(), depth, 0);
      for (const t of all) {
        const r = apply(sc, n.world, t, { detail: false, memo });
        s.determinism?.check(n.world, t, r.world, r.events);
        s.transitions++;
        s.states++;
        // Hashed incrementally from the parent's lanes, as the search does.
        const fresh = s.visit(r.world, n.world, n.lanes);
        const v = stepViolation(sc, r.world, r.events, fresh || checkRevisits);
        if (v && report(v, [...n.schedule, t.id])) return plan([], new VisitedSet(), depth, 0);
        if (fresh) {
          const m: Level = { world: r.world, schedule: [...n.schedule, t.id], lanes: s.hasher.lastLanes, ...(n.anc ? { anc: n.anc.slice() } : {}) };
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
  if (level.length > 0 && !atFrontier(depth, level.length)) {
    // The depth bound ends the search inside the prefix: the last level is checked, not expanded.
    for (const n of level) if (!arriveChecks(s, n, report)) break;
    s.cutBy ??= 'maxDepth';
    return plan([], new VisitedSet(), depth, 0);
  }
  const owner = dealLevel(sc, level, partitionSize, count);
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
 * alike). A frontier world weighs its number of enabled steps (a one-step estimate of
 * how much lies below it: on airflow it balanced the futures better than counting
 * worlds); worlds of equal ancestry form a class, the partition level is dealt on those
 * classes (dealPartition) and each frontier world follows most of its ancestors.
 */
function dealLevel(sc: Scenario, level: readonly Level[], partitionSize: number, count: number): number[] {
  if (level.length === 0) return [];
  const classes = new AncestryClasses();
  for (const n of level) classes.add(n.anc!, enabled(sc, n.world).length);
  return dealByAncestry(
    level.map((n) => n.anc),
    dealPartition(partitionSize, classes.list(), count),
    count,
  );
}

/** What `arrive` checks on a world first met (reachability, depth, quiescence, end properties): its enabled steps, or undefined when it reported a violation. */
function arriveChecks(s: Session, n: Level, report: (p: PropertyRef, schedule: string[]) => boolean): readonly Step[] | undefined {
  const { all, end } = s.firstVisit(n.world, n.schedule.length, false);
  return end !== undefined && report(end, n.schedule) ? undefined : all;
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
