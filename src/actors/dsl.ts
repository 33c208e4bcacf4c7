// Helpers for writing actor machines: how a machine addresses another actor.
import { sendTo, type ActionFunction } from 'xstate';
import type { ActorLogic, MessageOf } from './scenario.ts';
import type { Message } from './types.ts';

type Args = { context: any; event: any };

/** The options of a send: a delay in virtual milliseconds, and an id to cancel it by. */
export interface SendOptions {
  /** Deliver after this many virtual milliseconds (a timer the checker fires). */
  readonly delay?: number;
  /** The delayed send's id (xstate's `cancel(id)` cancels it). */
  readonly id?: string;
}

/**
 * What `send` returns: an xstate action, for any machine's `entry`, `exit`, `actions`
 * or `enqueue`.
 */
export type SendAction = ActionFunction<any, any, any, any, never, never, never, never, never>;

/**
 * Sends `msg` to the actor named `to` (or `env` for the outside). Plain xstate
 * underneath: `sendTo(({ system }) => system.get(to), msg)`, which the kernel
 * resolves to a world actor id and puts on the channel self -> to.
 *
 * Typed: `send<typeof bank>('bank', msg)` checks `msg` (or what the function gives)
 * against the messages the receiver's logic accepts (a machine's events, a reducer's
 * `Msg`), so `{ type: 'Pya' }` is a type error. Without the type argument any message goes.
 *
 * @example
 * ```ts
 * entry: send<typeof bank>('bank', { type: 'Pay', order: 'order-1', amount: 10 })
 * ```
 */
export function send<R extends ActorLogic>(to: string | ((args: Args) => string), msg: MessageOf<R> | ((args: Args) => MessageOf<R>), options?: SendOptions): SendAction;
/**
 * Sends `msg` to the actor named `to` (or `env` for the outside), any message; `TArgs`
 * types the arguments `to` and `msg` get when they are functions.
 */
export function send<TArgs extends Args = Args>(to: string | ((args: TArgs) => string), msg: Message | ((args: TArgs) => Message), options?: SendOptions): SendAction;
export function send(to: string | ((args: any) => string), msg: unknown, options?: SendOptions): SendAction {
  return sendTo(
    (args: any) => args.system.get(typeof to === 'function' ? to(args) : to),
    msg as any,
    options as any,
  ) as SendAction;
}
