// Termination detection of exchange runs (src/check/exchange-termination.ts) under
// artificial delays: shards pass tokens through the real batch files and status files of
// an in-memory directory whose readers see every file late (up to `maxLag` ticks of a
// virtual clock, older versions included), interleaved in a seeded random order. An
// oracle that sees everything checks each detection: no shard holds work, no batch is
// waiting or unwritten. With the wave gap below the lag the detector can be fooled, and
// the oracle sees it (so the check can fail).
import { describe, expect, it } from 'vitest';
import { rng } from 'interleave';
import { Termination } from '../../../src/check/distributed/exchange-termination.ts';
import { Inbox, Outbox, runTag } from '../../../src/check/distributed/exchange-transport.ts';
import { DelayedStore } from '../../fixtures/check/exchange-harness.ts';

interface Sim {
  /** Every detection, and whether the oracle agreed it was over. */
  detections: { shard: number; at: number; sound: boolean }[];
  processed: number;
  spawned: number;
  allDetected: boolean;
  waves: number;
}

function simulate(seed: number, n: number, maxLag: number, waveGapMs: number, ticks = 200_000): Sim {
  const store = new DelayedStore(seed, maxLag);
  const r = rng(seed * 7 + 1);
  const tag = runTag('run');
  const shards = Array.from({ length: n }, (_, i) => {
    const io = store.view();
    return {
      out: new Outbox(io, tag, i, n, 40),
      inbox: new Inbox(io, tag, i, n),
      term: new Termination(io, 'run', i, n, { now: () => store.clock, waveGapMs, silentMs: Infinity, beatMs: 25 }),
      work: [] as number[],
      done: false,
    };
  });
  shards[0]!.work.push(5, 4, 4);
  let spawned = 3;
  let processed = 0;
  const detections: Sim['detections'] = [];
  const oracle = () => shards.every((x) => x.work.length === 0 && !x.out.pending) && !store.names().some((f) => f.startsWith('in-'));
  while (store.clock < ticks && shards.some((x) => !x.done)) {
    store.clock++;
    const live = shards.filter((x) => !x.done);
    const me = live[r.int(live.length)]!;
    const i = shards.indexOf(me);
    const budget = me.work.pop();
    if (budget !== undefined) {
      processed++;
      const kids = budget > 0 ? r.int(3) + (budget > 3 ? 1 : 0) : 0;
      for (let k = 0; k < kids; k++) {
        spawned++;
        const to = r.int(n);
        if (to === i) me.work.push(budget - 1);
        else me.out.add(to, 0, 0, Uint8Array.of(budget - 1), new Uint8Array(0), undefined);
      }
      if (r.int(3) === 0) me.out.flushAll();
      me.term.tick(me.out.sent, me.inbox.received);
      continue;
    }
    me.out.flushAll();
    if (me.inbox.peek()) {
      me.term.active(me.out.sent, me.inbox.received);
      for (const x of me.inbox.take()) me.work.push(x.world[0]!);
      continue;
    }
    const v = me.term.idle(me.out.sent, me.inbox.received);
    if (v?.kind === 'terminated') {
      detections.push({ shard: i, at: store.clock, sound: oracle() });
      me.done = true;
    }
  }
  return { detections, processed, spawned, allDetected: shards.every((x) => x.done), waves: shards.reduce((a, x) => a + x.term.waves, 0) };
}

describe('termination detection with delayed file visibility', () => {
  it('never detects early, and every shard detects the end, when the wave gap covers the delay (40 seeds, 2-4 shards)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const n = 2 + (seed % 3);
      const sim = simulate(seed, n, 30, 30);
      expect(sim.allDetected, `seed ${seed}`).toBe(true);
      expect(sim.detections.every((d) => d.sound), `seed ${seed}: ${JSON.stringify(sim.detections)}`).toBe(true);
      // Every token sent was received and processed.
      expect(sim.processed, `seed ${seed}`).toBe(sim.spawned);
    }
  });

  it('with no delay and no gap it is sound as well', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const sim = simulate(seed, 3, 0, 0);
      expect(sim.allDetected).toBe(true);
      expect(sim.detections.every((d) => d.sound)).toBe(true);
      expect(sim.processed).toBe(sim.spawned);
    }
  });

  it('the oracle catches an unsound setting: files read up to 40 ticks stale with no wave gap', () => {
    const fooled = Array.from({ length: 40 }, (_, k) => k + 1).find((seed) => simulate(seed, 3, 40, 0, 20_000).detections.some((d) => !d.sound));
    expect(fooled).toBeDefined();
  });
});
