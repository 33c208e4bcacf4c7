// The exchange search (src/check/exchange-search.ts) with shards in this process that
// share only a run directory (in memory, read late): the shards' owned fingerprints are
// disjoint and together exactly one unreduced search's; a violation is found and its
// schedule replays from the initial world; budgets and a silent shard stop every shard.
import { describe, expect, it } from 'vitest';
import { rng, check, parseParams, replaySchedule, type Scenario, type CheckOptions } from 'interleave';
import { families } from 'interleave/machines';
import { joinRun } from '../../../src/check/distributed/exchange-dir.ts';
import { ExchangeSearch } from '../../../src/check/distributed/exchange-search.ts';
import { createWorldCodec } from '../../../src/check/codec/world-codec.ts';
import { chooseOwner } from '../../../src/check/distributed/exchange-owner.ts';
import { Session } from '../../../src/check/search/session.ts';
import { shardFingerprints } from '../../../src/check/distributed/shard.ts';
import { allToOne, randomSystem, tokenRing } from '../../fixtures/check/models.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';
import { DelayedStore } from '../../fixtures/check/exchange-harness.ts';
import { Inbox, Outbox, runTag } from '../../../src/check/distributed/exchange-transport.ts';

interface ShardRun {
  s: Session;
  e: ExchangeSearch;
  fps: BigUint64Array;
}

/** Runs `count` shards to the end, interleaving their slices in a seeded order. */
async function runShards(sc: Scenario, count: number, opts: { seed?: number; order?: 'bfs' | 'dfs'; maxLag?: number; check?: CheckOptions; dead?: number; silentMs?: number; stopAt?: number; failing?: number; ownerActor?: number; trustLanes?: boolean; linkLimit?: number; flush?: { flushWorlds: number; flushAgeWork: number } } = {}): Promise<ShardRun[]> {
  const store = new DelayedStore(opts.seed ?? 1, opts.maxLag ?? 5);
  const r = rng((opts.seed ?? 1) + 99);
  // One codec per shard, as one per process.
  const codecs = await Promise.all(Array.from({ length: count }, () => createWorldCodec(sc)));
  const shards = Array.from({ length: count }, (_, index) => {
    const io = store.view();
    // Joining reads run.json as written: shown late, joinRun waits for it in real 20 ms sleeps
    // (exchange-owner-share.test.ts joins over a late directory); these shards start together.
    const runId = joinRun({ ...io, read: (name) => (name === 'run.json' ? store.latest(name) : io.read(name)) }, '/shared/run', index, count, { scenario: sc.name, count });
    const s = new Session(sc, { strategy: opts.order ?? 'bfs', por: false, determinism: false, ...opts.check }, false);
    const e = new ExchangeSearch(s, { io, where: '/shared/run', runId, index, count, codec: index === opts.failing ? { encode: (w) => codecs[index]!.encode(w), decode: () => { throw new Error('cannot decode'); } } : codecs[index]!, timing: { now: () => store.clock, waveGapMs: opts.maxLag ?? 5, silentMs: opts.silentMs ?? 1e9, beatMs: 20 }, batchBytes: 2000, flushBytes: 600, flushAgeMs: 3, waveDelayMs: 2, order: opts.order ?? 'bfs', idleMs: 0, ...(opts.ownerActor === undefined ? {} : { ownerActor: opts.ownerActor }), ...(opts.trustLanes ? { verify: { first: 0, every: 1e9 } } : {}), ...(opts.linkLimit === undefined ? {} : { linkLimit: opts.linkLimit }), ...opts.flush });
    return { s, e, done: index === opts.dead };
  });
  while (shards.some((x) => !x.done)) {
    store.clock++;
    if (store.clock > 5_000_000) throw new Error('shards did not end');
    const live = shards.filter((x) => !x.done);
    const x = live[r.int(live.length)]!;
    // Ctrl-C on shard 1 (its `stop()` sets the session's flag).
    if (store.clock === opts.stopAt) shards[0]!.s.stopped = true;
    // A slice of 16 expansions (an `until` in the past).
    try {
      if (x.e.step(-Infinity)) x.done = true;
    } catch (e) {
      if (shards.indexOf(x) !== opts.failing) throw e;
      x.done = true;
    }
  }
  return shards.map(({ s, e }) => ({ s, e, fps: shardFingerprints(s, undefined) }));
}

