// npm run bench -- amber
// 1. Bytes moved and time per loop iteration, D0 (table in state) vs D2 (read at EndChannel),
//    for table sizes 64 KiB, 1 MiB, 3 MiB and body lengths k = 0, 2, 4; D0's measured state
//    bytes next to the D0 formula (docs/amber.md) 2(k+1)(4⌈B/3⌉+49).
// 2. The seed's data benchmark (bs 10/100/1000, sw 10, sl 64, 20 batches) through one worker's
//    data channel, simulated (drive) and live (runLive), next to the seed's tuples/s.
// 3. The checker on the nested loop (2x2, 3x3): states, distinct states/s, POR reduction.
// Flags: --quick (fewer sizes and repetitions).
import { Buffer } from 'node:buffer';
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { drive, percentile, type RecordedEvent } from '../src/actors/index.ts';
import { runLive } from 'interleave/live';
import { check } from '../src/check/index.ts';
import { batchOfTable, d0FormulaBytes, inputTable, ipcOf } from '../src/machines/amber/data.ts';
import { dataChannelScenario, type DataBenchConfig } from '../src/machines/amber/data-channel.ts';
import { portBase, stateUri } from '../src/machines/amber/messages.ts';
import { amberScenario, type AmberParams } from '../src/machines/amber/scenario.ts';
import { TEXERA_BYTES } from '../src/machines/amber/data.ts';
import { median, printTable } from './table.ts';

const KiB = 1024;
const MiB = 1024 * 1024;
const ROWS = 3;

/** Per-row payload so that the 3-row table's Arrow IPC is about `target` bytes. */
export function payloadFor(target: number): { payload: number; ipcBytes: number } {
  let payload = Math.max(1, Math.floor(target / ROWS));
  for (let i = 0; i < 3; i++) {
    const got = ipcOf(batchOfTable(inputTable(ROWS, payload))).byteLength;
    payload = Math.max(1, payload + Math.round((target - got) / ROWS));
  }
  return { payload, ipcBytes: ipcOf(batchOfTable(inputTable(ROWS, payload))).byteLength };
}

interface Traffic {
  /** State-doc bytes written and read, S_in (the back-edge row and its replay) excluded. */
  stateBytes: number;
  /** Bytes of the loop input table read by the Loop End's main loop. */
  leTableBytes: number;
  totalBytes: number;
  iterations: number;
}

export function traffic(p: Partial<AmberParams>): Traffic {
  const sc = amberScenario({ overlapFault: false, maxCellBytes: 1 << 30, ...p });
  const r = drive(sc, (_w, steps) => steps[0], { detail: false, maxSteps: 50_000 });
  const sIn = stateUri(portBase('Src'));
  let stateBytes = 0;
  let leTableBytes = 0;
  let totalBytes = 0;
  for (const e of r.events) {
    if (e.kind !== 'io' || e.bytes === undefined) continue;
    totalBytes += e.bytes;
    if (String(e.key).endsWith('/state') && e.key !== sIn) stateBytes += e.bytes;
    if (e.op === 'get' && e.detail?.by === 'LE' && e.detail?.main) leTableBytes += e.bytes;
  }
  const iterations = (r.world.snaps[sc.index.get('coordinator')!] as any).context.execs.LS as number;
  return { stateBytes: stateBytes / iterations, leTableBytes: leTableBytes / iterations, totalBytes: totalBytes / iterations, iterations };
}

function timeIt(fn: () => void, reps: number): number {
  for (let i = 0; i < 3; i++) fn(); // warm-up (JIT, allocation)
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    xs.push(performance.now() - t0);
  }
  return median(xs);
}

