// Sampling: seeded random walks and PCT, each run replaying alone from its seed;
// PCT finds a depth-2 ordering bug that uniform random rarely finds; the swarm
// spreads runs over worker threads and shards without changing which run fails.
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { deriveSeed, estimateK, runOne } from 'interleave/kernel';
import { check, checkRun, type SampleConfig } from 'interleave';
import { lostUpdate, orderingBug } from '../../fixtures/check/models.ts';

const MODELS = new URL('../../fixtures/check/models.ts', import.meta.url).pathname;

describe('random and pct runs', () => {
  it('random finds the lost update, and the failing run replays alone from its seed', async () => {
    const sc = lostUpdate({ noise: 4 });
    const r = await check(sc, { strategy: 'random', seed: 42, runs: 100, shrink: false });
    expect(r.ok).toBe(false);
    expect(r.complete).toBe(false);
    const seed = r.violation!.seed!;
    const alone = runOne(sc, { strategy: 'random', root: 42, maxDepth: 10_000, faultRate: 0.1 }, seed);
    expect(alone.found?.property).toEqual(r.violation!.property);
    expect(alone.found?.schedule).toEqual(r.violation!.schedule);
  });

  it('a clean model reports runs and stays incomplete', async () => {
    const r = await check(lostUpdate({ cas: true }), { strategy: 'random', seed: 1, runs: 50 });
    expect(r.ok).toBe(true);
    expect(r.complete).toBe(false);
    expect(r.cutBy).toBe('runs');
    expect(r.stats.runs).toBe(50);
    expect(r.stats.states).toBeGreaterThan(10);
    expect(r.stats.distinctStates).toBeUndefined();
  });

  it('pct returns its seed-derived options', async () => {
    const r = await check(orderingBug(6, 2), { strategy: 'pct', seed: 5, runs: 500, depth: 2 });
    expect(r.ok).toBe(false);
    expect(r.options.pct).toEqual({ depth: 2, k: 12 });
    expect(r.violation!.property.kind).toBe('monitor');
  });

  it('PCT finds a depth-2 ordering bug that uniform random rarely finds (counts over seeds)', () => {
    const K = 10;
    const sc = orderingBug(K, 2);
    const k = estimateK(sc, 1000, 0.1);
    const pct: SampleConfig = { strategy: 'pct', root: 0, maxDepth: 1000, faultRate: 0.1, pct: { depth: 2, k } };
    const random: SampleConfig = { strategy: 'random', root: 0, maxDepth: 1000, faultRate: 0.1 };
    let byPct = 0,
      byRandom = 0;
    const n = 1500;
    for (let i = 0; i < n; i++) {
      const seed = deriveSeed(99, i);
      if (runOne(sc, pct, seed).found) byPct++;
      if (runOne(sc, random, seed).found) byRandom++;
    }
    // Theory: pct >= 1/(n k) per run, about 1/60 here; random about 2^-(K+1).
    expect(byPct).toBeGreaterThan(n / 100);
    expect(byPct).toBeGreaterThan(8 * Math.max(1, byRandom));
  });
});

