// Runs to an ordering bug of depth 1, 2 and 3 for the samplers (pct, pos) beside
// fast-check's scheduler (fc.scheduler(), a dev dependency) on the same bug: two tasks
// of K = 14 steps each, median over the seeds of the runs until the first failure, and
// each sampler's CPU per run over a fixed number of runs after a warm-up (process.cpuUsage,
// since the machine is shared). interleave's runs are `runOne` (the Sampler's run without
// the visited-set bookkeeping of a check); fast-check's are `fc.check` runs with
// `endOnFailure` (no shrinking), each awaiting both tasks to the end. The check() columns
// are what a user pays: the CPU of one `check(scenario, { strategy, runs })` call over its
// runs, on the same model with a monitor that never fails (so every run goes to its end),
// by default and with `countDistinct: true` (every world hashed into the visited set).
//
//   npm run bench -- checker --sampler           (this table only)
import { deriveSeed, type Scenario } from '../src/actors/index.ts';
import { check, estimateK, runOne, type SampleConfig } from '../src/check/index.ts';
import { orderingBug } from '../test/fixtures/check/models.ts';
import { median, type Cell } from './table.ts';

const K = 14;
const COST_RUNS = 20_000;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The bug the fixture's monitor looks for, on the order of the two tasks' steps. */
function bugIn(depth: 1 | 2 | 3, log: readonly string[]): boolean {
  let a = 0,
    b = 0,
    aFirst = false,
    bAt = -1;
  for (const x of log) {
    if (x === 'A') {
      if (b === 0) aFirst = true;
      a++;
    } else {
      if (b === 0) bAt = a;
      b++;
    }
    if (depth === 1 && b === K && a === 0) return true;
    if (depth === 2 && b === K && a === 1 && aFirst) return true;
    if (depth === 3 && a === K && b === 1 && bAt === 1) return true;
  }
  return false;
}

interface Sampled {
  /** Runs to the first failure, per seed (Infinity: capped). */
  readonly runs: number[];
  /** CPU microseconds per run. */
  readonly usPerRun: number;
}

function interleaveRuns(sc: Scenario, cfg: SampleConfig, seeds: number, cap: number, costRuns: number): Sampled {
  const runs: number[] = [];
  for (let s = 0; s < seeds; s++) {
    const root = 1000 + s;
    let n = 0;
    while (n < cap && !runOne(sc, { ...cfg, root }, deriveSeed(root, n++)).found);
    runs.push(n === cap ? Infinity : n);
  }
  // The cost: the same runs as a check makes (a run that meets the bug ends there), warm.
  for (let i = 0; i < costRuns; i++) runOne(sc, cfg, deriveSeed(1, i));
  const c0 = cpuMs();
  for (let i = 0; i < costRuns; i++) runOne(sc, cfg, deriveSeed(2, i));
  return { runs, usPerRun: ((cpuMs() - c0) * 1000) / costRuns };
}

/** CPU microseconds per run of `check()`: one warm-up check, then one measured, both `runs` long. */
async function checkRuns(depth: 1 | 2 | 3, strategy: 'pct' | 'pos', runs: number, countDistinct: boolean): Promise<number> {
  const sc = orderingBug(K, depth, 0, false);
  const opts = { strategy, runs, faultRate: 0, shrink: false, countDistinct, ...(strategy === 'pct' ? { depth } : {}) };
  const warm = await check(sc, { ...opts, seed: 1 });
  const c0 = cpuMs();
  const r = await check(sc, { ...opts, seed: 2 });
  const us = ((cpuMs() - c0) * 1000) / runs;
  if (!warm.ok || !r.ok || r.stats.runs !== runs) throw new Error(`the never-failing ordering model failed or stopped early (${strategy}, depth ${depth})`);
  return us;
}

