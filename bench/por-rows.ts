// The partial-order reduction in one table (issue 14's goals): each model checked by dfs
// with the reduction off and on in the same run: distinct states, transitions, CPU time
// (process.cpuUsage: the machine is shared, wall time mostly measures others) and the
// ratios. Small models are repeated until MIN_CPU_MS of CPU so noise averages out.
//
//   npm run bench -- checker --por               (this table only)
//   npm run bench -- checker --por --long        (+ materialize-peeks workers=2 walk-end: minutes of CPU)
import type { Scenario } from '../src/actors/index.ts';
import { check, type CheckOptions, type CheckResult } from '../src/check/index.ts';
import { allToOne, independentPairs, machineRing } from '../test/fixtures/check/models.ts';
import type { Cell } from './table.ts';

const MIN_CPU_MS = 300;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function family(name: string, params: Record<string, string | number | boolean>): Promise<{ sc: Scenario; maxStates?: number }> {
  const { families } = await import('../src/machines/catalog.ts');
  const { parseParams } = await import('../src/actors/family.ts');
  const f = families.find((x) => x.name === name)!;
  const p = parseParams(f, params);
  const d = typeof f.checkDefaults === 'function' ? f.checkDefaults(p) : f.checkDefaults;
  return { sc: f.build(p), ...(d?.maxStates === undefined ? {} : { maxStates: d.maxStates }) };
}

async function measure(sc: Scenario, opts: CheckOptions, repeat: boolean): Promise<{ r: CheckResult; cpu: number }> {
  const c0 = cpuMs();
  let r: CheckResult;
  let runs = 0;
  do {
    r = await check(sc, { strategy: 'dfs', shrink: false, ...opts });
    runs++;
  } while (repeat && cpuMs() - c0 < MIN_CPU_MS);
  return { r, cpu: (cpuMs() - c0) / runs };
}

const verdict = (r: CheckResult): string => (!r.ok ? `violated: ${r.violation!.property.name.split(':')[0]}` : r.complete ? 'holds, complete' : `cut by ${r.cutBy}`);

export const POR_HEADER = ['model', 'reduction', 'verdict', 'distinct states', 'transitions', 'CPU ms', 'states off/on', 'CPU on/off'];

export const POR_NOTE =
  'dfs, the same run, off = por: false, on = the default (stubborn sets + sleep sets). states off/on > 1: the reduction removed states; CPU on/off < 1: it saved time.\n' +
  'A violating model (lost update): distinct states and transitions of the reduced search to its first violation; its CPU includes the unreduced re-run (next table).\n' +
  'The every-step-conflicts row measures the cost of computing stubborn sets that never help (goal: CPU on/off < 1.15). airflow-checkpoints and\n' +
  'materialize-peeks run under their family budget (maxStates). materialize-peeks workers=2 slotRelease=walk-end needs --long (minutes of CPU).';

export async function porRows(quick: boolean, long: boolean): Promise<Cell[][]> {
  const models: [string, Scenario, { maxStates?: number }, boolean][] = [];
  const lost = await family('lost-update', {});
  models.push(['lost-update demo (defaults)', lost.sc, {}, true]);
  models.push([quick ? 'token ring N = 6' : 'token ring N = 8', quick ? machineRing(6, 1, 2) : machineRing(8, 1, 2), {}, true]);
  for (let k = 1; k <= (quick ? 4 : 6); k++) models.push([`k = ${k} independent pairs`, independentPairs(k), {}, true]);
  models.push(['every step conflicts: 6 senders x 4 messages to one sink', allToOne(6, 4), {}, true]);
  const air = await family('airflow-checkpoints', {});
  models.push(['airflow-checkpoints defaults', air.sc, { maxStates: quick ? 20_000 : air.maxStates }, false]);
  if (long) {
    const mat = await family('materialize-peeks', { workers: 2, slotRelease: 'walk-end' });
    models.push(['materialize-peeks workers=2 slotRelease=walk-end', mat.sc, { maxStates: mat.maxStates }, false]);
  }
  const rows: Cell[][] = [];
  for (const [name, sc, caps, small] of models) {
    if (small) {
      // Warm-up (JIT) on the same model.
      await check(sc, { strategy: 'dfs', shrink: false, por: false, maxStates: 2_000 });
      await check(sc, { strategy: 'dfs', shrink: false, maxStates: 2_000 });
    }
    const off = await measure(sc, { por: false, ...caps }, small);
    const on = await measure(sc, { ...caps }, small);
    // A violating model: the reduced search's own figures to its first violation (the
    // unreduced re-run that decides which violation is reported is in the next table).
    const reduced = on.r.options.firstViolation as { reducedDistinctStates: number; reducedTransitions: number } | undefined;
    const onDistinct = reduced?.reducedDistinctStates ?? on.r.stats.distinctStates!;
    for (const [label, m] of [['off', off], ['on', on]] as const) {
      rows.push([
        name,
        label === 'off' ? 'none' : String(m.r.options.reduction),
        verdict(m.r),
        label === 'on' ? onDistinct : m.r.stats.distinctStates!,
        label === 'on' && reduced ? reduced.reducedTransitions : m.r.stats.transitions,
        Math.round(m.cpu),
        label === 'on' ? Number((off.r.stats.distinctStates! / Math.max(1, onDistinct)).toFixed(2)) : '',
        label === 'on' ? Number((on.cpu / off.cpu).toFixed(2)) : '',
      ]);
    }
  }
  return rows;
}
