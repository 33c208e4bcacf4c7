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
  | {
      /** Deliver the head message of the channel from → to. */
      readonly kind: 'deliver';
      /** Printable and stable: `deliver:<from>-><to>:<Type>` (`!<outcome>` for a fault outcome). */
      readonly id: string;
      /** Sender's actor index. */
      readonly from: number;
      /** Receiver's actor index. */
      readonly to: number;
      /** A reducer's fault outcome (`403`, `ambiguous`, …) instead of the normal one. */
      readonly outcome?: string;
    }
  | {
      /** Fire a pending timer. */
      readonly kind: 'timer';
      /** `timer:<owner>:<timer id>`. */
      readonly id: string;
      /** Its index in `world.timers`. */
      readonly timer: number;
    }
  | {
      /** Crash an actor (a fault): it loses its state and its mailbox. */
      readonly kind: 'crash';
      /** `crash:<actor>`. */
      readonly id: string;
      /** The actor index. */
      readonly actor: number;
    }
  | {
      /** Restart a crashed actor with its initial state (free). */
      readonly kind: 'restart';
      /** `restart:<actor>`. */
      readonly id: string;
      /** The actor index. */
      readonly actor: number;
    }
  | {
      /** Lose the head message of the channel from → to (a fault). */
      readonly kind: 'drop';
      /** `drop:<from>-><to>:<Type>`. */
      readonly id: string;
      /** Sender's actor index. */
      readonly from: number;
      /** Receiver's actor index. */
      readonly to: number;
    }
  /**
   * A message from outside. Recorded live inputs (`offered` unset) are put on the
   * channel from -> to; the scenario's own environment inputs (`offered`: their index in `scenario.inputList`, offered by
   * `enabled`) are handed to the receiver directly, like a delivery.
   */
  | {
      /** A message from outside. */
      readonly kind: 'input';
      /** `input:<from>-><to>:<Type>`. */
      readonly id: string;
      /** Sender's actor index (`env`, or an external actor answering). */
      readonly from: number;
      /** Receiver's actor index. */
      readonly to: number;
      /** The message. */
      readonly msg: Message;
      /** For the scenario's environment inputs: their index in `scenario.inputList`. */
      readonly offered?: number;
    }
  /** Virtual time passes (simulation and live runs only; never offered by `enabled`). */
  | {
      /** Virtual time passes. */
      readonly kind: 'tick';
      /** `tick:<time>`. */
      readonly id: string;
      /** The new time, virtual ms. */
      readonly to: number;
    };

/** The kinds of step: deliver, timer, crash, restart, drop, input, tick. */
export type StepKind = Step['kind'];

