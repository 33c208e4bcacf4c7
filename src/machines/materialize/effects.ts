// Effects as data: an action's body (a pure function of context, event and the
// action's params) returns the next context and what to send, emit and schedule;
// `act` turns that into xstate actions, in order. The control flow is the chart's
// (worker.ts, pool.ts, client.ts, workload.ts): each named action does one thing.
import { enqueueActions } from 'xstate';
import { send } from '../../actors/dsl.ts';
import type { Message } from '../../actors/types.ts';

export type Fx =
  | { readonly kind: 'send'; readonly to: string; readonly msg: Message }
  | { readonly kind: 'emit'; readonly msg: Message }
  /** A delayed event to self: a virtual-time timer, keyed by `id`. */
  | { readonly kind: 'after'; readonly msg: Message; readonly delay: number; readonly id: string };

export type Body<C, P = undefined> = (ctx: C, ev: Message, params: P) => { readonly ctx: C; readonly fx: readonly Fx[] };

/** A named action over a pure body: commit its context, perform its effects in order. */
export function act<C, P = undefined>(body: Body<C, P>): any {
  return enqueueActions(({ context, event, enqueue }: any, params: P) => {
    const r = body(context as C, event as Message, params);
    if (r.ctx !== context) enqueue.assign(() => r.ctx as any);
    for (const f of r.fx) {
      if (f.kind === 'send') enqueue(send(f.to, f.msg));
      else if (f.kind === 'emit') enqueue.emit(f.msg as any);
      else enqueue.raise(f.msg as any, { delay: f.delay, id: f.id });
    }
  });
}
