// The `materialize-peeks` scenario family: a checker-sized configuration
// (fixture=check) and the simulation fixtures e1, e11, e12 and cap-saturation.
import { defineFamily, type ParamValues } from '../../actors/family.ts';
import { ScenarioError } from '../../actors/scenario.ts';
import { checkFixture } from './cases.ts';
import { FIXTURES, SIM_DEFAULTS, simFixture, type Fixture, type SimParams } from './fixtures.ts';
import { buildScenario } from './scenario.ts';
import { simulateReport } from './simulation.ts';
import { DESIGNS, type CmdVisibility, type CountAt, type Design, type SlotRelease } from './types.ts';

/** The design and its three switches, as both the checker's and the simulator's fixtures take them. */
function designSwitches(p: ParamValues): { design: Design; slotRelease: SlotRelease; countAt: CountAt; cmdVisibility: CmdVisibility } {
  return {
    design: p.design as Design,
    slotRelease: p.slotRelease as SlotRelease,
    countAt: p.countAt as CountAt,
    cmdVisibility: p.cmdVisibility as CmdVisibility,
  };
}

function simParams(p: ParamValues): SimParams {
  const fixture = (p.fixture === 'check' ? 'e12' : p.fixture) as Fixture;
  return {
    ...SIM_DEFAULTS,
    fixture,
    ...designSwitches(p),
    cap: Number(p.cap),
    workers: Number(p.workers),
    rate: Number(p.rate),
    chain: p.chain as 'merge' | 'single',
    seconds: Number(p.seconds),
    stash: Boolean(p.stash),
  };
}

/** The `materialize-peeks` family: Materialize's fast-path index peeks, inline or offloaded, under cancellation and stash faults (see docs/materialize.md). */
export const materializePeeksFamily = defineFamily({
  name: 'materialize-peeks',
  description: 'fast-path index peeks walked inline, offloaded to the blocking pool (cap, capped fallback, stash diversion, cancellation), yielding, or both (Materialize #38429)',
  params: {
    fixture: { type: 'enum', values: ['check', ...FIXTURES], default: 'check', description: 'check: small model for the checker; e1/e11/e12/cap-saturation: simulation fixtures (simulate with fixture=check runs e12)' },
    design: { type: 'enum', values: DESIGNS, default: 'offload', description: 'inline (C0), offload (C1), yield (C2), offload-yield (C3); simulate runs all four' },
    slotRelease: { type: 'enum', values: ['walk-end', 'retire'], default: 'retire', description: 'where the slot guard drops: when the blocking walk ends (A) or when the worker retires/cancels the peek (B)' },
    countAt: { type: 'enum', values: ['dispatch', 'outcome'], default: 'dispatch', description: 'when mz_index_peek_walks_total moves' },
    cmdVisibility: { type: 'enum', values: ['current', 'next'], default: 'current', description: 'a command arriving mid-step is visible after this step or the next' },
    workers: { type: 'int', min: 0, max: 64, default: 0, description: 'timely workers (0: the fixture default: 1 for check, 8 for e1/e11/e12, 1 for cap-saturation)' },
    peeks: { type: 'int', min: 2, max: 4, default: 2, description: 'check: peeks (2: scan + lookup; 3: + a not-ready lookup; 4: + a stash-sized lookup)' },
    cap: { type: 'int', min: 0, max: 4096, default: 0, description: 'index_peek_offload_max_inflight per worker (0: fixture default: 1 for check, 16, 4 for cap-saturation)' },
    cancel: { type: 'bool', default: true, description: 'check: cancel the scan from outside at any point' },
    compaction: { type: 'bool', default: true, description: 'check: AllowCompaction from outside at any point' },
    stash: { type: 'bool', default: true, description: 'peek response stash on (with a location)' },
    threshold: { type: 'int', min: 1, default: 10 * 1024, description: 'compute_peek_response_stash_threshold_bytes' },
    faults: { type: 'int', min: 0, max: 4, default: 0, description: 'check: stash upload failures the checker may inject' },
    resourceForm: { type: 'bool', default: true, description: 'check running_blocking <= cap (expected to fail under slotRelease=retire with cancellation)' },
    rate: { type: 'number', min: 0, default: 0, description: 'simulation: lookups per second (0: fixture default)' },
    chain: { type: 'enum', values: ['merge', 'single'], default: 'merge', description: 'e12 ablation: single makes every merge chain one activation long' },
    seconds: { type: 'int', min: 0, default: 0, description: 'simulation: virtual seconds of arrivals (0: fixture default)' },
  },
  build(p) {
    if (p.fixture !== 'check') return buildScenario(simFixture(simParams(p), 1).setup);
    return buildScenario(
      checkFixture({
        ...designSwitches(p),
        workers: Number(p.workers) || 1,
        peeks: Number(p.peeks),
        cap: Number(p.cap) || 1,
        cancel: Boolean(p.cancel),
        compaction: Boolean(p.compaction),
        stash: Boolean(p.stash),
        threshold: Number(p.threshold),
        faults: Number(p.faults),
        resourceForm: Boolean(p.resourceForm),
      }),
    );
  },
  checkDefaults: { strategy: 'bfs', maxStates: 2_000_000 },
  simulate(p, { seed, onProgress }) {
    if (Number(p.workers) > 16 && p.fixture !== 'cap-saturation') throw new ScenarioError(`materialize-peeks: simulate with at most 16 workers, got ${String(p.workers)}`);
    return simulateReport(simParams(p), seed, undefined, onProgress);
  },
  hint(p, violated) {
    if (violated && p.slotRelease === 'retire' && p.cancel && p.resourceForm) {
      return 'expected: under slotRelease=retire a cancel returns the slot while the blocking walk still runs, so running_blocking exceeds the cap (scenario 14 in docs/materialize.md). --param slotRelease=walk-end holds; --param resourceForm=false checks the rest';
    }
    return undefined;
  },
});
