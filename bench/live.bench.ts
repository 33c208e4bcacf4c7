// `npm run bench -- live`: the live runner on real storage.
// 1. The iterable task (the Airflow model, live) on SQLite (src/storage/live),
//    N = 16,194 items, W = 16: one checkpoint per index (before the batching
//    change) against one per round.
// 2. A data channel through the live runner: Arrow record batches (10 columns of
//    64-character strings) from a producer to a consumer at batch size 10/100/1000,
//    in memory and through the filesystem object store (each batch put as IPC,
//    then fetched and decoded by the consumer).
// 3. What recording costs: a ping-pong with an external echo (each round a delivery, the
//    echo's reply as an input step with a payload, and its delivery), run with nothing kept,
//    with the recording in memory, and streamed to a log (runLive's recordTo) at three fsync
//    cadences; then the log read back as a trace file under the default limits.
// Flags: --items=N, --quick (N = 2,000 and fewer batches), --minimal (also the example's small machine),
// --recording-only (only the third table), --rounds=R (recording: R ping-pong rounds, 3 steps each; default 134,000, --quick 20,000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordBatch, Table, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import { assign, setup } from 'xstate';
import { defineScenario, send, type Message } from '../src/actors/index.ts';
import { runLive } from '../src/live/runner.ts';
import { FsObjectStore } from '../src/storage/live/fs-object-store.ts';
import { startIterableTask } from '../examples/iterable-task/live.ts';
import { startAirflowTask } from '../examples/iterable-task/airflow.ts';
import { printTable, type Cell } from './table.ts';
import { statSync } from 'node:fs';
import { readTrace } from '../src/cli/read-trace.ts';
import { flag } from './flags.ts';

async function iterable(machines: 'airflow' | 'minimal', n: number, w: number, perIndex: boolean, dir: string): Promise<Cell[]> {
  const db = join(dir, `task-${machines}-${perIndex ? 'index' : 'round'}-${n}.db`);
  const t0 = performance.now();
  let writes: () => number;
  let steps: () => number;
  let close: () => Promise<void>;
  if (machines === 'airflow') {
    const task = startAirflowTask({ n, w, db, design: perIndex ? 'per-index' : 'per-round' });
    const end = await task.finished;
    if (end !== 'success') throw new Error(`airflow task ended ${end}`);
    ({ writes, close } = task);
    steps = () => task.system.schedule().length;
  } else {
    const task = startIterableTask({ n, w, db, perIndex, logRuns: false, live: { record: false, detail: false, slice: 256 } });
    const end = await task.finished;
    if (end.type !== 'complete') throw new Error(`iterable task ended with ${end.type}`);
    ({ writes, close } = task);
    steps = () => task.system.schedule().length;
  }
  const s = (performance.now() - t0) / 1000;
  const row: Cell[] = [machines === 'airflow' ? 'src/machines/airflow' : 'example minimal', perIndex ? 'per index' : 'per round', n, w, writes(), s, n / s, writes() / s, steps() / s];
  await close();
  return row;
}

function batchOf(size: number, seq: number): RecordBatch {
  const cols: Record<string, unknown> = {};
  const s = 'x'.repeat(63);
  for (let c = 0; c < 10; c++) cols[`c${c}`] = vectorFromArray(Array.from({ length: size }, (_, i) => `${(seq + i + c) % 10}${s}`));
  return new Table(cols as any).batches[0]!;
}

const consumer = setup({ types: {} as { context: { tuples: number; batches: number } } }).createMachine({
  context: { tuples: 0, batches: 0 },
  on: {
    DataFrame: { actions: assign(({ context, event }) => ({ tuples: context.tuples + (event as unknown as { rows: number }).rows, batches: context.batches + 1 })) },
    Stored: { actions: send('store', ({ event }) => ({ type: 'Fetch', key: (event as unknown as { key: string }).key })) },
    Fetched: { actions: assign(({ context, event }) => ({ tuples: context.tuples + (event as unknown as { rows: number }).rows, batches: context.batches + 1 })) },
  },
});

