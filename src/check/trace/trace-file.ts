// The counterexample file: versioned JSON the CLI reads back (and validates with zod).
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toPlain, type RecordedEvent, type Scenario } from '../../actors/index.ts';
import { makeDir } from '../../actors/make-dir.ts';
import { replaySchedule } from './replay.ts';
import { TOOL_VERSION } from './package-info.ts';
import type { TraceFile, Violation } from '../types.ts';

export { TOOL_VERSION };

/**
 * A trace file (the JSON the CLI writes, schema in docs/trace.schema.json) for a
 * violation, or, without one, for `meta.schedule` / `meta.trace`, for example a passing
 * run someone wants to keep. `meta.params` and `meta.options` are recorded so the run
 * can be rebuilt; `interleave replay` and `interleave show` read the file, and
 * {@link replayTraceFile} replays it in code. Write it with
 * `writeFileSync(path, JSON.stringify(file))`.
 */
export function toTraceFile(
  sc: Scenario,
  v: Violation | undefined,
  meta: { params: Record<string, unknown>; options: Record<string, unknown>; seed: number; schedule?: string[]; trace?: RecordedEvent[] },
): TraceFile {
  const schedule = v?.schedule ?? meta.schedule ?? [];
  const trace = v?.trace ?? meta.trace ?? (schedule.length ? replaySchedule(sc, schedule).trace : []);
  const file: TraceFile = {
    schemaVersion: 1,
    kind: 'interleave-trace',
    tool: { name: 'interleave', version: TOOL_VERSION },
    scenario: { name: sc.name, params: { ...(sc.params ?? {}), ...meta.params } },
    options: meta.options,
    seed: v?.seed ?? meta.seed,
    property: v ? { ...v.property } : null,
    schedule: [...schedule],
    originalLength: v?.originalLength ?? schedule.length,
    trace: trace.map((e) => toPlain(e)),
  };
  if (v?.cycleStart !== undefined) file.cycleStart = v.cycleStart;
  if (v?.passing) {
    let passTrace: unknown[] = [];
    try {
      passTrace = replaySchedule(sc, v.passing).trace.map((e) => toPlain(e));
    } catch {
      // The passing schedule was found by lenient replay; keep just the schedule if it no longer replays.
    }
    file.passing = { schedule: [...v.passing], trace: passTrace, ...(v.passingNote ? { note: v.passingNote } : {}) };
  }
  return file;
}

/**
 * A module path as a trace file at `tracePath` records it: relative to the trace file's
 * directory, with `/`. `module` is absolute, relative to the current directory, or a
 * `file:` URL (`new URL('./scenarios.ts', import.meta.url)`).
 */
export function modulePathFrom(tracePath: string, module: string | URL): string {
  const abs = typeof module !== 'string' || module.startsWith('file:') ? fileURLToPath(module) : resolve(module);
  return relative(dirname(resolve(tracePath)), abs).split(sep).join('/');
}

/**
 * Writes a trace file (from {@link toTraceFile} or `liveTraceFile`) as JSON at `path`,
 * creating its directory, and returns it as written. With `source`, the module and export
 * your scenario (or family) comes from, the file records them relative to itself, so
 * `interleave replay <path>`, `show` and `check --from` rebuild the scenario from any
 * directory; without it they find only built-in scenarios and those an
 * `interleave.config.*` lists.
 *
 * @example
 * ```ts
 * saveTraceFile('incident.json', liveTraceFile(system.recording()), { module: './scenarios.ts', export: 'payment' });
 * ```
 */
export function saveTraceFile(path: string, file: TraceFile, source?: { readonly module: string | URL; readonly export: string }): TraceFile {
  const scenario = source ? { ...file.scenario, module: { path: modulePathFrom(path, source.module), export: source.export } } : file.scenario;
  const text = `${JSON.stringify({ ...file, scenario }, null, 2)}\n`;
  writeAtomically(path, text);
  return JSON.parse(text) as TraceFile;
}

/** Writes the pieces one after another (a page too large for one string, or for the heap as one). */
/** Pieces are gathered up to this many characters per write: a page has thousands of small ones. */
const WRITE_CHARS = 1 << 16;

function writePieces(path: string, pieces: Iterable<string>): void {
  const fd = openSync(path, 'w');
  const write = (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
  };
  try {
    let batch: string[] = [];
    let chars = 0;
    for (const piece of pieces) {
      batch.push(piece);
      chars += piece.length;
      if (chars >= WRITE_CHARS) {
        write(batch.join(''));
        batch = [];
        chars = 0;
      }
    }
    if (chars > 0) write(batch.join(''));
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `data` (a string, bytes, or string pieces) to `path` through a temporary file in the same directory and a rename,
 * creating the directory: a killed process leaves the old file or none, never half of one.
 * The temporary name is unique per process and call, so writers on several hosts sharing
 * a directory (exchange mode) never write into one temporary file.
 */
export function writeAtomically(path: string, data: string | Uint8Array | Iterable<string>): void {
  const abs = resolve(path);
  makeDir(dirname(abs));
  const tmp = `${abs}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) writeFileSync(tmp, data);
    else writePieces(tmp, data);
    renameSync(tmp, abs);
  } catch (e) {
    // A full disk or a directory in the way: leave no half-written temporary file behind.
    rmSync(tmp, { force: true });
    throw e;
  }
}
