// Distinct states per CPU second of dfs and bfs on two protocol models, beside the
// one-machine rows (bench/every-event.ts) in `npm run bench -- checker --every-event`:
// what a change to the search path costs or saves on models with many actors.
import { check } from '../src/check/index.ts';

/** The models and parameters measured, and the distinct states each search stops at. */
const MODELS: [string, Record<string, string | number | boolean>][] = [
  ['airflow-checkpoints', { items: 8, taskConcurrency: 2 }],
  ['materialize-peeks', { workers: 2, slotRelease: 'walk-end' }],
];
const CAP = 200_000;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Rows: per model and strategy (dfs, bfs; default options, no shrink), distinct states, CPU ms and distinct states per CPU second. */
export async function protocolRateRows(quick: boolean): Promise<(string | number)[][]> {
  const { families } = await import('../src/machines/catalog.ts');
  const { parseParams } = await import('../src/actors/family.ts');
  const cap = quick ? 20_000 : CAP;
  const rows: (string | number)[][] = [];
  for (const [name, params] of MODELS) {
    const f = families.find((x) => x.name === name);
    if (!f) throw new Error(`protocol rates: no family '${name}' in the catalog`);
    const sc = f.build(parseParams(f, params));
    const label = `${name} ${Object.entries(params).map(([k, v]) => `${k}=${String(v)}`).join(' ')}`;
    // Warm-up (JIT) on the same model.
    await check(sc, { strategy: 'dfs', shrink: false, maxStates: 5_000 });
    for (const strategy of ['dfs', 'bfs'] as const) {
      const c0 = cpuMs();
      const r = await check(sc, { strategy, shrink: false, maxStates: cap });
      const ms = cpuMs() - c0;
      rows.push([label, strategy, r.complete ? 'yes' : `no (${r.cutBy ?? 'violation'})`, r.stats.distinctStates!, r.stats.transitions, Math.round(ms), Math.round((r.stats.distinctStates! * 1000) / ms)]);
    }
  }
  return rows;
}

export const PROTOCOL_RATES_HEADER = ['model', 'strategy', 'complete', 'distinct', 'transitions', 'CPU ms', 'distinct/CPU s'];
export const PROTOCOL_RATES_NOTE = `Default check options but no shrink, cut at ${CAP.toLocaleString('en-US')} distinct states (20,000 with --quick); CPU time of this process.`;