/** Tuples/s and MB/s through one channel: `batches` DataFrames of `size` rows. */
async function channel(size: number, batches: number, viaFs: FsObjectStore | undefined): Promise<Cell[]> {
  const frames = Array.from({ length: batches }, (_, k) => batchOf(size, k));
  const bytes = frames.reduce((n, b) => n + tableToIPC(new Table(b)).byteLength, 0);
  const sc = defineScenario({ name: 'data-channel', actors: { consumer, ...(viaFs ? { store: { kind: 'external' as const } } : {}) } });
  const store = viaFs && {
    handle: async (msg: Message, from: string) => {
      if (msg.type === 'Put') {
        const r = await viaFs.put(msg.key as string, tableToIPC(new Table(msg.batch as RecordBatch)));
        if (r.type !== 's3.put.ok') throw new Error(String(r.message));
        return [{ to: 'consumer', msg: { type: 'Stored', key: msg.key } }];
      }
      const r = await viaFs.get(msg.key as string);
      if (r.type !== 's3.get.ok') throw new Error(String(r.message));
      const t = tableFromIPC(r.body);
      return [{ to: from, msg: { type: 'Fetched', rows: t.numRows } }];
    },
    concurrency: 4,
  };
  const live = runLive(sc, { timeScale: 0, record: false, detail: false, ...(store ? { externals: { store } } : {}) });
  const t0 = performance.now();
  for (let k = 0; k < batches; k++) {
    const rb = frames[k]!;
    // Producer side: the env sends each frame (via the store when viaFs).
    if (viaFs) live.send('store', { type: 'Put', key: `data/b${k}`, batch: rb });
    else live.send('consumer', { type: 'DataFrame', rows: rb.numRows, batch: rb });
  }
  const w = await live.whenQuiescent();
  const s = (performance.now() - t0) / 1000;
  await live.stop();
  const ctx = (w.snaps[0] as { context: { tuples: number } }).context;
  if (ctx.tuples !== size * batches) throw new Error(`consumer saw ${ctx.tuples} tuples, expected ${size * batches}`);
  return [viaFs ? 'fs store (put + get IPC)' : 'in memory', size, batches, (size * batches) / s, bytes / s / 1e6];
}

const pinger = setup({ types: {} as { context: { n: number; max: number } } }).createMachine({
  context: ({ input }) => ({ n: 0, max: (input as { max: number }).max }),
  initial: 'go',
  states: {
    go: {
      entry: send('echo', ({ context }) => ({ type: 'Ping', n: context.n, body: new TextEncoder().encode(`{"n":${context.n}}`) })),
      on: { Pong: [{ guard: ({ context }) => context.n + 1 >= context.max, target: 'done' }, { target: 'go', reenter: true, actions: assign({ n: ({ context }) => context.n + 1 }) }] },
    },
    done: { type: 'final' },
  },
});

/** Steps/s of `rounds` ping-pong rounds through an external echo, recorded as `mode` says. */
async function recordingCost(rounds: number, mode: 'none' | 'memory' | { fsyncMs: number }, dir: string): Promise<Cell[]> {
  const sc = defineScenario({ name: 'ping-echo', actors: { pinger: { logic: pinger, input: { max: rounds } }, echo: { kind: 'external' as const } } });
  const path = join(dir, `ping-${typeof mode === 'object' ? mode.fsyncMs : mode}.log`);
  const live = runLive(sc, {
    timeScale: 0,
    detail: false,
    slice: 256,
    record: mode === 'memory',
    externals: { echo: (msg, from) => [{ to: from, msg: { type: 'Pong', n: msg.n, body: msg.body } }] },
    ...(typeof mode === 'object' ? { recordTo: { path, fsyncMs: mode.fsyncMs } } : {}),
  });
  const t0 = performance.now();
  await live.whenQuiescent();
  await live.stop();
  const s = (performance.now() - t0) / 1000;
  const steps = live.schedule().length;
  const what = mode === 'none' ? 'not recorded (record: false)' : mode === 'memory' ? 'in memory (record: true)' : `streamed, fsync ${mode.fsyncMs === Infinity ? 'at the end only' : mode.fsyncMs === 0 ? 'every batch' : `every ${mode.fsyncMs} ms`}`;
  if (typeof mode !== 'object') return [what, steps, s, steps / s, '', '', ''];
  const bytes = statSync(path).size;
  const r0 = performance.now();
  const file = readTrace(path);
  const rs = (performance.now() - r0) / 1000;
  if (file.schedule.length !== steps) throw new Error(`log holds ${file.schedule.length} steps, the run took ${steps}`);
  return [what, steps, s, steps / s, bytes / 1e6, bytes / steps, rs];
}