/** The data work of one iteration, done for real (the model caches encodings by content). */
function iterationWork(table: Table, k: number, reps: number): { d0: number; d2: number } {
  const vars = { i: 1 };
  const ipc = tableToIPC(table, 'stream');
  const d0 = timeIt(() => {
    tableFromIPC(ipc); // LS reads R_in (both designs)
    // LS: one IPC encode, base64, JSON (via from_pandas in the real system)
    let content = JSON.stringify({ ...vars, table: { [TEXERA_BYTES]: 'bytes', payload: Buffer.from(tableToIPC(table, 'stream')).toString('base64') } });
    for (let h = 0; h < k; h++) {
      // each Python hop: JSON parse, base64 decode, base64 encode, JSON dump
      const o = JSON.parse(content);
      const bytes = Buffer.from(o.table.payload, 'base64');
      content = JSON.stringify({ ...o, table: { [TEXERA_BYTES]: 'bytes', payload: bytes.toString('base64') } });
    }
    // LE: JSON parse, base64 decode, one IPC decode
    const o = JSON.parse(content);
    tableFromIPC(new Uint8Array(Buffer.from(o.table.payload, 'base64')));
  }, reps);
  const d2 = timeIt(() => {
    tableFromIPC(ipc); // LS reads R_in
    let content = JSON.stringify(vars);
    for (let h = 0; h < k; h++) content = JSON.stringify(JSON.parse(content));
    JSON.parse(content);
    tableFromIPC(ipc); // LE's one read of R_in at EndChannel
  }, reps);
  return { d0, d2 };
}

function costTable(quick: boolean): void {
  const sizes = quick ? [64 * KiB, 1 * MiB] : [64 * KiB, 1 * MiB, 3 * MiB];
  const rows: (string | number)[][] = [];
  for (const target of sizes) {
    const { payload, ipcBytes } = payloadFor(target);
    const table = inputTable(ROWS, payload);
    for (const k of [0, 2, 4]) {
      const d0 = traffic({ design: 'table-in-state', payloadBytes: payload, bodyHops: k });
      const d2 = traffic({ design: 'read-at-endchannel', payloadBytes: payload, bodyHops: k });
      const formula = 2 * (k + 1) * d0FormulaBytes(ipcBytes);
      const t = iterationWork(table, k, quick ? 5 : target >= MiB ? 9 : 31);
      rows.push([
        target >= MiB ? `${target / MiB} MiB` : `${target / KiB} KiB`,
        ipcBytes,
        k,
        Math.round(d0.stateBytes),
        formula,
        (d0.stateBytes / formula).toFixed(4),
        Math.round(d2.stateBytes),
        Math.round(d2.leTableBytes),
        Math.round(d0.totalBytes),
        Math.round(d2.totalBytes),
        (d0.totalBytes / d2.totalBytes).toFixed(2),
        t.d0,
        t.d2,
      ]);
    }
  }
  printTable(
    'Bytes moved and time per loop iteration: D0 table-in-state vs D2 read-at-endchannel (single loop, 3 rows, k Python hops)',
    ['table', 'B (IPC bytes)', 'k', 'D0 state B/iter', '2(k+1)(4⌈B/3⌉+49)', 'measured/formula', 'D2 state B/iter', 'D2 LE read of R_in B/iter', 'D0 total B/iter', 'D2 total B/iter', 'D0/D2 bytes', 'D0 ms/iter', 'D2 ms/iter'],
    rows,
    'State bytes: every State-doc write and read of the iteration except S_in (the back-edge row), measured from the model\'s storage io events; the measured row also carries the loop variables and the\n' +
      'envelope columns (s), hence a ratio a little above 1. Totals: every byte the store moved, divided by iterations (D2 adds one read of R_in by the Loop End). ms/iter: the iteration\'s data work done\n' +
      'for real with Arrow IPC, base64 and JSON (D0: one IPC encode, base64 + JSON at LS and at each hop, one decode at LE; D2: one IPC decode of R_in at LE), median of repetitions; both include LS\'s read of R_in.',
  );
}

