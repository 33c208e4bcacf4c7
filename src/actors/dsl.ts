// Helpers for writing actor machines: how a machine addresses another actor.
import { sendTo } from 'xstate';
import type { Message } from './types.ts';

type Args = { context: any; event: any };

/**
 * Sends `msg` to the actor named `to` (or `env` for the outside). Plain xstate
 * underneath: `sendTo(({ system }) => system.get(to), msg)`, which the kernel
 * resolves to a world actor id and puts on the channel self -> to.
 */
export function send<TArgs extends Args = Args>(
  to: string | ((args: TArgs) => string),
  msg: Message | ((args: TArgs) => Message),
  options?: { delay?: number; id?: string },
): any {
  return sendTo(
    (args: any) => args.system.get(typeof to === 'function' ? to(args) : to),
    msg as any,
    options as any,
  );
}
