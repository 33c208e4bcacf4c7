// Sharded dfs/bfs (src/check/shard.ts, docs/sharding.md): the shards' visited
// fingerprints together are exactly one full search's; a violation is found by the
// shards whose slice holds a violating world and by no other; each shard's
// counterexample replays from the initial world; with sleep sets on, the shards still
// reach every world and every violation of the unreduced search (random systems).
import { describe, expect, it } from 'vitest';
import { apply, enabled, initialWorld, WorldHasher, fpHex } from 'interleave/kernel';
import { check, replaySchedule, type Scenario, type World, type CheckOptions, type CheckResult } from 'interleave';
import { families } from 'interleave/machines';
import { independentPairs, lostUpdate, orderingBug } from '../../fixtures/check/models.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';
import { AncestryClasses, dealByAncestry, dealPartition } from '../../../src/check/distributed/shard-deal.ts';

interface Explored {
  r: CheckResult;
  fps: Set<bigint>;
  /** Violations met (the search goes on past each): property and the fingerprint of the world after the step. */
  violations: Set<string>;
}

async function explore(sc: Scenario, opts: CheckOptions, symmetric = false): Promise<Explored> {
  const hasher = new WorldHasher(sc, symmetric);
  const walk = walker(sc);
  let fps = new Set<bigint>();
  const violations = new Set<string>();
  const r = await check(sc, {
    ...opts,
    shrink: false,
    inspect: {
      fingerprints: (f) => void (fps = new Set(f)),
      violation: (p, schedule) => {
        violations.add(`${p.kind}:${p.name}@${fpHex(hasher.fp(walk(schedule)))}`);
        return true;
      },
    },
  });
  return { r, fps, violations };
}

/**
 * The world a schedule ends in, stepping on past violations (replay stops at the first).
 * Worlds are kept by schedule prefix: a search's violating schedules share their prefixes,
 * so each is one step from a world already walked, not a replay from the initial world.
 */
function walker(sc: Scenario): (schedule: readonly string[]) => World {
  const at = new Map<string, World>([['', initialWorld(sc, { detail: false }).world]]);
  const walk = (schedule: readonly string[]): World => {
    const key = schedule.join('\n');
    let w = at.get(key);
    if (w) return w;
    const from = walk(schedule.slice(0, -1));
    const id = schedule[schedule.length - 1]!;
    w = apply(sc, from, enabled(sc, from).find((t) => t.id === id)!, { detail: false }).world;
    at.set(key, w);
    return w;
  };
  return walk;
}

const union = <T>(sets: Set<T>[]): Set<T> => new Set(sets.flatMap((s) => [...s]));
const sorted = <T>(s: Set<T>): T[] => [...s].sort();

/** Runs every shard and the full search; asserts the union is the full search. */
async function compare(sc: Scenario, strategy: 'dfs' | 'bfs', count: number, opts: CheckOptions = {}, symmetric = false) {
  const full = await explore(sc, { ...opts, strategy, por: false }, symmetric);
  const shards: Explored[] = [];
  for (let index = 0; index < count; index++) shards.push(await explore(sc, { strategy, por: opts.por ?? false, ...opts, shard: { index, count }, shardPrefix: opts.shardPrefix ?? 2 }, symmetric));
  expect(sorted(union(shards.map((s) => s.fps)))).toEqual(sorted(full.fps));
  // Sleep sets prune transitions, not worlds: a step property may be met on fewer edges
  // (so compare the properties violated, as the POR tests do); without them, every pair.
  const names = (v: Set<string>) => (opts.por ? new Set([...v].map((x) => x.split('@')[0]!)) : v);
  expect(sorted(names(union(shards.map((s) => s.violations))))).toEqual(sorted(names(full.violations)));
  for (const s of shards) {
    expect(s.r.complete || !s.r.ok).toBe(full.r.complete || !full.r.ok);
    // Each shard reports the fingerprints it visited and their digest.
    expect(s.r.shard!.count).toBe(count);
    expect(s.fps.size).toBe(s.r.stats.distinctStates! - (s.r.shard!.frontier - s.r.shard!.roots));
  }
  return { full, shards };
}

function amberNested(): Scenario {
  const f = families.find((x) => x.name === 'amber-loop')!;
  const p: Record<string, unknown> = {};
  for (const [k, spec] of Object.entries(f.params)) p[k] = spec.default;
  return f.build({ ...p, design: 'read-at-endchannel', topology: 'nested', rows: 3 } as never);
}

