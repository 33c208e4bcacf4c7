// The compact bfs frontier (src/check/bfs-compact.ts: entries as parent + step, worlds
// re-derived when expanded) against the frontier of whole worlds: the same distinct
// worlds (every fingerprint), quiescent worlds, violations, counts and first
// counterexample, on random systems and the hand models, with and without POR; and
// the memory of the whole search in result.stats.memory.
import { describe, expect, it } from 'vitest';
import { defineScenario, NondeterminismError, check, type Scenario, type World, type CheckOptions } from 'interleave';
import { WorldHasher, fpHex } from 'interleave/kernel';
import { counterModel, diningLocks, lostUpdate, orderingBug, randomSystem, retryModel, tokenRing } from '../../fixtures/check/models.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';
import { randomMachineSystem } from '../../fixtures/check/random-machines.ts';
import { CompactBfs } from '../../../src/check/search/bfs-compact.ts';

async function reach(sc: Scenario, frontier: 'compact' | 'worlds', opts: CheckOptions) {
  const hasher = new WorldHasher(sc, false);
  const states: string[] = [];
  const quiescent: string[] = [];
  const violated: string[] = [];
  const r = await check(sc, {
    strategy: 'bfs',
    frontier,
    shrink: false,
    ...opts,
    inspect: {
      state: (w: World) => void states.push(fpHex(hasher.fp(w))),
      quiescent: (w: World) => void quiescent.push(fpHex(hasher.fp(w))),
      violation: (p) => {
        violated.push(`${p.kind}:${p.name}`);
        return true;
      },
    },
  });
  // Stopping at the first violation: its (unshrunk) schedule.
  const first = await check(sc, { strategy: 'bfs', frontier, shrink: false, ...opts });
  return { r, states, quiescent, violated, first: first.violation ? [first.violation.property.name, ...first.violation.schedule] : [] };
}

async function same(sc: Scenario, opts: CheckOptions, at: string): Promise<number> {
  const a = await reach(sc, 'worlds', opts);
  const b = await reach(sc, 'compact', opts);
  expect(b.r.options.frontier, at).toBe('compact');
  expect(a.r.options.frontier, at).toBe('worlds');
  // Same order of discovery, so the lists (not only the sets) are equal.
  expect(b.states, at).toEqual(a.states);
  expect(b.quiescent, at).toEqual(a.quiescent);
  expect(b.violated, at).toEqual(a.violated);
  expect(b.first, at).toEqual(a.first);
  const pick = (r: typeof a.r) => [r.complete, r.cutBy, r.stats.states, r.stats.distinctStates, r.stats.transitions, r.stats.maxDepth];
  expect(pick(b.r), at).toEqual(pick(a.r));
  return a.states.length;
}

/** Hand models with each kind of violation (and none). */
const models: [string, () => Scenario][] = [
  ['lost update', () => lostUpdate({ clients: 3 })],
  ['compare-and-set, 2 rounds', () => lostUpdate({ cas: true, rounds: 2 })],
  ['locks (deadlock)', () => diningLocks()],
  ['counter (eventually)', () => counterModel(3, 3)],
  ['token ring', () => tokenRing(4, 1, 2)],
  ['timers and a drop fault', () => retryModel(2)],
  ['monitor with watches', () => orderingBug(3, 2, 3)],
];

describe('compact bfs frontier = frontier of worlds', () => {
  it('random actor systems (24 seeds; symmetry, timers, faults, monitors), POR on and off', async () => {
    let states = 0;
    let violations = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const { sc, info } = randomActors(seed);
      for (const por of [true, false]) {
        states += await same(sc, { por, maxStates: 1000 }, `seed ${seed} por ${por} ${JSON.stringify(info)}`);
      }
      if ((await check(sc, { strategy: 'bfs', shrink: false, maxStates: 1000 })).violation) violations++;
    }
    console.log(`compact frontier, random actor systems: ${states} distinct worlds compared, ${violations} of 24 systems violate a property`);
    expect(states).toBeGreaterThan(5_000);
    expect(violations).toBeGreaterThan(3);
  }, 240_000);

  it('random systems (30 seeds, faults on half) and random xstate machines (20 seeds)', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      for (const por of [true, false]) await same(randomSystem(seed, seed % 2 === 0), { por, maxStates: 3000 }, `randomSystem ${seed} por ${por}`);
    }
    for (let seed = 1; seed <= 20; seed++) await same(randomMachineSystem(seed), { maxStates: 3000 }, `randomMachineSystem ${seed}`);
  }, 240_000);

  for (const [name, make] of models) {
    it(`${name}: same worlds, violations and first counterexample, POR on and off`, async () => {
      for (const por of [true, false]) expect(await same(make(), { por }, `${name} por ${por}`)).toBeGreaterThan(5);
    });
  }

  it('sharded bfs (many roots, each with its prefix schedule): same worlds and counterexamples per shard', async () => {
    for (const index of [0, 1]) {
      const shard = { index, count: 2 };
      await same(lostUpdate({ clients: 3 }), { shard, shardPrefix: 4 }, `lost update shard ${index}/2`);
      await same(lostUpdate({ cas: true, clients: 2, rounds: 2 }), { shard, shardPrefix: 4 }, `compare-and-set shard ${index}/2`);
      await same(randomSystem(7, true), { shard, shardPrefix: 3, maxStates: 1000 }, `randomSystem 7 shard ${index}/2`);
    }
  });

  it('a cut search stops at the same state', async () => {
    await same(lostUpdate({ cas: true, clients: 3, rounds: 2 }), { maxStates: 500 }, 'maxStates');
    await same(lostUpdate({ cas: true, clients: 3, rounds: 2 }), { maxDepth: 6 }, 'maxDepth');
  });
});

