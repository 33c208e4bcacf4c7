// Small models for the checker's tests and benchmark (not the seed protocols).
import { assign, setup } from 'xstate';
import { defineScenario, rng, send, type ReducerLogic, type Scenario, type TraceEvent } from '../../src/actors/index.ts';
import { reads } from 'interleave';

// ---------------------------------------------------------------------------
// Lost update: clients read a value from a store, then write value + 1.
// `cas: false` is the race (two reads of the same value, one increment lost);
// `cas: true` writes with the version it read and retries on conflict.

interface StoreState {
  readonly value: number;
  readonly version: number;
  /** Writes applied; with no lost update, value === writes. */
  readonly writes: number;
}

export const store: ReducerLogic<StoreState> = {
  kind: 'reducer',
  init: () => ({ value: 0, version: 0, writes: 0 }),
  receive(s, msg, ctx) {
    switch (msg.type) {
      case 'read':
        return { state: s, send: [{ to: ctx.from, msg: { type: 'value', value: s.value, version: s.version } }] };
      case 'write': {
        const expect = msg.expect as number | undefined;
        if (expect !== undefined && expect !== s.version) {
          return { state: s, send: [{ to: ctx.from, msg: { type: 'conflict', value: s.value, version: s.version } }] };
        }
        const next = { value: msg.value as number, version: s.version + 1, writes: s.writes + 1 };
        return { state: next, send: [{ to: ctx.from, msg: { type: 'ack' } }] };
      }
      default:
        return { state: s, unhandled: true };
    }
  },
};

export const client = setup({
  types: {} as {
    context: { rounds: number; done: number; cas: boolean };
    input: { rounds: number; cas: boolean };
    events: { type: 'go' } | { type: 'value'; value: number; version: number } | { type: 'conflict'; value: number; version: number } | { type: 'ack' };
  },
}).createMachine({
  id: 'client',
  context: ({ input }) => ({ rounds: input?.rounds ?? 1, done: 0, cas: input?.cas ?? false }),
  initial: 'idle',
  states: {
    idle: { on: { go: { target: 'reading', actions: send('store', { type: 'read' }) } } },
    reading: {
      on: {
        value: {
          target: 'writing',
          actions: send('store', ({ context, event }) => (context.cas ? { type: 'write', value: event.value + 1, expect: event.version } : { type: 'write', value: event.value + 1 })),
        },
      },
    },
    writing: {
      on: {
        conflict: { actions: send('store', ({ event }) => ({ type: 'write', value: event.value + 1, expect: event.version })) },
        ack: [
          { guard: ({ context }) => context.done + 1 >= context.rounds, target: 'done', actions: assign({ done: ({ context }) => context.done + 1 }) },
          { target: 'reading', actions: [assign({ done: ({ context }) => context.done + 1 }), send('store', { type: 'read' })] },
        ],
      },
    },
    done: { type: 'final' },
  },
});

/** Two actors passing `noise` balls back and forth: independent activity that makes random walks long. */
const noisy: ReducerLogic<{ left: number }> = {
  kind: 'reducer',
  init: (input) => ({ left: (input as { n: number }).n }),
  receive: (s, msg, ctx) => {
    if (msg.type !== 'ball') return { state: s, unhandled: true };
    if (s.left <= 0) return { state: s };
    return { state: { left: s.left - 1 }, send: [{ to: ctx.self === 'n1' ? 'n2' : 'n1', msg: { type: 'ball' } }] };
  },
};

export interface LostUpdateParams {
  cas?: boolean;
  clients?: number;
  rounds?: number;
  noise?: number;
  /** Extra reachable properties (for vacuity tests). */
  unreachable?: boolean;
  /** Check the lost update at quiescence (atEnd) instead of after every step (invariant). */
  asEventually?: boolean;
}

