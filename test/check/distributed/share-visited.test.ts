// Shared-visited mode's soundness (src/check/claims.ts): shards in one process whose claims
// reach each other late, torn, garbled, in random batches, or never. Whatever the channel
// does, when every shard ends complete the union of the worlds each visited itself is
// exactly the unreduced single search's. A control shows the comparison fails when a
// shard claims worlds it did not visit; the claims file format never takes a torn or
// damaged batch.
import { describe, expect, it } from 'vitest';
import { rng, check, replaySchedule, type Scenario } from 'interleave';
import { CLAIM_WORDS, MAX_BATCH, decodeBatches, encodeBatch } from '../../../src/check/distributed/claims-log.ts';
import { families } from 'interleave/machines';
import { allToOne, randomSystem, tokenRing } from '../../fixtures/check/models.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';
import { randomMachineSystem } from '../../fixtures/check/random-machines.ts';
import { runClaimsShards, type Adversary } from '../../fixtures/check/claims-harness.ts';
import { Session } from '../../../src/check/search/session.ts';
import { runPrefix } from '../../../src/check/distributed/shard.ts';

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
  // More for a longer run: FUZZ_SEEDS=500 npx vitest run test/check/distributed/share-visited.test.ts
  ...Array.from({ length: Number(process.env.FUZZ_SEEDS ?? 20) }, (_, k) => randomSystem(k + 1, k % 2 === 0)),
  ...[1, 2, 3, 4].map((k) => randomActors(k).sc),
  // Declared symmetry: claims are canonical fingerprints. Seed 6 has timers; 14 timers, faults
  // and a monitor (seed 15, faults only, was 4,928 states more of the same).
  ...[6, 14].map((k) => randomActors(k).sc),
  ...[1, 2].map((k) => randomMachineSystem(k)),
  tokenRing(4, 2, 2),
  allToOne(4, 3),
];

