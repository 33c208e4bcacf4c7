// The partial-order reduction under symmetry, on cyclic symmetric systems
// (test/fixtures/check/sym-cyclic.ts): a revisited world may be a permutation of the one
// first met, so the sleep-set mark (one bit per enabled step's position) cannot be read.
// Under symmetry the checker runs stubborn sets without sleep sets (src/check/explore.ts,
// `sleepSets`). Against the search without reduction (symmetry on in both): the reduced
// search completes, and reaches the same quiescent worlds (canonical fingerprints) and
// violates the same invariants (one per server state, so they say which server states
// are reachable).
// History: sleep sets under symmetry first explored the steps not asleep now and kept the
// mark set, which re-expanded a world at every revisit with a sleep set; on seeds 146 and
// 279 the search never ended (dfs: 31 distinct states and 18,851 transitions after 8 s).
// Not reading revisits at all lost quiescent worlds on both seeds (dfs). Expanding such a
// revisit in full was sound but took more transitions than no reduction on lost-update.
import { describe, expect, it } from 'vitest';
import { check, type World } from 'interleave';
import { WorldHasher, fpHex } from 'interleave/kernel';
import { symCyclic } from '../../fixtures/check/sym-cyclic.ts';

/** Systems whose unreduced search passes this many states are skipped (counted), to keep the test fast. */
const MAX_STATES = 3000;

async function reached(seed: number, strategy: 'dfs' | 'bfs', por: boolean) {
  const sc = symCyclic(seed);
  const quiescent = new Set<string>();
  const violated = new Set<string>();
  const r = await check(sc, {
    strategy,
    por,
    symmetry: true,
    shrink: false,
    maxStates: MAX_STATES,
    // A guard against a search that never ends (the bug above), not a speed check:
    // every system here completes in well under a second.
    timeLimitMs: 60_000,
    inspect: {
      quiescent: (w: World) => void quiescent.add(fpHex(new WorldHasher(sc, true).fp(w))),
      violation: (p) => (violated.add(`${p.kind}:${p.name}`), true),
    },
  });
  return { r, quiescent: [...quiescent].sort(), violated: [...violated].sort() };
}

const SEEDS = [...Array.from({ length: 40 }, (_, i) => i + 1), 146, 279];

describe('partial-order reduction with symmetry on cyclic symmetric systems', () => {
  it(`${SEEDS.length} seeds, dfs and bfs: the reduced search completes with the unreduced one's quiescent worlds and violations`, async () => {
    let compared = 0;
    let fewer = 0;
    let quiescentWorlds = 0;
    for (const seed of SEEDS) {
      for (const strategy of ['dfs', 'bfs'] as const) {
        const full = await reached(seed, strategy, false);
        if (!full.r.complete) continue;
        const red = await reached(seed, strategy, true);
        const at = `seed ${seed} ${strategy}`;
        expect(red.r.options.por, at).toBe(true);
        expect([red.r.complete, red.r.cutBy], at).toEqual([true, undefined]);
        expect(red.quiescent, at).toEqual(full.quiescent);
        expect(red.violated, at).toEqual(full.violated);
        compared++;
        quiescentWorlds += full.quiescent.length;
        if (red.r.stats.distinctStates! < full.r.stats.distinctStates!) fewer++;
      }
    }
    // Not vacuous: most systems are compared, the reduction prunes, and there are quiescent worlds to lose.
    expect(compared).toBeGreaterThan(SEEDS.length);
    expect(fewer).toBeGreaterThan(compared / 3);
    expect(quiescentWorlds).toBeGreaterThan(compared);
  }, 240_000);
});
