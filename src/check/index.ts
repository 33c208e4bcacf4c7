// The model checker's one door: what the layers above (cli, live, vitest, the entry
// points) may use. The checker explores a scenario's interleavings through the kernel's
// `initialWorld` / `enabled` / `apply` only, and reports the first violated property
// as a shrunk, replayable counterexample (README.md beside this file maps the rooms).
//
//   check(sc, { strategy: 'bfs' })            exhaustive, shortest counterexample
//   check(sc, { strategy: 'dfs' })            exhaustive, less memory
//   check(sc, { strategy: 'random', runs })   seeded random walks
//   check(sc, { strategy: 'pct', depth })     probabilistic concurrency testing
//   check(sc, { strategy: 'swarm', workers }) pct/random runs over worker threads
//   check(sc, { from: { trace, within } })    every schedule within k deviations of a recording
//   replaySchedule(sc, schedule)              exact replay, Divergence on mismatch

export type * from './types.ts';
export type { FirstViolationInfo } from './search/first-violation.ts';
export { replaySchedule, runSchedule, type ScheduleInput } from './trace/replay.ts';
export { toTraceFile, saveTraceFile, TOOL_VERSION } from './trace/trace-file.ts';
export { expectHolds, formatViolation, type ExpectHoldsOptions } from './expect.ts';
export { shrinkSchedule, nearestPassing, contextSwitches, actorOfStep, NEAREST_PASSING_TRIES, type NearPassing, type ShrinkOptions } from './trace/shrink.ts';
export { WorldHasher, Hasher, fpHex, type Fp } from './fingerprint/fingerprint.ts';
export { VisitedSet } from './search/visited.ts';
export { runOne, estimateK, type SampleConfig, type PctConfig } from './search/sample.ts';
export { resolveSource } from './resolve-source.ts';
export { replayLasso, type LassoReplay } from './liveness/lasso.ts';
export { hasLiveness } from './liveness/scc.ts';
export { DEFAULT_SHARD_PREFIX, fingerprintDigest, type ShardInfo } from './distributed/shard.ts';
// The sharded modes' values from small modules of their own: the modes load when a check uses them.
export { EXCHANGE_DEFAULTS } from './distributed/exchange-defaults.ts';
export { ExchangeError } from './distributed/exchange-dir.ts';
export type { ExchangeInfo, ExchangeOptions } from './distributed/exchange.ts';
export type { ExchangeCounts } from './distributed/exchange-search.ts';
export { SHARE_VISITED_DEFAULTS } from './distributed/share-visited-defaults.ts';
export type { ShareVisitedInfo, ShareVisitedOptions } from './distributed/claims.ts';
export type { LivenessStats } from './liveness/state-graph.ts';
export type { Phases, PhaseName, PhaseTime } from './phases.ts';
export { NondeterminismError, DETERMINISM_DEFAULTS, DeterminismCheck } from './purity.ts';
export { replayTraceFile, scenarioForTrace, externalsOf, modelSchedule, modelledExternals, type ModelSchedule } from './trace/recorded.ts';
export { fromTrace, fromTraceSearch, FROM_TRACE_MAX_STATES, type FromTraceOptions, type FromTraceResult, type FromTraceSearch, type TraceSeed } from './trace/from-trace.ts';
export { check, checkRun, fromTraceRun } from './check.ts';
export { collisionProbability } from './result.ts';
export { replayEvents } from './trace/schedule-to.ts';
