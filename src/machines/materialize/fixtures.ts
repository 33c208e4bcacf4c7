// Simulation fixtures (docs/materialize.md): E1, E11, E12 and cap saturation. Each is
// drawn from one seed BEFORE the run (arrivals, uuids, the operator workload), so
// every design sees the same activation trace and the same peeks.
import { rng, type Rng } from '../../actors/prng.ts';
import { config, lookup, rows, scan, SIM_COSTS } from './config.ts';
import type { Arrival } from './client.ts';
import type { Setup } from './scenario.ts';
import { arrangement } from './trace.ts';
import type { Cycle } from './workload.ts';
import type { Activation, CmdVisibility, CountAt, Design, PeekSpec, SlotRelease } from './types.ts';

export type Fixture = 'e1' | 'e11' | 'e12' | 'cap-saturation';
export const FIXTURES: readonly Fixture[] = ['e1', 'e11', 'e12', 'cap-saturation'];

export interface SimParams {
  readonly fixture: Fixture;
  readonly design: Design;
  readonly slotRelease: SlotRelease;
  readonly countAt: CountAt;
  readonly cmdVisibility: CmdVisibility;
  /** `index_peek_offload_max_inflight` (0: the fixture's own: 16, or 4 for cap saturation). */
  readonly cap: number;
  /** Workers (0: the fixture's own: 8 for E1/E11/E12, 1 for cap saturation). */
  readonly workers: number;
  /** Lookup arrivals per second (0: the fixture's own). */
  readonly rate: number;
  /** E12 ablation: `single` makes every chain one activation long. */
  readonly chain: 'merge' | 'single';
  /** Virtual seconds of arrivals (0: the fixture's own). */
  readonly seconds: number;
  readonly stash: boolean;
  /** Check invariants and monitors during the run (slower). */
  readonly properties: boolean;
}

export const SIM_DEFAULTS: SimParams = {
  fixture: 'e12', design: 'inline', slotRelease: 'retire', countAt: 'dispatch', cmdVisibility: 'current',
  cap: 0, workers: 0, rate: 0, chain: 'merge', seconds: 0, stash: true, properties: false,
};

export interface SimFixture {
  readonly setup: Setup;
  readonly rttMs: number;
  /** The lookups whose latency the experiment reports. */
  readonly measured: string;
  readonly horizonMs: number;
}

/** Spawn and wake latencies of the blocking pool (10 to 50 us each, docs/materialize.md). */
export const SPAWN_MS = 0.03;
export const WAKE_MS = 0.03;

