// Liveness demos: a rally that never stops, and a client that retries forever.
//
// rally: players `a` and `b` hit a ball back and forth forever. What should end it:
//   endless  nothing; `eventually a done` is violated by the rally itself;
//   referee  a whistle from env to a third actor; `eventually referee finished`
//            holds under weak fairness on deliveries (the whistle delivery stays
//            enabled, so a fair scheduler takes it) and fails without fairness;
//   stop     a stop message from env to player `a`; per-actor fairness is not enough
//            (deliveries to `a` are taken: the balls), per-channel fairness on
//            env -> a is.
// retry: a client asks a server that answers `unavailable` while it is down; the
// client retries without bound (maxRetries 0) or gives up after maxRetries; with
// `recovers` env sends the server a `recover` message.
import { assign, setup } from 'xstate';
import { defineScenario, eventually, leadsTo, nonProgressCycles, send, type Fairness, type Scenario } from '../../actors/index.ts';

/** What ends the rally: nothing (`endless`), a referee's whistle, or a stop message to player a. */
export type RallyEnd = 'endless' | 'referee' | 'stop';
/** The fairness the demo declares: per actor (the default), on the one env channel that ends the run, or none. */
export type FairnessChoice = 'actors' | 'channels' | 'none';

const player = (other: string) =>
  setup({ types: {} as { events: { type: 'serve' } | { type: 'ball' } | { type: 'stop' } } }).createMachine({
    initial: 'ready',
    states: {
      ready: { on: { serve: { target: 'rallying', actions: send(other, { type: 'ball' }) }, ball: { target: 'rallying', actions: send(other, { type: 'ball' }) } } },
      // Between hits a player rests (`idle`): a rally that ends is not a deadlock.
      rallying: { tags: ['idle'], on: { ball: { actions: send(other, { type: 'ball' }) }, stop: 'done' } },
      // A ball still in flight lands on a player who stopped: it is left on the floor.
      done: { tags: ['idle'], on: { ball: {} } },
    },
  });

const referee = setup({ types: {} as { events: { type: 'whistle' } } }).createMachine({
  initial: 'watching',
  states: { watching: { on: { whistle: 'finished' } }, finished: { type: 'final' } },
});

function fairnessOf(f: FairnessChoice, channel: readonly [string, string]): Fairness {
  return f === 'none' ? 'none' : f === 'channels' ? { channels: [channel] } : { actors: 'all' };
}

/** Two players hit a ball forever; the liveness property says the rally ends (see {@link RallyEnd}). */
export function rally(end: RallyEnd = 'endless', fairness: FairnessChoice = 'actors'): Scenario {
  const start: { to: string; msg: { type: string } }[] = [{ to: 'a', msg: { type: 'serve' } }];
  if (end === 'referee') start.push({ to: 'referee', msg: { type: 'whistle' } });
  if (end === 'stop') start.push({ to: 'a', msg: { type: 'stop' } });
  return defineScenario({
    name: 'rally',
    description: 'two players hit a ball back and forth; what ends the rally decides the liveness verdict',
    actors: { a: player('b'), b: player('a'), ...(end === 'referee' ? { referee } : {}) },
    start,
    liveness: end === 'referee' ? { 'referee finishes': eventually((q) => q.matches('referee', 'finished')) } : { 'a done': eventually((q) => q.matches('a', 'done')) },
    fairness: fairnessOf(fairness, end === 'referee' ? ['env', 'referee'] : ['env', 'a']),
    params: { end, fairness },
  });
}

const client = (maxRetries: number) =>
  setup({
    types: {} as { context: { tries: number }; events: { type: 'go' } | { type: 'unavailable' } | { type: 'ok' } },
  }).createMachine({
    context: { tries: 0 },
    initial: 'idle',
    states: {
      idle: { on: { go: { target: 'waiting', actions: send('server', { type: 'request' }) } } },
      waiting: {
        on: {
          ok: 'served',
          unavailable: [
            // Unbounded retries keep no count (the state stays finite, and the loop is a cycle).
            { guard: ({ context }) => maxRetries > 0 && context.tries >= maxRetries, target: 'gaveUp' },
            { actions: [assign({ tries: ({ context }) => (maxRetries > 0 ? context.tries + 1 : 0) }), send('server', { type: 'request' })] },
          ],
        },
      },
      served: { type: 'final', tags: ['progress'] },
      gaveUp: { type: 'final' },
    },
  });

const server = setup({ types: {} as { events: { type: 'request' } | { type: 'recover' } } }).createMachine({
  initial: 'down',
  states: {
    down: { tags: ['idle'], on: { request: { actions: send('client', { type: 'unavailable' }) }, recover: 'up' } },
    up: { tags: ['idle'], on: { request: { actions: send('client', { type: 'ok' }) } } },
  },
});

/** A client retries a request against a server that is down: `leadsTo(request, response)` and non-progress cycles. `maxRetries` 0 retries without bound; with `recovers`, env sends the server a `recover` message. */
export function retry(maxRetries = 0, recovers = false, fairness: FairnessChoice = 'actors'): Scenario {
  return defineScenario({
    name: 'retry',
    description: 'a client retries a request against a server that is down',
    actors: { client: client(maxRetries), server },
    start: [{ to: 'client', msg: { type: 'go' } }, ...(recovers ? [{ to: 'server', msg: { type: 'recover' } }] : [])],
    liveness: {
      'request leads to response': leadsTo(
        (q) => q.matches('client', 'waiting'),
        (q) => q.matches('client', 'served') || q.matches('client', 'gaveUp'),
      ),
      // Progress is being served (the `progress` tag); a run that gives up ends, and ends are fine.
      'no retry storm': nonProgressCycles(),
    },
    fairness: fairnessOf(fairness, ['env', 'server']),
    params: { maxRetries, recovers, fairness },
  });
}
