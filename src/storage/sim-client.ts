// Drives a storage reducer directly, one request at a time, without a scenario:
// for unit tests and for the contract suite. The same `receive` the kernel calls;
// messages the actor sends to itself (stash parts) are delivered in FIFO order
// before the call returns.
import type { ReducerLogic } from '../actors/scenario.ts';
import type { Message, TraceEvent } from '../actors/types.ts';

/** What one `SimClient.call` produced. */
export interface SimCall {
  /** Replies sent to the caller, in order. */
  readonly replies: readonly Message[];
  /** The trace events the reducer emitted (`io`, `log`). */
  readonly events: readonly TraceEvent[];
}

/** A storage reducer driven directly, one request at a time (`simClient`). */
export interface SimClient<S> {
  /** The reducer's current state. */
  readonly state: S;
  /**
   * Delivers `msg` from `from` (default `client`) with `outcome` (a fault outcome,
   * or undefined for the normal one), then any self-messages, with `selfOutcome(msg, n)` for each.
   */
  call(msg: Message, opts?: { from?: string; outcome?: string; selfOutcome?: (m: Message, n: number) => string | undefined }): SimCall;
  /** `call` that expects exactly one reply and returns it. */
  request(msg: Message, opts?: { from?: string; outcome?: string }): Message;
  /** The fault outcomes the actor offers for this request now. */
  faults(msg: Message, from?: string): readonly string[];
}

/** Drives a storage reducer without a scenario, for unit tests: `self` is its actor id (default `store`), `input` goes to its `init`, `now` is the clock its context sees. */
export function simClient<S>(logic: ReducerLogic<S>, opts: { self?: string; input?: unknown; now?: () => number } = {}): SimClient<S> {
  const self = opts.self ?? 'store';
  let state = logic.init(opts.input);
  const client: SimClient<S> = {
    get state() {
      return state;
    },
    call(msg, o = {}) {
      const from = o.from ?? 'client';
      const replies: Message[] = [];
      const events: TraceEvent[] = [];
      const queue: { from: string; msg: Message; outcome: string | undefined }[] = [{ from, msg, outcome: o.outcome }];
      let n = 0;
      while (queue.length > 0) {
        const d = queue.shift()!;
        const r = logic.receive(state, d.msg, { self, from: d.from, outcome: d.outcome, now: opts.now?.() ?? 0 });
        if (r.unhandled) throw new Error(`${self} has no case for '${d.msg.type}'`);
        state = r.state;
        if (r.events) events.push(...r.events);
        for (const s of r.send ?? []) {
          if (s.to === self) queue.push({ from: self, msg: s.msg, outcome: o.selfOutcome?.(s.msg, n++) });
          else replies.push(s.msg);
        }
      }
      return { replies, events };
    },
    request(msg, o = {}) {
      const r = client.call(msg, o);
      if (r.replies.length !== 1) throw new Error(`expected one reply to '${msg.type}', got ${r.replies.length}: ${r.replies.map((m) => m.type).join(', ')}`);
      return r.replies[0]!;
    },
    faults(msg, from = 'client') {
      return logic.faultOutcomes?.(state, msg, from) ?? [];
    },
  };
  return client;
}
