// The smallest interesting system: two actors passing a ball `rounds` times.
import { assign, setup, type EventObject, type MachineContext, type StateMachine, type StateValue } from 'xstate';
import { defineScenario, send, type Scenario } from '../../actors/index.ts';

/** The pinger's context: how many pings to send, and how many it has sent. */
export interface PingerContext {
  /** Pings to send before finishing. */
  rounds: number;
  /** Pings sent so far. */
  sent: number;
}

/** The pinger's input (`input: { rounds }` in a scenario's actor entry). */
export interface PingerInput {
  /** Pings to send (default 3). */
  rounds: number;
}

/** The pinger's `start`: serve the first ping. */
export interface StartEvent {
  /** The event's name. */
  type: 'start';
}

/** A ball, as a `ping` (pinger to ponger) or a `pong` (back). */
export interface BallEvent<T extends 'ping' | 'pong'> {
  /** The event's name. */
  type: T;
  /** The ball's number, from 1. */
  n: number;
}

/** The events the pinger accepts: `start` serves the first ping, `pong` answers one. */
export type PingerEvent = StartEvent | BallEvent<'pong'>;

/** The ponger's context: pings seen. */
export interface PongerContext {
  /** Pings answered so far. */
  seen: number;
}

/** The event the ponger accepts. */
export type PongerEvent = BallEvent<'ping'>;

/**
 * A demo machine typed by its context, events, input and state values (what a scenario's
 * `q.matches` takes for it); the other parameters are left open, so the type (and the API
 * docs) do not spell out the whole config.
 */
export type DemoMachine<C extends MachineContext, E extends EventObject, I = unknown, V extends StateValue = any> = StateMachine<C, E, any, any, any, any, any, V, any, I, any, any, any, any>;

/** The type of {@link pinger}. */
export type PingerMachine = DemoMachine<PingerContext, PingerEvent, PingerInput, 'idle' | 'waiting' | 'done'>;

/** The type of {@link ponger}. */
export type PongerMachine = DemoMachine<PongerContext, PongerEvent>;

/** The ping-pong machine that serves: sends `ping` `rounds` times, tells `env` `finished` after the last `pong`. */
export const pinger: PingerMachine = setup({
  types: {} as { context: PingerContext; input: PingerInput; events: PingerEvent },
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
export const ponger: PongerMachine = setup({
  types: {} as { context: PongerContext; events: PongerEvent },
}).createMachine({
  id: 'ponger',
  context: { seen: 0 },
  on: {
    ping: { actions: [assign({ seen: ({ context }) => context.seen + 1 }), send('pinger', ({ event }) => ({ type: 'pong', n: event.n }))] },
  },
});

/** Two actors pass a ball `rounds` times; at the end the pinger is done. */
export function pingPong(rounds = 3): Scenario {
  return defineScenario({
    name: 'ping-pong',
    description: 'two actors pass a ball back and forth',
    actors: { pinger: { logic: pinger, input: { rounds } }, ponger },
    start: [{ to: 'pinger', msg: { type: 'start' } }],
    atEnd: { finished: (q) => q.matches('pinger', 'done') || 'pinger never finished' },
    params: { rounds },
  });
}
