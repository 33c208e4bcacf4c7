// A live run's recording as a trace file: what `interleave replay` and `check --from`
// read back.
import { toPlain } from '../actors/index.ts';
import { TOOL_VERSION } from '../check/trace/trace-file.ts';
import type { TraceFile } from '../check/types.ts';
import type { LiveRecording } from './types.ts';

/** A live run as a trace file (schemaVersion 1): schedule, input payloads and trace; `options.mode` is `live`. */
export function liveTraceFile(rec: LiveRecording, extra: Record<string, unknown> = {}): TraceFile {
  return {
    schemaVersion: 1,
    kind: 'interleave-trace',
    tool: { name: 'interleave', version: TOOL_VERSION },
    scenario: { name: rec.scenario, params: toPlain(rec.params) as Record<string, unknown> },
    options: { mode: 'live', externals: [...rec.externals], ...extra },
    seed: 0,
    property: null,
    schedule: [...rec.schedule],
    originalLength: rec.schedule.length,
    inputs: rec.inputs.map((x) => ({ index: x.index, from: x.from, to: x.to, msg: toPlain(x.msg) })),
    trace: rec.events.map((e) => toPlain(e)),
  };
}