export function lostUpdate(p: LostUpdateParams = {}): Scenario {
  const { cas = false, clients = 2, rounds = 1, noise = 0, unreachable = false, asEventually = false } = p;
  const ids = Array.from({ length: clients }, (_, i) => `c${i + 1}`);
  const actors: Record<string, any> = { store };
  for (const id of ids) actors[id] = { logic: client, input: { rounds, cas } };
  if (noise > 0) {
    actors.n1 = { logic: noisy, input: { n: noise } };
    actors.n2 = { logic: noisy, input: { n: noise } };
  }
  // Reads the store alone (declared, so partial-order reduction may skip interleavings).
  const noLost = (q: any) => q.context('store').value === q.context('store').writes || `store holds ${q.context('store').value} after ${q.context('store').writes} writes: an update was lost`;
  return defineScenario({
    name: cas ? 'test-cas' : 'test-lost-update',
    actors,
    start: [...ids.map((id) => ({ to: id, msg: { type: 'go' } })), ...(noise > 0 ? [{ to: 'n1', msg: { type: 'ball' } }] : [])],
    ...(asEventually
      ? { atEnd: { allIncrements: (q: any) => q.context('store').value === clients * rounds || `store holds ${q.context('store').value}, expected ${clients * rounds}` } }
      : { invariants: { noLostUpdate: reads(['store'], noLost) } }),
    reachable: {
      bothWrote: reads(['store'], (q: any) => q.context('store').writes >= 2),
      // c1's pending messages are written by the store: both are read.
      ...(cas ? { conflict: reads(['c1', 'store'], (q: any) => q.pending('c1').some((m: any) => m.type === 'conflict')) } : {}),
      ...(unreachable ? { valueIsHundred: reads(['store'], (q: any) => q.context('store').value === 100) } : {}),
    },
    params: { cas, clients, rounds, noise },
  });
}

// ---------------------------------------------------------------------------
// Deadlock: two clients take two locks in opposite orders.

const lock: ReducerLogic<{ holder: string | null; waiting: readonly string[] }> = {
  kind: 'reducer',
  init: () => ({ holder: null, waiting: [] }),
  receive(s, msg, ctx) {
    if (msg.type === 'acquire') {
      if (s.holder === null) return { state: { ...s, holder: ctx.from }, send: [{ to: ctx.from, msg: { type: 'granted', lock: ctx.self } }] };
      return { state: { ...s, waiting: [...s.waiting, ctx.from] } };
    }
    if (msg.type === 'release') {
      const [next, ...rest] = s.waiting;
      if (next === undefined) return { state: { holder: null, waiting: [] } };
      return { state: { holder: next, waiting: rest }, send: [{ to: next, msg: { type: 'granted', lock: ctx.self } }] };
    }
    return { state: s, unhandled: true };
  },
};

const locker = setup({
  types: {} as { context: { first: string; second: string }; input: { first: string; second: string }; events: { type: 'go' } | { type: 'granted'; lock: string } },
}).createMachine({
  context: ({ input }) => ({ first: input.first, second: input.second }),
  initial: 'idle',
  states: {
    idle: { on: { go: { target: 'first', actions: send(({ context }) => context.first, { type: 'acquire' }) } } },
    first: { on: { granted: { target: 'second', actions: send(({ context }) => context.second, { type: 'acquire' }) } } },
    second: {
      on: {
        granted: {
          target: 'done',
          actions: [send(({ context }) => context.second, { type: 'release' }), send(({ context }) => context.first, { type: 'release' })],
        },
      },
    },
    done: { type: 'final' },
  },
});

export function diningLocks(sameOrder = false): Scenario {
  return defineScenario({
    name: sameOrder ? 'test-locks-ordered' : 'test-locks',
    actors: {
      A: lock,
      B: lock,
      p: { logic: locker, input: { first: 'A', second: 'B' } },
      q: { logic: locker, input: sameOrder ? { first: 'A', second: 'B' } : { first: 'B', second: 'A' } },
    },
    start: [
      { to: 'p', msg: { type: 'go' } },
      { to: 'q', msg: { type: 'go' } },
    ],
  });
}

// ---------------------------------------------------------------------------
// Counter: clients send increments; `atEnd` expects more than they send.

const counter: ReducerLogic<number> = {
  kind: 'reducer',
  init: () => 0,
  receive: (n, msg) => (msg.type === 'inc' ? { state: n + 1 } : { state: n, unhandled: true }),
};

export function counterModel(expected: number, clients = 2): Scenario {
  const actors: Record<string, any> = { counter };
  const start = [];
  for (let i = 1; i <= clients; i++) {
    actors[`s${i}`] = { kind: 'reducer', init: () => 0, receive: (s: number, msg: any) => (msg.type === 'go' ? { state: s + 1, send: [{ to: 'counter', msg: { type: 'inc' } }] } : { state: s, unhandled: true }) } satisfies ReducerLogic<number>;
    start.push({ to: `s${i}`, msg: { type: 'go' } });
  }
  return defineScenario({
    name: 'test-counter',
    actors,
    start,
    atEnd: { counted: (q) => q.context('counter') === expected || `counter is ${q.context('counter')}, expected ${expected}` },
  });
}

