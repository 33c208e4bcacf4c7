// The `interleave/live` entry point: live mode in one place. The runner drives a
// scenario's machines on Node's event loop (`runLive`), externals answer some actors
// from real code (`withExternals`), a run's recording becomes a trace file
// (`liveTraceFile`), and the live storage adapters (filesystem object and document
// stores, task state on SQLite, PostgreSQL or an object store, objects on an S3
// endpoint). The SQLite, PostgreSQL and S3 adapters load their optional peer
// dependencies (better-sqlite3, pg, @aws-sdk/client-s3) only when one is used.
/**
 * Run a scenario's machines live on Node's event loop (`runLive`), answer actors from real code (externals), record the run as a trace file, and the live storage adapters. See docs/live.md.
 *
 * @module interleave/live
 */
export { runLive, type LiveOptions, type LiveSystem, type ExternalHandler, type ExternalSpec, type LiveRecording, type RecordedInput, type Reply, type LiveInspectionEvent, type InspectOption, type InspectedActorRef, type LiveLogOptions } from './runner.ts';
export { LIVE_LOG_DEFAULTS } from './log.ts';
export { withExternals } from '../actors/index.ts';
export { liveTraceFile } from './recording.ts';
export * from '../storage/live/index.ts';
