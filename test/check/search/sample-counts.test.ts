// A sampled check (random, pct, pos, swarm) hashes the worlds its runs meet only when
// something needs the count: `countDistinct: true` or a `maxStates` budget. Without it the
// runs, the verdict, the counterexample and the unreached goals are the same (random
// systems, every sampling strategy), and `stats.distinctStates` is absent, not a wrong 0.
import { describe, expect, it } from 'vitest';
import { check, checkRun, expectHolds, type CheckOptions, type CheckResult } from 'interleave';
import { lostUpdate, orderingBug, randomSystem } from '../../fixtures/check/models.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';

const MODELS = new URL('../../fixtures/check/models.ts', import.meta.url).pathname;

/** What a sampled check decided and did, without the figures that need fingerprints. */
function decided(r: CheckResult) {
  const v = r.violation;
  return {
    ok: r.ok,
    complete: r.complete,
    cutBy: r.cutBy,
    violation: v ? { property: v.property, seed: v.seed, schedule: v.schedule, originalLength: v.originalLength } : undefined,
    unreached: r.unreached,
    runs: r.stats.runs,
    states: r.stats.states,
    transitions: r.stats.transitions,
    maxDepth: r.stats.maxDepth,
  };
}

describe('distinct states in sampled checks', () => {
  it('counting them or not changes nothing a sampled check decides (random systems, random / pct / pos)', async () => {
    let violating = 0,
      withGoals = 0;
    for (let seed = 0; seed < 24; seed++) {
      const systems = [randomSystem(seed, seed % 2 === 0), randomActors(seed, { extended: true }).sc];
      for (const sc of systems) {
        if (Object.keys(sc.reachable ?? {}).length > 0) withGoals++;
        for (const strategy of ['random', 'pct', 'pos'] as const) {
          const opts: CheckOptions = { strategy, seed, runs: 30, liveness: false };
          const counted = await check(sc, { ...opts, countDistinct: true });
          const plain = await check(sc, opts);
          const at = `${strategy} on ${sc.name} (seed ${seed})`;
          expect(decided(plain), at).toEqual(decided(counted));
          expect(counted.stats.distinctStates, at).toBeGreaterThan(0);
          expect(counted.stats.distinctStates, at).toBeLessThanOrEqual(counted.stats.states);
          expect(plain.stats.distinctStates, at).toBeUndefined();
          expect(plain.stats.statesPerSecond, at).toBeUndefined();
          expect(plain.options.distinctStatesNote, at).toMatch(/not counted.*countDistinct: true/);
          expect(counted.options.distinctStatesNote, at).toBeUndefined();
          if (!plain.ok) violating++;
        }
      }
    }
    // The comparison covered failing and passing checks, and scenarios with reachable goals.
    expect(violating).toBeGreaterThan(10);
    expect(withGoals).toBeGreaterThan(5);
  });

  it('without the count, unreached goals are still decided on every world the runs meet', async () => {
    const sc = lostUpdate({ cas: true, unreachable: true });
    const r = await check(sc, { strategy: 'pos', seed: 3, runs: 50 });
    expect(r.stats.distinctStates).toBeUndefined();
    expect(r.unreached).toEqual(['valueIsHundred']);
  });

  it('expectHolds on a sampled check names the states it met, not an uncounted distinct count', async () => {
    const r = await check(lostUpdate({ cas: true }), { strategy: 'pos', seed: 1, runs: 20 });
    expect(() => expectHolds(r)).toThrow(new RegExp(`pos sampled 20 runs \\(sampling never proves absence\\) \\(${r.stats.states} states\\)`));
    const counted = await check(lostUpdate({ cas: true }), { strategy: 'pos', seed: 1, runs: 20, countDistinct: true });
    expect(() => expectHolds(counted)).toThrow(`(${counted.stats.distinctStates!} distinct states)`);
  });

  it('a maxStates budget counts them, and cuts the runs there', async () => {
    const r = await check(lostUpdate({ cas: true }), { strategy: 'pos', seed: 1, runs: 10_000, maxStates: 30 });
    expect(r.cutBy).toBe('maxStates');
    expect(r.stats.distinctStates).toBeGreaterThanOrEqual(30);
    expect(r.stats.runs).toBeLessThan(10_000);
  });

  it('progress reports them only when counted', async () => {
    for (const countDistinct of [false, true]) {
      const run = checkRun(lostUpdate({ cas: true }), { strategy: 'random', seed: 1, runs: 200, countDistinct });
      const seen: (number | undefined)[] = [];
      run.progress$.subscribe((p) => void seen.push(p.distinctStates));
      await run.result;
      expect(seen.length).toBeGreaterThan(0);
      if (countDistinct) expect(seen.every((d) => typeof d === 'number')).toBe(true);
      else expect(seen.every((d) => d === undefined)).toBe(true);
    }
  });

  it('a swarm over worker threads counts them per worker only when asked', async () => {
    const opts: CheckOptions = { strategy: 'swarm', swarmStrategy: 'pos', seed: 7, runs: 300, workers: 1, shrink: false, source: { module: MODELS, export: 'orderingBug', args: [6, 3, 0, false] } };
    const sc = orderingBug(6, 3, 0, false);
    const plain = await check(sc, opts);
    const counted = await check(sc, { ...opts, countDistinct: true });
    expect([plain.options.workers, counted.options.workers]).toEqual([1, 1]);
    expect(decided(plain)).toEqual(decided(counted));
    expect(plain.stats.distinctStates).toBeUndefined();
    expect(plain.options.distinctStatesNote).toMatch(/not counted/);
    expect(counted.stats.distinctStates).toBeGreaterThan(0);
    expect(counted.options.distinctStatesNote).toBe('distinct states are counted per worker and summed');
  });

  it('dfs and bfs always count: countDistinct: false is refused there', async () => {
    for (const strategy of ['dfs', 'bfs'] as const) {
      await expect(check(lostUpdate(), { strategy, countDistinct: false })).rejects.toThrow(/countDistinct: false applies to sampled strategies; .* always counts distinct states/);
    }
    const r = await check(lostUpdate({ cas: true }), { strategy: 'bfs', countDistinct: true });
    expect(r.stats.distinctStates).toBeGreaterThan(0);
  });
});