// ---------------------------------------------------------------------------
// Token ring: `n` nodes pass a token `laps` times around; each node also gets a
// local `poke` from the outside, so deliveries to different nodes interleave.

const ringNode: ReducerLogic<{ seen: number; pokes: number }> = {
  kind: 'reducer',
  init: () => ({ seen: 0, pokes: 0 }),
  receive(s, msg, ctx) {
    if (msg.type === 'poke') return { state: { ...s, pokes: s.pokes + 1 } };
    if (msg.type !== 'token') return { state: s, unhandled: true };
    const hops = msg.hops as number;
    const next = { ...s, seen: s.seen + 1 };
    if (hops <= 0) return { state: next };
    const n = msg.n as number;
    const me = Number(ctx.self.slice(1));
    return { state: next, send: [{ to: `r${(me + 1) % n}`, msg: { type: 'token', hops: hops - 1, n } }] };
  },
};

export function tokenRing(n: number, laps = 1, pokes = 1): Scenario {
  const actors: Record<string, any> = {};
  const start: { to: string; msg: any }[] = [{ to: 'r0', msg: { type: 'token', hops: n * laps, n } }];
  for (let i = 0; i < n; i++) {
    actors[`r${i}`] = ringNode;
    for (let k = 0; k < pokes; k++) start.push({ to: `r${i}`, msg: { type: 'poke' } });
  }
  return defineScenario({
    name: 'test-token-ring',
    actors,
    start,
    invariants: { oneToken: (q) => q.world.inbox.reduce((a, chs) => a + chs.reduce((b, c) => b + c.queue.filter((m) => m.type === 'token').length, 0), 0) <= 1 },
    atEnd: { lapsDone: (q) => q.context('r0').seen === laps + 1 || `r0 saw the token ${q.context('r0').seen} times` },
    symmetry: [],
  });
}

// ---------------------------------------------------------------------------
// Ordering bugs for PCT. Workers A and B each take K local steps (self-messages).
// depth 1: B finishes before A starts. depth 2: A takes one step, then B runs to
// completion, then A continues (A1 < B1 and BK < A2). A monitor watches the order.

const stepper: ReducerLogic<number> = {
  kind: 'reducer',
  init: () => 0,
  receive: (n, msg, ctx) => {
    if (msg.type !== 'step') return { state: n, unhandled: true };
    const k = msg.k as number;
    return n + 1 < k ? { state: n + 1, send: [{ to: ctx.self, msg: { type: 'step', k } }] } : { state: n + 1 };
  },
};

interface OrderState {
  readonly a: number;
  readonly b: number;
  readonly aFirst: boolean;
}

export function orderingBug(k: number, depth: 1 | 2, noise = 0): Scenario {
  const monitor = {
    init: { a: 0, b: 0, aFirst: false } as OrderState,
    watches: (e: TraceEvent) => e.kind === 'deliver' && (e.to === 'A' || e.to === 'B'),
    observe(s: OrderState, e: TraceEvent): OrderState | { fail: string } {
      if (e.kind !== 'deliver' || (e.to !== 'A' && e.to !== 'B')) return s;
      const n: OrderState = e.to === 'A' ? { ...s, a: s.a + 1, aFirst: s.aFirst || s.b === 0 } : { ...s, b: s.b + 1 };
      if (depth === 1 && n.b === k && n.a === 0) return { fail: 'B finished before A started' };
      if (depth === 2 && n.b === k && n.a === 1 && n.aFirst) return { fail: 'A took one step, then B ran to completion' };
      return n;
    },
  };
  return defineScenario({
    name: `test-order-d${depth}`,
    actors: { A: stepper, B: stepper, ...(noise > 0 ? { n1: { logic: noisy, input: { n: noise } }, n2: { logic: noisy, input: { n: noise } } } : {}) },
    start: [
      { to: 'A', msg: { type: 'step', k } },
      { to: 'B', msg: { type: 'step', k } },
      // Two balls, so the unwatched actors have independent steps of their own.
      ...(noise > 0 ? [{ to: 'n1', msg: { type: 'ball' } }, { to: 'n2', msg: { type: 'ball' } }] : []),
    ],
    monitors: { order: monitor },
    params: { k, depth },
  });
}

