// The figures the three families' source documents state, next to the same
// figures produced by running interleave's models (the Airflow and Materialize
// simulations, the Amber loop's storage events). Nothing here is copied: each
// interleave value comes from a run; the source values and tolerances are the
// documents' own (or, where a document states none, the one named in the row).
import { CALIBRATION_C, CALIBRATION_CHANNEL_ONLY, CALIBRATION_REAL, compareDesigns } from '../src/machines/airflow/simulation.ts';
import { runSim } from '../src/machines/materialize/simulation.ts';
import { amberFidelity } from './fidelity-amber.ts';

export interface FidelityRow {
  readonly family: 'airflow' | 'materialize' | 'amber';
  readonly figure: string;
  readonly source: string;
  readonly interleave: string;
  /** 'exact', '±x', '±x%', 'sign' or 'order of magnitude'. */
  readonly tolerance: string;
  readonly holds: boolean;
}

export interface FidelityTable {
  readonly rows: FidelityRow[];
  /** Figures the source states that this run did not compute, with why. */
  readonly notComputed: string[];
}

export interface FidelityOptions {
  /** Small sizes: Airflow N = 1,000 only, shorter Materialize runs, no two-minute E12 counts. */
  readonly quick?: boolean;
  /** Families to run (all three by default). */
  readonly families?: readonly FidelityRow['family'][];
}

const fix = (x: number, d = 2) => x.toFixed(d);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const within = (got: number, want: number, tol: number) => Math.abs(got - want) <= tol + 1e-12;
/** Same order of magnitude: within a factor of ten either way. */
const sameOrder = (got: number, want: number) => got > 0 && want > 0 && Math.abs(Math.log10(got / want)) < 1;

function exact(family: FidelityRow['family'], figure: string, want: number, got: number): FidelityRow {
  return { family, figure, source: want.toLocaleString('en-US'), interleave: got.toLocaleString('en-US'), tolerance: 'exact', holds: want === got };
}

/** The source's own discrete-event model of calibration C, try 1 / retry (three decimals). */
const REFERENCE_C: Record<number, [number, number]> = { 1000: [1.556, 1.789], 5000: [1.56, 1.8], 16194: [1.561, 1.802] };

/** Airflow: checkpoint counts and wall-time ratios of per-index vs per-round (calibration C), channel-only time, and the real run. */
export function airflowRows(opts: FidelityOptions = {}): FidelityTable {
  const rows: FidelityRow[] = [];
  const sizes = opts.quick ? [1000] : [1000, 5000, 16194];
  for (const n of sizes) {
    const c = compareDesigns(n, CALIBRATION_C, 1);
    const w = Math.ceil(n / 16);
    const [refFirst, refRetry] = REFERENCE_C[n]!;
    rows.push(
      exact('airflow', `N=${n} writes try 1, per-index`, n, c.old.first.writes),
      exact('airflow', `N=${n} writes try 1, per-round`, w, c.new.first.writes),
      exact('airflow', `N=${n} reads retry, per-index`, n + 1, c.old.retry.reads),
      exact('airflow', `N=${n} reads retry, per-round`, w + 2, c.new.retry.reads),
      { family: 'airflow', figure: `N=${n} wall old/new, try 1`, source: '1.56', interleave: fix(c.ratioFirst, 3), tolerance: '±0.01', holds: within(c.ratioFirst, 1.56, 0.01) },
      { family: 'airflow', figure: `N=${n} wall old/new, retry`, source: '1.80', interleave: fix(c.ratioRetry, 3), tolerance: '±0.01', holds: within(c.ratioRetry, 1.8, 0.01) },
      // The source's own DES of calibration C prints three decimals; ±0.005 is agreement to two.
      { family: 'airflow', figure: `N=${n} wall old/new try 1 / retry, source's calibration-C model`, source: `${fix(refFirst, 3)} / ${fix(refRetry, 3)}`, interleave: `${fix(c.ratioFirst, 3)} / ${fix(c.ratioRetry, 3)}`, tolerance: '±0.005', holds: within(c.ratioFirst, refFirst, 0.005) && within(c.ratioRetry, refRetry, 0.005) },
    );
  }
  // Channel-only time (c = c' = 0): the ratio approaches 2/(1 + 1/W) from below as N grows.
  const n = sizes.at(-1)!;
  const ch = compareDesigns(n, CALIBRATION_CHANNEL_ONLY, 1);
  const bound = 2 / (1 + 1 / 16);
  rows.push({ family: 'airflow', figure: `N=${n} channel-only (c = 0) wall old/new, try 1 / retry`, source: `→ 2/(1+1/16) = ${fix(bound, 3)}`, interleave: `${fix(ch.ratioFirst, 3)} / ${fix(ch.ratioRetry, 3)}`, tolerance: '±0.01', holds: within(ch.ratioFirst, bound, 0.01) && within(ch.ratioRetry, bound, 0.01) });
  const notComputed: string[] = [];
  if (opts.quick) notComputed.push('airflow N=5,000 and N=16,194 and the real-run ratio (quick mode)');
  else {
    const real = compareDesigns(16194, CALIBRATION_REAL, 1);
    // The source says "about 5" (8,040 s vs 1,620 s = 4.96); ±10% is this table's reading of "about".
    rows.push({ family: 'airflow', figure: 'N=16194 real run, wall old/new', source: '~5 (4.96)', interleave: fix(real.ratioFirst), tolerance: '±10%', holds: within(real.ratioFirst, 4.96, 0.496) });
  }
  return { rows, notComputed };
}

