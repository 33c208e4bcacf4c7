// The `interleave/kernel` entry point: the engine under the user's API, for those who
// build their own explorer, chooser or benchmark on the same step function.
/**
 * The engine under `interleave`: the step function (`initialWorld`, `enabled`, `apply`), fingerprints and the visited set, the step memo, the samplers, shrinking and the checker's defaults. For building an explorer or a benchmark of your own; a check needs only `interleave`. See docs/api.md.
 *
 * @module interleave/kernel
 */

// The step function and what it is made of.
export { initialWorld, enabled, apply, inputStep, tickStep, isFault, isQuiescent, isOffered, offersInput, isFailureEvent, type ApplyOptions, type ApplyResult } from '../actors/index.ts';
export { actorName, isMachineSnapshot, assertScenario, StepMemo, type SameStep } from '../actors/index.ts';
export { rngFromState, deriveSeed, describeParam } from '../actors/index.ts';
export { canonicalJson, toPlain, formatStateValue, isModelError, stateValueProblem } from '../actors/index.ts';
export { stepNotes, propertyNote, actorRole, DEFAULT_FAIRNESS } from '../actors/index.ts';

// The checker's parts.
export { WorldHasher, Hasher, fpHex, type Fp } from '../check/fingerprint/fingerprint.ts';
export { VisitedSet } from '../check/search/visited.ts';
export { runOne, estimateK } from '../check/search/sample.ts';
export { collisionProbability } from '../check/index.ts';
export { shrinkSchedule, nearestPassing, contextSwitches, actorOfStep, NEAREST_PASSING_TRIES, type NearPassing, type ShrinkOptions } from '../check/trace/shrink.ts';
export { runSchedule } from '../check/trace/replay.ts';
export { fromTraceRun, fromTraceSearch, FROM_TRACE_MAX_STATES, type FromTraceSearch } from '../check/index.ts';
export { TOOL_VERSION } from '../check/trace/trace-file.ts';
export { hasLiveness } from '../check/liveness/scc.ts';
export { DETERMINISM_DEFAULTS, DeterminismCheck } from '../check/purity.ts';
export { resolveSource } from '../check/resolve-source.ts';
export { DEFAULT_SHARD_PREFIX, fingerprintDigest } from '../check/distributed/shard.ts';
export { EXCHANGE_DEFAULTS } from '../check/distributed/exchange-defaults.ts';
export { ExchangeError } from '../check/distributed/exchange-dir.ts';
export { SHARE_VISITED_DEFAULTS } from '../check/distributed/share-visited-defaults.ts';

// Report building blocks.
export { mermaidText, reportContext, formatHtmlPieces } from '../report/index.ts';
