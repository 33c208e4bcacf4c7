// Effects as data: the pure cores (loop.ts, pool.ts, client.ts) return what to
// send, emit and schedule; one xstate action turns them into xstate actions.
import { enqueueActions, setup, type MachineContext } from 'xstate';
import { send } from '../../actors/dsl.ts';
import type { Message } from '../../actors/types.ts';

export type Fx =
  | { readonly kind: 'send'; readonly to: string; readonly msg: Message }
  | { readonly kind: 'emit'; readonly msg: Message }
  /** A delayed event to self: a virtual-time timer. */
  | { readonly kind: 'after'; readonly msg: Message; readonly delay: number; readonly id: string };

export type Core<C> = (ctx: C, ev: Message) => { readonly ctx: C; readonly fx: readonly Fx[] };

/** The one action every machine here runs: step the pure core, commit its context, perform its effects in order. */
export function reactWith<C>(core: Core<C>): any {
  return enqueueActions(({ context, event, enqueue }: any) => {
    const r = core(context as C, event as Message);
    if (r.ctx !== context) enqueue.assign(() => r.ctx as any);
    for (const f of r.fx) {
      if (f.kind === 'send') enqueue(send(f.to, f.msg));
      else if (f.kind === 'emit') enqueue.emit(f.msg as any);
      else enqueue.raise(f.msg as any, { delay: f.delay, id: f.id });
    }
  });
}

/** A machine with no states of its own over a pure core: each listed event runs the core (the pool, the client). */
export function coreMachine<C extends MachineContext, I>(id: string, core: Core<C>, init: (input: I) => C, events: readonly string[]) {
  return setup({
    types: {} as { context: C; input: I; events: { type: string; [k: string]: unknown } },
    actions: { react: reactWith(core) },
  }).createMachine({
    id,
    context: ({ input }) => init(input),
    on: Object.fromEntries(events.map((e) => [e, { actions: 'react' }])),
  });
}
