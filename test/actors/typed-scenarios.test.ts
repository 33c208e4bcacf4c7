// The machines' types flow into the scenario: contexts, state values, events and inputs
// are checked where a scenario names an actor. `npm run lint` type-checks this file, so
// every `@ts-expect-error` below fails the lint if the typo it marks compiles again; the
// tests also run the scenarios, so the typed forms are the working ones.
import { assign, setup } from 'xstate';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  check,
  defineFamily,
  defineScenario,
  eventually,
  leadsTo,
  nonProgressCycles,
  queryOf,
  reads,
  readsView,
  send,
  ScenarioError,
  type ActorLogic,
  type ActorMap,
  type MessageOf,
  type MonitorDef,
  type Predicate,
  type PredicateOf,
  type ReducerLogic,
  type Scenario,
  type StartMessage,
  type WorldQuery,
  type WorldQueryOf,
} from 'interleave';
import { initialWorld } from 'interleave/kernel';
import { objectStore, s3Put, type StoreState } from 'interleave/storage';
import { pinger, ponger } from '../../src/machines/demo/ping-pong.ts';

// A seat store with one seat: it books the first client that asks and tells the others it is full.
export const seatStore = setup({
  types: {} as { context: { booked: string[]; seats: number }; events: { type: 'Book'; who: string } | { type: 'Check' } },
  guards: { free: ({ context }) => context.booked.length < context.seats },
}).createMachine({
  id: 'store',
  context: { booked: [], seats: 1 },
  initial: 'open',
  states: {
    open: {
      tags: ['idle'],
      on: {
        Book: [
          { guard: 'free', actions: [assign({ booked: ({ context, event }) => [...context.booked, event.who] }), send(({ event }) => event.who, { type: 'Booked' })] },
          { actions: send(({ event }) => event.who, { type: 'Full' }) },
        ],
        Check: {},
      },
    },
  },
});

// A booking client; its id comes in as input, so two clients run one machine.
export const client = setup({
  types: {} as { context: { me: string }; input: { me: string }; events: { type: 'Book' } | { type: 'Booked' } | { type: 'Full' } },
}).createMachine({
  id: 'client',
  context: ({ input }) => ({ me: input.me }),
  initial: 'idle',
  states: {
    idle: { on: { Book: 'booking' } },
    booking: {
      // Typed send: the message is checked against the store's events.
      entry: send<typeof seatStore>('store', ({ context }) => ({ type: 'Book', who: context.me })),
      initial: 'asking',
      states: { asking: { on: { Booked: 'done' } }, done: { tags: ['end'] } },
      on: { Full: 'full' },
    },
    full: { type: 'final' },
  },
});

// A reducer with its own state and messages.
const counter: ReducerLogic<{ n: number }, { type: 'inc' } | { type: 'add'; by: number }> = {
  kind: 'reducer',
  init: () => ({ n: 0 }),
  receive: (s, msg) => ({ state: { n: s.n + (msg.type === 'add' ? msg.by : 1) } }),
};

const actors = {
  alice: { logic: client, input: { me: 'alice' } },
  bob: { logic: client, input: { me: 'bob' } },
  store: seatStore,
  counter,
};

// Written apart from the scenario, typed by its actor map.
const notOverbooked: PredicateOf<typeof actors> = (q) => q.context('store').booked.length <= q.context('store').seats || 'overbooked';
const answered = (q: WorldQueryOf<typeof actors>, who: 'alice' | 'bob') => q.matches(who, 'full') || q.matches(who, { booking: 'done' });

const bookedOnce: MonitorDef<number, typeof actors> = {
  init: 0,
  observe: (n, e, q) => (e.kind === 'deliver' && e.msg.type === 'Booked' ? (n + 1 > q.context('store').seats ? { fail: 'a second Booked' } : n + 1) : n),
  watches: (e) => e.kind === 'deliver',
};

