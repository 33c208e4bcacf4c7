// Public surface of the runtime layer.
export * from './types.ts';
export * from './scenario.ts';
export { stepNotes, propertyNote, actorRole, type Legend, type StepNote } from './legend.ts';
export { eventually, leadsTo, nonProgressCycles, progressTag, DEFAULT_FAIRNESS, type LivenessProperty, type Fairness, type FairnessSpec } from './liveness.ts';
export { initialWorld, enabled, apply, inputStep, tickStep, isFault, isQuiescent, isOffered, offersInput, isFailureEvent, type ApplyOptions, type ApplyResult } from './kernel.ts';
export { StepMemo, type SameStep } from './step-memo.ts';
export { queryOf } from './query.ts';
export { rng, rngFromState, deriveSeed, type Rng } from './prng.ts';
export { send, type SendAction, type SendOptions } from './dsl.ts';
export * from './drive.ts';
export { canonicalJson, toPlain } from './serialize.ts';
export { formatStateValue } from './xstate-adapter.ts';
export * from './family.ts';
export { simulate, percentile, type CostModel, type SimulateOptions, type SimulationRun } from './simulate.ts';
export { reads, readsEach, readsView, type Reads } from './reads.ts';
export { withExternals } from './externals.ts';
export type { Reply, ExternalHandler } from './externals.ts';
