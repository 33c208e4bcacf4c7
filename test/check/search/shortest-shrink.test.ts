// A breadth-first search's first violation is a shortest one, so shrinking skips deleting
// steps there (`Found.shortest`). Differential check on random systems: for every bfs
// violation, with and without the reduction, full delta debugging from the unshrunk
// schedule deletes nothing, and the reported counterexample equals what the full shrink
// gives. A dfs violation, which may be longer, still gets shorter under the full shrink
// on some systems, so the comparison can tell the two apart.
import { describe, expect, it } from 'vitest';
import { check, type Scenario } from 'interleave';
import { shrinkSchedule } from '../../../src/check/trace/shrink.ts';
import { cyclicSystem } from '../../fixtures/check/differential-fuzzer.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';
import { randomMachineSystem } from '../../fixtures/check/random-machines.ts';

const SEEDS = Number(process.env.FUZZ_SEEDS ?? 60);

function system(seed: number): Scenario {
  return seed % 4 === 0 ? randomMachineSystem(seed) : seed % 4 === 2 ? cyclicSystem(seed).sc : randomActors(seed, { extended: true }).sc;
}

describe('shrinking a breadth-first counterexample', () => {
  it(`deletes nothing and reorders as the full shrink does (${SEEDS} random systems, por on and off)`, async () => {
    let compared = 0;
    let dfsShortened = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const sc = system(seed);
      for (const por of [false, true]) {
        const raw = await check(sc, { strategy: 'bfs', por, shrink: false, maxStates: 20_000 });
        if (!raw.violation || raw.violation.property.kind === 'liveness') continue;
        const full = shrinkSchedule(sc, raw.violation.property, raw.violation.schedule);
        const label = `seed ${seed} por ${por}: ${raw.violation.property.name}`;
        expect(full.length, label).toBe(raw.violation.schedule.length);
        const shrunk = await check(sc, { strategy: 'bfs', por, maxStates: 20_000 });
        expect(shrunk.violation?.schedule, label).toEqual(full);
        compared++;
      }
      const dfs = await check(sc, { strategy: 'dfs', por: false, shrink: false, maxStates: 20_000 });
      if (dfs.violation && dfs.violation.property.kind !== 'liveness') {
        const full = shrinkSchedule(sc, dfs.violation.property, dfs.violation.schedule);
        if (full.length < dfs.violation.schedule.length) dfsShortened++;
        expect((await check(sc, { strategy: 'dfs', por: false, maxStates: 20_000 })).violation?.schedule, `seed ${seed} dfs`).toEqual(full);
      }
    }
    expect(compared).toBeGreaterThan(SEEDS / 2);
    expect(dfsShortened).toBeGreaterThan(0);
  }, 120_000);
});
