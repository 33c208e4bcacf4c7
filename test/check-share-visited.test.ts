// Shared-visited mode's soundness (src/check/claims.ts): shards in one process whose claims
// reach each other late, torn, garbled, in random batches, or never. Whatever the channel
// does, when every shard ends complete the union of the worlds each visited itself is
// exactly the unreduced single search's. A control shows the comparison fails when a
// shard claims worlds it did not visit; the claims file format never takes a torn or
// damaged batch.
import { describe, expect, it } from 'vitest';
import { rng, type Scenario } from '../src/actors/index.ts';
import { check, replaySchedule } from '../src/check/index.ts';
import { MAX_BATCH, decodeBatches, encodeBatch } from '../src/check/claims-log.ts';
import { families } from '../src/machines/catalog.ts';
import { allToOne, randomSystem, tokenRing } from './fixtures-check/models.ts';
import { randomActors } from './fixtures-check/random-actors.ts';
import { randomMachineSystem } from './fixtures-check/random-machines.ts';
import { runClaimsShards, type Adversary } from './fixtures-check/claims-harness.ts';

/** The unreduced search's fingerprints, going on past violations (as the shards are asked to). */
async function fullSearch(sc: Scenario, maxDepth?: number): Promise<{ fps: bigint[]; complete: boolean }> {
  let fps: bigint[] = [];
  const r = await check(sc, { strategy: 'bfs', por: false, shrink: false, ...(maxDepth !== undefined ? { maxDepth } : {}), inspect: { violation: () => true, fingerprints: (f) => void (fps = [...f]) } });
  return { fps, complete: r.complete };
}

const sorted = (xs: Iterable<bigint>) => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** A channel drawn from the seed: lag, tearing, garbling, and deaf or mute shards. */
function adversary(seed: number, count: number): Adversary {
  const r = rng(seed * 31 + 5);
  const pick = () => Array.from({ length: count }, (_, i) => i).filter(() => r.int(5) === 0);
  return { maxLag: [0, 3, 20, 200][r.int(4)]!, tear: r.int(2) === 0, garble: r.int(2) === 0, deaf: pick(), mute: pick() };
}

const models = (): Scenario[] => [
  // More for a longer run: FUZZ_SEEDS=500 npx vitest run test/check-share-visited.test.ts
  ...Array.from({ length: Number(process.env.FUZZ_SEEDS ?? 20) }, (_, k) => randomSystem(k + 1, k % 2 === 0)),
  ...[1, 2, 3, 4].map((k) => randomActors(k).sc),
  // Declared symmetry: claims are canonical fingerprints.
  ...[6, 14, 15].map((k) => randomActors(k).sc),
  ...[1, 2].map((k) => randomMachineSystem(k)),
  tokenRing(4, 2, 2),
  allToOne(4, 3),
];

