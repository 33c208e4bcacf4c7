// Sharded dfs/bfs (src/check/shard.ts, docs/sharding.md): the shards' visited
// fingerprints together are exactly one full search's; a violation is found by the
// shards whose slice holds a violating world and by no other; each shard's
// counterexample replays from the initial world; with sleep sets on, the shards still
// reach every world and every violation of the unreduced search (random systems).
import { describe, expect, it } from 'vitest';
import { apply, enabled, initialWorld, type Scenario, type World } from '../src/actors/index.ts';
import { WorldHasher, check, fpHex, replaySchedule, type CheckOptions, type CheckResult } from '../src/check/index.ts';
import { families } from '../src/machines/catalog.ts';
import { independentPairs, lostUpdate, orderingBug } from './fixtures-check/models.ts';
import { randomActors } from './fixtures-check/random-actors.ts';
import { FRONTIER_SLACK, dealFrontier } from '../src/check/shard.ts';

interface Explored {
  r: CheckResult;
  fps: Set<bigint>;
  /** Violations met (the search goes on past each): property and the fingerprint of the world after the step. */
  violations: Set<string>;
}

async function explore(sc: Scenario, opts: CheckOptions, symmetric = false): Promise<Explored> {
  const hasher = new WorldHasher(sc, symmetric);
  let fps = new Set<bigint>();
  const violations = new Set<string>();
  const r = await check(sc, {
    ...opts,
    shrink: false,
    inspect: {
      fingerprints: (f) => void (fps = new Set(f)),
      violation: (p, schedule) => {
        violations.add(`${p.kind}:${p.name}@${fpHex(hasher.fp(walk(sc, schedule)))}`);
        return true;
      },
    },
  });
  return { r, fps, violations };
}

/** The world a schedule ends in, stepping on past violations (replay stops at the first). */
function walk(sc: Scenario, schedule: readonly string[]): World {
  let w = initialWorld(sc, { detail: false }).world;
  for (const id of schedule) w = apply(sc, w, enabled(sc, w).find((t) => t.id === id)!, { detail: false }).world;
  return w;
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
    expect(s.fps.size).toBe(s.r.stats.distinctStates - (s.r.shard!.frontier - s.r.shard!.roots));
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
});

describe('sharded exhaustive search: violations', () => {
  it('a shard reports a violation exactly when its slice holds one; its counterexample replays from the initial world', async () => {
    let some = 0;
    // An ordering bug lives in the slices whose frontier worlds have not yet let A move.
    // [scenario, symmetric, shards, frontier worlds per shard]: small frontiers, so that some shard's slice holds no A-first world.
    const cases: [Scenario, boolean, number, number][] = [[lostUpdate({ clients: 3, rounds: 1 }), false, 3, 2], [orderingBug(4, 1, 2), false, 4, 1], [orderingBug(3, 2, 2), false, 3, 1]];
    for (let seed = 1; seed <= 10; seed++) {
      const { sc, info } = randomActors(seed);
      if ((await explore(sc, { strategy: 'bfs', por: false, maxStates: 3000 })).r.complete) cases.push([sc, info.symmetric, 3, 2]);
    }
    for (const [k, [sc, symmetric, count, shardPrefix]] of cases.entries()) {
      const strategy = k % 2 === 0 ? 'bfs' : 'dfs';
      const { shards } = await compare(sc, strategy, count, { shardPrefix }, symmetric);
      let found = 0;
      for (let index = 0; index < count; index++) {
        // The normal run (stops at the first violation) of this shard, with sleep sets and
        // without: a shard reports the same first violation either way.
        const r = await check(sc, { strategy, shard: { index, count }, shardPrefix, shrink: false });
        const off = await check(sc, { strategy, shard: { index, count }, shardPrefix, shrink: false, por: false });
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

describe('dealing the frontier', () => {
  const bits = (size: number, ...set: number[]) => {
    const a = new Uint32Array((size + 31) >>> 5);
    for (const k of set) a[k >>> 5]! |= 1 << (k & 31);
    return a;
  };
  const counts = (owner: number[], count: number) => Array.from({ length: count }, (_, i) => owner.filter((o) => o === i).length);

  it('without ancestry: round robin', () => {
    expect(dealFrontier(new Array(7).fill(undefined), 3)).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it('keeps frontier worlds of one ancestry together, within the slack', () => {
    // Two families (ancestors 0-1 and 2-3 of 40 partition worlds), 6 worlds each, interleaved.
    const anc = Array.from({ length: 12 }, (_, k) => (k % 2 === 0 ? bits(40, 0, 1) : bits(40, 2, 3)));
    const owner = dealFrontier(anc, 2);
    expect(new Set(owner.filter((_, k) => k % 2 === 0)).size).toBe(1);
    expect(new Set(owner.filter((_, k) => k % 2 === 1)).size).toBe(1);
    expect(counts(owner, 2)).toEqual([6, 6]);
    // One family larger than a shard's share: the shard fills to the slack, the rest goes elsewhere.
    const big = dealFrontier(Array.from({ length: 20 }, () => bits(40, 5)), 2);
    expect(Math.max(...counts(big, 2))).toBe(Math.ceil(10 * FRONTIER_SLACK));
    expect(dealFrontier(anc, 2)).toEqual(owner);
  });

  /** The deal as specified, every shard scored for every world (dealFrontier only scores the shards holding an ancestor, and the emptiest other). */
  function reference(anc: (Uint32Array | undefined)[], count: number): number[] {
    const cap = Math.max(1, Math.ceil((anc.length / count) * FRONTIER_SLACK));
    const covered = Array.from({ length: count }, () => new Set<number>());
    const load = new Array<number>(count).fill(0);
    const set = anc.map((a) => (a ? [...Array(a.length * 32).keys()].filter((b) => (a[b >>> 5]! >>> (b & 31)) & 1) : []));
    const owner: number[] = [];
    for (const k of set.map((_, k) => k).sort((x, y) => set[y]!.length - set[x]!.length || x - y)) {
      let best = -1;
      for (let i = 0; i < count; i++) {
        if (load[i]! >= cap) continue;
        const fresh = (j: number) => set[k]!.filter((b) => !covered[j]!.has(b)).length;
        if (best < 0 || fresh(i) < fresh(best) || (fresh(i) === fresh(best) && load[i]! < load[best]!)) best = i;
      }
      owner[k] = best;
      load[best]!++;
      for (const b of set[k]!) covered[best]!.add(b);
    }
    return owner;
  }

  it('with random ancestries: the same deal as scoring every shard, every world dealt, no shard over the slack', () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (const count of [2, 3, 5, 9, 60]) {
      const anc = Array.from({ length: 50 }, (_, k) => (k % 7 === 6 ? bits(70) : bits(70, next() % 70, next() % 70, next() % 70)));
      const owner = dealFrontier(anc, count);
      expect(owner).toEqual(reference(anc, count));
      expect(owner.every((o) => o >= 0 && o < count)).toBe(true);
      expect(Math.max(...counts(owner, count))).toBeLessThanOrEqual(Math.ceil((50 / count) * FRONTIER_SLACK));
    }
    expect(dealFrontier(new Array(9).fill(undefined), 4)).toEqual(reference(new Array(9).fill(undefined), 4));
  });
});
