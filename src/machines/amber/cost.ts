// A cost model for `interleave simulate amber-loop`: virtual time for the loop under
// each design. Storage operations cost a request latency plus bytes at a bandwidth;
// a D0 hop pays JSON + base64 on its State content; everything else is cheap. The
// figures are only as good as these constants; the byte counts behind them are exact.
import { simulate, type CostModel, type Message, type World } from '../../actors/index.ts';
import type { SimulationProgress, SimulationReport } from '../../actors/family.ts';
import { ipcOf, type Batch } from './data.ts';
import { stateUri, type StateRow } from './messages.ts';
import { DESIGNS } from './operators.ts';
import { amberScenario, type AmberParams } from './scenario.ts';
import { stateRowsOf, type StoreState } from './store.ts';
import { STORE } from './worker.ts';

export interface CostConstants {
  /** Per storage request (catalog + S3 round trip), ms. */
  readonly requestMs: number;
  /** Storage bandwidth, bytes per ms. */
  readonly storageBytesPerMs: number;
  /** JSON + base64 work on State content at a hop, bytes per ms. */
  readonly codecBytesPerMs: number;
  /** Any other message, ms. */
  readonly messageMs: number;
}

export const DEFAULT_COSTS: CostConstants = { requestMs: 5, storageBytesPerMs: 100_000, codecBytesPerMs: 200_000, messageMs: 0.05 };

function statesBytes(rows: readonly StateRow[] | undefined): number {
  let n = 0;
  for (const r of rows ?? []) n += r.content.length;
  return n;
}

export function amberCostModel(c: CostConstants = DEFAULT_COSTS, storeIndex: number): CostModel {
  return {
    latency: () => c.messageMs,
    service(msg: Message, to: string, _from: string, world: World) {
      if (to === STORE) {
        let bytes = 0;
        if (msg.type === 'CommitPort') bytes = (msg.rows as Batch[]).reduce((n, b) => n + ipcOf(b).byteLength, 0) + statesBytes(msg.states as StateRow[]);
        else if (msg.type === 'Commit') bytes = statesBytes(msg.states as StateRow[]);
        else if (msg.type === 'Fetch') {
          const o = (world.snaps[storeIndex] as StoreState).objects[String(msg.key)];
          bytes = o instanceof Uint8Array ? o.byteLength : 0;
        } else if (msg.type === 'OpenPort') {
          bytes = statesBytes(stateRowsOf(world.snaps[storeIndex] as StoreState, stateUri(String(msg.base))));
        }
        return c.requestMs + bytes / c.storageBytesPerMs;
      }
      // A hop parses and re-dumps each State it routes (D0: the base64 table inside).
      if (msg.type === 'StateFrame') return c.messageMs + (msg.row as StateRow).content.length / c.codecBytesPerMs;
      return c.messageMs;
    },
  };
}

/** Virtual end-to-end time of the loop for each design, at the family's parameters. */
export function simulateDesigns(p: AmberParams, seed: number, c: CostConstants = DEFAULT_COSTS, onProgress?: SimulationProgress): SimulationReport {
  const rows: (string | number)[][] = [];
  const data: Record<string, unknown>[] = [];
  for (const design of DESIGNS) {
    // The whole workflow's virtual time: from scratch, whatever start the check uses.
    const sc = amberScenario({ ...p, start: 'scratch', design, overlapFault: false, recreateFault: false, maxCellBytes: p.largeTable ? p.maxCellBytes : 1 << 30 });
    const run = simulate(sc, amberCostModel(c, sc.index.get(STORE)!), { seed, record: false, ...(onProgress ? { onProgress: (steps: number, now: number) => onProgress(design, steps, now) } : {}) });
    const snap = run.world.snaps[sc.index.get('coordinator')!] as any;
    const coord = snap.context;
    // The coordinator's top-level state (executing is parallel: one region per operator).
    const state = typeof snap.value === 'string' ? snap.value : Object.keys(snap.value)[0]!;
    const iterations = Object.entries(coord.execs as Record<string, number>)
      .filter(([op]) => op === 'LS' || op === 'OS')
      .reduce((n, [, v]) => n + v, 0);
    const store = run.world.snaps[sc.index.get(STORE)!] as StoreState;
    const stored = Object.values(store.objects).reduce<number>((n, o) => n + o.byteLength, 0);
    rows.push([design, state, run.steps, Number(run.now.toFixed(1)), iterations ? Number((run.now / iterations).toFixed(1)) : 0, stored]);
    data.push({ design, end: state, steps: run.steps, virtualMs: run.now, iterations, storedBytes: stored });
  }
  return {
    title: `amber-loop ${p.topology}, ${p.rows} rows, k=${p.bodyHops} body hops${p.payloadBytes || p.largeTable ? ', wide rows' : ''}: virtual time per design (seed ${seed})`,
    tables: [
      {
        title: `virtual ms under the cost model (request ${c.requestMs} ms, storage ${c.storageBytesPerMs / 1000} MB/s, State codec ${c.codecBytesPerMs / 1000} MB/s)`,
        columns: ['design', 'end', 'steps', 'virtual ms', 'ms per outer iteration', 'bytes stored at the end'],
        rows,
        note: 'Fault switches are off in the simulation; D0 with largeTable fails at the first hop (end: executing means a worker is held).',
      },
    ],
    data,
  };
}
