// The `interleave/live` entry point: run a scenario's machines on Node's event loop
// (`runLive`), answer some actors from real code (`withExternals`), and the live
// storage adapters (filesystem object and document stores, task state on SQLite or an
// object store). The SQLite adapter loads the optional peer dependency better-sqlite3
// only when one is opened.
/**
 * Run a scenario's machines live on Node's event loop (`runLive`), answer actors from real code (externals), and the live storage adapters. See docs/live.md.
 *
 * @module interleave/live
 */
export { runLive, withExternals, type LiveOptions, type LiveSystem, type ExternalHandler, type ExternalSpec, type LiveRecording, type RecordedInput, type Reply, type LiveInspectionEvent, type InspectOption, type InspectedActorRef } from '../actors/live.ts';
export { liveTraceFile, replayTraceFile } from '../check/from-trace.ts';
export { saveTraceFile } from '../check/trace-file.ts';
export * from '../storage/live/index.ts';