/** Materialize peeks: E1, E11 and E12, inline vs offload, seed 1. */
export function materializeRows(opts: FidelityOptions = {}): FidelityTable {
  const rows: FidelityRow[] = [];
  const notComputed: string[] = [];
  const e1s = opts.quick ? 10 : 30;
  const e1i = runSim({ fixture: 'e1', design: 'inline', seconds: e1s }, 1).latency;
  const e1o = runSim({ fixture: 'e1', design: 'offload', seconds: e1s }, 1).latency;
  rows.push(
    { family: 'materialize', figure: `E1 inline max / offload max (${e1s} s)`, source: '5784 / 180 = 32x', interleave: `${Math.round(e1i.max)} / ${Math.round(e1o.max)} = ${Math.round(e1i.max / e1o.max)}x`, tolerance: 'order of magnitude', holds: sameOrder(e1i.max / e1o.max, 5784 / 180) },
    // "Bound by the round trip" (rtt 105 ms): ±5% of it.
    { family: 'materialize', figure: `E1 inline p50, ms (${e1s} s)`, source: '~105 (the round trip)', interleave: fix(e1i.p50, 1), tolerance: '±5%', holds: within(e1i.p50, 105, 5.25) },
  );
  const e11i = runSim({ fixture: 'e11', design: 'inline', seconds: 26 }, 1).latency;
  const e11o = runSim({ fixture: 'e11', design: 'offload', seconds: 26 }, 1).latency;
  rows.push(
    // The design of record expects "about 20%"; ±5 points is this table's reading of "about".
    { family: 'materialize', figure: 'E11 inline share over 200 ms', source: '58/261 = 22.2%', interleave: `${Math.round(e11i.over200 * e11i.n)}/${e11i.n} = ${pct(e11i.over200)}`, tolerance: '±5 pp', holds: within(e11i.over200, 58 / 261, 0.05) },
    { family: 'materialize', figure: 'E11 offload share over 200 ms', source: '0/261', interleave: `${Math.round(e11o.over200 * e11o.n)}/${e11o.n}`, tolerance: 'exact', holds: e11o.over200 === 0 },
    // The hot walk (about 2020 ms) bounds the inline tail; ±10% is this table's reading.
    { family: 'materialize', figure: 'E11 inline max, ms', source: '2024.2', interleave: fix(e11i.max, 1), tolerance: '±10%', holds: within(e11i.max, 2024.2, 202.4) },
    // The offload's tail is about the round trip plus a few ms; ±5% is this table's reading.
    { family: 'materialize', figure: 'E11 offload max, ms', source: '109.2', interleave: fix(e11o.max, 1), tolerance: '±5%', holds: within(e11o.max, 109.2, 109.2 * 0.05) },
  );
  const e12s = opts.quick ? 60 : 120;
  const e12i = runSim({ fixture: 'e12', design: 'inline', seconds: e12s }, 1);
  const e12o = runSim({ fixture: 'e12', design: 'offload', seconds: e12s }, 1);
  const gap = e12o.latency.p90 / e12i.latency.p90 - 1;
  rows.push({ family: 'materialize', figure: `E12 offload p90 - inline p90 (${e12s} s)`, source: '148.2 vs 129.5 = +17%', interleave: `${fix(e12o.latency.p90, 1)} vs ${fix(e12i.latency.p90, 1)} = ${gap >= 0 ? '+' : ''}${(gap * 100).toFixed(0)}%`, tolerance: 'sign', holds: gap > 0 });
  if (opts.quick) notComputed.push('materialize E12 steps over 128 ms / 512 ms in two minutes (quick mode runs 60 s)');
  else {
    // The counts are Poisson-like: ±20% is about one standard deviation of 25.
    rows.push(
      { family: 'materialize', figure: 'E12 steps over 128 ms in two minutes', source: '206', interleave: String(e12i.steps.over128), tolerance: '±20%', holds: within(e12i.steps.over128, 206, 206 * 0.2) },
      { family: 'materialize', figure: 'E12 steps over 512 ms in two minutes', source: '25', interleave: String(e12i.steps.over512), tolerance: '±20%', holds: within(e12i.steps.over512, 25, 25 * 0.2) },
    );
  }
  rows.push(...capSaturationRows());
  return { rows, notComputed };
}

