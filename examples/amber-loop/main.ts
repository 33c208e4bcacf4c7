// Command line of examples/amber-loop.js: the model-checked Amber loop machines,
// run live; the store's data files (Arrow IPC) and state rows live in a directory.
import { tableFromIPC } from 'apache-arrow';
import type { ReducerLogic } from 'interleave';
import { runLive } from 'interleave/live';
import { AMBER_DESIGNS as DESIGNS, amberScenario, type AmberDesign as Design, type AmberStoreState as StoreState } from 'interleave/machines';
import { amberFsStore } from './fs-store.ts';
import { parseFlags, untilDone, usageError, writeTrace } from '../cli.ts';

const USAGE = `usage: node examples/amber-loop.js [--rows N] [--dir DIR] [--design ${DESIGNS.join('|')}] [--record trace.json] [--quiet]`;

export async function main(argv: string[]): Promise<number> {
  const a = parseFlags(argv, {
    rows: { type: 'string', default: '5' },
    dir: { type: 'string', default: './amber-data' },
    design: { type: 'string', default: 'read-at-endchannel' },
    record: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  }, USAGE);
  if (typeof a === 'number') return a;
  const rows = Number(a.rows);
  if (!Number.isInteger(rows) || rows < 1 || rows > 50) return usage(`--rows must be an integer from 1 to 50, got '${a.rows}'`);
  if (!DESIGNS.includes(a.design as Design)) return usage(`--design must be one of ${DESIGNS.join(', ')}, got '${a.design}'`);
  const say = (s: string) => a.quiet || console.log(s);

  // The scenario the checker explores (`interleave check amber-loop`), without its fault switches.
  const sc = amberScenario({ topology: 'single', rows, design: a.design as Design, overlapFault: false });
  const model = sc.actorList[sc.index.get('store')!]!;
  if (model.kind !== 'reducer') throw new Error('the Amber scenario has no modelled store');
  const store = amberFsStore(a.dir!, model.logic as ReducerLogic<StoreState>, model.input);
  const t0 = performance.now();
  const live = runLive(sc, { externals: { store: store.handle }, timeScale: 0.01 });
  live.events$.subscribe({
    next: (e) => {
      if (e.kind === 'deliver' && e.to === 'coordinator') say(`  coordinator <- ${e.from}: ${e.msg.type}`);
      if (e.kind === 'output') say(`  output: ${JSON.stringify(e.msg)}`);
    },
    error: () => {},
  });
  say(`Amber loop over a ${rows}-row Arrow table, design ${a.design}, store in ${a.dir}`);
  if (!(await untilDone(live.whenQuiescent(), () => live.stop()))) return 1;
  await live.stop();
  const ms = performance.now() - t0;
  if (live.failures.length) {
    for (const f of live.failures) console.error(`failure: ${JSON.stringify(f)}`);
    return 1;
  }
  // What is on disk: each data file decoded with apache-arrow.
  const list = await store.objects.list('');
  if (list.type !== 's3.list.ok') throw new Error(String(list.message));
  say(`\n${list.keys.length} object(s) on disk (${store.io.puts} puts, ${store.io.gets} fetches, ${store.io.deletes} deletes, ${store.io.bytes} bytes written):`);
  for (const key of list.keys) {
    const got = await store.objects.get(key);
    if (got.type !== 's3.get.ok') continue;
    let what: string;
    try {
      const t = tableFromIPC(got.body);
      what = `Arrow table, ${t.numRows} row(s): ${t.schema.fields.map((f) => f.name).join(', ')}`;
    } catch {
      what = `state rows (JSON), ${got.body.byteLength} bytes`;
    }
    say(`  ${key}  ${what}`);
  }
  if (a.record) say(`recorded ${await writeTrace(a.record, live)} steps to ${a.record} (replay: interleave replay ${a.record})`);
  say(`\ndone in ${ms.toFixed(0)} ms, ${live.schedule().length} steps`);
  return 0;
}

const usage = (msg: string): number => usageError(msg, USAGE);