/** What a step did, in order. The driver numbers them (`step`) when it records a trace. */
export type TraceEvent =
  | {
      /** A message was delivered. */
      readonly kind: 'deliver';
      /** The sender. */
      readonly from: ActorId;
      /** The receiver. */
      readonly to: ActorId;
      /** The message. */
      readonly msg: Message;
      /** A reducer's fault outcome it took (`403`, `ambiguous`, …), if not the normal one. */
      readonly outcome?: string;
    }
  | {
      /** A message was put on a channel. */
      readonly kind: 'send';
      /** The sender. */
      readonly from: ActorId;
      /** The receiver. */
      readonly to: ActorId;
      /** The message. */
      readonly msg: Message;
    }
  | {
      /** A message was sent to `env` (the outside). */
      readonly kind: 'output';
      /** The sender. */
      readonly from: ActorId;
      /** The message. */
      readonly msg: Message;
    }
  | {
      /** An actor's state or context changed. */
      readonly kind: 'state';
      /** The actor it is about. */
      readonly actor: ActorId;
      /** Its state before (formatStateValue form; `(start)` at the start). */
      readonly from: string;
      /** Its state after. */
      readonly to: string;
      /** The context fields that changed, with their new values (when the run records detail). */
      readonly changed?: Readonly<Record<string, unknown>>;
    }
  /**
   * A reducer's (a storage actor's) state changed: recorded only when the run records
   * detail (the final replay of a check, replay, live runs), and never shown to monitors.
   */
  | {
      /** A reducer's state changed. */
      readonly kind: 'context';
      /** The reducer. */
      readonly actor: ActorId;
      /** The top-level keys of its state that changed, with their new values (the whole state at the start); a state that is not a plain object is recorded whole under the key `''`. */
      readonly changed: Readonly<Record<string, unknown>>;
    }
  | {
      /** A timer was set. */
      readonly kind: 'timer-set';
      /** The owner. */
      readonly actor: ActorId;
      /** The timer's id. */
      readonly id: string;
      /** When it fires, virtual ms. */
      readonly due: number;
      /** The event it will deliver. */
      readonly msg: Message;
    }
  | {
      /** A timer fired. */
      readonly kind: 'timer-fire';
      /** The owner. */
      readonly actor: ActorId;
      /** The timer's id. */
      readonly id: string;
      /** Virtual time, ms. */
      readonly at: number;
      /** The event delivered. */
      readonly msg: Message;
    }
  | {
      /** A timer was cancelled. */
      readonly kind: 'timer-cancel';
      /** The owner. */
      readonly actor: ActorId;
      /** The timer's id. */
      readonly id: string;
    }
  | {
      /** Virtual time moved. */
      readonly kind: 'tick';
      /** The new time, virtual ms. */
      readonly at: number;
    }
  | {
      /** A fault was injected. */
      readonly kind: 'fault';
      /** Which: `crash`, `restart`, `drop`, or a fault outcome. */
      readonly fault: string;
      /** The actor it is about. */
      readonly actor: ActorId;
      /** More about it, in words. */
      readonly detail?: string;
    }
  | {
      /** A machine emitted an event (xstate `emit`). */
      readonly kind: 'emit';
      /** The actor it is about. */
      readonly actor: ActorId;
      /** The emitted event. */
      readonly msg: Message;
    }
  /**
   * A message no transition matched (or one sent to an actor in a final state). `policy` is the
   * scenario's `unhandled` setting, always set by the kernel: under `error` (the default) the
   * event is a failure of the run, under `trace` it is only recorded. See `isFailureEvent`.
   */
  | {
      /** A message no transition matched. */
      readonly kind: 'unhandled';
      /** The receiver. */
      readonly actor: ActorId;
      /** The sender. */
      readonly from: ActorId;
      /** The message. */
      readonly msg: Message;
      /** The receiver's state then. */
      readonly state: string;
      /** The scenario's `unhandled` setting (set by the kernel). */
      readonly policy?: 'error' | 'trace';
    }
  | {
      /** A machine threw (its actor is now in error). */
      readonly kind: 'error';
      /** The actor it is about. */
      readonly actor: ActorId;
      /** What was thrown, in words. */
      readonly message: string;
    }
  | {
      /** A message was lost: a drop fault, or a delivery to an actor that is crashed or in error. */
      readonly kind: 'dropped';
      /** The sender. */
      readonly from: ActorId;
      /** The receiver. */
      readonly to: ActorId;
      /** The message. */
      readonly msg: Message;
      /** Why, in words. */
      readonly reason: string;
    }
  | {
      /** A storage actor did an operation. */
      readonly kind: 'io';
      /** The storage actor. */
      readonly actor: ActorId;
      /** The operation (`put`, `get`, `commit`, …). */
      readonly op: string;
      /** The key or URI it was on. */
      readonly key?: string;
      /** How it ended (`ok`, `403`, `ambiguous`, …). */
      readonly outcome: string;
      /** Bytes moved. */
      readonly bytes?: number;
      /** More fields of the operation. */
      readonly detail?: Readonly<Record<string, unknown>>;
    }
  | {
      /** An actor logged something. */
      readonly kind: 'log';
      /** The actor it is about. */
      readonly actor: ActorId;
      /** What it logged. */
      readonly data: unknown;
    }
  | {
      /** A monitor failed. */
      readonly kind: 'monitor-fail';
      /** The monitor's name. */
      readonly monitor: string;
      /** What it saw, in words. */
      readonly message: string;
    };

/** The kinds of trace event (`deliver`, `send`, `state`, `unhandled`, …). */
export type TraceEventKind = TraceEvent['kind'];

/** A trace event with the index of the step that produced it. */
export type RecordedEvent = TraceEvent & {
  /** The step that produced it: 0 for the initial world, k for the effect of `schedule[k-1]`. */
  readonly step: number;
};
