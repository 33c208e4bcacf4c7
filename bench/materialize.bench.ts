// `npm run bench -- materialize [--full] [--checker]`: the E1/E11/E12 tables per
// design, the cap-saturation sweep, simulated events per second, and checker
// figures for the small configurations of the materialize-peeks family
// (`--checker`: only those). Virtual-time figures are deterministic (seed 1);
// events/s and checker ms are wall-clock, states per CPU s is this process's CPU.
import { printTable } from './table.ts';
import { check } from '../src/check/index.ts';
import { parseParams } from '../src/actors/family.ts';
import { materializePeeksFamily as family } from '../src/machines/materialize/family.ts';
import { runSim, type SimResult } from '../src/machines/materialize/simulation.ts';
import { buildScenario } from '../src/machines/materialize/scenario.ts';
import * as C from '../src/machines/materialize/cases.ts';
import { DESIGNS } from '../src/machines/materialize/types.ts';
import type { Fixture } from '../src/machines/materialize/fixtures.ts';

const r1 = (x: number) => Math.round(x * 10) / 10;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export default async function (argv: string[]): Promise<void> {
  const full = argv.includes('--full');
  if (!argv.includes('--checker')) await simulations(full);
  await checker(full);
}

/** The simulation tables (virtual time is deterministic; events/s is wall-clock). */
async function simulations(full: boolean): Promise<void> {
  const seconds: Record<string, number> = full ? { e1: 60, e11: 26, e12: 120 } : { e1: 30, e11: 26, e12: 60 };
  let events = 0;
  let wall = 0;
  for (const fixture of ['e1', 'e11', 'e12'] as Fixture[]) {
    const rows: (string | number)[][] = [];
    const results: SimResult[] = [];
    for (const design of DESIGNS) {
      const r = runSim({ fixture, design, seconds: seconds[fixture]! }, 1);
      results.push(r);
      events += r.kernelSteps;
      wall += r.wallMs;
      rows.push([design, r.latency.n, r1(r.latency.p50), r1(r.latency.p90), r1(r.latency.p99), r1(r.latency.max), `${(r.latency.over200 * 100).toFixed(1)}%`,
        r1(r.queued.p90), r.retirement.n ? r1(r.retirement.max) : '-', `${r.counters.inline}/${r.counters.offloaded}/${r.counters.capped}`, Math.round((r.kernelSteps * 1000) / r.wallMs)]);
    }
    const base = results[0]!.latency;
    const off = results[1]!.latency;
    const note = fixture === 'e12'
      ? `offload p90 / inline p90 = ${(off.p90 / base.p90).toFixed(2)} (seed measured 148.2 / 129.5 = 1.14)`
      : fixture === 'e1'
        ? `inline max / offload max = ${(base.max / off.max).toFixed(1)}x (PR measured 5784 / 180, ~32x; offload here is the bare round trip); inline p50 ${r1(base.p50)} (PR: bound by the round trip, about 105)`
        : `over 200 ms: inline ${(base.over200 * 100).toFixed(1)}%, offload ${(off.over200 * 100).toFixed(1)}% (seed measured 58 of 261 = 22%, and 0)`;
    printTable(`${fixture} (${seconds[fixture]} virtual s, seed 1): latency of lookups, virtual ms`,
      ['design', 'n', 'p50', 'p90', 'p99', 'max', '> 200 ms', 'queued p90', 'retire max', 'inline/offl/capped', 'events/s'], rows, note);
  }
  // E12 ablation and seed spread.
  const abl: (string | number)[][] = [];
  for (const seed of full ? [1, 2, 3] : [1, 2]) {
    for (const chain of (seed === 1 || full ? ['merge', 'single'] : ['merge']) as ('merge' | 'single')[]) {
      const a = runSim({ fixture: 'e12', design: 'inline', seconds: seconds.e12!, chain }, seed);
      const b = runSim({ fixture: 'e12', design: 'offload', seconds: seconds.e12!, chain }, seed);
      events += a.kernelSteps + b.kernelSteps;
      wall += a.wallMs + b.wallMs;
      abl.push([seed, chain, r1(a.latency.p90), r1(b.latency.p90), r1(b.latency.p90 - a.latency.p90), `${((b.latency.p90 / a.latency.p90 - 1) * 100).toFixed(0)}%`]);
    }
  }
  printTable('E12 per seed, merge chains vs chain length 1 (ablation)', ['seed', 'chains', 'inline p90', 'offload p90', 'gap ms', 'gap'], abl);
  // Cap saturation.
  const cap: (string | number)[][] = [];
  for (const rate of full ? [2, 4, 6, 8, 10, 12] : [2, 4, 6, 8, 10]) {
    const row: (string | number)[] = [rate];
    for (const slotRelease of ['walk-end', 'retire'] as const) {
      const r = runSim({ fixture: 'cap-saturation', design: 'offload', slotRelease, rate, seconds: 60 }, 1);
      events += r.kernelSteps;
      wall += r.wallMs;
      row.push(`${((r.counters.capped / (r.counters.capped + r.counters.offloaded)) * 100).toFixed(1)}%`, r1(r.latency.p99));
    }
    cap.push(row);
  }
  printTable('cap saturation (cap 4, 1 worker, heavy-tailed walks, 60 virtual s): capped share and walk p99 by arrival rate', ['rate/s', 'capped (walk-end)', 'p99 (walk-end)', 'capped (retire)', 'p99 (retire)'], cap);
  printTable('simulator throughput', ['kernel steps', 'wall s', 'events/s'], [[events, r1(wall / 1000), Math.round((events * 1000) / wall)]]);
}

