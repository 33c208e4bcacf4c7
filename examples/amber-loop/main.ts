// Command line of examples/amber-loop.js: the model-checked Amber loop machines,
// run live; the store's data files (Arrow IPC) and state rows live in a directory
// (--dir) or in an S3 bucket (--s3 s3://bucket/prefix/?endpoint=…).
import { tableFromIPC } from 'apache-arrow';
import type { ReducerLogic } from 'interleave';
import { runLive, S3ObjectStore } from 'interleave/live';
import { AMBER_DESIGNS as DESIGNS, amberScenario, type AmberDesign as Design, type AmberStoreState as StoreState } from 'interleave/machines';
import { amberStore } from './fs-store.ts';
import { FsObjectStore } from 'interleave/live';
import { parseFlags, untilDone, usageError, writeTrace } from '../cli.ts';

const USAGE = `usage: node examples/amber-loop.js [--rows N] [--dir DIR | --s3 s3://bucket/prefix/?endpoint=URL] [--design ${DESIGNS.join('|')}] [--record trace.json] [--quiet]`;

export async function main(argv: string[]): Promise<number> {
  const a = parseFlags(argv, {
    rows: { type: 'string', default: '5' },
    dir: { type: 'string' },
    s3: { type: 'string' },
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
  if (a.dir !== undefined && a.s3 !== undefined) return usage('give --dir or --s3, not both');
  let objects: FsObjectStore | S3ObjectStore;
  try {
    objects = a.s3 !== undefined ? S3ObjectStore.fromUrl(a.s3) : new FsObjectStore(a.dir ?? './amber-data');
  } catch (e) {
    return usage((e as Error).message);
  }
  const where = a.s3 !== undefined ? `S3 ${objects.bucket}/${(objects as S3ObjectStore).prefix}` : (a.dir ?? './amber-data');

  // The scenario the checker explores (`interleave check amber-loop`), without its fault switches.
  const sc = amberScenario({ topology: 'single', rows, design: a.design as Design, overlapFault: false });
  const model = sc.actorList[sc.index.get('store')!]!;
  if (model.kind !== 'reducer') throw new Error('the Amber scenario has no modelled store');
  const store = amberStore(objects, model.logic as ReducerLogic<StoreState>, model.input);
  const t0 = performance.now();
  const live = runLive(sc, { externals: { store: store.handle }, timeScale: 0.01 });
  live.events$.subscribe({
    next: (e) => {
      if (e.kind === 'deliver' && e.to === 'coordinator') say(`  coordinator <- ${e.from}: ${e.msg.type}`);
      if (e.kind === 'output') say(`  output: ${JSON.stringify(e.msg)}`);
    },
    error: () => {},
  });
  say(`Amber loop over a ${rows}-row Arrow table, design ${a.design}, store in ${where}`);
  const close = async () => {
    await live.stop();
    if (objects instanceof S3ObjectStore) await objects.close();
  };
  if (!(await untilDone(live.whenQuiescent(), close))) return 1;
  await live.stop();
  const ms = performance.now() - t0;
  if (live.failures.length) {
    for (const f of live.failures) console.error(`failure: ${JSON.stringify(f)}`);
    await close();
    return 1;
  }
  // What is on disk: each data file decoded with apache-arrow.
  const list = await store.objects.list('');
  if (list.type !== 's3.list.ok') throw new Error(String(list.message));
  say(`\n${list.keys.length} object(s) in the store (${store.io.puts} puts, ${store.io.gets} fetches, ${store.io.deletes} deletes, ${store.io.bytes} bytes written):`);
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
  await close();
  return 0;
}

const usage = (msg: string): number => usageError(msg, USAGE);