describe('sharded exhaustive search: the union of the shards is the full search', () => {
  it('lost update (compare-and-set, 3 clients): dfs and bfs, 2 and 3 shards', async () => {
    const sc = lostUpdate({ cas: true, clients: 3, rounds: 1 });
    for (const strategy of ['dfs', 'bfs'] as const) {
      for (const count of [2, 3]) {
        const { full, shards } = await compare(sc, strategy, count);
        expect(full.r.complete).toBe(true);
        // The slices are real slices: no shard visited everything.
        for (const s of shards) expect(s.fps.size).toBeLessThan(full.fps.size);
      }
    }
  });

  it('the ancestry deal (a partition level before the frontier): lost update, 2 rounds, dfs 2 shards and bfs 3 shards', async () => {
    const sc = lostUpdate({ cas: true, clients: 3, rounds: 2 });
    for (const [strategy, count] of [['dfs', 2], ['bfs', 3]] as const) {
      const { full, shards } = await compare(sc, strategy, count, { shardPrefix: 20 });
      expect(full.r.complete).toBe(true);
      for (const s of shards) {
        // Frontier worlds were dealt by their ancestry at a level above the frontier.
        expect(s.r.shard!.partitionDepth).toBeLessThan(s.r.shard!.prefixDepth + 1);
        expect(s.fps.size).toBeLessThan(full.fps.size);
      }
    }
  });

  it('amber-loop nested, rows=3: 2 shards', async () => {
    // A narrow model (at most a few worlds a level, converging again): a short prefix.
    const sc = amberNested();
    const { full, shards } = await compare(sc, 'dfs', 2, { shardPrefix: 2 });
    expect(full.r.complete).toBe(true);
    expect(shards.every((s) => s.r.shard!.roots > 0)).toBe(true);
  });

  it('a model the stubborn sets reduce: a shard turns them off (sleep sets stay) and the shards still visit every world', async () => {
    const sc = independentPairs(3);
    const reduced = await check(sc, { strategy: 'dfs', shrink: false });
    expect(reduced.options.reduction).toBe('stubborn-sets+sleep-sets');
    const { full, shards } = await compare(sc, 'dfs', 2, { por: true, shardPrefix: 2 });
    expect(reduced.stats.distinctStates).toBeLessThan(full.fps.size);
    for (const s of shards) {
      expect(s.r.options.reduction).toBe('sleep-sets');
      expect(String(s.r.options.stubbornNote)).toContain('sharded search');
    }
  });

  it('random actor systems: union of fingerprints and of violations, sleep sets on and off', async () => {
    let sliced = 0;
    for (let seed = 1; seed <= 14; seed++) {
      const { sc, info } = randomActors(seed);
      const strategy = seed % 2 === 0 ? 'dfs' : 'bfs';
      if (!(await explore(sc, { strategy, por: false, maxStates: 3000 })).r.complete) continue;
      // Sleep sets on: the shards still visit every world (the state reduction is off in a shard).
      const { shards } = await compare(sc, strategy, 1 + (seed % 3) + 1, { por: seed % 4 < 2 }, info.symmetric);
      if (shards.filter((s) => s.r.shard!.roots > 0).length > 1) sliced++;
    }
    expect(sliced).toBeGreaterThan(3);
  });

  it('random actor systems, small partitions and lookaheads (the deal of shard-deal.ts at every size): the union is the full search', async () => {
    let sliced = 0;
    let looked = 0;
    for (let seed = 21; seed <= 32; seed++) {
      const { sc, info } = randomActors(seed);
      const strategy = seed % 2 === 0 ? 'dfs' : 'bfs';
      if (!(await explore(sc, { strategy, por: false, maxStates: 1000 })).r.complete) continue;
      const opts = { shardPrefix: 1 + (seed % 3), shardLookahead: seed % 4 };
      const { shards } = await compare(sc, strategy, 2 + (seed % 3), opts, info.symmetric);
      if (shards.filter((s) => s.r.shard!.roots > 0).length > 1) sliced++;
      const p = shards[0]!.r.shard!;
      // The frontier lies `shardLookahead` levels below the partition level (or fewer, when a level grew past the cap).
      if (p.frontier > 0 && p.partitionDepth! < p.prefixDepth + 1) looked++;
      if (p.frontier > 0) expect(p.prefixDepth + 1 - p.partitionDepth!).toBeLessThanOrEqual(opts.shardLookahead);
    }
    expect(sliced).toBeGreaterThan(2);
    expect(looked).toBeGreaterThan(1);
  });
});