export const booking = defineScenario({
  name: 'booking',
  actors,
  start: [
    { to: 'alice', msg: { type: 'Book' } },
    { to: 'bob', msg: { type: 'Book' } },
    { to: 'counter', msg: { type: 'add', by: 2 } },
  ],
  invariants: {
    'not overbooked': notOverbooked,
    'one seat': reads(['store'], (q) => q.context('store').seats === 1),
    'booked once': readsView(['store'], (q) => q.context('store').booked.length, (n) => n <= 1),
    counted: (q) => q.context('counter').n <= 2,
  },
  monitors: { 'booked once': bookedOnce },
  atEnd: { 'everyone answered': (q) => (answered(q, 'alice') && answered(q, 'bob')) || 'a client is still waiting' },
  reachable: { 'alice booked': (q) => q.matches('alice', { booking: 'done' }), 'bob booked': (q) => q.matches('bob', { booking: 'done' }) },
  acceptEnd: (q) => q.status('store') === 'up' && !q.matches('alice', 'idle'),
  liveness: {
    'alice is answered': eventually((q) => q.matches('alice', 'full') || q.matches('alice', { booking: 'done' })),
    'bob asks, bob is answered': leadsTo((q) => q.matches('bob', { booking: 'asking' }), (q) => !q.matches('bob', { booking: 'asking' })),
  },
  inputs: [{ to: 'store', events: ['Check'], budget: 1, when: (q) => q.matches('store', 'open') && q.context('store').booked.length > 0 }],
});

describe('a scenario infers its actor map', () => {
  it('checks the booking scenario: every property holds', async () => {
    const r = await check(booking, { strategy: 'bfs' });
    expect(r.violation).toBeUndefined();
    expect(r).toMatchObject({ ok: true, complete: true, unreached: [] });
  });

  it('gives each actor its own context, snapshot and state values', () => {
    const q = queryOf(booking, initialWorld(booking).world);
    expectTypeOf(q).toEqualTypeOf<WorldQueryOf<typeof actors>>();
    expectTypeOf(q.context('store')).toEqualTypeOf<{ booked: string[]; seats: number }>();
    expectTypeOf(q.context('alice')).toEqualTypeOf<{ me: string }>();
    expectTypeOf(q.context('counter')).toEqualTypeOf<{ n: number }>();
    expectTypeOf(q.snapshot('alice').context).toEqualTypeOf<{ me: string }>();
    expectTypeOf(q.value('store')).toEqualTypeOf<'open'>();
    expectTypeOf(q.value('counter')).toEqualTypeOf<undefined>();
    expectTypeOf<Parameters<typeof q.matches<'alice'>>[1]>().toEqualTypeOf<'idle' | 'booking' | 'full' | { booking?: 'asking' | 'done' }>();
    expectTypeOf<MessageOf<typeof seatStore>>().toEqualTypeOf<{ type: 'Book'; who: string } | { type: 'Check' }>();
    expectTypeOf<MessageOf<typeof counter>>().toEqualTypeOf<{ type: 'inc' } | { type: 'add'; by: number }>();
    expect(q.context('alice')).toEqual({ me: 'alice' });
    expect(q.context('counter')).toEqual({ n: 0 });
    expect(q.matches('bob', 'idle')).toBe(true);
  });

  it('keeps a storage actor its state type and messages', async () => {
    const sc = defineScenario({ name: 'put', actors: { s3: objectStore() }, start: [{ to: 's3', msg: s3Put('a/b', new Uint8Array([1])) }], invariants: { small: (q) => Object.keys(q.context('s3').objects).length <= 1 } });
    expectTypeOf(queryOf(sc, initialWorld(sc).world).context('s3')).toEqualTypeOf<StoreState>();
    expect((await check(sc)).ok).toBe(true);
  });

  it('types a family built with defineFamily', () => {
    const family = defineFamily({ name: 'booking', description: 'two clients, one seat', params: {}, build: () => booking });
    const sc = family.build({});
    expectTypeOf(queryOf(sc, initialWorld(sc).world).context('store').booked).toEqualTypeOf<string[]>();
    const erased: Scenario = sc;
    expect(erased.ids).toEqual(['alice', 'bob', 'store', 'counter']);
  });
});

/**
 * The typos of the issue, each rejected by the compiler (never run: the lint checks it).
 * Each `@ts-expect-error` sits on the line the error is reported at.
 */