// ---------------------------------------------------------------------------
// Timers: a client retries a request after a timeout; the server may answer late.

const pinger = setup({
  types: {} as { context: { tries: number }; events: { type: 'go' } | { type: 'pong' } },
  delays: { retry: 100 },
}).createMachine({
  context: { tries: 0 },
  initial: 'idle',
  states: {
    idle: { on: { go: { target: 'waiting', actions: [assign({ tries: 1 }), send('server', { type: 'ping' })] } } },
    waiting: {
      after: {
        retry: [
          { guard: ({ context }) => context.tries < 2, target: 'waiting', reenter: true, actions: [assign({ tries: ({ context }) => context.tries + 1 }), send('server', { type: 'ping' })] },
          { target: 'gaveUp' },
        ],
      },
      on: { pong: 'done' },
    },
    done: { on: { pong: {} } },
    gaveUp: { on: { pong: 'done' } },
  },
});

const server: ReducerLogic<number> = {
  kind: 'reducer',
  init: () => 0,
  receive: (n, msg, ctx) => (msg.type === 'ping' ? { state: n + 1, send: [{ to: ctx.from, msg: { type: 'pong' } }] } : { state: n, unhandled: true }),
};

export function retryModel(noise = 2): Scenario {
  return defineScenario({
    name: 'test-retry',
    actors: { client: pinger, server, n1: { logic: noisy, input: { n: noise } }, n2: { logic: noisy, input: { n: noise } } },
    start: [
      { to: 'client', msg: { type: 'go' } },
      { to: 'n1', msg: { type: 'ball' } },
    ],
    faults: { budget: 1, drop: [['client', 'server']] },
    atEnd: { answered: (q) => q.matches('client', 'done') || 'client never got an answer' },
    acceptEnd: (q) => q.matches('client', 'done') || q.matches('client', 'gaveUp'),
  });
}

// ---------------------------------------------------------------------------
// Token ring of xstate machines (the benchmark's ring: its bare transition rate is
// measurable on the same machine).

export const ringMachine = setup({
  types: {} as {
    context: { seen: number; pokes: number; next: string };
    input: { next: string };
    events: { type: 'token'; hops: number } | { type: 'poke' };
  },
}).createMachine({
  context: ({ input }) => ({ seen: 0, pokes: 0, next: input.next }),
  on: {
    poke: { actions: assign({ pokes: ({ context }) => context.pokes + 1 }) },
    token: [
      { guard: ({ event }) => event.hops <= 0, actions: assign({ seen: ({ context }) => context.seen + 1 }) },
      { actions: [assign({ seen: ({ context }) => context.seen + 1 }), send(({ context }) => context.next, ({ event }) => ({ type: 'token', hops: event.hops - 1 }))] },
    ],
  },
});

export function machineRing(n: number, laps = 1, pokes = 1): Scenario {
  const actors: Record<string, any> = {};
  const start: { to: string; msg: any }[] = [{ to: 'r0', msg: { type: 'token', hops: n * laps } }];
  for (let i = 0; i < n; i++) {
    actors[`r${i}`] = { logic: ringMachine, input: { next: `r${(i + 1) % n}` } };
    for (let k = 0; k < pokes; k++) start.push({ to: `r${i}`, msg: { type: 'poke' } });
  }
  return defineScenario({
    name: 'test-machine-ring',
    actors,
    start,
    atEnd: { lapsDone: (q) => q.context('r0').seen === laps + 1 || `r0 saw the token ${q.context('r0').seen} times` },
  });
}

// ---------------------------------------------------------------------------
// Random little systems for soundness tests: reducers whose state and sends depend
// on the message and their own state, drawn from a seed.

