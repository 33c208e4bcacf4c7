// An xstate machine whose behaviour is a pure step function over a plain context:
// every event runs `step`, which returns the next context (with its `phase`), the
// messages to send and observation events to emit; the machine then moves to the
// state named by `phase`. Used for the actors whose logic is a sequential main
// loop (the worker's thread M, the coordinator's handlers) rather than a handful of
// transitions.
import { enqueueActions, setup, type AnyStateMachine } from 'xstate';
import { send } from '../../actors/index.ts';
import type { Message } from '../../actors/index.ts';

export interface Send {
  readonly to: string;
  readonly msg: Message;
  /** Delivered as a delayed self-message (a virtual-time timer). */
  readonly delay?: number;
  readonly id?: string;
}

/** A message to send, or an observation event to emit; kept in the order they happened. */
export type Out = Send | { readonly emit: Message };

export interface StepOut<C> {
  readonly ctx: C;
  readonly out: readonly Out[];
}

export function phaseMachine<C extends { readonly phase: string }, I>(
  id: string,
  phases: readonly string[],
  initial: (input: I) => C,
  step: (ctx: C, ev: Message) => StepOut<C>,
): AnyStateMachine {
  const states: Record<string, any> = {};
  for (const p of phases) {
    states[p] = {
      always: phases.filter((q) => q !== p).map((q) => ({ guard: ({ context }: { context: C }) => context.phase === q, target: q })),
    };
  }
  return setup({ types: {} as { context: C; input: I; events: Message } }).createMachine({
    id,
    context: ({ input }) => initial(input),
    initial: phases[0]!,
    on: {
      '*': {
        actions: enqueueActions(({ context, event, enqueue }) => {
          const r = step(context as C, event as Message);
          if (r.ctx !== context) enqueue.assign(() => r.ctx as any);
          for (const o of r.out) {
            if ('emit' in o) enqueue.emit(o.emit as any);
            else enqueue(o.delay === undefined ? send(o.to, o.msg) : send(o.to, o.msg, { delay: o.delay, ...(o.id ? { id: o.id } : {}) }));
          }
        }),
      },
    },
    states,
  }) as AnyStateMachine;
}