export function typos(): unknown[] {
  return [
    defineScenario({
      name: 'wrong input',
      actors: {
        // @ts-expect-error `mee`: the client's input is { me: string }
        alice: { logic: client, input: { mee: 'alice' } },
        bob: { logic: client, input: { me: 'bob' } },
      },
    }),
    defineScenario({
      name: 'wrong start',
      actors,
      start: [
        // @ts-expect-error `Bok`: the client takes Book, Booked, Full
        { to: 'alice', msg: { type: 'Bok' } },
        // @ts-expect-error `bobb`: no such actor
        { to: 'bobb', msg: { type: 'Book' } },
        // @ts-expect-error the store's Book carries `who`
        { to: 'store', msg: { type: 'Book' } },
        // @ts-expect-error `ad`: the counter takes inc and add
        { to: 'counter', msg: { type: 'ad', by: 1 } },
      ],
    }),
    defineScenario({
      name: 'wrong properties',
      actors,
      invariants: {
        // @ts-expect-error `sould`: the store's context has booked and seats
        a: (q) => q.context('store').sould,
        // @ts-expect-error `bookd`: no such state
        b: (q) => q.matches('alice', 'bookd'),
        // @ts-expect-error `bobb`: no such actor
        c: (q) => q.matches('bobb', 'idle'),
        // @ts-expect-error `askin`: no such nested state
        d: (q) => q.matches('alice', { booking: 'askin' }),
        // @ts-expect-error a reducer has no states
        e: (q) => q.matches('counter', 'idle'),
        // @ts-expect-error `sould`, in a predicate with declared reads
        f: reads(['store'], (q) => q.context('store').sould),
        // @ts-expect-error `sould`, in a view
        g: readsView(['store'], (q) => q.context('store').sould, () => true),
      },
      // @ts-expect-error `bookd`, checked where runs end
      atEnd: { h: (q) => q.matches('alice', 'bookd') },
      // @ts-expect-error `bookd`, through the deprecated name
      eventually: { i: (q) => q.matches('alice', 'bookd') },
      // @ts-expect-error `bobb`, a goal
      reachable: { j: (q) => q.context('bobb') !== undefined },
      // @ts-expect-error `bookd`, accepted ends
      acceptEnd: (q) => q.matches('bob', 'bookd'),
      liveness: {
        // @ts-expect-error `bookd`, in eventually(p)
        k: eventually((q) => q.matches('alice', 'bookd')),
        // @ts-expect-error `sould`, in leadsTo(p, q)
        l: leadsTo((q) => q.matches('alice', 'idle'), (q) => q.context('store').sould),
        // @ts-expect-error `sould`, in nonProgressCycles(p)
        m: nonProgressCycles((q) => q.context('store').sould),
      },
      // @ts-expect-error `sould`, in a monitor
      monitors: { n: { init: 0, observe: (s, _e, q) => (q.context('store').sould ? s : s) } },
    }),
    defineScenario({
      name: 'wrong inputs',
      actors,
      inputs: [
        // @ts-expect-error `Chek`: the store takes Book and Check
        { to: 'store', events: ['Chek'] },
        // @ts-expect-error a bare `Book` lacks the `who` the store's Book carries
        { to: 'store', events: ['Book'] },
        // @ts-expect-error `bookd`, in `when`
        { to: 'alice', events: ['Book'], when: (q) => q.matches('alice', 'bookd') },
        // @ts-expect-error `bobb`: no such actor
        { to: 'bobb', events: ['Book'] },
      ],
    }),
    // @ts-expect-error `Chek`: a typed send checks the receiver's events
    send<typeof seatStore>('store', { type: 'Chek' }),
    // @ts-expect-error `whom`: and what a message function returns
    send<typeof seatStore>('store', ({ context }) => ({ type: 'Book', whom: context.me })),
    // @ts-expect-error `ad`: the counter takes inc and add
    send<typeof counter>('counter', { type: 'ad' }),
    // @ts-expect-error predicates written apart are typed by the actor map too
    ((q: WorldQueryOf<typeof actors>) => q.context('alice').mee) satisfies Predicate<typeof actors>,
    // @ts-expect-error `bobb` through queryOf
    queryOf(booking, initialWorld(booking).world).context('bobb'),
  ];
}

