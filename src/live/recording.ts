// A live run's recording as a trace file: what `interleave replay` and `check --from`
// read back.
import { toPlain } from '../actors/index.ts';
import { TOOL_VERSION } from '../check/trace/trace-file.ts';
import { encodeInitial, plainData } from '../check/trace/recorded.ts';
import type { TraceFile } from '../check/types.ts';
import type { LiveRecording } from './types.ts';

/**
 * A live run as a trace file (schemaVersion 1): schedule, input payloads and trace; `options.mode`
 * is `live`, `options.initial` where the live storage started (bytes as `{ $base64 }`). Byte bodies
 * in the inputs are `{ $bytes, fnv }` (size and digest), with `json` the decoded content when a small
 * body (up to 4 KiB) holds JSON: replay compares them with what the model answers.
 */
export function liveTraceFile(rec: LiveRecording, extra: Record<string, unknown> = {}): TraceFile {
  return {
    schemaVersion: 1,
    kind: 'interleave-trace',
    tool: { name: 'interleave', version: TOOL_VERSION },
    scenario: { name: rec.scenario, params: toPlain(rec.params) as Record<string, unknown> },
    options: { mode: 'live', externals: [...rec.externals], ...(rec.initial ? { initial: encodeInitial(rec.initial) } : {}), ...extra },
    seed: 0,
    property: null,
    schedule: [...rec.schedule],
    originalLength: rec.schedule.length,
    inputs: rec.inputs.map((x) => ({ index: x.index, from: x.from, to: x.to, msg: plainData(x.msg) })),
    trace: rec.events.map((e) => toPlain(e)),
  };
}