describe('kept frontier worlds (small frontiers) = re-derived ones', () => {
  // By default every entry of these small searches keeps its world; a ring of 4 keeps
  // some and re-derives the rest (and the counterexample's ancestors), and with the
  // determinism sample off none is kept: all must give the frontier of worlds' search.
  it('random systems, random xstate machines and the hand models, ring of 4 and none kept', async () => {
    const saved = CompactBfs.keepSize;
    try {
      CompactBfs.keepSize = 4;
      let states = 0;
      for (let seed = 1; seed <= 12; seed++) {
        for (const por of [true, false]) states += await same(randomSystem(seed, seed % 2 === 0), { por, maxStates: 2000 }, `ring 4, randomSystem ${seed} por ${por}`);
        states += await same(randomMachineSystem(seed), { maxStates: 2000 }, `ring 4, randomMachineSystem ${seed}`);
        states += await same(randomActors(seed).sc, { maxStates: 1000 }, `ring 4, randomActors ${seed}`);
      }
      for (const [name, make] of models) states += await same(make(), {}, `ring 4, ${name}`);
      CompactBfs.keepSize = saved;
      for (let seed = 1; seed <= 6; seed++) states += await same(randomSystem(seed, true), { determinism: false, maxStates: 2000 }, `none kept, randomSystem ${seed}`);
      expect(states).toBeGreaterThan(5_000);
    } finally {
      CompactBfs.keepSize = saved;
    }
  }, 240_000);
});

describe('re-deriving a frontier world checks it', () => {
  it('stops with a NondeterminismError when a step gives another world the second time', async () => {
    // A counter whose increment reads a call count kept outside its state (impure). A
    // number state is not memoised, so re-deriving a world steps it afresh.
    let calls = 0;
    const counter = { kind: 'reducer' as const, init: () => 0, receive: (n: number) => ({ state: n + 1 + (calls++ % 2) }) };
    const idle = { kind: 'reducer' as const, init: () => 0, receive: (n: number) => ({ state: n, unhandled: true }) };
    const sc = defineScenario({
      name: 'impure-counter',
      actors: { counter, a: idle, b: idle },
      start: [
        { from: 'a', to: 'counter', msg: { type: 'inc' } },
        { from: 'b', to: 'counter', msg: { type: 'inc' } },
        { from: 'a', to: 'counter', msg: { type: 'inc' } },
      ],
    });
    // With the sample check off, only re-deriving can notice.
    await expect(check(sc, { strategy: 'bfs', determinism: false })).rejects.toThrow(NondeterminismError);
    await expect(check(sc, { strategy: 'bfs', determinism: false })).rejects.toThrow(/re-deriving a frontier world \(last step deliver:.->counter:inc\) gave a different fingerprint/);
    // A sample of no re-steps is off too: frontier worlds are then re-derived, not kept.
    await expect(check(sc, { strategy: 'bfs', determinism: { repeats: 0 } })).rejects.toThrow(/re-deriving a frontier world/);
    const worlds = await check(sc, { strategy: 'bfs', determinism: false, frontier: 'worlds' });
    expect(worlds.complete).toBe(true);
  });
});

describe('result.stats.memory', () => {
  it('reports the peak RSS and heap of the search, per distinct state, for every strategy', async () => {
    for (const strategy of ['bfs', 'dfs', 'random'] as const) {
      const r = await check(lostUpdate({ cas: true, clients: 3 }), { strategy, runs: 20, seed: 1 });
      const m = r.stats.memory!;
      expect(m, strategy).toBeDefined();
      expect(m.peakRssBytes).toBeGreaterThan(0);
      expect(m.peakRssBytes).toBeGreaterThanOrEqual(m.startRssBytes);
      expect(m.peakHeapBytes).toBeGreaterThan(0);
      // A sampled check does not count distinct states (countDistinct): no per-state figures.
      const distinct = r.stats.distinctStates;
      expect(distinct === undefined, strategy).toBe(strategy === 'random');
      expect(m.rssBytesPerState).toBe(distinct ? Math.round(m.peakRssBytes / distinct) : 0);
      expect(m.heapGrowthBytesPerState).toBe(distinct ? Math.round(Math.max(0, m.peakHeapBytes - m.startHeapBytes) / distinct) : 0);
    }
  });
});