describe('untyped scenarios and erased types keep compiling', () => {
  it('takes erased predicates, computed ids and start lists built apart', async () => {
    // An erased predicate (any id, untyped contexts) fits every scenario.
    const loose = (q: WorldQuery) => q.context('store').booked.length <= 1;
    const ids: string[] = ['alice', 'bob'];
    // A computed id is checked when the query runs, not by the compiler.
    const done: Predicate<typeof actors> = (q) => ids.every((id) => !q.matches(id, 'idle'));
    // A start list built apart with computed receivers is taken as it is.
    const start = ids.map((to) => ({ to, msg: { type: 'Book' } }));
    // One that keeps literal receivers can be typed, and is checked.
    const typed: StartMessage<typeof actors>[] = [{ to: 'alice', msg: { type: 'Book' } }];
    const sc: Scenario = defineScenario({ name: 'loose', actors, start, invariants: { loose }, atEnd: { done } });
    expect((await check(sc)).ok).toBe(true);
    expect(defineScenario({ name: 'typed', actors, start: typed, acceptEnd: () => true }).start).toEqual(typed);
  });

  it('leaves an actor map with computed ids erased', () => {
    const many: ActorMap = Object.fromEntries(['c1', 'c2'].map((id) => [id, { logic: client, input: { me: id } }]));
    const sc = defineScenario({ name: 'many', actors: { ...many }, invariants: { any: (q) => q.context('c1').anything !== 1 } });
    expectTypeOf(sc).toEqualTypeOf<Scenario>();
    const also: Record<string, ActorLogic> = { store: seatStore };
    expectTypeOf(defineScenario({ name: 'record', actors: also })).toEqualTypeOf<Scenario>();
  });

  it('keeps untyped send and its argument-typed form', () => {
    const plain = send('store', { type: 'Anything', at: 1 });
    const old = send<{ context: { me: string }; event: { type: 'Go' } }>(({ context }) => context.me, ({ event }) => ({ type: event.type }));
    expect([typeof plain, typeof old]).toEqual(['function', 'function']);
  });
});

describe('the scenario field eventually is now atEnd', () => {
  it('compiles both names to atEnd, warns once per process for the old one, and refuses two different ones', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const holds: Predicate<typeof actors> = (q) => q.context('counter').n >= 0;
      const a = defineScenario({ name: 'new', actors, atEnd: { holds } });
      expect(warn).not.toHaveBeenCalled();
      const b = defineScenario({ name: 'old', actors, eventually: { holds } });
      const c = defineScenario({ name: 'old again', actors, eventually: { holds } });
      expect(a.atEnd).toEqual({ holds });
      expect(b.atEnd).toEqual({ holds });
      expect(c.atEnd).toBe(c.eventually);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![1]).toMatchObject({ type: 'DeprecationWarning', code: 'INTERLEAVE_EVENTUALLY_FIELD' });
      // A compiled scenario defined again (it carries both names, the same object) is fine.
      expect(defineScenario(b).atEnd).toBe(b.atEnd);
      expect(() => defineScenario({ name: 'both', actors, atEnd: { holds }, eventually: { other: holds } })).toThrow(ScenarioError);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('the bundled ping-pong machines are typed in a scenario', () => {
  it('takes the pinger’s states and events', () => {
    const sc = defineScenario({ name: 'pp', actors: { pinger: { logic: pinger, input: { rounds: 1 } }, ponger }, start: [{ to: 'pinger', msg: { type: 'start' } }] });
    const q = queryOf(sc, initialWorld(sc).world);
    expectTypeOf(q.context('pinger').sent).toEqualTypeOf<number>();
    expect(q.matches('pinger', 'idle')).toBe(true);
    // Never called: the compiler rejects both lines.
    const typos = () => [
      // @ts-expect-error `don`: the pinger's states are idle, waiting, done
      q.matches('pinger', 'don'),
      // @ts-expect-error `strat`: the pinger takes start and pong
      defineScenario({ name: 'pp', actors: { pinger, ponger }, start: [{ to: 'pinger', msg: { type: 'strat' } }] }),
    ];
    expect(typeof typos).toBe('function');
  });
});
