// What a check promises about itself (issue 13, defect 5 and the collision note):
// expectHolds refuses an incomplete search, shrinking is bounded by work (so its
// output does not depend on load), the passing schedule says what it is, and the
// fingerprint collision risk is reported as TLC does.
import { describe, expect, it } from 'vitest';
import { check, expectHolds, toTraceFile } from 'interleave';
import { collisionProbability, shrinkSchedule } from 'interleave/kernel';
import { lostUpdate, orderingBug } from '../fixtures/check/models.ts';

describe('expectHolds', () => {
  it('fails on a search cut by a budget, and on sampling, unless the caller allows it', async () => {
    const cut = await check(lostUpdate({ cas: true, clients: 3, rounds: 2 }), { strategy: 'bfs', maxStates: 50 });
    expect(cut.ok).toBe(true);
    expect(cut.complete).toBe(false);
    expect(() => expectHolds(cut)).toThrow(/not complete: the search was cut by maxStates/);
    expect(() => expectHolds(cut, { allowIncomplete: true })).not.toThrow();
    const sampled = await check(lostUpdate({ cas: true }), { strategy: 'random', runs: 20, seed: 3 });
    expect(() => expectHolds(sampled)).toThrow(/sampling never proves absence/);
    const full = await check(lostUpdate({ cas: true }), { strategy: 'bfs' });
    expect(() => expectHolds(full)).not.toThrow();
  });
});

describe('shrinking is bounded by work, not time', () => {
  it('gives the same counterexample under any load, and stops at its replay and step budgets', async () => {
    const sc = lostUpdate({ clients: 3 });
    const r = await check(sc, { strategy: 'dfs', shrink: false });
    const v = r.violation!;
    const a = shrinkSchedule(sc, v.property, v.schedule);
    // Hog the CPU between runs: a time bound would cut the second one short.
    const t0 = performance.now();
    while (performance.now() - t0 < 50);
    const b = shrinkSchedule(sc, v.property, v.schedule);
    expect(b).toEqual(a);
    expect(a.length).toBeLessThan(v.schedule.length);
    // One replay of budget: only the first candidate (the schedule itself) is tried.
    expect(shrinkSchedule(sc, v.property, v.schedule, { maxReplays: 1 })).toEqual(v.schedule);
    expect(shrinkSchedule(sc, v.property, v.schedule, { maxSteps: v.schedule.length })).toEqual(v.schedule);
  });
});

describe('the passing schedule says what it is', () => {
  it('names the moved step and the bounded greedy search, in the result and the trace file', async () => {
    const sc = orderingBug(3, 2);
    const r = await check(sc, { strategy: 'bfs' });
    const v = r.violation!;
    expect(v.passing).toBeDefined();
    expect(v.passingNote).toMatch(/^step \d+ \(.+\) moved before step \d+.*greedy search over single moves, nearest first, \d+ of at most 200 replays; not proven nearest/);
    const file = toTraceFile(sc, v, { params: {}, options: r.options, seed: r.seed });
    expect(file.passing?.note).toBe(v.passingNote);
  });
});

describe('fingerprint collision risk', () => {
  it('is TLC\'s optimistic estimate n (m - n) / 2^64, reported by dfs/bfs only', async () => {
    expect(collisionProbability(0, 0)).toBe(0);
    expect(collisionProbability(1e6, 3e6)).toBeCloseTo((1e6 * 2e6) / 2 ** 64, 20);
    expect(collisionProbability(2 ** 40, 2 ** 41)).toBe(1);
    const r = await check(lostUpdate({ cas: true }), { strategy: 'bfs' });
    expect(r.collisionProbability).toBe(collisionProbability(r.stats.distinctStates!, r.stats.states));
    expect(r.collisionProbability).toBeGreaterThan(0);
    const sampled = await check(lostUpdate({ cas: true }), { strategy: 'random', runs: 5, seed: 1 });
    expect(sampled.collisionProbability).toBeUndefined();
  });
});