async function dataBench(quick: boolean): Promise<void> {
  const seed: Record<number, [number, number]> = { 10: [545, 0.332], 100: [1160, 0.708], 1000: [1356, 0.828] };
  const rows: (string | number)[][] = [];
  for (const wire of [false, true]) {
    for (const bs of [10, 100, 1000]) {
      const cfg: DataBenchConfig = { batchSize: bs, schemaWidth: 10, stringLength: 64, batches: 20, warmup: 5, wire };
      const sc = dataChannelScenario(cfg);
      const tuples = cfg.batches * bs;
      const bytes = tuples * cfg.schemaWidth * cfg.stringLength;
      const echoTimes = (record: (onEvent: (e: RecordedEvent) => void) => Promise<void> | void) => async () => {
        const at: number[] = [];
        await record((e) => {
          if (e.kind === 'deliver' && e.to === 'driver' && e.msg.type === 'DataFrame') at.push(performance.now());
        });
        const timed = at.slice(cfg.warmup - 1);
        const lat = timed.slice(1).map((t, i) => t - timed[i]!);
        return { wall: timed.at(-1)! - timed[0]!, lat };
      };
      const sim = echoTimes((onEvent) => void drive(sc, (_w, s) => s[0], { detail: false, record: false, onEvent }));
      const live = echoTimes(async (onEvent) => {
        const sys = runLive(sc, { timeScale: 0, detail: false, record: false });
        const sub = sys.events$.subscribe(onEvent);
        await sys.whenQuiescent();
        sub.unsubscribe();
        sys.stop();
      });
      for (const [mode, f] of [['simulated (drive)', sim], ['live (runLive)', live]] as const) {
        const reps = quick ? 1 : 5;
        const results = [];
        for (let i = 0; i < reps + 1; i++) results.push(await f());
        results.shift(); // warm-up run
        const wall = median(results.map((r) => r.wall));
        const lat = results.flatMap((r) => r.lat);
        const tps = (tuples * 1000) / wall;
        const [st, smb] = seed[bs]!;
        rows.push([`bs=${bs} sw=10 sl=64`, wire ? 'Arrow IPC per message' : 'record batch by reference', mode, Math.round(tps), ((bytes / (wall / 1000)) / MiB).toFixed(1), percentile(lat, 50) * 1000, percentile(lat, 95) * 1000, st, smb, Math.round(tps / st)]);
      }
    }
  }
  printTable(
    "The seed's data benchmark through one worker's data channel (identity UDF, 20 timed batches after 5 warm-up, echo before the next send)",
    ['config', 'channel', 'mode', 'tuples/s', 'MB/s', 'p50 µs/batch', 'p95 µs/batch', 'seed tuples/s', 'seed MB/s', '× seed'],
    rows,
    'MB/s = bs·sw·sl bytes per batch / wall / 2^20, as the seed computes it. The seed runs a real Python subprocess over Arrow Flight; here the worker is an actor in the same process, so\n' +
      '"by reference" is the runtime\'s own per-message cost and "Arrow IPC per message" adds one IPC encode and decode in each direction (what a wire needs).',
  );
}

async function checkerBench(quick: boolean): Promise<void> {
  const rows: (string | number)[][] = [];
  const cases: [string, Partial<AmberParams>][] = [
    ['single, D1 (the race)', { design: 'read-at-consume' }],
    ['single, D2', { design: 'read-at-endchannel', designChecks: true }],
    ['nested 2x2, D2', { design: 'read-at-endchannel', designChecks: true, topology: 'nested', rows: 2 }],
    ['nested 3x3, D2', { design: 'read-at-endchannel', designChecks: true, topology: 'nested', rows: 3 }],
    ['nested 3x3, D2, + F_recreate (engine bug: I1)', { design: 'read-at-endchannel', topology: 'nested', rows: 3, recreateFault: true }],
  ];
  if (!quick) {
    cases.push(['nested 4x4, D2', { design: 'read-at-endchannel', designChecks: true, topology: 'nested', rows: 4 }]);
    cases.push(['fan-in, D2', { design: 'read-at-endchannel', designChecks: true, topology: 'fan-in' }]);
  }
  for (const [name, p] of cases) {
    for (const por of [true, false]) {
      const sc = amberScenario(p);
      await check(sc, { strategy: 'bfs', por, shrink: false, maxStates: 5_000 }); // warm-up
      const r = await check(sc, { strategy: 'bfs', por, shrink: false, maxStates: 3_000_000 });
      rows.push([name, por ? 'on' : 'off', r.ok ? (r.complete ? 'holds, complete' : `holds, cut by ${r.cutBy}`) : `violated: ${r.violation!.property.name.split(' ')[0]}`, r.stats.states, r.stats.distinctStates!, r.stats.transitions, r.stats.maxDepth, Math.round(r.stats.ms), Math.round(r.stats.statesPerSecond!), r.stats.bytesPerState.toFixed(1)]);
    }
  }
  printTable(
    'The checker on amber-loop (bfs, overlapFault on unless noted; designChecks on for D2)',
    ['scenario', 'POR', 'result', 'states', 'distinct', 'transitions', 'max depth', 'ms', 'distinct/s', 'B/state'],
    rows,
    'POR = sleep sets over deliveries to different receivers (the monitors declare the events they watch). Sleep sets prune transitions, not states, so the distinct count is the same with and without.',
  );
}

export default async function (argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  costTable(quick);
  await dataBench(quick);
  await checkerBench(quick);
}