describe('swarm', () => {
  const source = { module: MODELS, export: 'orderingBug', args: [8, 2] };
  const opts = { strategy: 'swarm' as const, seed: 7, runs: 3000, depth: 2, shrink: false };

  it('worker threads report the same failing run as one thread (the lowest failing index)', async () => {
    const sc = orderingBug(8, 2);
    const one = await check(sc, { ...opts, workers: 0 });
    const two = await check(sc, { ...opts, workers: 2, source });
    expect(one.ok).toBe(false);
    expect(two.options.workers).toBe(2);
    expect(two.options.failingRun).toBeDefined();
    expect(two.violation!.seed).toBe(one.violation!.seed);
    expect(two.violation!.schedule).toEqual(one.violation!.schedule);
    expect(two.violation!.seed).toBe(deriveSeed(7, two.options.failingRun as number));
  });

  it('shards split the run indices disjointly', async () => {
    const sc = lostUpdate({ cas: true });
    const src = { module: MODELS, export: 'lostUpdate', args: [{ cas: true }] };
    const all = await check(sc, { strategy: 'swarm', seed: 3, runs: 90, workers: 0 });
    const a = await check(sc, { strategy: 'swarm', seed: 3, runs: 90, workers: 2, source: src, shard: { index: 0, count: 3 } });
    const b = await check(sc, { strategy: 'swarm', seed: 3, runs: 90, workers: 0, shard: { index: 1, count: 3 } });
    const c = await check(sc, { strategy: 'swarm', seed: 3, runs: 90, workers: 0, shard: { index: 2, count: 3 } });
    expect([a, b, c].every((r) => r.ok)).toBe(true);
    expect(all.stats.runs).toBe(90);
    expect([a, b, c].map((r) => r.stats.runs)).toEqual([30, 30, 30]);
    expect(a.stats.transitions + b.stats.transitions + c.stats.transitions).toBe(all.stats.transitions);
  });

  it('a worker rebuilds a bundled family from its module, as it rebuilds a user module', async () => {
    const { findFamily, familySource } = await import('interleave/machines');
    const fam = findFamily('lost-update')!;
    const params = { design: 'read-then-write', clients: 2 };
    const sc = fam.build(params);
    const source = familySource('lost-update', params)!;
    const r = await check(sc, { strategy: 'swarm', seed: 1, runs: 200, workers: 1, swarmStrategy: 'random', source });
    expect(r.options.workers).toBe(1);
    expect(r.options.source).toMatchObject({ export: 'lostUpdateFamily' });
    expect(r.ok).toBe(false);
  });

  it("reports each worker's start-up from its thread's creation, within the check's own time", async () => {
    const sc = lostUpdate({ cas: true });
    const t0 = performance.now();
    const r = await check(sc, { strategy: 'swarm', seed: 4, runs: 40, workers: 2, source: { module: MODELS, export: 'lostUpdate', args: [{ cas: true }] } });
    const wall = performance.now() - t0;
    const up = r.options.workerStartupMs as { mean: number; max: number };
    expect(up.max).toBeGreaterThan(0);
    expect(up.mean).toBeLessThanOrEqual(up.max);
    // A worker's performance.now() counts from the process's start in Node 20: read as the
    // start-up, it would exceed the whole check by the time the process ran before it.
    expect(up.max).toBeLessThan(wall);
  });

  it('says so when it is asked for more workers than the machine has cores', async () => {
    const src = { module: MODELS, export: 'lostUpdate', args: [{ cas: true }] };
    const cores = availableParallelism();
    const over = await check(lostUpdate({ cas: true }), { strategy: 'swarm', seed: 5, runs: 2 * (cores + 1), workers: cores + 1, source: src });
    expect(over.options.workers).toBe(cores + 1);
    expect(over.options.workersNote).toBe(`${cores + 1} worker threads on ${cores} cores take turns on them: more workers than cores rarely run faster, and each adds its start-up (by default there is one a core)`);
    const one = await check(lostUpdate({ cas: true }), { strategy: 'swarm', seed: 5, runs: 4, workers: 1, source: src });
    expect(one.options.workersNote).toBeUndefined();
  });

  it('stop() ends a swarm: workers quit and the result says stopped', async () => {
    const sc = lostUpdate({ cas: true });
    const run = checkRun(sc, { strategy: 'swarm', seed: 2, runs: 1_000_000, workers: 1, source: { module: MODELS, export: 'lostUpdate', args: [{ cas: true }] } });
    run.progress$.subscribe((p) => {
      if ((p.runs ?? 0) > 0) run.stop();
    });
    const r = await run.result;
    expect(r.ok).toBe(true);
    expect(r.complete).toBe(false);
    expect(r.cutBy).toBe('stopped');
    expect(r.stats.runs).toBeGreaterThan(0);
    expect(r.stats.runs).toBeLessThan(1_000_000);
  });

  it('without a source it runs in this thread and says so', async () => {
    const r = await check(orderingBug(4, 1), { strategy: 'swarm', seed: 1, runs: 100, workers: 2, depth: 1 });
    expect(r.options.workers).toBe(0);
    expect(String(r.options.swarmNote)).toContain('no scenario source');
    expect(r.ok).toBe(false);
  });
});