/** The unreduced search's fingerprints, going on past violations (as the shards are asked to). */
async function fullSearch(sc: Scenario): Promise<{ fps: bigint[]; complete: boolean }> {
  let fps: bigint[] = [];
  const r = await check(sc, { strategy: 'bfs', por: false, shrink: false, inspect: { violation: () => true, fingerprints: (f) => void (fps = [...f]) } });
  return { fps, complete: r.complete };
}

const union = (rs: ShardRun[]) => rs.flatMap((x) => [...x.fps]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('exchange search, shards in one process sharing only a directory', () => {
  it('random systems (reducers; reducers and machines), a token ring and all-to-one: owned sets are disjoint and their union is the full search (2-3 shards, bfs and dfs, delays)', async () => {
    const models = [...Array.from({ length: 16 }, (_, k) => randomSystem(k + 1, k % 2 === 0)), tokenRing(4, 2, 2), allToOne(4, 3), ...[1, 2].map((k) => randomActors(k).sc)];
    let seed = 0;
    for (const sc of models) {
      seed++;
      const full = await fullSearch(sc);
      expect(full.complete).toBe(true);
      const count = 2 + (seed % 2);
      // Violations are recorded and the search goes on, so every world is compared.
      const shards = await runShards(sc, count, { seed, order: seed % 3 === 0 ? 'dfs' : 'bfs', maxLag: seed % 7, check: { inspect: { violation: () => true } } });
      const all = union(shards);
      expect(new Set(all).size, `${sc.name}: owned sets overlap`).toBe(all.length);
      expect(all, sc.name).toEqual(full.fps);
      for (const x of shards) {
        expect(x.e.outcome?.kind).toBe('complete');
        expect(x.s.cutBy).toBeUndefined();
      }
      // Worlds really crossed between shards.
      if (full.fps.length > 10) expect(shards.reduce((a, x) => a + x.e.counts().worldsReceivedNew, 0)).toBeGreaterThan(0);
    }
  });

  it('owned by one actor\'s snapshot (every actor in turn, and the sampled choice), received worlds hashed from the sender\'s lanes: owned sets are disjoint and their union is the full search', async () => {
    const models = [...Array.from({ length: 12 }, (_, k) => randomSystem(k + 40, k % 2 === 1)), tokenRing(4, 2, 2), allToOne(4, 3), randomActors(3).sc];
    let seed = 100;
    let chosen = 0;
    for (const sc of models) {
      const full = await fullSearch(sc);
      const count = 2 + (seed % 3);
      const pick = chooseOwner(sc, count, { symmetric: false, sample: 200 });
      if (pick.key.kind === 'actor') chosen++;
      const actors = [...new Set([...sc.ids.keys(), ...(pick.key.kind === 'actor' ? [pick.key.index] : [])])];
      for (const ownerActor of actors) {
        seed++;
        // Received worlds keep the sender's hash lanes, never hashed again here (as past the verified sample in a real run).
        const shards = await runShards(sc, count, { seed, ownerActor, trustLanes: true, order: seed % 2 === 0 ? 'dfs' : 'bfs', maxLag: seed % 5, check: { inspect: { violation: () => true } } });
        const all = union(shards);
        expect(new Set(all).size, `${sc.name} by actor ${ownerActor}: owned sets overlap`).toBe(all.length);
        expect(all, `${sc.name} by actor ${ownerActor}`).toEqual(full.fps);
        for (const x of shards) expect(x.e.outcome?.kind).toBe('complete');
      }
    }
    // The sample does pick an actor on some of these models (else the choice is untested).
    expect(chosen).toBeGreaterThan(0);
  });

  it('worlds carried through segment links (tables of 1 to 4,096 entries, emptied when full), batches written by count and by work: owned sets are disjoint, their union is the full search, and segments crossed as numbers', async () => {
    const models = [...Array.from({ length: 10 }, (_, k) => randomSystem(k + 70, k % 2 === 0)), tokenRing(4, 2, 2), allToOne(4, 3), randomActors(4).sc];
    let seed = 200;
    let byNumber = 0;
    let plain = 0;
    for (const sc of models) {
      const full = await fullSearch(sc);
      // Without an inspector a shard skips decoding a world it has seen, except to keep its link in step: where no property fails, run so.
      const ok = (await check(sc, { strategy: 'bfs', por: false, shrink: false })).ok;
      if (ok) plain++;
      for (const linkLimit of [1, 3, 17, 4096]) {
        seed++;
        const count = 2 + (seed % 3);
        const ownerActor = seed % 2 === 0 ? undefined : seed % sc.ids.length;
        // Batches also written by their number of worlds and by the work since their first world.
        const flush = seed % 2 === 0 ? { flushWorlds: 1 + (seed % 5), flushAgeWork: 1 + (seed % 7) } : undefined;
        const shards = await runShards(sc, count, { seed, linkLimit, ...(flush ? { flush } : {}), ...(ownerActor === undefined ? {} : { ownerActor }), trustLanes: seed % 4 === 1, order: seed % 3 === 0 ? 'dfs' : 'bfs', maxLag: seed % 6, ...(ok ? {} : { check: { inspect: { violation: () => true } } }) });
        const all = union(shards);
        expect(new Set(all).size, `${sc.name} links of ${linkLimit}: owned sets overlap`).toBe(all.length);
        expect(all, `${sc.name} links of ${linkLimit}`).toEqual(full.fps);
        for (const x of shards) expect(x.e.outcome?.kind).toBe('complete');
        byNumber += shards.reduce((a, x) => a + (x.e.counts().segmentsByNumber ?? 0), 0);
      }
    }
    expect(byNumber).toBeGreaterThan(0);
    expect(plain).toBeGreaterThan(2);
  });

  it('an idle shard is woken only by a batch it has still to read: not a temporary file, nor a batch it consumed', () => {
    const store = new DelayedStore(1, 0);
    const io = store.view();
    const tag = runTag('run');
    const out = new Outbox(io, tag, 2, 3, 1 << 20);
    const inbox = new Inbox(io, tag, 0, 3);
    out.add(0, 1, 2, new Uint8Array([1, 2, 3]), new Uint8Array(0), undefined);
    out.flushAll();
    expect(inbox.awaits('2-0.b')).toBe(true);
    expect(inbox.awaits('2-0.b.123-abcd.tmp')).toBe(false);
    expect(inbox.peek()).toBe(true);
    expect(inbox.take().map((x) => [x.from, x.a, x.b])).toEqual([[2, 1, 2]]);
    // Consumed (and deleted by this shard): its deletion is no news; the sender's next batch is.
    expect(inbox.awaits('2-0.b')).toBe(false);
    expect(inbox.awaits('2-1.b')).toBe(true);
    expect(inbox.awaits('1-0.b')).toBe(true);
    expect(inbox.awaits('7-0.b')).toBe(false);
  });

  it('a busy shard writes a batch once it holds enough worlds, or once it expanded enough worlds since its first', () => {
    const io = new DelayedStore(1, 0).view();
    const out = new Outbox(io, runTag('run'), 0, 3, 1 << 20);
    const world = new Uint8Array([1]);
    const ready = (work: number) => out.flushReady(0, Infinity, Infinity, 3, work, 10);
    out.add(1, 1, 1, world, world, undefined, 0, 0);
    out.add(1, 2, 2, world, world, undefined, 0, 1);
    out.add(2, 3, 3, world, world, undefined, 0, 5);
    ready(9);
    expect(out.sent).toBe(0);
    out.add(1, 4, 4, world, world, undefined, 0, 9);
    ready(9);
    expect([out.sent, out.records]).toEqual([1, 3]);
    // Shard 2's batch got its first world at work 5: 10 expansions later it goes.
    ready(14);
    expect(out.sent).toBe(1);
    ready(15);
    expect([out.sent, out.records]).toEqual([2, 4]);
  });

  it('the owner key: an actor whose snapshot keeps most steps home is taken at 16 shards though its sample spreads less evenly than the fingerprint\'s', () => {
    const f = families.find((x) => x.name === 'airflow-checkpoints')!;
    const sc = f.build(parseParams(f, { items: '7', taskConcurrency: '2' }));
    const pick = chooseOwner(sc, 16, { symmetric: false });
    const fp = chooseOwner(sc, 16, { symmetric: false, mode: 'fingerprint' });
    expect(pick.key.kind === 'actor' && pick.key.id).toBe('supervisor');
    expect(pick.balance).toBeGreaterThan(1.5);
    expect(pick.cross).toBeLessThan(fp.cross / 2);
    // Under symmetry, never an actor.
    expect(chooseOwner(sc, 16, { symmetric: true }).key.kind).toBe('fingerprint');
  });

    it('a violation: one shard finds it, every shard stops, and its schedule replays from the initial world', async () => {
    let tried = 0;
    for (let seed = 1; tried < 4 && seed < 200; seed++) {
      const sc = randomSystem(seed, true);
      const single = await check(sc, { strategy: 'bfs', por: false, shrink: false });
      if (single.ok) continue;
      tried++;
      const shards = await runShards(sc, 2, { seed, maxLag: 3 });
      const finders = shards.filter((x) => x.s.found);
      expect(finders.length, `seed ${seed}`).toBeGreaterThanOrEqual(1);
      for (const x of shards) expect(x.e.outcome?.kind).toBe('stopped');
      const f = finders[0]!.s.found!;
      const out = replaySchedule(sc, f.schedule);
      expect(out.violation?.property.name, `seed ${seed}`).toBe(f.property.name);
      for (const x of shards.filter((y) => !y.s.found)) expect(x.s.cutBy).toBe('stopped');
    }
    expect(tried).toBe(4);
  });

  it('a shard that never starts: the others stop, naming it, instead of waiting forever', async () => {
    const sc = randomSystem(3);
    const shards = await runShards(sc, 3, { dead: 2, silentMs: 2000 });
    for (const x of shards.slice(0, 2)) {
      expect(x.e.outcome?.kind).toBe('stopped');
      expect(x.s.cutBy).toBe('stopped');
    }
    const note = shards.map((x) => x.e.outcome).find((o) => o?.kind === 'stopped' && o.note.reason === 'silent');
    expect(note?.kind === 'stopped' && note.note.message).toContain('shard 3/3 has not started');
  });

  it('a state budget on one shard stops every shard, incomplete', async () => {
    const sc = randomSystem(5, true);
    const shards = await runShards(sc, 2, { check: { maxStates: 4 } });
    expect(shards.some((x) => x.s.cutBy === 'maxStates')).toBe(true);
    for (const x of shards) {
      expect(x.e.outcome?.kind).toBe('stopped');
      expect(x.s.cutBy).toBeDefined();
    }
  });

  it('Ctrl-C on one shard stops every shard, incomplete', async () => {
    const sc = allToOne(6, 3);
    const shards = await runShards(sc, 2, { stopAt: 20 });
    expect(shards[0]!.s.cutBy).toBe('stopped');
    for (const x of shards) {
      const o = x.e.outcome;
      expect(o?.kind === 'stopped' && o.note.reason).toBe('stopped');
      expect(x.s.cutBy).toBe('stopped');
    }
  });

  it('a shard that fails stops the others at once, naming it', async () => {
    const shards = await runShards(allToOne(4, 3), 2, { failing: 1 });
    const o = shards[0]!.e.outcome;
    expect(o?.kind === 'stopped' && o.note.reason).toBe('error');
    expect(o?.kind === 'stopped' && o.note.message).toContain('shard 2/2 failed: cannot decode');
  });
});