/** Checker figures: verdict, states, transitions, and time (wall and this process's CPU). */
async function checker(full: boolean): Promise<void> {
  const chk: (string | number)[][] = [];
  const configs: [string, () => ReturnType<typeof buildScenario>][] = [
    ['family default (retire, cancel)', () => family.build(parseParams(family, {}))],
    ['slotRelease=walk-end', () => family.build(parseParams(family, { slotRelease: 'walk-end' }))],
    ['walk-end peeks=3', () => family.build(parseParams(family, { slotRelease: 'walk-end', peeks: 3 }))],
    ...(full ? ([['walk-end cap=2 peeks=3', () => family.build(parseParams(family, { slotRelease: 'walk-end', cap: 2, peeks: 3 }))]] as [string, () => ReturnType<typeof buildScenario>][]) : []),
    ['walk-end workers=2 (no cancel, no compaction)', () => family.build(parseParams(family, { slotRelease: 'walk-end', workers: 2, cancel: false, compaction: false }))],
    ['design=inline peeks=4', () => family.build(parseParams(family, { design: 'inline', peeks: 4 }))],
    ['design=yield peeks=3', () => family.build(parseParams(family, { design: 'yield', peeks: 3 }))],
    ['scenario 6 (5 scans, retire)', () => buildScenario(C.capSaturation({ slotRelease: 'retire' }))],
    ['scenario 12 (stash, 1 fault)', () => buildScenario(C.offloadedStash({ faults: 1 }))],
    ['scenario 14 (cancel, retire)', () => buildScenario(C.cancelDuringWalk({ slotRelease: 'retire' }))],
    ['scenario 15 (2 workers)', () => buildScenario(C.errorsMerge({ design: 'offload', slotRelease: 'walk-end' }))],
  ];
  for (const [name, make] of configs) {
    const t0 = performance.now();
    const c0 = cpuMs();
    const r = await check(make(), { strategy: 'bfs', maxStates: 500_000, timeLimitMs: 60_000 });
    const cpu = cpuMs() - c0;
    const ms = performance.now() - t0;
    chk.push([name, r.ok ? (r.complete ? 'holds (complete)' : `holds (cut: ${r.cutBy})`) : `violated: ${r.violation!.property.name} (${r.violation!.schedule.length} steps)`, r.stats.distinctStates!, r.stats.transitions, Math.round(ms), Math.round(cpu), Math.round((r.stats.distinctStates! * 1000) / cpu)]);
  }
  printTable('checker, bfs, small configurations', ['configuration', 'result', 'states', 'transitions', 'wall ms', 'CPU ms', 'states per CPU s'], chk, 'CPU is this process\'s (process.cpuUsage): on a shared machine it moves less than wall time.');
}
