// The lease clock: the time of the task's lease, as a timer. When the store grants
// a lease it arms the clock; the expiry may then fire at any moment (delay 0: the
// checker tries it between every two steps), which is a holder that missed its
// heartbeats (crashed, or paused: a zombie). A release disarms it. Time lives here,
// in a timer, never in the store's or the process's logic.
import { enqueueActions, setup } from 'xstate';
import { send } from '../../actors/index.ts';

type ClockEvent = { type: 'Arm'; token: number } | { type: 'Disarm'; token: number } | { type: 'Expire'; token: number };

const timerId = (token: number): string => `lease:${token}`;

export function leaseClockMachine() {
  return setup({ types: {} as { events: ClockEvent } }).createMachine({
    id: 'leaseClock',
    initial: 'ticking',
    states: {
      ticking: {
        on: {
          Arm: { actions: enqueueActions(({ event, enqueue }) => enqueue.raise({ type: 'Expire', token: event.token }, { delay: 0, id: timerId(event.token) })) },
          Disarm: { actions: enqueueActions(({ event, enqueue }) => enqueue.cancel(timerId(event.token))) },
          Expire: { actions: send('supervisor', ({ event }: { event: any }) => ({ type: 'LeaseExpired', token: event.token })) },
        },
      },
    },
  });
}
