// The classic lost update: clients read a counter, add one and write it back.
// With plain read-then-write two clients can both read 0 and both write 1; with
// compare-and-set the second write is refused and the client retries.
import { assign, setup } from 'xstate';
import { defineScenario, send, type ReducerLogic, type Scenario } from '../../actors/index.ts';
import { readsView } from '../../actors/index.ts';

/** How a client writes its incremented value: read then write (loses updates) or compare-and-set (does not). */
export type LostUpdateDesign = 'read-then-write' | 'compare-and-set';

interface Cell {
  readonly value: number;
  readonly version: number;
}

/** The shared counter: a versioned register with Get, Put and Cas. */
export const counterStore: ReducerLogic<Cell> = {
  kind: 'reducer',
  init: () => ({ value: 0, version: 0 }),
  receive(s, msg, ctx) {
    switch (msg.type) {
      case 'Get':
        return { state: s, send: [{ to: ctx.from, msg: { type: 'Value', value: s.value, version: s.version } }] };
      case 'Put': {
        const next = { value: Number(msg.value), version: s.version + 1 };
        return { state: next, send: [{ to: ctx.from, msg: { type: 'Ok', version: next.version } }] };
      }
      case 'Cas': {
        if (msg.expect !== s.version) return { state: s, send: [{ to: ctx.from, msg: { type: 'Conflict', value: s.value, version: s.version } }] };
        const next = { value: Number(msg.value), version: s.version + 1 };
        return { state: next, send: [{ to: ctx.from, msg: { type: 'Ok', version: next.version } }] };
      }
      default:
        return { state: s, unhandled: true };
    }
  },
};

type ClientEvent = { type: 'start' } | { type: 'Value'; value: number; version: number } | { type: 'Ok'; version: number } | { type: 'Conflict'; value: number; version: number };

export function client(design: LostUpdateDesign) {
  const write = (value: number, version: number) =>
    design === 'compare-and-set' ? { type: 'Cas', value: value + 1, expect: version } : { type: 'Put', value: value + 1 };
  return setup({ types: {} as { context: { read: number | null; tries: number }; events: ClientEvent } }).createMachine({
    id: 'client',
    context: { read: null, tries: 0 },
    initial: 'idle',
    states: {
      idle: { on: { start: { target: 'reading', actions: send('store', { type: 'Get' }) } } },
      reading: {
        on: {
          Value: {
            target: 'writing',
            actions: [assign({ read: ({ event }) => event.value, tries: ({ context }) => context.tries + 1 }), send('store', ({ event }) => write(event.value, event.version))],
          },
        },
      },
      writing: {
        on: {
          Ok: 'done',
          Conflict: { actions: [assign({ read: ({ event }) => event.value, tries: ({ context }) => context.tries + 1 }), send('store', ({ event }) => write(event.value, event.version))] },
        },
      },
      done: { type: 'final' },
    },
  });
}

/** `clients` clients each increment a shared counter once; the invariant `no-lost-update` checks the final count. */
export function lostUpdate(design: LostUpdateDesign = 'read-then-write', clients = 2): Scenario {
  const ids = Array.from({ length: clients }, (_, i) => `client${i + 1}`);
  const logic = client(design);
  return defineScenario({
    name: 'lost-update',
    description: 'clients increment a shared counter',
    actors: { store: counterStore, ...Object.fromEntries(ids.map((id) => [id, logic])) },
    start: ids.map((to) => ({ to, msg: { type: 'start' } })),
    invariants: {
      // A view (the counter once every client is done, else null) and a check of it: for the
      // partial-order reduction only the step that finishes the last client changes the view.
      'no-lost-update': readsView(
        ['store', ...ids],
        (q) => (ids.every((id) => q.matches(id, 'done')) ? (q.context('store') as Cell).value : null),
        (v) => v === null || v === clients || `all ${clients} clients finished but the counter is ${v}: an increment was lost`,
      ),
    },
    symmetry: [ids],
    params: { design, clients },
  });
}