async function storageTables(argv: string[], quick: boolean, n: number, dir: string): Promise<void> {
  const rows: Cell[][] = [];
  const machines: ('airflow' | 'minimal')[] = argv.includes('--minimal') ? ['airflow', 'minimal'] : ['airflow'];
  for (const m of machines) for (const perIndex of [true, false]) rows.push(await iterable(m, n, 16, perIndex, dir));
  printTable(
    `Iterable task live on SQLite (WAL, synchronous=NORMAL), N = ${n.toLocaleString('en-US')}, W = 16`,
    ['machines', 'checkpoints', 'items', 'W', 'state-store writes', 's', 'items/s', 'writes/s', 'steps/s'],
    rows,
    'Airflow: the model of src/machines/airflow (task process, round writer, request channel: one request at a time, XCom push per index) with the supervisor relay and runner live; operator time 0. Every write is acknowledged after its SQLite transaction commits. --minimal adds the example\'s small machine.',
  );
  const ch: Cell[][] = [];
  const fs = new FsObjectStore(join(dir, 'objects'));
  for (const size of [10, 100, 1000]) {
    // 200k tuples in memory, 20k through the disk (at least the seed's 20 batches).
    ch.push(await channel(size, quick ? 20 : Math.max(20, Math.round(200_000 / size)), undefined));
    ch.push(await channel(size, quick ? 20 : Math.max(20, Math.round(20_000 / size)), fs));
  }
  printTable(
    'Data channel through the live runner: Arrow batches, 10 columns of 64-char strings',
    ['path', 'batch size', 'batches', 'tuples/s', 'MB/s (IPC)'],
    ch,
    'In memory the runner passes batch references (the cost is its steps); through the fs store every batch is encoded, written, read and decoded. Seed (Amber, PR #6971 benchmark): 545 / 1,160 / 1,356 tuples/s at batch size 10 / 100 / 1000.',
  );
}

export default async function (argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const n = Number(flag(argv, 'items') ?? (quick ? 2000 : 16_194));
  const dir = mkdtempSync(join(tmpdir(), 'interleave-bench-live-'));
  try {
    // --recording-only: just the third table.
    if (!argv.includes('--recording-only')) await storageTables(argv, quick, n, dir);
    const rounds = Number(flag(argv, 'rounds') ?? (quick ? 20_000 : 134_000));
    const rec: Cell[][] = [];
    for (const mode of ['none', 'memory', { fsyncMs: Infinity }, { fsyncMs: 1000 }, { fsyncMs: 0 }] as const) rec.push(await recordingCost(rounds, mode, dir));
    printTable(
      `What recording costs: ${rounds.toLocaleString('en-US')} ping-pong rounds through an external echo (3 steps a round, a 7-16 byte JSON body each way)`,
      ['recording', 'steps', 's', 'steps/s', 'log MB', 'log bytes/step', 'read back s'],
      rec,
      'Streamed: runLive recordTo, batches of 256 steps or 50 ms (the loss window of a kill -9), fsync on the cadence shown. The log is read back with the default trace limits (64 MB) by the reader replay and check --from use.',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