/**
 * Cap saturation (one worker, a small cap, heavy-tailed walks): the source states trends, not
 * figures. The capped share rises faster than linearly with load, and the offload's tail
 * converges to inline's (C0) as the cap stays saturated. Open-loop rates 2, 4, 8, 16/s, 30 s each.
 */
export function capSaturationRows(): FidelityRow[] {
  const at = (rate: number) => {
    const o = runSim({ fixture: 'cap-saturation', design: 'offload', seconds: 30, rate }, 1);
    const i = runSim({ fixture: 'cap-saturation', design: 'inline', seconds: 30, rate }, 1);
    const c = o.counters;
    return { capped: c.capped / Math.max(1, c.inline + c.offloaded + c.capped), tail: o.latency.p99 / i.latency.p99 };
  };
  const [r2, r4, r8, r16] = [2, 4, 8, 16].map(at) as [ReturnType<typeof at>, ReturnType<typeof at>, ReturnType<typeof at>, ReturnType<typeof at>];
  return [
    { family: 'materialize', figure: 'cap saturation: capped share at 4/s and 8/s (load doubled)', source: 'rises faster than linearly', interleave: `${pct(r4.capped)} → ${pct(r8.capped)}`, tolerance: 'trend: more than doubles', holds: r4.capped > 0 && r8.capped > 2 * r4.capped },
    { family: 'materialize', figure: 'cap saturation: offload p99 / inline p99 at 2/s and 16/s', source: 'tail converges to C0 (inline)', interleave: `${fix(r2.tail)} → ${fix(r16.tail)}`, tolerance: 'trend: rises to ≥ 0.9', holds: r16.tail > r2.tail && r16.tail >= 0.9 },
  ];
}

/** Every family's rows (the ones asked for), in table order. */
export async function fidelityTable(opts: FidelityOptions = {}): Promise<FidelityTable> {
  const fams = opts.families ?? ['airflow', 'materialize', 'amber'];
  const parts: FidelityTable[] = [];
  if (fams.includes('airflow')) parts.push(airflowRows(opts));
  if (fams.includes('materialize')) parts.push(materializeRows(opts));
  if (fams.includes('amber')) parts.push(await amberFidelity(opts));
  return { rows: parts.flatMap((p) => p.rows), notComputed: parts.flatMap((p) => p.notComputed) };
}
