// Partial-order reduction is sound: on several small models, the reachable
// quiescent worlds and the violated properties are the same with and without it,
// and it computes fewer states.
import { describe, expect, it } from 'vitest';
import { check, type Scenario } from 'interleave';
import { exploreSets } from '../../fixtures/check/explore-sets.ts';
import { counterModel, diningLocks, lostUpdate, orderingBug, randomSystem, retryModel, tokenRing } from '../../fixtures/check/models.ts';

const explore = (sc: Scenario, strategy: 'dfs' | 'bfs', por: boolean) => exploreSets(sc, strategy, por);

const models: [string, () => Scenario][] = [
  ['lost update (invariant)', () => lostUpdate()],
  ['lost update at quiescence, 3 clients', () => lostUpdate({ clients: 3, asEventually: true })],
  ['compare-and-set, 2 rounds', () => lostUpdate({ cas: true, rounds: 2 })],
  ['locks (deadlock)', () => diningLocks()],
  ['counter (eventually)', () => counterModel(3, 3)],
  ['token ring', () => tokenRing(4, 1, 2)],
  ['timers and a drop fault', () => retryModel(2)],
  ['monitor with watches (steps it ignores commute)', () => orderingBug(3, 2, 3)],
];

describe('POR (stubborn sets + sleep sets) is sound on hand models', () => {
  for (const [name, make] of models) {
    it(`${name}: same quiescent worlds, same violations, fewer states`, async () => {
      const sc = make();
      for (const strategy of ['dfs', 'bfs'] as const) {
        const full = await explore(sc, strategy, false);
        const red = await explore(sc, strategy, true);
        expect(full.r.complete && red.r.complete).toBe(true);
        expect(red.r.options.por).toBe(true);
        expect(full.quiescent.size).toBeGreaterThan(0);
        expect([...red.quiescent].sort()).toEqual([...full.quiescent].sort());
        expect([...red.violated].sort()).toEqual([...full.violated].sort());
        // Stubborn sets skip states; sleep sets prune transitions.
        expect(red.r.stats.distinctStates!).toBeLessThanOrEqual(full.r.stats.distinctStates!);
        expect(red.r.stats.states).toBeLessThan(full.r.stats.states);
        expect(red.r.stats.transitions).toBeLessThan(full.r.stats.transitions);
      }
    });
  }

  it('random little systems (40 seeds): same quiescent worlds, violations and distinct states', async () => {
    let reduced = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const sc = randomSystem(seed);
      for (const strategy of ['dfs', 'bfs'] as const) {
        const full = await explore(sc, strategy, false);
        const red = await explore(sc, strategy, true);
        expect([...red.quiescent].sort(), `seed ${seed} ${strategy}`).toEqual([...full.quiescent].sort());
        expect([...red.violated].sort(), `seed ${seed} ${strategy}`).toEqual([...full.violated].sort());
        expect(red.r.stats.distinctStates!, `seed ${seed} ${strategy}`).toBeLessThanOrEqual(full.r.stats.distinctStates!);
        expect(red.r.stats.transitions).toBeLessThanOrEqual(full.r.stats.transitions);
        if (red.r.stats.transitions < full.r.stats.transitions) reduced++;
      }
    }
    expect(reduced).toBeGreaterThan(40);
  });

  it('the first violation reported is the full search\'s, with POR on (hand and random models, dfs and bfs)', async () => {
    let compared = 0;
    let reran = 0;
    const cases: [string, Scenario][] = models.map(([name, make]) => [name, make()]);
    for (let seed = 1; seed <= 40; seed++) cases.push([`random seed ${seed}`, randomSystem(seed)]);
    for (const [name, sc] of cases) {
      for (const strategy of ['dfs', 'bfs'] as const) {
        const full = await check(sc, { strategy, por: false, shrink: false });
        const red = await check(sc, { strategy, por: true, shrink: false });
        expect(red.ok, `${name} ${strategy}`).toBe(full.ok);
        if (full.ok) continue;
        // Same property, same schedule (bfs: a shortest one of the full graph).
        expect(red.violation!.property, `${name} ${strategy}`).toEqual(full.violation!.property);
        expect(red.violation!.schedule, `${name} ${strategy}`).toEqual(full.violation!.schedule);
        compared++;
        if ((red.options.firstViolation as { search: string }).search === 'unreduced') reran++;
      }
    }
    expect(compared).toBeGreaterThan(40);
    expect(reran).toBeGreaterThan(10);
  });

  it('random little systems with crash, restart and drop faults (20 seeds)', async () => {
    let reduced = 0;
    for (let seed = 100; seed < 120; seed++) {
      const sc = randomSystem(seed, true);
      const full = await explore(sc, 'dfs', false);
      const red = await explore(sc, 'dfs', true);
      expect([...red.quiescent].sort(), `seed ${seed}`).toEqual([...full.quiescent].sort());
      expect([...red.violated].sort(), `seed ${seed}`).toEqual([...full.violated].sort());
      expect(red.r.stats.distinctStates!, `seed ${seed}`).toBeLessThanOrEqual(full.r.stats.distinctStates!);
      if (red.r.stats.transitions < full.r.stats.transitions) reduced++;
    }
    expect(reduced).toBeGreaterThan(10);
  });

  it('the models above do violate what they should', async () => {
    expect([...(await explore(lostUpdate(), 'bfs', true)).violated]).toEqual(['invariant:noLostUpdate']);
    expect([...(await explore(diningLocks(), 'bfs', true)).violated]).toEqual(['deadlock:deadlock']);
    expect([...(await explore(orderingBug(3, 2), 'bfs', true)).violated]).toEqual(['monitor:order']);
  });

  it('turns itself off for a monitor that does not declare watches, and says why', async () => {
    const base = orderingBug(3, 1);
    const { watches: _w, ...blind } = base.monitorDefs[0] as any;
    const sc = { ...base, monitorDefs: [blind] } as Scenario;
    const r = await check(sc, { strategy: 'bfs', shrink: false });
    expect(r.options.por).toBe(false);
    expect(String(r.options.porNote)).toContain("monitor 'order' does not declare watches");
    expect(r.ok).toBe(false);
  });
});
