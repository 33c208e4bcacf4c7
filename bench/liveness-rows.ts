// Rows of the checker benchmark for liveness: the same model checked with its
// liveness properties (the graph is kept, no POR, then the SCC pass) and without
// them (`liveness: false`, POR as the model allows), per CPU second of this process.
import { defineScenario, nonProgressCycles, type Scenario } from '../src/actors/index.ts';
import { check, type CheckResult } from '../src/check/index.ts';
import { lostUpdate, machineRing } from '../test/fixtures/check/models.ts';

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** A scenario with one more liveness property that owes on every world (the SCC pass then visits the whole graph). */
function owingEverywhere(sc: Scenario): Scenario {
  return defineScenario({ ...sc, liveness: { ...(sc.liveness ?? {}), 'bench: no progress anywhere': nonProgressCycles(() => false) } });
}

async function measured(sc: Scenario, liveness: boolean, minCpu: number): Promise<{ r: CheckResult; cpu: number }> {
  await check(sc, { strategy: 'bfs', shrink: false, liveness, maxStates: 2_000 }); // warm-up
  const c0 = cpuMs();
  let r: CheckResult;
  let runs = 0;
  do {
    r = await check(sc, { strategy: 'bfs', shrink: false, liveness, maxStates: 200_000, timeLimitMs: 120_000 });
    runs++;
  } while (cpuMs() - c0 < minCpu);
  return { r, cpu: (cpuMs() - c0) / runs };
}

export const LIVENESS_HEADER = ['model', 'liveness', 'POR', 'complete', 'distinct', 'transitions', 'CPU ms', 'distinct/s', 'visited B/state', 'graph B/state', 'SCC pass B/state', 'SCC wall ms', 'cyclic SCCs'];

export const LIVENESS_NOTE =
  'off = the same scenario checked with liveness: false (bfs, POR when the model allows it); on = the graph search (bfs order, no POR, no symmetry)\n' +
  'and the SCC pass. visited B/state = the fingerprint set (with liveness: + 4 B node number per slot). graph B/state = node arrays + 8 B per edge\n' +
  '(stats.liveness.bytesPerState, which includes the node numbers); SCC pass B/state = its peak working arrays. Rates per CPU second (the machine is shared).\n' +
  'Models (a), (b) get a property owed on every world (nonProgressCycles(() => false)) so the pass works over the whole graph; (c), (d) check the seed properties.';

export async function livenessRows(quick: boolean): Promise<(string | number)[][]> {
  const { buildAirflow } = await import('../src/machines/airflow/scenario.ts');
  const { parseOutcomes } = await import('../src/machines/airflow/config.ts');
  const { amberScenario } = await import('../src/machines/amber/scenario.ts');
  const models: [string, Scenario][] = [
    [quick ? '(a) token ring, 6 xstate nodes' : '(a) token ring, 8 xstate nodes', owingEverywhere(quick ? machineRing(6, 1, 2) : machineRing(8, 1, 2))],
    [quick ? '(b) lost update CAS, 3 clients x 2' : '(b) lost update CAS, 3 clients x 3', owingEverywhere(lostUpdate({ cas: true, clients: 3, rounds: quick ? 2 : 3 }))],
    ['(c) airflow items=3 W=2 tries=2 LIV-1/LIV-3', buildAirflow({ items: 3, W: 2, tries: 2, script: parseOutcomes('sfs'), liveness: true })],
    [`(d) amber-loop read-at-endchannel ${quick ? 'single' : 'nested rows=3'} I12`, amberScenario({ design: 'read-at-endchannel', liveness: true, ...(quick ? {} : { topology: 'nested' as const, rows: 3 }) })],
  ];
  const rows: (string | number)[][] = [];
  const minCpu = quick ? 100 : 400;
  for (const [name, sc] of models) {
    for (const live of [false, true]) {
      const { r, cpu } = await measured(sc, live, minCpu);
      const s = r.stats;
      const l = s.liveness;
      rows.push([
        name,
        live ? 'on' : 'off',
        r.options.por ? 'on' : 'off',
        r.complete ? 'yes' : `no (${r.cutBy ?? r.violation?.property.kind ?? '?'})`,
        s.distinctStates!,
        s.transitions,
        Math.round(cpu),
        Math.round((s.distinctStates! * 1000) / cpu),
        Number(s.bytesPerState.toFixed(1)),
        l ? Number(l.bytesPerState.toFixed(1)) : '',
        l ? Number(l.analysisBytesPerState.toFixed(1)) : '',
        l ? Math.round(l.analysisMs) : '',
        l ? l.cyclicComponents : '',
      ]);
    }
  }
  return rows;
}
