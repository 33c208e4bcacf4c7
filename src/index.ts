// The `interleave` entry point: define actors and scenarios, check them, replay and
// simulate them, and read, write and render trace files. Live running is in
// `interleave/live`, the storage actors in `interleave/storage`, the vitest matchers in
// `interleave/vitest`, the bundled protocol models in `interleave/machines`.
// docs/api.md lists what each entry point exports.
/**
 * Define actors and scenarios, check them, replay and simulate them, and read, write and render trace files. Start with `defineScenario`, `send` and `check`; docs/guide.md is the tutorial.
 *
 * @module interleave
 */
export * from './actors/index.ts';
export * from './check/index.ts';
// Both layers name the payload of an input step; the runtime's is the one users build.
export type { ScheduleInput } from './actors/index.ts';
export { replayTraceFile, liveTraceFile, fromTrace, fromTraceRun, fromTraceSearch, type FromTraceOptions, type FromTraceResult, type FromTraceSearch } from './check/from-trace.ts';
export {
  TRACE_SCHEMA_VERSION,
  EVENT_KINDS,
  traceJsonSchema,
  validateTraceFile,
  parseTraceText,
  parseTraceBytes,
  parseTraceLimits,
  DEFAULT_TRACE_LIMITS,
  RenderTooLargeError,
  TraceFileError,
  render,
  FORMATS,
  formatText,
  formatSteps,
  formatMermaid,
  mermaidText,
  formatHtml,
  diffSchedules,
  reportContext,
  scenarioCharts,
  chartOf,
  chartMermaid,
  chartsMermaid,
  chartsHtml,
  statelyJson,
  type ReportContext,
  type MachineChart,
  type ChartState,
  type ChartTransition,
  type StateKind,
  type ActorChart,
  type Json,
  type ScenarioCharts,
  type Format,
  type TraceFileData,
  type TraceEventData,
  type ReadResult,
  type TraceLimits,
  type ScheduleDiff,
  type DiffRow,
} from './report/index.ts';
