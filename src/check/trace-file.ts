// The counterexample file: versioned JSON the CLI reads back (and validates with zod).
import { createRequire } from 'node:module';
import { toPlain, type RecordedEvent, type Scenario } from '../actors/index.ts';
import { replaySchedule } from './replay.ts';
import type { TraceFile, Violation } from './types.ts';

const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The package version recorded in trace files. */
export const TOOL_VERSION: string = pkg.version;

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
