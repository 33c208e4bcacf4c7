// Sharded exhaustive search: one dfs/bfs split into `count` slices that run with no
// communication (separate processes or machines) and whose union visits every
// reachable world. The argument, the duplicated work and the limits: docs/sharding.md.
//
// Every shard runs the same breadth-first prefix, without any reduction, until the
// next level (the frontier: the distinct worlds first met at depth d + 1) holds at
// least `prefix * count` worlds. Frontier worlds go to shards by the fingerprint of their
// ancestor at the partition level (GROUPS_PER_SHARD); a shard
// explores from its own, with its own visited set seeded with the prefix and the whole
// frontier, so it never re-enters the prefix nor another shard's frontier world.
// Every successor of a prefix world is in the prefix or the frontier (complete levels),
// so a path from the initial world to any world w leaves the prefix through a frontier
// world f; from the last frontier world on it the path avoids both, and f's owner
// explores w.
import { createHash } from 'node:crypto';
import { apply, enabled, isQuiescent, type Scenario, type World } from '../actors/index.ts';
import { endViolation, stepViolation } from './properties.ts';
import type { Session } from './session.ts';
import { VisitedSet } from './visited.ts';
import type { PropertyRef } from './types.ts';

/** Frontier worlds per shard the prefix waits for (balance vs. prefix size and duplicated work). */
export const DEFAULT_SHARD_PREFIX = 64;

/**
 * Frontier worlds are dealt out in groups: those descending (by the bfs tree: the first
 * world that found each) from one world of the first level with this many worlds per
 * shard. Siblings reconverge (a then b, b then a), so a group kept in one shard is
 * explored once; on airflow-checkpoints (items=3, W=2, 2 shards) the duplication factor
 * fell from 1.81 (each frontier world on its own) to 1.34.
 */
export const GROUPS_PER_SHARD = 4;

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
  /** Worlds of the prefix (depth <= prefixDepth), checked by every shard. */
  readonly prefixStates: number;
  readonly prefixDepth: number;
  readonly frontier: number;
}

/** The partition and what this shard did, in `result.shard` (the same prefix on every shard). */
export interface ShardInfo {
  /** 0-based, as in `CheckOptions.shard`. */
  index: number;
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
  /** sha256 of this shard's visited fingerprints (sorted 64-bit, little-endian), other shards' frontier left out. */
  digest: string;
}

/** The shard owning a frontier world (both lanes mixed: fingerprints are hashes, so this spreads evenly). */
export function shardOfFingerprint(a: number, b: number, count: number): number {
  return ((Math.imul(a >>> 0, 0x9e3779b1) ^ (b >>> 0)) >>> 0) % count;
}

export function assertShard(shard: { index: number; count: number }): void {
  if (!Number.isInteger(shard.count) || shard.count < 1 || !Number.isInteger(shard.index) || shard.index < 0 || shard.index >= shard.count) {
    throw new Error(`shard must be index/count with 0 <= index < count, got ${shard.index}/${shard.count}`);
  }
}

interface Level {
  world: World;
  schedule: string[];
  /** The fingerprint (two lanes) of its ancestor at the partition level, once that level is reached. */
  group?: [number, number];
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
  const plan = (roots: ShardRoot[], foreign: VisitedSet, depth: number, frontier: number): ShardPlan => ({ index, count, roots, foreign, prefixStates: s.visited.size - frontier, prefixDepth: depth, frontier });

  const init = s.start();
  if (init.violation && report(init.violation, [])) return plan([], new VisitedSet(), 0, 0);
  // `level` holds the worlds at `depth`, visited and counted; each is checked when expanded.
  let level: Level[] = [{ world: init.world, schedule: [] }];
  let depth = 0;
  for (;;) {
    if (level.length >= GROUPS_PER_SHARD * count && !level[0]!.group) {
      for (const n of level) {
        s.hasher.world(n.world);
        n.group = [s.hasher.ha, s.hasher.hb];
      }
    }
    if (level.length >= target || level.length === 0 || depth >= s.maxDepthBudget) break;
    const next: Level[] = [];
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
        if (fresh) next.push(n.group ? { world: r.world, schedule, group: n.group } : { world: r.world, schedule });
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
  const roots: ShardRoot[] = [];
  const foreign = new VisitedSet();
  for (const n of level) {
    s.hasher.world(n.world);
    const { ha, hb } = s.hasher;
    const [ga, gb] = n.group ?? [ha, hb];
    if (shardOfFingerprint(ga, gb, count) === index) roots.push(n);
    else foreign.add(ha, hb);
  }
  // Prefix worlds are depth <= depth - 1 once a frontier exists.
  return plan(roots, foreign, level.length > 0 ? depth - 1 : depth, level.length);
}

/** What `arrive` checks on a world first met: reachability, depth, quiescence, end properties. */
function arriveChecks(s: Session, n: Level, report: (p: PropertyRef, schedule: string[]) => boolean): boolean {
  s.reach.see(n.world);
  if (n.schedule.length > s.maxDepth) s.maxDepth = n.schedule.length;
  const all = enabled(s.sc, n.world);
  if (s.opts.inspect?.quiescent && isQuiescent(all)) s.opts.inspect.quiescent(n.world);
  const end = endViolation(s.sc, n.world, all);
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

export function fingerprintDigest(fps: BigUint64Array): string {
  const buf = Buffer.alloc(fps.length * 8);
  fps.forEach((x, i) => buf.writeBigUInt64LE(x, i * 8));
  return createHash('sha256').update(buf).digest('hex');
}