describe('sharded exhaustive search: violations', () => {
  it('a shard reports a violation exactly when its slice holds one; its counterexample replays from the initial world', async () => {
    let some = 0;
    // An ordering bug lives in the slices whose frontier worlds have not yet let A move.
    // [scenario, symmetric, shards, partition worlds per shard]: small frontiers and a 1-level lookahead, so that some shard's slice holds no A-first world.
    const shardLookahead = 1;
    const cases: [Scenario, boolean, number, number][] = [[lostUpdate({ clients: 3, rounds: 1 }), false, 3, 2], [orderingBug(4, 1, 2), false, 4, 1], [orderingBug(3, 2, 2), false, 3, 1]];
    for (let seed = 1; seed <= 10; seed++) {
      const { sc, info } = randomActors(seed);
      if ((await explore(sc, { strategy: 'bfs', por: false, maxStates: 3000 })).r.complete) cases.push([sc, info.symmetric, 3, 2]);
    }
    for (const [k, [sc, symmetric, count, shardPrefix]] of cases.entries()) {
      const strategy = k % 2 === 0 ? 'bfs' : 'dfs';
      const { shards } = await compare(sc, strategy, count, { shardPrefix, shardLookahead }, symmetric);
      let found = 0;
      for (let index = 0; index < count; index++) {
        // The normal run (stops at the first violation) of this shard, with sleep sets and
        // without: a shard reports the same first violation either way.
        const r = await check(sc, { strategy, shard: { index, count }, shardPrefix, shardLookahead, shrink: false });
        const off = await check(sc, { strategy, shard: { index, count }, shardPrefix, shardLookahead, shrink: false, por: false });
        expect([r.violation?.property.name, r.violation?.schedule], `case ${k} shard ${index}`).toEqual([off.violation?.property.name, off.violation?.schedule]);
        expect(r.ok).toBe(shards[index]!.violations.size === 0);
        if (!r.ok) {
          found++;
          const v = r.violation!;
          expect(replaySchedule(sc, v.schedule).violation?.property.name).toBe(v.property.name);
        }
      }
      if (found > 0 && found < count) some++;
    }
    // Some violations lie in some slices only.
    expect(some).toBeGreaterThan(0);
  });

  it('a violation in the prefix is found by every shard', async () => {
    const sc = lostUpdate({ clients: 2, rounds: 1 });
    for (let index = 0; index < 2; index++) {
      const r = await check(sc, { strategy: 'bfs', shard: { index, count: 2 }, shardPrefix: 1000 });
      expect(r.ok).toBe(false);
      expect(r.shard!.frontier).toBe(0);
    }
  });

  it('refuses liveness properties and bad shards', async () => {
    const f = families.find((x) => x.name === 'rally')!;
    const p: Record<string, unknown> = {};
    for (const [k, spec] of Object.entries(f.params)) p[k] = spec.default;
    const sc = f.build(p as never);
    await expect(check(sc, { strategy: 'bfs', shard: { index: 0, count: 2 } })).rejects.toThrow(/liveness properties, which a sharded search cannot decide/);
    await expect(check(lostUpdate(), { strategy: 'dfs', shard: { index: 2, count: 2 } })).rejects.toThrow(/shard must be index\/count/);
  });
});

