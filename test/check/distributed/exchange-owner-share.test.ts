// One owner sample per exchange run (src/check/distributed/exchange-owner-share.ts): shards
// that join at different times over a directory that shows files late all report the key
// a lone sample picks, and only the shard that took the lock sampled; a shard whose
// sampler never writes samples itself after the wait and gets the same key.
import { describe, expect, it } from 'vitest';
import { parseParams, rng } from 'interleave';
import { families } from 'interleave/machines';
import { joinRun } from '../../../src/check/distributed/exchange-dir.ts';
import { chooseOwner } from '../../../src/check/distributed/exchange-owner.ts';
import { shareOwner } from '../../../src/check/distributed/exchange-owner-share.ts';
import { DelayedStore } from '../../fixtures/check/exchange-harness.ts';

const airflow = () => {
  const f = families.find((x) => x.name === 'airflow-checkpoints')!;
  return f.build(parseParams(f, { items: '4', taskConcurrency: '2' }));
};

describe('the owner choice is sampled once per exchange run', () => {
  it('shards starting in a seeded order, reading late: one sample, the same choice in all', async () => {
    const sc = airflow();
    const count = 4;
    const alone = chooseOwner(sc, count, { symmetric: false, sample: 300 });
    for (const seed of [1, 2, 3]) {
      const store = new DelayedStore(seed, 3);
      const r = rng(seed);
      const order = [0, 1, 2, 3].sort(() => r.int(3) - 1);
      // Every wait advances the shared clock, so a late-shown owner.json turns up.
      const sleep = async () => {
        store.clock++;
        await Promise.resolve();
      };
      const picks = await Promise.all(
        order.map(async (index, k) => {
          for (let i = 0; i < k; i++) await sleep();
          const io = store.view();
          const runId = joinRun(io, '/shared/run', index, count, { scenario: sc.name, count });
          return { index, runId, pick: await shareOwner(io, runId, index, sc, count, { symmetric: false, sample: 300, sleep, pollMs: 1, waitMs: 1e6 }) };
        }),
      );
      expect(new Set(picks.map((p) => p.runId)).size).toBe(1);
      // The first shard to join sampled; every shard reports it and its choice.
      for (const p of picks) {
        expect(p.pick.sampledBy, `seed ${seed} shard ${p.index}`).toBe(order[0]);
        expect(p.pick.key).toEqual(alone.key);
        expect(p.pick.sampled).toEqual(alone.sampled);
        expect(p.pick.why).toBe(alone.why);
      }
    }
  });

  it('a sampler that never writes: the waiting shard samples itself after the wait, the same key', async () => {
    const sc = airflow();
    const store = new DelayedStore(1, 0);
    const io = store.view();
    const runId = joinRun(io, '/shared/run', 1, 2, { scenario: sc.name, count: 2 });
    // Shard 1 took the lock and was killed before writing owner.json.
    expect(io.create('owner-lock', JSON.stringify({ runId, by: 0 }))).toBe(true);
    let waits = 0;
    const pick = await shareOwner(io, runId, 1, sc, 2, { symmetric: false, sample: 300, pollMs: 10, waitMs: 50, sleep: async () => void waits++ });
    expect(waits).toBe(5);
    expect(pick.sampledBy).toBe(1);
    expect(pick.key).toEqual(chooseOwner(sc, 2, { symmetric: false, sample: 300 }).key);
  });

  it('an owner.json of another run id or naming another actor is not taken; no sample at all with owner fingerprint, one shard or symmetry', async () => {
    const sc = airflow();
    const store = new DelayedStore(1, 0);
    const io = store.view();
    io.create('owner-lock', '{}\n');
    io.write('owner.json', JSON.stringify({ runId: 'other', sampledBy: 0, key: { kind: 'actor', index: 0, id: 'x' }, sampled: { states: 1, transitions: 1 }, cross: 0, balance: 1, why: 'stale' }));
    const pick = await shareOwner(io, 'mine', 1, sc, 2, { symmetric: false, sample: 300, pollMs: 10, waitMs: 20, sleep: async () => undefined });
    expect(pick.why).not.toBe('stale');
    expect(pick.sampledBy).toBe(1);
    // Nor one naming an actor this scenario does not have at that index.
    io.write('owner.json', JSON.stringify({ runId: 'mine', sampledBy: 0, key: { kind: 'actor', index: 0, id: 'no-such-actor' }, sampled: { states: 1, transitions: 1 }, cross: 0, balance: 1, why: 'stale' }));
    const other = await shareOwner(io, 'mine', 1, sc, 2, { symmetric: false, sample: 300, pollMs: 10, waitMs: 20, sleep: async () => undefined });
    expect([other.why === 'stale', other.sampledBy]).toEqual([false, 1]);
    for (const o of [{ symmetric: false, mode: 'fingerprint' as const }, { symmetric: true }]) {
      const p = await shareOwner(new DelayedStore(1, 0).view(), 'r', 0, sc, 2, o);
      expect([p.key.kind, p.sampledBy, p.sampled.transitions]).toEqual(['fingerprint', undefined, 0]);
    }
    const one = await shareOwner(new DelayedStore(1, 0).view(), 'r', 0, sc, 1, { symmetric: false });
    expect([one.key.kind, one.sampledBy]).toEqual(['fingerprint', undefined]);
  });
});
