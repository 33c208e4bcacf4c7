// The smallest interesting system: two actors passing a ball `rounds` times.
import { assign, setup, type AnyStateMachine } from 'xstate';
import { defineScenario, send, type Scenario } from '../../actors/index.ts';

/** The ping-pong machine that serves: sends `ping` `rounds` times, tells `env` `finished` after the last `pong`. */
// Typed as AnyStateMachine: the inferred type spells out the whole config (the API docs would too).
export const pinger: AnyStateMachine = setup({
  types: {} as { context: { rounds: number; sent: number }; input: { rounds: number }; events: { type: 'start' } | { type: 'pong'; n: number } },
}).createMachine({
  id: 'pinger',
  context: ({ input }) => ({ rounds: input?.rounds ?? 3, sent: 0 }),
  initial: 'idle',
  states: {
    idle: { on: { start: { target: 'waiting', actions: [assign({ sent: 1 }), send('ponger', { type: 'ping', n: 1 })] } } },
    waiting: {
      on: {
        pong: [
          { guard: ({ context }) => context.sent >= context.rounds, target: 'done', actions: send('env', ({ context }) => ({ type: 'finished', rounds: context.sent })) },
          { actions: [assign({ sent: ({ context }) => context.sent + 1 }), send('ponger', ({ context }) => ({ type: 'ping', n: context.sent }))] },
        ],
      },
    },
    done: { type: 'final' },
  },
});

/** The ping-pong machine that answers every `ping` with a `pong`. */
export const ponger: AnyStateMachine = setup({
  types: {} as { context: { seen: number }; events: { type: 'ping'; n: number } },
}).createMachine({
  id: 'ponger',
  context: { seen: 0 },
  on: {
    ping: { actions: [assign({ seen: ({ context }) => context.seen + 1 }), send('pinger', ({ event }) => ({ type: 'pong', n: event.n }))] },
  },
});

/** Two actors pass a ball `rounds` times; `eventually` the pinger is done. */
export function pingPong(rounds = 3): Scenario {
  return defineScenario({
    name: 'ping-pong',
    description: 'two actors pass a ball back and forth',
    actors: { pinger: { logic: pinger, input: { rounds } }, ponger },
    start: [{ to: 'pinger', msg: { type: 'start' } }],
    eventually: { finished: (q) => q.matches('pinger', 'done') || 'pinger never finished' },
    params: { rounds },
  });
}