describe('dealing the frontier (shard-deal.ts)', () => {
  const bits = (size: number, ...set: number[]) => {
    const a = new Uint32Array((size + 31) >>> 5);
    for (const k of set) a[k >>> 5]! |= 1 << (k & 31);
    return a;
  };
  const ofBits = (a: Uint32Array) => [...Array(a.length * 32).keys()].filter((b) => (a[b >>> 5]! >>> (b & 31)) & 1);

  /** The deal's cost from scratch: max(largest work, even share) first, then the total work. */
  function cost(size: number, classes: { anc: Uint32Array; weight: number }[], owner: number[], count: number): [number, number] {
    const work = new Array<number>(count).fill(0);
    for (const o of owner) work[o]!++;
    for (const c of classes) for (const s of new Set(ofBits(c.anc).map((k) => owner[k]!))) work[s]! += c.weight;
    const total = size + classes.reduce((x, c) => x + c.weight, 0);
    return [Math.max(...work, total / count), work.reduce((x, y) => x + y, 0)];
  }
  const less = (a: [number, number], b: [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

  it('classes add up the weights of equal ancestries and drop weightless worlds', () => {
    const c = new AncestryClasses();
    c.add(bits(40, 1, 33), 2);
    c.add(bits(40, 5), 1);
    c.add(bits(40, 1, 33), 3);
    c.add(bits(40, 7), 0);
    expect(c.list().map((x) => [ofBits(x.anc), x.weight])).toEqual([
      [[1, 33], 5],
      [[5], 1],
    ]);
  });

  it('keeps families that share descendants on one shard and balances their weights', () => {
    // Two families: partition worlds 0-3 share descendants, so do 4-7; equal weights.
    const classes = [
      { anc: bits(8, 0, 1), weight: 10 },
      { anc: bits(8, 1, 2, 3), weight: 10 },
      { anc: bits(8, 4, 5), weight: 10 },
      { anc: bits(8, 5, 6, 7), weight: 10 },
    ];
    const owner = dealPartition(8, classes, 2);
    expect(new Set(owner.slice(0, 4)).size).toBe(1);
    expect(new Set(owner.slice(4)).size).toBe(1);
    expect(owner[0]).not.toBe(owner[4]);
    // Three families on three shards, whatever the order of the classes.
    const three = [0, 1, 2].flatMap((f) => [{ anc: bits(9, 3 * f, 3 * f + 1), weight: 5 }, { anc: bits(9, 3 * f + 1, 3 * f + 2), weight: 5 }]);
    const o3 = dealPartition(9, [...three].reverse(), 3);
    expect([0, 1, 2].map((f) => new Set(o3.slice(3 * f, 3 * f + 3)).size)).toEqual([1, 1, 1]);
    expect(new Set(o3).size).toBe(3);
  });

  it('splits a family that outweighs an even share, where it costs least', () => {
    // One chain 0-1-2-3 with a heavy class on each end and a light link in the middle.
    const classes = [
      { anc: bits(4, 0, 1), weight: 50 },
      { anc: bits(4, 1, 2), weight: 1 },
      { anc: bits(4, 2, 3), weight: 50 },
    ];
    const owner = dealPartition(4, classes, 2);
    expect(owner[0]).toBe(owner[1]);
    expect(owner[2]).toBe(owner[3]);
    expect(owner[1]).not.toBe(owner[2]);
  });

  it('random classes: every world dealt, deterministic, and no single move lowers the cost', () => {
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (const [size, count] of [[12, 2], [30, 3], [50, 5], [9, 9], [70, 2]] as const) {
      const classes = Array.from({ length: 40 }, () => ({ anc: bits(size, next() % size, next() % size, ...(next() % 3 === 0 ? [next() % size] : [])), weight: 1 + (next() % 9) }));
      const owner = dealPartition(size, classes, count);
      expect(owner).toHaveLength(size);
      expect(owner.every((o) => Number.isInteger(o) && o >= 0 && o < count)).toBe(true);
      expect(dealPartition(size, classes, count)).toEqual(owner);
      const now = cost(size, classes, owner, count);
      for (let i = 0; i < size; i++) {
        if (owner.filter((o) => o === owner[i]).length <= 1) continue;
        for (let t = 0; t < count; t++) {
          if (t === owner[i]) continue;
          const moved = owner.slice();
          moved[i] = t;
          expect(less(cost(size, classes, moved, count), now), `size ${size} count ${count}: moving ${i} to ${t}`).toBe(false);
        }
      }
    }
  });

  it('a frontier world goes with most of its ancestors; ties (among the most-voted shards) and worlds without ancestry to the shard with fewest', () => {
    const part = [0, 0, 1, 1, 2];
    expect(dealByAncestry([bits(5, 0, 1, 2), bits(5, 2, 3, 4), bits(5, 4), bits(5, 0, 2), undefined, bits(5, 1, 3)], part, 3)).toEqual([0, 1, 2, 0, 1, 0]);
  });
});
