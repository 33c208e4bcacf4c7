// Storage throughput: the simulated stores under the kernel's step function
// (enabled + apply, as the checker and simulator drive them) and reducer-direct,
// and the live adapters (filesystem object store, SQLite task state store) with
// 1 KiB and 1 MiB values. `npm run bench -- storage [--quick]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apply, defineScenario, enabled, initialWorld, inputStep, type World } from '../src/actors/index.ts';
import type { Message } from '../src/actors/types.ts';
import {
  docCommit,
  docCreate,
  docReadNext,
  docReadOpen,
  objectStore,
  s3Get,
  s3Put,
  scriptClient,
  simClient,
  taskStateStore,
  tsGet,
  tsSet,
  type TaskScope,
} from '../src/storage/index.ts';
import { FsObjectStore, SqliteTaskStateStore } from '../src/storage/live/index.ts';
import { median, printTable, rate } from './table.ts';

const KiB = 1024;
const MiB = 1024 * 1024;
const scope: TaskScope = { dagId: 'bench', runId: 'r1', taskId: 't', mapIndex: -1 };

/** Requests/s of a store driven by a looping script client under enabled/apply (after `setup` ran to completion). */
function underKernel(store: ReturnType<typeof objectStore> | ReturnType<typeof taskStateStore>, requests: readonly Message[], ms: number, setup: readonly Message[] = []): { ops: number; steps: number } {
  const sc = defineScenario({
    name: 'bench-store',
    actors: { setup: scriptClient('store', setup), client: scriptClient('store', requests, { loop: true, keep: false }), store },
    start: [{ to: 'setup', msg: { type: 'go' } }],
  });
  let w: World = initialWorld(sc, { detail: false }).world;
  for (let s = enabled(sc, w)[0]; s; s = enabled(sc, w)[0]) w = apply(sc, w, s, { detail: false }).world;
  w = apply(sc, w, inputStep(sc, 'env', 'client', { type: 'go' }), { detail: false }).world;
  const storeIx = sc.index.get('store')!;
  for (let i = 0; i < 20_000; i++) w = apply(sc, w, enabled(sc, w)[0]!, { detail: false }).world; // warm-up
  let steps = 0;
  let ops = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let i = 0; i < 256; i++) {
      const s = enabled(sc, w)[0]!;
      if (s.kind === 'deliver' && s.to === storeIx) ops++;
      w = apply(sc, w, s, { detail: false }).world;
      steps++;
    }
    t = performance.now();
  }
  const sec = (t - t0) / 1000;
  return { ops: ops / sec, steps: steps / sec };
}

/** Requests/s of the reducer alone (no kernel), cycling through `requests`. */
function direct(logic: Parameters<typeof simClient>[0], requests: readonly Message[], ms: number, setup: readonly Message[] = []): number {
  const c = simClient(logic);
  for (const m of setup) c.request(m);
  let i = 0;
  return rate(() => {
    c.request(requests[i++ % requests.length]!);
  }, ms);
}

async function timeAsync(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(5, n); i++) await fn(i);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return (n * 1000) / (performance.now() - t0);
}

export default async function (argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const ms = quick ? 200 : 700;
  const keys = Array.from({ length: 64 }, (_, i) => `bench/k${i}`);
  const kib = new Uint8Array(KiB).fill(7);
  const mib = new Uint8Array(MiB).fill(7);

  // --- simulated ---------------------------------------------------------
  const putGet = (body: Uint8Array) => keys.flatMap((k) => [s3Put(k, body), s3Get(k)]);
  const simRows: (string | number)[][] = [];
  for (const [label, body] of [['s3 put+get 1 KiB', kib], ['s3 put+get 1 MiB', mib]] as const) {
    const k = underKernel(objectStore(), putGet(body), ms);
    simRows.push([label, k.ops, k.steps, direct(objectStore(), putGet(body), ms)]);
  }
  const uri = 'bench/doc';
  const files = 16;
  const docSetup = [docCreate(uri, {}), ...Array.from({ length: files }, (_, i) => docCommit(uri, kib, i))];
  // A reader streams the 16 files again and again: open, 16 fetches, done.
  const readLoop = [docReadOpen(uri, 'r'), ...Array.from({ length: files + 1 }, () => docReadNext('r'))];
  {
    const k = underKernel(objectStore(), readLoop, ms, docSetup);
    simRows.push(['doc reader, 1 KiB files', k.ops, k.steps, direct(objectStore(), readLoop, ms, docSetup)]);
  }
  const value1k = 'x'.repeat(KiB);
  const tsReqs = keys.flatMap((k) => [tsSet(scope, k, value1k), tsGet(scope, k)]);
  for (const backend of ['database', 'object-storage'] as const) {
    const k = underKernel(taskStateStore({ backend }), tsReqs, ms);
    simRows.push([`task state set+get 1 KiB (${backend})`, k.ops, k.steps, direct(taskStateStore({ backend }), tsReqs, ms)]);
  }
  printTable(
    'Simulated stores (requests/s)',
    ['workload (64 keys)', 'under enabled+apply', 'kernel steps/s', 'reducer direct'],
    simRows,
    'Under the kernel each request is two steps (deliver to the store, deliver the reply). Payloads are shared by reference, so 1 MiB costs what 1 KiB costs.',
  );

  // --- live ----------------------------------------------------------------
  const dir = mkdtempSync(join(tmpdir(), 'interleave-bench-'));
  try {
    const fs = new FsObjectStore(join(dir, 'objects'));
    const db = new SqliteTaskStateStore(join(dir, 'state.db'), { maxValueStorageBytes: Infinity });
    const rows: (string | number)[][] = [];
    const rounds = quick ? 1 : 3;
    for (const [label, size, n] of [['1 KiB', KiB, quick ? 200 : 500], ['1 MiB', MiB, quick ? 20 : 60]] as const) {
      const body = size === KiB ? kib : mib;
      const value = 'v'.repeat(size);
      // Rounds interleave the four measurements; the median of each damps a busy machine.
      const r: number[][] = [[], [], [], []];
      for (let round = 0; round < rounds; round++) {
        r[0]!.push(await timeAsync(n, (i) => fs.put(`b/${size}/${i % 64}`, body)));
        r[1]!.push(await timeAsync(n, (i) => fs.get(`b/${size}/${i % 64}`)));
        r[2]!.push(await timeAsync(n, (i) => db.handle(tsSet(scope, `k${size}-${i % 64}`, value))));
        r[3]!.push(await timeAsync(n, (i) => db.handle(tsGet(scope, `k${size}-${i % 64}`))));
      }
      const [fsPut, fsGet, sqlSet, sqlGet] = r.map((xs) => median(xs)) as [number, number, number, number];
      rows.push([label, fsPut, fsGet, sqlSet, sqlGet, (fsPut * size) / MiB, (sqlSet * size) / MiB]);
    }
    db.close();
    printTable(
      `Live adapters (operations/s, sequential awaits, 64 keys rewritten, median of ${rounds} rounds)`,
      ['value', 'fs put', 'fs get', 'sqlite set', 'sqlite get', 'fs put MiB/s', 'sqlite set MiB/s'],
      rows,
      `fs put = temp file + rename (no fsync); SQLite in WAL mode, synchronous=NORMAL. Directory: ${tmpdir()}.`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
