// Runs a fixture in virtual time with the cost model of docs/materialize.md and derives
// the measures: latency percentiles, share over 200 ms, queued-peek delay,
// retirement delay, counters by substrate, the step histogram.
import { simulate, percentile, type CostModel } from '../../actors/simulate.ts';
import type { ReportTable, SimulationProgress, SimulationReport } from '../../actors/family.ts';
import type { RecordedEvent, World } from '../../actors/types.ts';
import { queryOf } from '../../actors/query.ts';
import type { Scenario } from '../../actors/scenario.ts';
import type { WorkerCtx } from './worker-ctx.ts';
import type { PoolCtx } from './pool.ts';
import { buildScenario } from './scenario.ts';
import { SIM_DEFAULTS, SPAWN_MS, WAKE_MS, simFixture, type SimParams } from './fixtures.ts';
import { DESIGNS, POOL, workerId, type Design } from './types.ts';

export function costModel(rttMs: number, stashPartMs = 5): CostModel {
  const half = rttMs / 2;
  return {
    latency(msg) {
      switch (msg.type) {
        case 'PeekCmd':
        case 'CancelPeekCmd':
        case 'WorkerResponse':
          return half;
        case 'Loop':
          return msg.ms as number;
        case 'SpawnWalk':
          return SPAWN_MS;
        case 'WalkResult':
          return WAKE_MS;
        case 'stash.pump':
          return stashPartMs;
        default:
          return 0;
      }
    },
  };
}

export interface Latencies {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  /** Fraction of peeks slower than 200 ms. */
  readonly over200: number;
}

export function summarize(xs: readonly number[]): Latencies {
  const s = [...xs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s.length ? s[s.length - 1]! : NaN,
    over200: s.length ? s.filter((x) => x > 200).length / s.length : 0,
  };
}

export interface SimResult {
  readonly params: SimParams;
  readonly seed: number;
  readonly latency: Latencies;
  readonly byClass: Readonly<Record<string, Latencies>>;
  /** The measured class, in issue order: [issued at, latency] (virtual ms). */
  readonly samples: readonly (readonly [number, number])[];
  /** Per (worker, peek): walk start minus arrival at the worker (residual of the step plus waiting behind walks). */
  readonly queued: Latencies;
  /** Per (worker, offloaded peek): retirement minus walk end. */
  readonly retirement: Latencies;
  readonly counters: { readonly inline: number; readonly offloaded: number; readonly capped: number };
  readonly steps: { readonly n: number; readonly over128: number; readonly over512: number; readonly nextAfterLong: number };
  readonly peakRunning: number;
  readonly kernelSteps: number;
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly monitorFailure?: string;
}

/** Runs one fixture for one design (same seed: same peeks and the same activation trace). */
export function runSim(partial: Partial<SimParams>, seed: number, onProgress?: (steps: number, now: number) => void): SimResult {
  const params: SimParams = { ...SIM_DEFAULTS, ...partial };
  const fx = simFixture(params, seed);
  const sc = buildScenario(fx.setup);
  const issued = new Map<string, { at: number; cls: string }>();
  const lat = new Map<string, number[]>();
  const samples: [number, number][] = [];
  const arrive = new Map<string, number>();
  const walkStart = new Map<string, number>();
  const walkEnd = new Map<string, number>();
  const queued: number[] = [];
  const retire: number[] = [];
  let steps = 0;
  let over128 = 0;
  let over512 = 0;
  // E12's predicted gap: the mean length of the step a worker enters right after a long (> 128 ms) one.
  const lastStep = new Map<unknown, number>();
  let nextSum = 0;
  let nextN = 0;
  let failure: string | undefined;
  const onEvent = (e: RecordedEvent, now: number): void => {
    if (e.kind === 'monitor-fail') failure ??= `${e.monitor}: ${e.message}`;
    if (e.kind !== 'emit') return;
    const m = e.msg;
    switch (m.type) {
      case 'Issue':
        issued.set(m.uuid as string, { at: now, cls: m.cls as string });
        break;
      case 'Merged': {
        const i = issued.get(m.uuid as string)!;
        let l = lat.get(i.cls);
        if (!l) lat.set(i.cls, (l = []));
        l.push(now - i.at);
        if (i.cls === fx.measured) samples.push([i.at, now - i.at]);
        issued.delete(m.uuid as string);
        break;
      }
      case 'Arrive':
        arrive.set(`${m.w}/${m.uuid}`, now);
        break;
      case 'WalkStart': {
        const k = `${m.w}/${m.uuid}`;
        if (!walkStart.has(k)) {
          walkStart.set(k, now);
          const a = arrive.get(k);
          if (a !== undefined) queued.push(now - a);
        }
        break;
      }
      case 'WalkEnd':
        if (m.substrate === 'offloaded') walkEnd.set(`${m.w}/${m.uuid}`, now);
        break;
      case 'Retire': {
        const k = `${m.w}/${m.uuid}`;
        const end = walkEnd.get(k);
        if (end !== undefined) retire.push(now - end);
        arrive.delete(k);
        walkStart.delete(k);
        walkEnd.delete(k);
        break;
      }
      case 'StepStart': {
        const ms = m.ms as number;
        steps++;
        if (ms > 128) over128++;
        if (ms > 512) over512++;
        if ((lastStep.get(m.w) ?? 0) > 128) {
          nextSum += ms;
          nextN++;
        }
        lastStep.set(m.w, ms);
        break;
      }
    }
  };
  const t0 = performance.now();
  const run = simulate(sc, costModel(fx.rttMs), { seed, record: false, onEvent, tieBreak: 'first', ...(onProgress ? { onProgress } : {}) });
  const wallMs = performance.now() - t0;
  if (params.properties && !failure) failure = endChecks(sc, run.world);
  const counters = { inline: 0, offloaded: 0, capped: 0 };
  for (let w = 0; w < fx.setup.cfg.workers; w++) {
    const c = (run.world.snaps[sc.index.get(workerId(w))!] as any).context as WorkerCtx;
    counters.inline += c.counters.inline;
    counters.offloaded += c.counters.offloaded;
    counters.capped += c.counters.capped;
  }
  const pool = (run.world.snaps[sc.index.get(POOL)!] as any).context as PoolCtx;
  const byClass: Record<string, Latencies> = {};
  for (const [cls, xs] of lat) byClass[cls] = summarize(xs);
  return {
    params,
    seed,
    latency: byClass[fx.measured] ?? summarize([]),
    byClass,
    samples: samples.sort((a, b) => a[0] - b[0]),
    queued: summarize(queued),
    retirement: summarize(retire),
    counters,
    steps: { n: steps, over128, over512, nextAfterLong: nextN ? nextSum / nextN : 0 },
    peakRunning: Math.max(0, ...pool.peak),
    kernelSteps: run.steps,
    virtualMs: run.now,
    wallMs,
    ...(failure ? { monitorFailure: failure } : {}),
  };
}

