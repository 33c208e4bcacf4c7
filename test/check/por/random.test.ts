// Differential test of the partial-order reduction (stubborn sets + sleep sets +
// proviso) against the unreduced search, on 120 random actor systems drawn from
// seeds (test/fixtures/check/random-actors.ts; monitors local to one actor, stateless
// and two-actor monitors, `readsView` invariants, timers): the reachable quiescent worlds, the
// violated properties and the first violation reported (property and schedule) are the
// same with and without it, for dfs and bfs, with symmetry where the system declares it.
import { describe, expect, it } from 'vitest';
import { check, type Scenario } from 'interleave';
import { exploreSets } from '../../fixtures/check/explore-sets.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';

/** Systems whose full search passes this many states are skipped (counted), to keep the test fast. */
const MAX_STATES = 5_000;

async function explore(sc: Scenario, strategy: 'dfs' | 'bfs', por: boolean) {
  const reached = await exploreSets(sc, strategy, por, { symmetric: true, maxStates: MAX_STATES });
  const firstRun = await check(sc, { strategy, por, shrink: false });
  const v = firstRun.violation?.property;
  return { ...reached, firstRun, first: v ? `${v.kind}:${v.name}` : 'none', schedule: firstRun.violation?.schedule ?? [] };
}

// 120 seeds by default; a longer run: FUZZ_SEEDS=240 npx vitest run test/check/por/random.test.ts
const SEEDS = Number(process.env.FUZZ_SEEDS ?? 120);

describe('partial-order reduction against the full search (random actor systems)', () => {
  it(`${SEEDS} seeds: same quiescent worlds, violations and first violation (property and schedule); fewer states`, async () => {
    let fewer = 0;
    let skipped = 0;
    let violating = 0;
    let reran = 0;
    let kept = 0;
    let differed = 0;
    let differedKind = 0;
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
      // The reported first violation does not depend on the reduction: the same property
      // and the same (unshrunk) schedule as the full search's (src/check/first-violation.ts).
      expect(red.first, at).toBe(full.first);
      expect(red.schedule, at).toEqual(full.schedule);
      if (red.first !== 'none') {
        violating++;
        expect(full.violated.has(red.first), at).toBe(true);
        const fv = red.firstRun.options.firstViolation as { search: string; reduced: string };
        if (fv.search === 'unreduced') reran++;
        else kept++;
        if (fv.reduced !== red.first) differed++;
        if (fv.reduced.split(':')[0] !== red.first.split(':')[0]) differedKind++;
      }
      expect(red.r.stats.distinctStates!, at).toBeLessThanOrEqual(full.r.stats.distinctStates!);
      if (red.r.stats.distinctStates! < full.r.stats.distinctStates!) fewer++;
      statesFull += full.r.stats.distinctStates!;
      statesReduced += red.r.stats.distinctStates!;
    }
    console.log(`random actor systems: ${fewer}/${SEEDS} with fewer distinct states; ${violating} violating, ${reran} re-ran the unreduced search, ${kept} did not need to (nothing pruned before it), ${differed} where the reduced search met another property first (${differedKind} another kind); ${skipped} skipped (over ${MAX_STATES} states); ${statesReduced} vs ${statesFull} in all; drawn ${JSON.stringify(drawn)}`);
    expect(SEEDS - skipped).toBeGreaterThanOrEqual(Math.floor((SEEDS * 5) / 6));
    for (const k of Object.keys(drawn) as (keyof typeof drawn)[]) expect(drawn[k], k).toBeGreaterThan(10);
    expect(fewer).toBeGreaterThan(SEEDS / 4);
    // The identity above is not vacuous: many systems violate, and in some the reduced
    // search alone would have reported another violation than the full search.
    expect(violating).toBeGreaterThan(50);
    expect(differed).toBeGreaterThan(0);
    // Both ways of reporting are exercised: the re-run and "nothing pruned before it".
    expect(reran).toBeGreaterThan(20);
    expect(kept).toBeGreaterThan(10);
  }, 240_000);
});