describe('shared-visited shards over an adversarial channel', () => {
  it('random systems (some symmetric), xstate machines, a token ring, all-to-one: the union of own worlds is the full search (2-3 shards, dfs and bfs, late / torn / garbled / lost claims)', async () => {
    let seed = 0;
    let tricks = 0;
    let foreign = 0;
    for (const sc of models()) {
      const full = await fullSearch(sc);
      expect(full.complete).toBe(true);
      for (const round of [0, 1]) {
        seed++;
        const count = 2 + (seed % 2);
        const adv = adversary(seed, count);
        const { shards, own, net } = runClaimsShards(sc, { count, seed, order: (seed + round) % 2 === 0 ? 'dfs' : 'bfs', prefix: 1 + (seed % 4), adv, batch: 1 + (seed % 9), pollMs: seed % 4, check: { inspect: { violation: () => true } } });
        for (const x of shards) expect(x.s.cutBy, `${sc.name} seed ${seed}`).toBeUndefined();
        expect(sorted(own.flatMap((f) => [...f])), `${sc.name} seed ${seed} ${JSON.stringify(adv)}`).toEqual(full.fps);
        tricks += net.tricks;
        foreign += shards.reduce((a, x) => a + x.sv.foreign.size, 0);
      }
    }
    // The channel did misbehave, and claims did make shards skip worlds.
    expect(tricks).toBeGreaterThan(0);
    expect(foreign).toBeGreaterThan(0);
  });

  it('with a depth bound: when every shard ends complete the union is the full search; when the bound cuts, some shard says so', async () => {
    let cut = 0;
    for (let k = 1; k <= 16; k++) {
      const sc = randomSystem(k, k % 2 === 1);
      const unbounded = await fullSearch(sc);
      const maxDepth = 3 + (k % 6);
      const bounded = await fullSearch(sc, maxDepth);
      const { shards, own } = runClaimsShards(sc, { count: 2, seed: k, order: k % 2 === 0 ? 'dfs' : 'bfs', prefix: 2, adv: adversary(k, 2), batch: 3, pollMs: 1, check: { maxDepth, inspect: { violation: () => true } } });
      const complete = shards.every((x) => x.s.cutBy === undefined);
      if (complete) expect(sorted(own.flatMap((f) => [...f])), `${sc.name} depth ${maxDepth}`).toEqual(unbounded.fps);
      else cut++;
      // A bound that cuts the single search cuts some shard too (never "complete" wrongly).
      if (!bounded.complete) expect(complete, `${sc.name} depth ${maxDepth}`).toBe(false);
    }
    expect(cut).toBeGreaterThan(0);
  });

  it('control: a shard that claims worlds it never visited makes the union miss worlds (the comparison above can fail)', async () => {
    const sc = randomSystem(1);
    const full = await fullSearch(sc);
    // Shard 2 "claims" every reachable world but never runs: a false claim skips worlds nobody explores.
    const lanes = new Uint32Array(full.fps.length * 2);
    full.fps.forEach((x, i) => {
      lanes[i * 2] = Number(x >> 32n);
      lanes[i * 2 + 1] = Number(x & 0xffffffffn);
    });
    const { shards, own } = runClaimsShards(sc, { count: 2, seed: 3, order: 'dfs', prefix: 2, adv: { maxLag: 0, tear: false, garble: false, deaf: [], mute: [] }, batch: 4, pollMs: 0, dead: [1], before: (net) => net.forge(1, encodeBatch(lanes, full.fps.length)), check: { inspect: { violation: () => true } } });
    expect(shards[0]!.s.cutBy).toBeUndefined();
    expect(sorted(own[0]!).length).toBeLessThan(full.fps.length);
  });

  it('a violation: a shard finds it, stops the others, and its schedule replays from the initial world', async () => {
    let tried = 0;
    for (let k = 1; tried < 4 && k < 200; k++) {
      const sc = randomSystem(k, true);
      const single = await check(sc, { strategy: 'bfs', por: false, shrink: false });
      if (single.ok) continue;
      tried++;
      const { shards } = runClaimsShards(sc, { count: 2, seed: k, order: 'bfs', prefix: 2, adv: adversary(k, 2), batch: 2, pollMs: 0 });
      const finders = shards.filter((x) => x.s.found);
      expect(finders.length, `seed ${k}`).toBeGreaterThanOrEqual(1);
      const f = finders[0]!.s.found!;
      expect(replaySchedule(sc, f.schedule).violation?.property.name, `seed ${k}`).toBe(f.property.name);
      // The others either found one too, were stopped, or had ended their own search before the stop.
      for (const x of shards.filter((y) => !y.s.found)) expect([undefined, 'stopped']).toContain(x.s.cutBy);
      expect(finders.every((x) => x.sv.stop?.reason === 'violation')).toBe(true);
    }
    expect(tried).toBe(4);
  });
});

describe('shared-visited shards on amber-loop nested', () => {
  it('rows=3 (Arrow record batches in its worlds: only fingerprints cross): the union of own worlds is the full search, late and torn claims, dfs and bfs', async () => {
    const f = families.find((x) => x.name === 'amber-loop')!;
    const p: Record<string, unknown> = {};
    for (const [k, spec] of Object.entries(f.params)) p[k] = spec.default;
    const sc = f.build({ ...p, design: 'read-at-endchannel', topology: 'nested', rows: 3 } as never);
    const full = await fullSearch(sc);
    expect(full.complete).toBe(true);
    for (const [seed, order] of [[1, 'dfs'], [2, 'bfs']] as const) {
      const { shards, own } = runClaimsShards(sc, { count: 2, seed, order, prefix: 2, adv: { maxLag: 10, tear: true, garble: true, deaf: [], mute: [] }, batch: 5, pollMs: 2, check: { inspect: { violation: () => true } } });
      for (const x of shards) expect(x.s.cutBy).toBeUndefined();
      expect(sorted(own.flatMap((o) => [...o]))).toEqual(full.fps);
      expect(shards.reduce((a, x) => a + x.sv.foreign.size, 0)).toBeGreaterThan(0);
    }
  });
});

describe('claims file format', () => {
  it('a batch is taken only whole and intact: every prefix gives nothing, every damaged byte is refused', () => {
    const lanes = Uint32Array.from([1, 2, 0xffffffff, 0, 7, 9]);
    const one = encodeBatch(lanes, 3);
    const two = new Uint8Array([...one, ...encodeBatch(Uint32Array.from([5, 6]), 1)]);
    expect([...decodeBatches(two).lanes]).toEqual([1, 2, 0xffffffff, 0, 7, 9, 5, 6]);
    expect(decodeBatches(two).used).toBe(two.length);
    for (let n = 0; n < one.length; n++) {
      const got = decodeBatches(one.subarray(0, n));
      expect(got.lanes.length, `prefix ${n}`).toBe(0);
      expect(got.used).toBe(0);
    }
    for (let i = 0; i < one.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bad = one.slice();
        bad[i] = bad[i]! ^ mask;
        const got = decodeBatches(bad);
        expect(got.lanes.length, `byte ${i} ^ ${mask}`).toBe(0);
        expect(got.used).toBe(0);
      }
    }
    // A zero-filled region is no batch.
    expect(decodeBatches(new Uint8Array(64))).toMatchObject({ used: 0, damaged: true });
    expect(() => encodeBatch(lanes, 0)).toThrow(/1\.\.\d+ fingerprints/);
    expect(MAX_BATCH).toBeGreaterThan(4096);
  });
});