/** At the end of a simulation (quiescent): every invariant and every end-of-run property. */
function endChecks(sc: Scenario, world: World): string | undefined {
  const q = queryOf(sc, world);
  for (const [group, props] of [['invariant', sc.invariants], ['eventually', sc.atEnd]] as const) {
    for (const [name, p] of Object.entries(props ?? {})) {
      const r = p(q);
      if (r !== true) return `${group} ${name}: ${r === false ? 'does not hold' : r}`;
    }
  }
  return undefined;
}

const r1 = (x: number): number => Math.round(x * 10) / 10;

/** The report `interleave simulate materialize-peeks` prints: every design on the same seed. */
export function simulateReport(partial: Partial<SimParams>, seed: number, designs: readonly Design[] = DESIGNS, onProgress?: SimulationProgress): SimulationReport {
  const results = designs.map((design) => runSim({ ...partial, design }, seed, onProgress && ((steps: number, now: number) => onProgress(design, steps, now))));
  const p = results[0]!.params;
  const lat: ReportTable = {
    title: `${p.fixture}: ${p.fixture === 'cap-saturation' ? 'walk' : 'lookup'} latency per design (virtual ms, seed ${seed}, slotRelease ${p.slotRelease}${p.chain === 'single' ? ', chain length 1' : ''})`,
    columns: ['design', 'n', 'p50', 'p90', 'p99', 'max', '> 200 ms'],
    rows: results.map((r) => [r.params.design, r.latency.n, r1(r.latency.p50), r1(r.latency.p90), r1(r.latency.p99), r1(r.latency.max), `${(r.latency.over200 * 100).toFixed(1)}%`]),
  };
  const delays: ReportTable = {
    title: 'queued-peek delay (arrival at the worker to walk start) and retirement delay (walk end to retire), per (worker, peek)',
    columns: ['design', 'queued p50', 'queued p90', 'queued max', 'retire p50', 'retire p90', 'retire max'],
    rows: results.map((r) => [r.params.design, r1(r.queued.p50), r1(r.queued.p90), r1(r.queued.max), r.retirement.n ? r1(r.retirement.p50) : '-', r.retirement.n ? r1(r.retirement.p90) : '-', r.retirement.n ? r1(r.retirement.max) : '-']),
  };
  const counters: ReportTable = {
    title: 'mz_index_peek_walks_total by substrate (all workers), steps, and run cost',
    columns: ['design', 'inline', 'offloaded', 'capped', 'peak blocking', 'steps', 'steps > 128 ms', 'steps > 512 ms', 'next step after long', 'kernel steps', 'events/s'],
    rows: results.map((r) => [r.params.design, r.counters.inline, r.counters.offloaded, r.counters.capped, r.peakRunning, r.steps.n, r.steps.over128, r.steps.over512, r1(r.steps.nextAfterLong), r.kernelSteps, Math.round((r.kernelSteps * 1000) / Math.max(1, r.wallMs))]),
    note: 'next step after long: mean length of the step a worker enters right after a step over 128 ms (behind long steps, offload minus inline latency is about this: docs/materialize.md, E12). events/s is wall-clock.',
  };
  return {
    title: `materialize-peeks simulation, fixture ${p.fixture}`,
    tables: [lat, delays, counters],
    data: results.map(({ params, samples: _samples, ...rest }) => ({ design: params.design, ...rest })),
  };
}
