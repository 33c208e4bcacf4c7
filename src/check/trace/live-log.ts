// The streamed form of a live recording: an append-only log of JSON lines, written while the
// run goes (src/live/log.ts), so a killed process leaves everything up to its last flushed
// batch. Line 1 is the header (scenario, externals, where the storage started); then one line
// per step: the step id as a JSON string, or for an `input` step `[id, from, to, msg]`; a
// run that stopped cleanly ends with `{"end":N}` (N steps). A last line without its newline
// (the process died while writing it) is dropped. Read back, it is a trace file like
// `liveTraceFile`'s, without trace events (replay regenerates them), with `options.cut`
// true when the run did not end cleanly.
import type { TraceFile } from '../types.ts';

/** The `kind` of a live log's header line. */
export const LIVE_LOG_KIND = 'interleave-live-log';

/** The header line of a live log. */
export interface LiveLogHeader {
  /** Always {@link LIVE_LOG_KIND}. */
  readonly kind: typeof LIVE_LOG_KIND;
  /** The log format version (1). */
  readonly version: 1;
  /** The tool that wrote it. */
  readonly tool: TraceFile['tool'];
  /** The scenario, its parameters and (for your own) its module, relative to the log. */
  readonly scenario: TraceFile['scenario'];
  /** `mode: 'live'`, the externals, and `initial` (where the live storage started) when recorded. */
  readonly options: Record<string, unknown>;
}

/** True when `bytes` start like a live log (its header line). */
export function isLiveLog(bytes: Uint8Array): boolean {
  const head = new TextDecoder().decode(bytes.subarray(0, 64));
  return /^\{\s*"kind"\s*:\s*"interleave-live-log"/.test(head);
}

/**
 * A live log's text as a trace file (no trace events). Throws an `Error` naming the line when a
 * complete line is not what the format says; a last line without its newline is dropped.
 */
export function liveLogTrace(text: string, source = 'live log'): TraceFile {
  const lines = text.split('\n');
  const torn = lines.pop() ?? ''; // after the last '\n': '' for a whole log, else a torn last line
  const header = JSON.parse(lines[0] ?? '{}') as Partial<LiveLogHeader>;
  if (header.kind !== LIVE_LOG_KIND || header.version !== 1) throw new Error(`${source}: line 1 is not a version 1 live log header`);
  const schedule: string[] = [];
  const inputs: { index: number; from: string; to: string; msg: unknown }[] = [];
  let ended = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new Error(`${source}: line ${i + 1} is not JSON (${e instanceof Error ? e.message : String(e)}); a live log has one step per line`);
    }
    if (typeof v === 'string') schedule.push(v);
    else if (Array.isArray(v) && v.length === 4 && typeof v[0] === 'string' && typeof v[1] === 'string' && typeof v[2] === 'string') {
      inputs.push({ index: schedule.length, from: v[1], to: v[2], msg: v[3] });
      schedule.push(v[0]);
    } else if (v !== null && typeof v === 'object' && typeof (v as { end?: unknown }).end === 'number') ended = true;
    else throw new Error(`${source}: line ${i + 1} is not a step (a step id, or [id, from, to, msg] for an input)`);
  }
  return {
    schemaVersion: 1,
    kind: 'interleave-trace',
    tool: header.tool ?? { name: 'interleave', version: '0' },
    scenario: header.scenario ?? { name: '', params: {} },
    options: { ...(header.options ?? {}), mode: 'live', ...(ended ? {} : { cut: true, ...(torn ? { tornLine: true } : {}) }) },
    seed: 0,
    property: null,
    schedule,
    originalLength: schedule.length,
    inputs,
    trace: [],
  };
}