export function randomSystem(seed: number, withFaults = false): Scenario {
  const r = rng(seed);
  const next = (n: number) => r.int(n);
  const n = 2 + next(3);
  const ids = Array.from({ length: n }, (_, i) => `p${i}`);
  // table[actor][state % 3][msg % 2] = where to forward (or -1 to absorb)
  const table = ids.map(() => Array.from({ length: 3 }, () => [next(n + 1) - 1, next(n + 1) - 1]));
  const actors: Record<string, any> = {};
  ids.forEach((id, i) => {
    actors[id] = {
      kind: 'reducer',
      init: () => 0,
      receive: (s: number, msg: any) => {
        if (msg.type !== 'm') return { state: s, unhandled: true };
        const v = msg.v as number;
        const ns = (s * 2 + v + 1) % 5;
        const to = table[i]![ns % 3]![v % 2]!;
        const hops = msg.hops as number;
        return hops > 0 && to >= 0 ? { state: ns, send: [{ to: ids[to]!, msg: { type: 'm', v: (v + ns) % 3, hops: hops - 1 } }] } : { state: ns };
      },
    } satisfies ReducerLogic<number>;
  });
  const starts = 2 + next(3);
  const start = Array.from({ length: starts }, () => ({ to: ids[next(n)]!, msg: { type: 'm', v: next(3), hops: 2 + next(3) } }));
  return defineScenario({
    name: `random-${seed}`,
    actors,
    start,
    invariants: { notFour: (q) => ids.every((id) => q.context(id) !== 4) },
    atEnd: { someZero: (q) => ids.some((id) => q.context(id) === 0) },
    ...(withFaults
      ? { faults: { budget: 1 + next(2), crash: [ids[next(n)]!], restart: [ids[0]!], drop: [[ids[next(n)]!, ids[next(n)]!], [ids[next(n)]!, ids[next(n)]!]] as [string, string][] } }
      : {}),
  });
}

// ---------------------------------------------------------------------------
// k independent pairs: each pinger asks its own ponger `rounds` times. No pair ever
// talks to another, so every interleaving of two pairs' steps commutes: the full
// state space is the product of the pairs' (exponential in k), a partial-order
// reduction needs one order (linear in k).

const pairPinger = setup({
  types: {} as { context: { left: number; peer: string }; input: { rounds: number; peer: string } },
}).createMachine({
  context: ({ input }) => ({ left: input.rounds, peer: input.peer }),
  initial: 'idle',
  states: {
    idle: { on: { go: { target: 'waiting', actions: send(({ context }) => context.peer, { type: 'ping' }) } } },
    waiting: {
      on: {
        pong: [
          { guard: ({ context }) => context.left > 1, target: 'waiting', reenter: true, actions: [assign({ left: ({ context }) => context.left - 1 }), send(({ context }) => context.peer, { type: 'ping' })] },
          { target: 'done', actions: assign({ left: 0 }) },
        ],
      },
    },
    done: { type: 'final' },
  },
});

const pairPonger: ReducerLogic<number> = {
  kind: 'reducer',
  init: () => 0,
  receive: (n, msg, ctx) => (msg.type === 'ping' ? { state: n + 1, send: [{ to: ctx.from, msg: { type: 'pong' } }] } : { state: n, unhandled: true }),
};

export function independentPairs(k: number, rounds = 2): Scenario {
  const actors: Record<string, any> = {};
  const start: { to: string; msg: { type: string } }[] = [];
  for (let i = 0; i < k; i++) {
    actors[`ping${i}`] = { logic: pairPinger, input: { rounds, peer: `pong${i}` } };
    actors[`pong${i}`] = pairPonger;
    start.push({ to: `ping${i}`, msg: { type: 'go' } });
  }
  return defineScenario({
    name: `independent-pairs-${k}`,
    actors,
    start,
    atEnd: { allDone: (q) => Array.from({ length: k }, (_, i) => q.matches(`ping${i}`, 'done')).every(Boolean) || 'a pinger did not finish' },
  });
}

// ---------------------------------------------------------------------------
// Every step conflicts: k idle senders each have m messages in flight to one sink,
// so every enabled step is a delivery to the same receiver and no reduction applies
// (the benchmark measures what computing stubborn sets costs when they never help).

const sink: ReducerLogic<number> = {
  kind: 'reducer',
  init: () => 0,
  receive: (n) => ({ state: n + 1 }),
};

export function allToOne(k: number, m: number): Scenario {
  const actors: Record<string, any> = { sink };
  const start: { to: string; from: string; msg: { type: string; v: number } }[] = [];
  for (let i = 0; i < k; i++) {
    actors[`s${i}`] = sink;
    for (let j = 0; j < m; j++) start.push({ to: 'sink', from: `s${i}`, msg: { type: 'm', v: i * m + j } });
  }
  return defineScenario({ name: `all-to-one-${k}x${m}`, actors, start });
}
