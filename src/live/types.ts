// The live runner's public types: handlers of external actors, options, the
// running system and what a run records.
import type { Observable } from 'rxjs';
import type { Scenario } from '../actors/scenario.ts';
import type { Message, RecordedEvent, World } from '../actors/types.ts';
import type { InspectOption, LiveInspectionEvent } from './inspection.ts';
import type { LiveLogOptions } from './log.ts';

export type { Reply, ExternalHandler } from '../actors/externals.ts';
import type { ExternalHandler } from '../actors/externals.ts';

/** A handler with how many of its calls may run at once (default 1: one at a time, in delivery order, like the model). */
export interface ExternalSpec {
  /** Does the work: gets each message delivered to the actor, returns the replies. */
  readonly handle: ExternalHandler;
  /** How many calls may run at once (default 1). */
  readonly concurrency?: number;
}

/** One input step of a live run, with its payload: replay needs it, the schedule only has the id. */
export interface RecordedInput {
  /** Position of the step in the schedule. */
  readonly index: number;
  /** The sender (`env`, or the external actor whose reply this is). */
  readonly from: string;
  /** The receiver. */
  readonly to: string;
  /** The message. */
  readonly msg: Message;
}

/** Options of `runLive`: time scale, external handlers, batching, recording, inspection. */
export interface LiveOptions {
  /** Real milliseconds per virtual millisecond for timers (default 1; 0 fires a timer as soon as no message and no I/O is in flight). */
  readonly timeScale?: number;
  /**
   * Handlers for external actors, by actor id. Naming an actor the scenario models
   * (a simulated store, say) swaps it for an external one in this run: the model
   * checked with the simulated store runs live against the real one.
   */
  readonly externals?: Readonly<Record<string, ExternalHandler | ExternalSpec>>;
  /** Deliveries per macrotask before yielding to I/O (default 64). */
  readonly slice?: number;
  /** Record context changes on state events (default true). */
  readonly detail?: boolean;
  /** Keep every event for `recording()` (default true; turn off for long runs, `events$` still sees them). */
  readonly record?: boolean;
  /** An xstate-style inspector (`inspector.inspect` from @statelyai/inspect works). */
  readonly inspect?: InspectOption;
  /** Stop at the first machine error or monitor failure (default false: record it in `failures` and go on). */
  readonly stopOnFailure?: boolean;
  /**
   * Where the live storage started, by actor id: the input the modelled actor gets in place of
   * the scenario's (for the simulated object store, `await fsStore.snapshot()`). Recorded, so
   * replay and `check --from` start the model from what the live run found. Default: none
   * (the model starts from the scenario's own input).
   */
  readonly initial?: Readonly<Record<string, unknown>>;
  /**
   * Stream the recording to this log as the run goes (an append-only file of JSON lines, flushed
   * in batches, fsynced on a cadence): after a `kill -9` it is readable up to the last flushed
   * batch. `interleave replay` and `check --from` read it like a trace file. See docs/live.md.
   */
  readonly recordTo?: LiveLogOptions;
}

/** Everything needed to replay a live run in simulation. */
export interface LiveRecording {
  /** The scenario's name. */
  readonly scenario: string;
  /** The parameters it was built with. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Actors that ran as externals (replay swaps them the same way). */
  readonly externals: readonly string[];
  /** The steps taken, as ids. */
  readonly schedule: readonly string[];
  /** Input steps with their payloads, in schedule order. */
  readonly inputs: readonly RecordedInput[];
  /** Every trace event, with its step number (empty with `record: false`). */
  readonly events: readonly RecordedEvent[];
  /** Where the live storage started (`LiveOptions.initial`), by actor id; absent when not given. */
  readonly initial?: Readonly<Record<string, unknown>>;
}

/** A running live system (`runLive`): send it messages, watch its events, wait for quiescence, stop it, take its recording. */
export interface LiveSystem<In extends Message = Message> {
  /** The scenario it runs (with externals swapped in). */
  readonly scenario: Scenario;
  /** Every trace event as it happens. */
  readonly events$: Observable<RecordedEvent>;
  /** The same run as xstate inspection events (`@xstate.actor`, `@xstate.event`, `@xstate.snapshot`). */
  readonly inspection$: Observable<LiveInspectionEvent>;
  /** Puts a message from outside (`env`) on the channel to `to`. */
  send(to: string, msg: In): void;
  /** Resolves when no message is in flight, no timer is pending and no external call is running; rejects if the run failed. */
  whenQuiescent(): Promise<World>;
  /** Stops stepping, cancels timers, and resolves once external calls in flight have settled. */
  stop(): Promise<void>;
  /** The current world. */
  world(): World;
  /** The steps taken so far, as ids (replayable with `replay(sc, schedule, { inputs })`). */
  schedule(): readonly string[];
  /** Input steps taken so far, with their payloads, in schedule order. */
  inputs(): readonly RecordedInput[];
  /** Everything needed to replay the run so far (`liveTraceFile(recording)` makes a trace file of it). */
  recording(): LiveRecording;
  /** Errors that stopped the run: a handler that threw, a kernel error. */
  readonly errors: readonly Error[];
  /** Machine errors and monitor failures seen (trace events of kind `error` / `monitor-fail`). */
  readonly failures: readonly RecordedEvent[];
}
