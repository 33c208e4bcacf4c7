// The Amber data plane measured like the source's benchmark: one DataFrame of `bs`
// tuples (10 string columns of 64 characters) sent to an identity worker, its echo
// awaited before the next, 20 timed batches after 5 warm-up; tuples/s = timed tuples
// over the time from the last warm-up echo to the last echo. Reported per CPU second
// of this process (process.cpuUsage) as well as per wall second, because the shared
// machine's wall clock measures its load more than this code.
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { drive, type RecordedEvent } from '../src/actors/index.ts';
import { runLive } from 'interleave/live';
import { dataChannelScenario, sampleBatch, type DataBenchConfig } from '../src/machines/amber/data-channel.ts';
import { decodeBatchMessage, encodeBatchMessage } from '../src/machines/amber/ipc-stream.ts';
import { median } from './table.ts';

/** The source's CI figures (tuples/s) at batch sizes 10, 100 and 1000. */
export const SOURCE_TUPLES_PER_S = { 10: 545, 100: 1160, 1000: 1356 } as const;
export type BatchSize = keyof typeof SOURCE_TUPLES_PER_S;

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

export interface Throughput {
  readonly tuplesPerCpuS: number;
  readonly tuplesPerWallS: number;
}

/** The channel at one batch size: median over `reps` runs (after one warm-up run) of tuples per CPU and per wall second. */
export async function channelThroughput(bs: BatchSize, opts: { reps?: number; wire?: boolean; live?: boolean } = {}): Promise<Throughput> {
  const cfg: DataBenchConfig = { batchSize: bs, schemaWidth: 10, stringLength: 64, batches: 20, warmup: 5, wire: opts.wire ?? true };
  const sc = dataChannelScenario(cfg);
  const tuples = cfg.batches * bs;
  const cpu: number[] = [];
  const wall: number[] = [];
  // Warm the JIT first (the source's worker is a long-lived JVM and native pyarrow): a
  // longer run of the same channel, not timed.
  const warm = dataChannelScenario({ ...cfg, batches: Math.ceil(20_000 / bs) });
  if (opts.live) {
    const sys = runLive(warm, { timeScale: 0, detail: false, record: false });
    await sys.whenQuiescent();
    await sys.stop();
  } else drive(warm, (_w, s) => s[0], { detail: false, record: false });
  for (let rep = 0; rep <= (opts.reps ?? 3); rep++) {
    const at: [number, number][] = [];
    const onEvent = (e: RecordedEvent) => {
      if (e.kind === 'deliver' && e.to === 'driver' && e.msg.type === 'DataFrame') at.push([cpuUs(), performance.now()]);
    };
    if (opts.live) {
      const sys = runLive(sc, { timeScale: 0, detail: false, record: false });
      const sub = sys.events$.subscribe(onEvent);
      await sys.whenQuiescent();
      sub.unsubscribe();
      await sys.stop();
    } else drive(sc, (_w, s) => s[0], { detail: false, record: false, onEvent });
    if (at.length !== cfg.warmup + cfg.batches) throw new Error(`expected ${cfg.warmup + cfg.batches} echoes, saw ${at.length}`);
    const [c0, w0] = at[cfg.warmup - 1]!;
    const [c1, w1] = at.at(-1)!;
    if (rep > 0) {
      cpu.push((c1 - c0) / 1e6);
      wall.push((w1 - w0) / 1000);
    }
  }
  return { tuplesPerCpuS: tuples / median(cpu), tuplesPerWallS: tuples / median(wall) };
}

export interface CodecCost {
  /** Two encodes and two decodes with tableToIPC / tableFromIPC (schema, batch and end marker every message). */
  readonly streamPerMessageUs: number;
  /** The same with one RecordBatch message each way (ipc-stream.ts). */
  readonly batchMessageUs: number;
  /** Two copies of the message's bytes into fresh buffers: what any encoder that writes bytes must at least do. */
  readonly copyUs: number;
}

/** CPU µs of one round trip's IPC work, both codecs and the copy floor, interleaved in one run so all three see the same load. */
export function codecCost(bs: BatchSize, rounds = bs === 1000 ? 40 : 400): CodecCost {
  const b = sampleBatch({ batchSize: bs, schemaWidth: 10, stringLength: 64 });
  const stream = () => tableFromIPC(tableToIPC(new Table([tableFromIPC(tableToIPC(new Table([b]), 'stream')).batches[0]!]), 'stream')).batches[0]!;
  const message = () => decodeBatchMessage(b.schema, encodeBatchMessage(decodeBatchMessage(b.schema, encodeBatchMessage(b))));
  const bytes = encodeBatchMessage(b);
  const copy = () => {
    new Uint8Array(bytes.byteLength).set(bytes);
    new Uint8Array(bytes.byteLength).set(bytes);
  };
  const a: number[] = [];
  const m: number[] = [];
  const c: number[] = [];
  for (let k = 0; k < 6; k++) {
    for (const [f, out] of [[stream, a], [message, m], [copy, c]] as const) {
      const t0 = cpuUs();
      for (let i = 0; i < rounds; i++) f();
      if (k > 0) out.push((cpuUs() - t0) / rounds);
    }
  }
  return { streamPerMessageUs: median(a), batchMessageUs: median(m), copyUs: median(c) };
}