describe('shared-visited shards over an adversarial channel', () => {
  it('random systems (some symmetric), xstate machines, a token ring, all-to-one: the union of own worlds is the full search (2-3 shards, dfs and bfs, late / torn / garbled / lost claims)', async () => {
    let seed = 0;
    let tricks = 0;
    let foreign = 0;
    let marked = 0;
    for (const sc of models()) {
      const full = await fullSearch(sc);
      expect(full.complete).toBe(true);
      // Round 0 without POR, rounds 1 and 2 with sleep sets (the default): claims then carry marks.
      for (const round of [0, 1, 2]) {
        seed++;
        const count = 2 + (seed % 2);
        const adv = adversary(seed, count);
        const por = round > 0;
        const { shards, own, net } = runClaimsShards(sc, { count, seed, order: (seed + round) % 2 === 0 ? 'dfs' : 'bfs', prefix: 1 + (seed % 4), adv, batch: 1 + (seed % 9), pollMs: seed % 4, por, check: { inspect: { violation: () => true } } });
        for (const x of shards) expect(x.s.cutBy, `${sc.name} seed ${seed}`).toBeUndefined();
        expect(sorted(own.flatMap((f) => [...f])), `${sc.name} seed ${seed} por ${por} ${JSON.stringify(adv)}`).toEqual(full.fps);
        tricks += net.tricks;
        foreign += shards.reduce((a, x) => a + x.sv.foreign.size, 0);
        if (por && shards[0]!.s.withMarks) marked += shards.reduce((a, x) => a + x.sv.marked, 0);
      }
    }
    // The channel did misbehave, claims did make shards skip worlds, and some claims carried a sleep set.
    expect(tricks).toBeGreaterThan(0);
    expect(foreign).toBeGreaterThan(0);
    expect(marked).toBeGreaterThan(0);
  });

  it('a claim carries its mark into the visited set: a frontier world claimed with one is met again with the empty sleep set, one claimed without is skipped', async () => {
    let woken = 0;
    for (let k = 1; k <= 6; k++) {
      const sc = randomSystem(k);
      const full = await fullSearch(sc);
      // The frontier every shard computes (the same prefix and deal as the run below).
      const probe = new Session(sc, { strategy: 'dfs', shard: { index: 0, count: 2 }, inspect: { violation: () => true } }, true);
      const plan = runPrefix(probe, 0, 2, 2);
      const frontier = [...plan.roots, ...plan.others];
      if (frontier.length < 2) continue;
      // Shard 2 never runs; its forged claims name every frontier world, half of them with a mark.
      const claims = new Uint32Array(frontier.length * CLAIM_WORDS);
      frontier.forEach((r, i) => {
        probe.hasher.world(r.world);
        claims.set([probe.hasher.ha, probe.hasher.hb, i % 2], i * CLAIM_WORDS);
      });
      const { shards, own } = runClaimsShards(sc, { count: 2, seed: k, order: 'dfs', prefix: 2, adv: { maxLag: 0, tear: false, garble: false, deaf: [], mute: [] }, batch: 4, pollMs: 0, dead: [1], por: true, before: (net) => net.forge(1, encodeBatch(claims, frontier.length)), check: { inspect: { violation: () => true } } });
      const sv = shards[0]!.sv;
      const marked = frontier.filter((_, i) => i % 2 === 1).length;
      // Every frontier world was claimed: none is started fresh; the marked ones are met again, unless the search met them first and woke their steps.
      expect(sv.started, `seed ${k}`).toEqual({ own: 0, others: 0 });
      expect(sv.rootsWoken + sv.skipped, `seed ${k}`).toBe(frontier.length);
      expect(sv.rootsWoken, `seed ${k}`).toBeLessThanOrEqual(marked);
      woken += sv.rootsWoken;
      // What the forged claims left out of shard 1's worlds is at most what lies beyond the frontier: never more than the full search.
      expect(own[0]!.length, `seed ${k}`).toBeLessThanOrEqual(full.fps.length);
    }
    expect(woken).toBeGreaterThan(0);
  });

  it('a state budget counts the worlds a shard visited itself, not the claims it holds: a budget just over the larger shard cuts no shard', async () => {
    let tried = 0;
    // Seven of these split the work (seed 12, with faults, is 47,028 states and adds nothing but time).
    for (let k = 1; k <= 11; k++) {
      const sc = randomSystem(k, k % 2 === 0);
      const full = await fullSearch(sc);
      const o = { count: 2, seed: k, order: k % 2 === 0 ? 'dfs' : 'bfs', prefix: 1, adv: { maxLag: 0, tear: false, garble: false, deaf: [], mute: [] }, batch: 1, pollMs: 0, por: true } as const;
      // The same seeded run without a budget: how many worlds each shard visits itself.
      const free = runClaimsShards(sc, { ...o, check: { inspect: { violation: () => true } } });
      const larger = Math.max(...free.shards.map((x) => x.s.distinct));
      // Only where the shards split the work: a shard holds more fingerprints than it visited.
      if (larger + 1 >= full.fps.length) continue;
      tried++;
      const { shards, own } = runClaimsShards(sc, { ...o, check: { maxStates: larger + 1, inspect: { violation: () => true } } });
      for (const x of shards) expect(x.s.cutBy, `seed ${k}`).toBeUndefined();
      expect(sorted(own.flatMap((f) => [...f])), `seed ${k}`).toEqual(full.fps);
    }
    expect(tried).toBeGreaterThan(2);
  });

  it('control: a shard that claims worlds it never visited makes the union miss worlds (the comparison above can fail)', async () => {
    const sc = randomSystem(1);
    const full = await fullSearch(sc);
    // Shard 2 "claims" every reachable world but never runs: a false claim skips worlds nobody explores.
    const claims = new Uint32Array(full.fps.length * CLAIM_WORDS);
    full.fps.forEach((x, i) => {
      claims[i * CLAIM_WORDS] = Number(x >> 32n);
      claims[i * CLAIM_WORDS + 1] = Number(x & 0xffffffffn);
    });
    const { shards, own } = runClaimsShards(sc, { count: 2, seed: 3, order: 'dfs', prefix: 2, adv: { maxLag: 0, tear: false, garble: false, deaf: [], mute: [] }, batch: 4, pollMs: 0, dead: [1], before: (net) => net.forge(1, encodeBatch(claims, full.fps.length)), check: { inspect: { violation: () => true } } });
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
    for (const [seed, order, por] of [[1, 'dfs', false], [2, 'bfs', true], [3, 'dfs', true]] as const) {
      const { shards, own } = runClaimsShards(sc, { count: 2, seed, order, prefix: 2, adv: { maxLag: 10, tear: true, garble: true, deaf: [], mute: [] }, batch: 5, pollMs: 2, por, check: { inspect: { violation: () => true } } });
      for (const x of shards) expect(x.s.cutBy).toBeUndefined();
      expect(sorted(own.flatMap((o) => [...o]))).toEqual(full.fps);
      expect(shards.reduce((a, x) => a + x.sv.foreign.size, 0)).toBeGreaterThan(0);
    }
  });
});

describe('claims file format', () => {
  it('a batch is taken only whole and intact: every prefix gives nothing, every damaged byte is refused', () => {
    const claims = Uint32Array.from([1, 2, 0, 0xffffffff, 0, 3, 7, 9, 255]);
    const one = encodeBatch(claims, 3);
    const two = new Uint8Array([...one, ...encodeBatch(Uint32Array.from([5, 6, 1]), 1)]);
    expect([...decodeBatches(two).claims]).toEqual([1, 2, 0, 0xffffffff, 0, 3, 7, 9, 255, 5, 6, 1]);
    expect(decodeBatches(two).used).toBe(two.length);
    for (let n = 0; n < one.length; n++) {
      const got = decodeBatches(one.subarray(0, n));
      expect(got.claims.length, `prefix ${n}`).toBe(0);
      expect(got.used).toBe(0);
    }
    for (let i = 0; i < one.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bad = one.slice();
        bad[i] = bad[i]! ^ mask;
        const got = decodeBatches(bad);
        expect(got.claims.length, `byte ${i} ^ ${mask}`).toBe(0);
        expect(got.used).toBe(0);
      }
    }
    // A zero-filled region is no batch; nor is one whose mark does not fit in a byte, checksum or not.
    expect(decodeBatches(new Uint8Array(64))).toMatchObject({ used: 0, damaged: true });
    expect(decodeBatches(encodeBatch(Uint32Array.from([1, 2, 256]), 1))).toMatchObject({ used: 0, damaged: true });
    expect(() => encodeBatch(claims, 0)).toThrow(/1\.\.\d+ claims/);
    expect(MAX_BATCH).toBeGreaterThan(4096);
  });
});