async function fastCheckRuns(depth: 1 | 2 | 3, seeds: number, cap: number, costRuns: number): Promise<Sampled> {
  const fc = (await import('fast-check')).default;
  const property = (failOnBug: boolean) => fc.asyncProperty(fc.scheduler(), async (s) => {
    const log: string[] = [];
    const task = async (name: string) => {
      for (let i = 0; i < K; i++) {
        await s.schedule(Promise.resolve(), name);
        log.push(name);
      }
    };
    const done = Promise.all([task('A'), task('B')]);
    await s.waitAll();
    await done;
    return !(failOnBug && bugIn(depth, log));
  });
  const runs: number[] = [];
  for (let s = 0; s < seeds; s++) {
    const out = await fc.check(property(true), { seed: 1000 + s, numRuns: cap, endOnFailure: true });
    runs.push(out.failed ? out.numRuns : Infinity);
  }
  // The cost: every run goes to the end (both tasks done) and checks the order.
  await fc.check(property(false), { seed: 1, numRuns: costRuns });
  const c0 = cpuMs();
  await fc.check(property(false), { seed: 2, numRuns: costRuns });
  return { runs, usPerRun: ((cpuMs() - c0) * 1000) / costRuns };
}

export const SAMPLER_HEADER = ['bug depth', 'pct runs', 'pos runs', 'fast-check runs', 'pct / pos', 'pct µs/run', 'pos µs/run', 'pct check() µs/run', 'pos check() µs/run', 'pct / pos check() counting distinct µs/run', 'fast-check µs/run', 'capped seeds (pct/pos/fc)'];

export function samplerNote(seeds: number, cap: number, fcCap: number, costRuns = COST_RUNS): string {
  return (
    `Median over ${seeds} seeds of the runs to the first failure (caps: ${cap} runs per seed for pct and pos, ${fcCap} for fast-check).\n` +
    `Ordering bug (test/fixtures/check/models.ts orderingBug): tasks A and B, ${K} steps each; depth 1: B finishes before A starts;\n` +
    'depth 2: A steps once, then B runs to completion; depth 3: A steps once, then B once, then A runs to completion before B\'s second step.\n' +
    'pct runs with d = the bug depth and k from pilot walks; pos has no parameters.\n' +
    `µs/run: CPU per run over ${costRuns.toLocaleString('en-US')} more runs after as many to warm up (interleave: runs end at the bug, as in a check; fast-check: every run to the end).\n` +
    `check() µs/run: CPU of a whole check(scenario, { strategy, runs: ${costRuns.toLocaleString('en-US')}, faultRate: 0 }) call per run, after one such call to warm up, on the same model with a monitor\n` +
    'that never fails (every run to the end), by default and with countDistinct: true (each world hashed into the visited set, as every sampled check did before).'
  );
}

export async function samplerRows(quick: boolean, cap: number): Promise<Cell[][]> {
  const seeds = quick ? 10 : 20;
  const fcCap = quick ? 50_000 : 200_000;
  const rows: Cell[][] = [];
  for (const depth of [1, 2, 3] as const) {
    const sc = orderingBug(K, depth);
    const k = estimateK(sc, 1000, 0);
    const cost = quick ? COST_RUNS / 10 : COST_RUNS;
    const pct = interleaveRuns(sc, { strategy: 'pct', root: 0, maxDepth: 1000, faultRate: 0, pct: { depth, k } }, seeds, cap, cost);
    const pos = interleaveRuns(sc, { strategy: 'pos', root: 0, maxDepth: 1000, faultRate: 0 }, seeds, cap, cost);
    const fc = await fastCheckRuns(depth, seeds, fcCap, cost);
    const pctCheck = await checkRuns(depth, 'pct', cost, false);
    const posCheck = await checkRuns(depth, 'pos', cost, false);
    const pctCounting = await checkRuns(depth, 'pct', cost, true);
    const posCounting = await checkRuns(depth, 'pos', cost, true);
    const show = (x: number, c: number) => (Number.isFinite(x) ? x : `>${c}`);
    const capped = (s: Sampled) => s.runs.filter((x) => !Number.isFinite(x)).length;
    const mp = median(pct.runs),
      mo = median(pos.runs);
    rows.push([
      depth,
      show(mp, cap),
      show(mo, cap),
      show(median(fc.runs), fcCap),
      Number.isFinite(mp) ? Number((mp / mo).toFixed(1)) : `>${(cap / mo).toFixed(0)}`,
      Number(pct.usPerRun.toFixed(1)),
      Number(pos.usPerRun.toFixed(1)),
      Number(pctCheck.toFixed(1)),
      Number(posCheck.toFixed(1)),
      `${pctCounting.toFixed(1)} / ${posCounting.toFixed(1)}`,
      Number(fc.usPerRun.toFixed(1)),
      `${capped(pct)}/${capped(pos)}/${capped(fc)}`,
    ]);
  }
  return rows;
}
