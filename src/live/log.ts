// Streaming a live run's recording to disk as it goes (the format: src/check/trace/live-log.ts).
// Steps are buffered and appended in batches: a batch is written when it holds `batchSteps`
// steps or its first step is `batchMs` old, so a `kill -9` loses at most that much (the
// writes are in the operating system's cache, which survives the process). `fsyncMs` bounds
// what a power loss or an operating system crash loses: the log is fsynced when a batch is
// written at least that long after the last fsync (0: every batch).
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeDir } from '../actors/make-dir.ts';
import { LIVE_LOG_KIND, type LiveLogHeader } from '../check/trace/live-log.ts';
import { encodeInitial, plainData } from '../check/trace/recorded.ts';
import { TOOL_VERSION } from '../check/trace/trace-file.ts';
import { ScenarioError, toPlain } from '../actors/index.ts';

/** Where and how `runLive` streams its recording (`LiveOptions.recordTo`). */
export interface LiveLogOptions {
  /** The log file (created, or truncated). `interleave replay` and `check --from` read it like a trace file. */
  readonly path: string;
  /** Your scenario's module and export, so the CLI can rebuild it from the log (as `saveTraceFile`'s `source`). */
  readonly source?: {
    /** The module's path (absolute, relative to the current directory, or a `file:` URL). */
    readonly module: string | URL;
    /** The export's name. */
    readonly export: string;
  };
  /** Steps per batch (default 256). */
  readonly batchSteps?: number;
  /** The longest a step waits in the buffer, ms (default 50). */
  readonly batchMs?: number;
  /** fsync when a batch is written at least this long after the last fsync, ms (default 1,000; 0: every batch; `Infinity`: only at the end). */
  readonly fsyncMs?: number;
}

/** Defaults of {@link LiveLogOptions}. */
export const LIVE_LOG_DEFAULTS: {
  /** Steps per batch. */
  readonly batchSteps: number;
  /** The longest a step waits in the buffer, ms: with `batchSteps`, the loss window of a `kill -9`. */
  readonly batchMs: number;
  /** The fsync cadence, ms. */
  readonly fsyncMs: number;
} = { batchSteps: 256, batchMs: 50, fsyncMs: 1000 };

/** An open live log: `step` appends (buffered), `close` flushes, marks the end and fsyncs. */
export class LiveLog {
  private readonly fd: number;
  private buf: string[] = [];
  private first = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastSync = performance.now();
  private steps = 0;
  private closed = false;
  /** Batches written and fsyncs done (for the benchmark). */
  readonly counts = { batches: 0, fsyncs: 0, bytes: 0 };
  private readonly batchSteps: number;
  private readonly batchMs: number;
  private readonly fsyncMs: number;

  constructor(
    opts: LiveLogOptions,
    run: { scenario: string; params: Readonly<Record<string, unknown>>; externals: readonly string[]; initial?: Readonly<Record<string, unknown>> },
  ) {
    this.batchSteps = opts.batchSteps ?? LIVE_LOG_DEFAULTS.batchSteps;
    this.batchMs = opts.batchMs ?? LIVE_LOG_DEFAULTS.batchMs;
    this.fsyncMs = opts.fsyncMs ?? LIVE_LOG_DEFAULTS.fsyncMs;
    if (!(this.batchSteps >= 1) || !(this.batchMs >= 0) || !(this.fsyncMs >= 0)) {
      throw new ScenarioError(`live run: recordTo needs batchSteps >= 1 and batchMs, fsyncMs >= 0 (ms); got batchSteps ${this.batchSteps}, batchMs ${this.batchMs}, fsyncMs ${this.fsyncMs}`);
    }
    if (typeof opts.path !== 'string' || opts.path === '') throw new ScenarioError('live run: recordTo.path must be the log file to write (a non-empty string)');
    const abs = resolve(opts.path);
    try {
      makeDir(dirname(abs));
      this.fd = openSync(abs, 'w');
    } catch (e) {
      throw new ScenarioError(`live run: cannot write the recording to ${abs}: ${e instanceof Error ? e.message : String(e)}; give recordTo.path a file in a directory this process can write`);
    }
    const src = opts.source;
    const module = src ? { path: relative(dirname(abs), typeof src.module !== 'string' || src.module.startsWith('file:') ? fileURLToPath(src.module) : resolve(src.module)).split(sep).join('/'), export: src.export } : undefined;
    const header: LiveLogHeader = {
      kind: LIVE_LOG_KIND,
      version: 1,
      tool: { name: 'interleave', version: TOOL_VERSION },
      scenario: { name: run.scenario, params: toPlain(run.params) as Record<string, unknown>, ...(module ? { module } : {}) },
      options: { mode: 'live', externals: [...run.externals], ...(run.initial ? { initial: encodeInitial(run.initial) } : {}) },
    };
    this.write(`${JSON.stringify(header)}\n`);
    fsyncSync(this.fd);
  }

  /** Appends a step (buffered); `input` is the payload of an `input` step. */
  step(id: string, input?: { from: string; to: string; msg: unknown }): void {
    if (this.closed) return;
    if (this.buf.length === 0) {
      this.first = performance.now();
      if (this.batchMs > 0 && this.timer === undefined) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.flush();
        }, this.batchMs);
        this.timer.unref?.();
      }
    }
    this.buf.push(input ? JSON.stringify([id, input.from, input.to, plainData(input.msg)]) : JSON.stringify(id));
    this.steps++;
    if (this.buf.length >= this.batchSteps || (this.batchMs === 0) || performance.now() - this.first >= this.batchMs) this.flush();
  }

  /** Writes the buffered steps, and fsyncs when the cadence says so. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buf.length === 0 || this.closed) return;
    this.write(`${this.buf.join('\n')}\n`);
    this.buf = [];
    this.counts.batches++;
    if (performance.now() - this.lastSync >= this.fsyncMs) this.sync();
  }

  /** Flushes, writes the end line (the run stopped cleanly), fsyncs and closes. */
  close(clean = true): void {
    if (this.closed) return;
    this.flush();
    if (clean) this.write(`${JSON.stringify({ end: this.steps })}\n`);
    this.sync();
    this.closed = true;
    closeSync(this.fd);
  }

  private sync(): void {
    fsyncSync(this.fd);
    this.counts.fsyncs++;
    this.lastSync = performance.now();
  }

  private write(s: string): void {
    const b = Buffer.from(s, 'utf8');
    let off = 0;
    while (off < b.length) off += writeSync(this.fd, b, off);
    this.counts.bytes += b.length;
  }
}
