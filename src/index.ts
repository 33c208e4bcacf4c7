// The `interleave` entry point: what a user writes and calls. Engine internals are in
// `interleave/kernel`, live running in `interleave/live`, the storage actors in
// `interleave/storage`, the vitest matchers in `interleave/vitest`, the bundled protocol
// models in `interleave/machines`. docs/api.md lists what each entry point exports.
/**
 * Define actors and scenarios, check them, replay and simulate them, and read, write and render trace files. Start with `defineScenario`, `send` and `check`; docs/guide.md is the tutorial.
 *
 * @module interleave
 */

// Defining scenarios and their properties.
export { defineScenario, ScenarioError, ModelError, ENV, send, eventually, leadsTo, nonProgressCycles, progressTag, reads, readsEach, readsView, optional } from './actors/index.ts';
export { defineFamily, parseParams, queryOf, rng } from './actors/index.ts';
export type * from './actors/types.ts';
export type * from './actors/scenario.ts';
export type * from './actors/family.ts';
export type { LivenessProperty, Fairness, FairnessSpec } from './actors/liveness.ts';
export type { Legend, StepNote } from './actors/legend.ts';
export type { Rng } from './actors/prng.ts';
export type { Reads } from './actors/reads.ts';
export type { ModelErrorDetails } from './actors/model-error.ts';
export type { SendAction, SendOptions } from './actors/dsl.ts';

// Running a scenario: the step loop, replay and the virtual-time simulator.
export { drive, replay, randomChooser, replayChooser, trace$, checkDeterminism, Divergence, simulate, percentile } from './actors/index.ts';
export type { Chooser, DriveOptions, RunEnd, Run, ScheduleInput, DeterminismReport, CostModel, SimulateOptions, SimulationRun } from './actors/index.ts';

// Checking.
export { check, checkRun, expectHolds, formatViolation, NondeterminismError, replaySchedule, replayTraceFile, fromTrace, replayLasso } from './check/index.ts';
export type * from './check/types.ts';
export type { FirstViolationInfo, PctNote, LivenessNote, LassoReplay, ExpectHoldsOptions, FromTraceOptions, FromTraceResult, TraceSeed, ShardInfo, ExchangeInfo, ExchangeOptions, ExchangeCounts, ShareVisitedInfo, ShareVisitedOptions, LivenessStats, SampleConfig, PctConfig, Phases, PhaseName, PhaseTime } from './check/index.ts';

// Trace files.
export { toTraceFile, saveTraceFile } from './check/index.ts';
export { TRACE_SCHEMA_VERSION, EVENT_KINDS, traceJsonSchema, validateTraceFile, parseTraceText, parseTraceBytes, TraceFileError, parseTraceLimits, DEFAULT_TRACE_LIMITS } from './report/index.ts';
export type { TraceFileData, TraceEventData, ReadResult, TraceLimits } from './report/index.ts';

// Rendering traces and statecharts.
export { render, FORMATS, formatText, formatSteps, formatMermaid, formatHtml, RenderTooLargeError, diffSchedules } from './report/index.ts';
export { scenarioCharts, chartOf, chartMermaid, chartsMermaid, chartsHtml, statelyJson } from './report/index.ts';
export type { Format, ReportContext, ScheduleDiff, DiffRow, MachineChart, ChartState, ChartTransition, StateKind, ActorChart, Json, ScenarioCharts } from './report/index.ts';