function uuidOf(r: Rng): string {
  return r.nextU32().toString(16).padStart(8, '0');
}
function exp(r: Rng, mean: number): number {
  return -Math.log(1 - r.next()) * mean;
}
function normal(r: Rng): number {
  const u = 1 - r.next();
  const v = r.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
/** Lognormal with the given median and shape. */
export function lognormal(r: Rng, median: number, sigma: number): number {
  return median * Math.exp(sigma * normal(r));
}

const posFor = (ms: number): number => Math.round(ms / SIM_COSTS.posMs);
const LOOKUP_POSITIONS = 100;

function poisson(r: Rng, ratePerS: number, horizonMs: number, make: (at: number) => PeekSpec): Arrival[] {
  const out: Arrival[] = [];
  for (let at = exp(r, 1000 / ratePerS); at < horizonMs; at += exp(r, 1000 / ratePerS)) out.push({ at, peek: make(at) });
  return out;
}

function base(p: SimParams, workers: number) {
  const cfg = config({
    design: p.design, slotRelease: p.slotRelease, countAt: p.countAt, cmdVisibility: p.cmdVisibility, cap: p.cap || (p.fixture === 'cap-saturation' ? 4 : 16), workers,
    stash: { enabled: p.stash, threshold: 10 * 1024 }, costs: SIM_COSTS,
  });
  const traces = Array.from({ length: workers }, (_, w) => arrangement({ updates: rows(`k${w}`, ['v']), upper: 1e15 }));
  return { cfg, traces };
}

/**
 * E12's merge-step lengths (ms): lognormal, fitted to the PR's two counts over two minutes
 * (206 steps over 128 ms, 25 over 512 ms) given the about 900 steps the chains make in that
 * time: P(> 128) = 0.229 and P(> 512) = 0.028 give sigma = ln(4) / (z(0.972) - z(0.771)) and
 * the median from the first. Capped at 1 s ("steps approach 1 s").
 */
export const E12_STEP = { median: 53, sigma: 1.18 } as const;

/** Builds one fixture for one design from one seed. */
export function simFixture(p: SimParams, seed: number): SimFixture {
  const r = rng(seed);
  switch (p.fixture) {
    case 'e12': {
      // Local box: 8 workers, rtt 3.9 ms, point lookups ~8/s, insert cycles driving chains of spine merges.
      const W = p.workers || 8;
      const horizonMs = (p.seconds || 120) * 1000;
      const { cfg, traces } = base(p, W);
      const arrivals = poisson(r, p.rate || 8, horizonMs, () => lookup(uuidOf(r), 'k0', 1, { positions: LOOKUP_POSITIONS }));
      const cycles: Cycle[] = [];
      for (let at = 500 + r.next() * 1000; at < horizonMs; at += 6000 + r.next() * 3000) {
        const chains: Activation[][] = [];
        for (let w = 0; w < W; w++) {
          const len = p.chain === 'single' ? 1 : 3 + r.int(8);
          chains.push(Array.from({ length: len }, () => ({ ms: Math.min(1000, lognormal(r, E12_STEP.median, E12_STEP.sigma)) })));
        }
        cycles.push({ at, chains });
      }
      return { setup: simSetup('e12', p, cfg, traces, { arrivals }, cycles), rttMs: 3.9, measured: 'lookup', horizonMs };
    }
    case 'e1': {
      // Staging: rtt 105 ms; three full scans of 2170 ms issued together (once, at 5 s),
      // point lookups at 1/s for the whole run. The lookups behind the scans show the
      // head-of-line blocking; the rest are bound by the round trip, as the source's p50 is.
      const W = p.workers || 8;
      const horizonMs = (p.seconds || 60) * 1000;
      const { cfg, traces } = base(p, W);
      const arrivals: Arrival[] = [];
      const phase = r.next() * 1000;
      const every = 1000 / (p.rate || 1);
      for (let at = phase; at < horizonMs; at += every) arrivals.push({ at, peek: lookup(uuidOf(r), 'k0', 1, { positions: LOOKUP_POSITIONS }) });
      const scansAt = Math.min(5000, horizonMs / 2);
      for (let k = 0; k < 3; k++) arrivals.push({ at: scansAt, peek: scan(uuidOf(r), 1, { limit: 10, positions: posFor(2170), cls: 'scan' }) });
      arrivals.sort((a, b) => a.at - b.at);
      return { setup: simSetup('e1', p, cfg, traces, { arrivals }), rttMs: 105, measured: 'lookup', horizonMs };
    }
    case 'e11': {
      // Staging: one hot key of ~6M values lives on one worker; ORDER BY ... LIMIT 1 lookups at 10/s; 3 hot injections.
      const W = p.workers || 8;
      const horizonMs = (p.seconds || 26) * 1000;
      const { cfg, traces } = base(p, W);
      const hotWorker = 3 % W;
      const lookups = poisson(r, p.rate || 10, horizonMs, () => scan(uuidOf(r), 1, { limit: 1, positions: LOOKUP_POSITIONS, cls: 'lookup' }));
      const hot = [5000, 13000, 21000].filter((at) => at < horizonMs).map((at) => ({
        at,
        peek: scan(uuidOf(r), 1, { limit: 1, cls: 'hot', positionsByWorker: Array.from({ length: W }, (_, w) => (w === hotWorker ? posFor(2020) : LOOKUP_POSITIONS)) }),
      }));
      const arrivals = [...lookups, ...hot].sort((a, b) => a.at - b.at);
      return { setup: simSetup('e11', p, cfg, traces, { arrivals }), rttMs: 105, measured: 'lookup', horizonMs };
    }
    case 'cap-saturation': {
      // One worker, a small cap, heavy-tailed walks, open-loop arrivals, and merge work on the worker.
      const W = p.workers || 1;
      const horizonMs = (p.seconds || 60) * 1000;
      const { cfg, traces } = base(p, W);
      const arrivals = poisson(r, p.rate || 8, horizonMs, () => scan(uuidOf(r), 1, { limit: 10, positions: posFor(Math.min(5000, lognormal(r, 150, 1))), cls: 'lookup' }));
      const cycles: Cycle[] = [];
      for (let at = 300 + r.next() * 500; at < horizonMs; at += 700 + r.next() * 600) {
        cycles.push({ at, chains: Array.from({ length: W }, () => Array.from({ length: 2 + r.int(3) }, () => ({ ms: Math.min(600, lognormal(r, 40, 0.8)) }))) });
      }
      return { setup: simSetup('cap-saturation', p, cfg, traces, { arrivals }, cycles), rttMs: 1, measured: 'lookup', horizonMs };
    }
  }
}

function simSetup(name: string, p: SimParams, cfg: Setup['cfg'], traces: Setup['traces'], client: Setup['client'], cycles?: readonly Cycle[]): Setup {
  return {
    name: `materialize-peeks-${name}`,
    cfg,
    traces,
    client,
    ...(cycles ? { cycles } : {}),
    properties: p.properties,
    resourceForm: false,
    params: { ...p },
  };
}
