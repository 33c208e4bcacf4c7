// The kernel's vocabulary: messages, the world, steps and trace events.
// Every mode (check, replay, simulate, live) speaks only these types.

/** A message between actors: an xstate event object. */
export interface Message {
  /** The event type xstate matches on (`on: { Fetch: … }`). */
  readonly type: string;
  readonly [key: string]: unknown;
}

/** An actor's name in its scenario (the key of `actors`), e.g. `'worker:LE'`; `env` is the outside. */
export type ActorId = string;

/** The pseudo-actor outside the system: scenario inputs come from it, outputs go to it. */
export const ENV = 'env';

/** One FIFO queue, from one sender to one receiver. */
export interface Channel {
  /** The sender's actor index. */
  readonly from: number;
  /** Messages in flight, oldest first (the head is delivered next). */
  readonly queue: readonly Message[];
}

/** A pending delayed event (`after`, a delayed `raise` or `sendTo`), fired by a `timer` step. */
export interface Timer {
  /** The actor index that set it. */
  readonly owner: number;
  /** Target of the event when it fires (the owner itself for `after` and delayed `raise`). */
  readonly to: number;
  /** The delay's id (xstate's `after` id, or the `id` given to a delayed send). */
  readonly id: string;
  /** Virtual time it is due at, in milliseconds. */
  readonly due: number;
  /** The event delivered when it fires. */
  readonly event: Message;
}

/** `up`: running; `crashed`: stopped by a crash fault (a restart may bring it back); `error`: its machine threw. */
export type ActorStatus = 'up' | 'crashed' | 'error';

/**
 * The whole state of a run, as one immutable value. Arrays are indexed by actor
 * index (the scenario's actor order). Updated by hand with structural sharing:
 * a step copies the few arrays it touches and shares everything else.
 */
export interface World {
  /** Per actor: an xstate snapshot, or a reducer's state. */
  readonly snaps: readonly unknown[];
  /** Per actor: up, crashed or in error. */
  readonly status: readonly ActorStatus[];
  /** Per receiver: its non-empty inbound channels, sorted by sender index. */
  readonly inbox: readonly (readonly Channel[])[];
  /** Virtual time, in milliseconds. */
  readonly now: number;
  /** Sorted by (due, owner, id). */
  readonly timers: readonly Timer[];
  /** Faults injected so far (each costs one unit of the scenario's budget). */
  readonly faults: number;
  /** Per monitor: its state. */
  readonly monitors: readonly unknown[];
  /** Set once a monitor fails; sticky. */
  readonly failure: MonitorFailure | undefined;
  /** Counter for ids of anonymous delayed sends (xstate leaves them undefined). */
  readonly anon: number;
  /** Per budgeted environment input (`scenario.inputs`): how many times it was sent. Absent when none has a budget. */
  readonly inputs?: readonly number[];
}

/** The first monitor that failed in a run. */
export interface MonitorFailure {
  /** The monitor's name. */
  readonly monitor: string;
  /** What it saw, in words. */
  readonly message: string;
}

/** One choice the world allows. `id` is stable and printable; replay matches on it. */
export type Step =
  | { readonly kind: 'deliver'; readonly id: string; readonly from: number; readonly to: number; readonly outcome?: string }
  | { readonly kind: 'timer'; readonly id: string; readonly timer: number }
  | { readonly kind: 'crash'; readonly id: string; readonly actor: number }
  | { readonly kind: 'restart'; readonly id: string; readonly actor: number }
  | { readonly kind: 'drop'; readonly id: string; readonly from: number; readonly to: number }
  /**
   * A message from outside. Recorded live inputs (`offered` unset) are put on the
   * channel from -> to; the scenario's own environment inputs (`offered`: their index in `scenario.inputList`, offered by
   * `enabled`) are handed to the receiver directly, like a delivery.
   */
  | { readonly kind: 'input'; readonly id: string; readonly from: number; readonly to: number; readonly msg: Message; readonly offered?: number }
  /** Virtual time passes (simulation and live runs only; never offered by `enabled`). */
  | { readonly kind: 'tick'; readonly id: string; readonly to: number };

/** The kinds of step: deliver, timer, crash, restart, drop, input, tick. */
export type StepKind = Step['kind'];

/** What a step did, in order. The driver numbers them (`step`) when it records a trace. */
export type TraceEvent =
  | { readonly kind: 'deliver'; readonly from: ActorId; readonly to: ActorId; readonly msg: Message; readonly outcome?: string }
  | { readonly kind: 'send'; readonly from: ActorId; readonly to: ActorId; readonly msg: Message }
  | { readonly kind: 'output'; readonly from: ActorId; readonly msg: Message }
  | { readonly kind: 'state'; readonly actor: ActorId; readonly from: string; readonly to: string; readonly changed?: Readonly<Record<string, unknown>> }
  | { readonly kind: 'timer-set'; readonly actor: ActorId; readonly id: string; readonly due: number; readonly msg: Message }
  | { readonly kind: 'timer-fire'; readonly actor: ActorId; readonly id: string; readonly at: number; readonly msg: Message }
  | { readonly kind: 'timer-cancel'; readonly actor: ActorId; readonly id: string }
  | { readonly kind: 'tick'; readonly at: number }
  | { readonly kind: 'fault'; readonly fault: string; readonly actor: ActorId; readonly detail?: string }
  | { readonly kind: 'emit'; readonly actor: ActorId; readonly msg: Message }
  /**
   * A message no transition matched (or one sent to an actor in a final state). `policy` is the
   * scenario's `unhandled` setting, always set by the kernel: under `error` (the default) the
   * event is a failure of the run, under `trace` it is only recorded. See `isFailureEvent`.
   */
  | { readonly kind: 'unhandled'; readonly actor: ActorId; readonly from: ActorId; readonly msg: Message; readonly state: string; readonly policy?: 'error' | 'trace' }
  | { readonly kind: 'error'; readonly actor: ActorId; readonly message: string }
  | { readonly kind: 'dropped'; readonly from: ActorId; readonly to: ActorId; readonly msg: Message; readonly reason: string }
  | { readonly kind: 'io'; readonly actor: ActorId; readonly op: string; readonly key?: string; readonly outcome: string; readonly bytes?: number; readonly detail?: Readonly<Record<string, unknown>> }
  | { readonly kind: 'log'; readonly actor: ActorId; readonly data: unknown }
  | { readonly kind: 'monitor-fail'; readonly monitor: string; readonly message: string };

/** The kinds of trace event (`deliver`, `send`, `state`, `unhandled`, …). */
export type TraceEventKind = TraceEvent['kind'];

/** A trace event with the index of the step that produced it. */
export type RecordedEvent = TraceEvent & { readonly step: number };
