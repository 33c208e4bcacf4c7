// Differential test of the partial-order reduction (stubborn sets + sleep sets +
// proviso) against the unreduced search, on 240 random actor systems drawn from
// seeds (test/fixtures-check/random-actors.ts; monitors local to one actor, stateless
// and two-actor monitors, `readsView` invariants, timers): the reachable quiescent worlds, the
// violated properties and the kind of the first violation found are the same with
// and without it, for dfs and bfs, with symmetry where the system declares it.
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../src/actors/index.ts';
import { check } from '../src/check/index.ts';
import { exploreSets } from './fixtures-check/explore-sets.ts';
import { randomActors } from './fixtures-check/random-actors.ts';

/** Systems whose full search passes this many states are skipped (counted), to keep the test fast. */
const MAX_STATES = 5_000;

async function explore(sc: Scenario, strategy: 'dfs' | 'bfs', por: boolean) {
  const reached = await exploreSets(sc, strategy, por, { symmetric: true, maxStates: MAX_STATES });
  const first = await check(sc, { strategy, por, shrink: false });
  const v = first.violation?.property;
  return { ...reached, first: v ? `${v.kind}:${v.name}` : 'none' };
}

const SEEDS = 240;

describe('partial-order reduction against the full search (random actor systems)', () => {
  it(`${SEEDS} seeds: same quiescent worlds, violations and first violation kind; fewer states`, async () => {
    let fewer = 0;
    let skipped = 0;
    let sameFirstKind = 0;
    let statesFull = 0;
    let statesReduced = 0;
    const drawn = { symmetric: 0, timers: 0, faults: 0, monitor: 0, undeclared: 0, extra: 0 };
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { sc, info } = randomActors(seed);
      for (const k of Object.keys(drawn) as (keyof typeof drawn)[]) if (info[k]) drawn[k]++;
      const strategy = seed % 2 === 0 ? 'dfs' : 'bfs';
      const full = await explore(sc, strategy, false);
      if (!full.r.complete) {
        skipped++;
        continue;
      }
      const red = await explore(sc, strategy, true);
      const at = `seed ${seed} (${strategy}, ${JSON.stringify(info)})`;
      expect(red.r.complete, at).toBe(true);
      expect([...red.quiescent].sort(), at).toEqual([...full.quiescent].sort());
      expect([...red.violated].sort(), at).toEqual([...full.violated].sort());
      // The first violation a search meets depends on its order: a reduced search
      // does not take every path, so it may meet another of the same system's
      // violations first (bfs: it is shortest only in the reduced graph). It must be
      // one the full search finds too, and found exactly when the full search finds one.
      expect(red.first === 'none', at).toBe(full.first === 'none');
      if (red.first !== 'none') expect(full.violated.has(red.first), at).toBe(true);
      if (red.first.split(':')[0] === full.first.split(':')[0]) sameFirstKind++;
      expect(red.r.stats.distinctStates, at).toBeLessThanOrEqual(full.r.stats.distinctStates);
      if (red.r.stats.distinctStates < full.r.stats.distinctStates) fewer++;
      statesFull += full.r.stats.distinctStates;
      statesReduced += red.r.stats.distinctStates;
    }
    console.log(`random actor systems: ${fewer}/${SEEDS} with fewer distinct states, ${sameFirstKind} with the same first violation kind, ${skipped} skipped (over ${MAX_STATES} states); ${statesReduced} vs ${statesFull} in all; drawn ${JSON.stringify(drawn)}`);
    expect(SEEDS - skipped).toBeGreaterThanOrEqual(200);
    for (const k of Object.keys(drawn) as (keyof typeof drawn)[]) expect(drawn[k], k).toBeGreaterThan(10);
    expect(fewer).toBeGreaterThan(SEEDS / 4);
  }, 240_000);
});
