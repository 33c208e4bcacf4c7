// Random actor systems for the partial-order reduction's differential test: every
// feature the reduction must respect, drawn from a seed (sfc32, src/actors/prng.ts),
// so a failing seed reproduces alone: `randomActors(seed)`.
//
// - reducers whose state and sends (to fixed targets, or back to the sender) depend
//   on their state and the message; some answer `ask` only in even states (so an
//   asker can wait forever: a deadlock);
// - xstate machines: an asker (initial state sends `ask`, waits for `ans`), a
//   ticker (a delayed transition or a delayed send: timers, `timers: 'any'` or
//   `'quiescent'`);
// - a symmetric group of identical clients of one server (declared `symmetry`);
// - faults: a budget, crashes, restarts, dropped channel heads, reducer fault outcomes;
// - a monitor with `watches` that reads the world when it sees an answer; monitors
//   local to one actor (`reads: [a]`), stateless `eventsOnly` ones, and a stateful
//   `eventsOnly` one over two actors' deliveries (order-sensitive);
// - invariants: local (one actor), per-actor conjunctions (`readsEach`), over two
//   actors (`reads`, or `readsView`: only steps that change the view are visible),
//   sometimes undeclared (state reduction then turns itself off);
// - `atEnd` at quiescence and deadlock by the default rule.
//
// `randomActors(seed, { extended: true })` (the differential fuzzer,
// test/check-differential.test.ts) draws more from a third stream, leaving the
// systems above unchanged: reducers whose state is an object (so the step memo, keyed
// by state identity, hits), environment `inputs` with budgets and guards, liveness
// properties under several fairness settings, `acceptEnd`, and declared `reachable`
// properties.
import { assign, setup } from 'xstate';
import { defineScenario, eventually, leadsTo, nonProgressCycles, rng, send, type Fairness, type InputSpec, type LivenessProperty, type MonitorDef, type Predicate, type ReducerLogic, type Scenario, type TraceEvent, type WorldQuery } from '../../src/actors/index.ts';
import { reads, readsEach, readsView } from 'interleave';

type Msg = { type: string; v?: number; hops?: number };

/** A reducer's state as a number, whether it is kept as a number or boxed (`{ n }`). */
const val = (q: WorldQuery, id: string): number => {
  const c = q.context(id) as number | { n: number };
  return typeof c === 'number' ? c : c.n;
};

/** The same reducer with its state boxed in an object: the step memo keys reducer steps by state identity. */
function boxed(inner: ReducerLogic<number>): ReducerLogic<{ n: number }> {
  return {
    kind: 'reducer',
    init: (input) => ({ n: inner.init(input) }),
    ...(inner.faultOutcomes ? { faultOutcomes: (s: { n: number }, msg, from) => inner.faultOutcomes!(s.n, msg, from) } : {}),
    receive(s, msg, ctx) {
      const r = inner.receive(s.n, msg, ctx);
      return { ...r, state: r.state === s.n ? s : { n: r.state } };
    },
  };
}

function reducer(r: ReturnType<typeof rng>, ids: readonly string[], self: number, faulty: boolean): ReducerLogic<number> {
  const n = ids.length;
  // table[state % 3][v % 2]: targets (-1: back to the sender).
  const table = Array.from({ length: 3 }, () => Array.from({ length: 2 }, () => Array.from({ length: r.int(4) === 0 ? 2 : r.int(2) }, () => r.int(n + 1) - 1)));
  const picky = r.int(2) === 0;
  return {
    kind: 'reducer',
    init: () => 0,
    faultOutcomes: faulty ? (_s, msg) => (msg.type === 'ask' ? ['refuse'] : []) : undefined,
    receive(s, msg, ctx) {
      if (msg.type === 'ask') {
        if (ctx.outcome === 'refuse') return { state: s, send: [{ to: ctx.from, msg: { type: 'ans', v: 9 } }] };
        const ns = (s + 1) % 5;
        return picky && s % 2 === 1 ? { state: ns } : { state: ns, send: [{ to: ctx.from, msg: { type: 'ans', v: s } }] };
      }
      if (msg.type === 'ans') return { state: (s + 2) % 5 };
      if (msg.type !== 'm') return { state: s, unhandled: true };
      const v = (msg as Msg).v ?? 0;
      const ns = (s * 2 + v + 1) % 5;
      const hops = (msg as Msg).hops ?? 0;
      if (hops <= 0) return { state: ns };
      const out = table[ns % 3]![v % 2]!.map((t) => ({ to: t < 0 ? ctx.from : ids[t]!, msg: { type: 'm', v: (v + ns + self) % 3, hops: hops - 1 } }));
      return { state: ns, send: out.filter((o) => o.to !== 'env') };
    },
  };
}

/** Sends `ask` to a target when it starts, waits for `ans` (a deadlock if none comes). */
const asker = setup({
  types: {} as { context: { to: string; got: number }; input: { to: string } },
}).createMachine({
  context: ({ input }) => ({ to: input.to, got: -1 }),
  initial: 'idle',
  states: {
    idle: { on: { go: { target: 'awaiting', actions: send(({ context }) => context.to, { type: 'ask' }) } } },
    awaiting: { on: { ans: { target: 'done', actions: assign({ got: ({ event }) => (event as any).v ?? 0 }) }, m: {} } },
    done: { tags: ['end'], on: { m: {}, ans: {} } },
  },
});

/** On `m`, waits (a timer) and then forwards a message; `delayedSend` uses a delayed sendTo instead of `after`. */
function ticker(delayedSend: boolean) {
  return setup({
    types: {} as { context: { to: string; fired: number }; input: { to: string } },
  }).createMachine({
    context: ({ input }) => ({ to: input.to, fired: 0 }),
    initial: 'idle',
    states: delayedSend
      ? {
          idle: {
            on: {
              m: { guard: ({ context }) => context.fired < 2, actions: [assign({ fired: ({ context }) => context.fired + 1 }), send(({ context }) => context.to, { type: 'm', v: 1, hops: 1 }, { delay: 5 })] },
              ans: {},
            },
          },
        }
      : {
          idle: { on: { m: { guard: ({ context }) => context.fired < 2, target: 'waiting' }, ans: {} } },
          waiting: {
            after: { 10: { target: 'idle', actions: [assign({ fired: ({ context }) => context.fired + 1 }), send(({ context }) => context.to, { type: 'm', v: 2, hops: 1 })] } },
            on: { m: {}, ans: {} },
          },
        },
  });
}

/** A symmetric client: asks the server once or twice. */
const client = setup({
  types: {} as { context: { left: number }; input: { rounds: number } },
}).createMachine({
  context: ({ input }) => ({ left: input.rounds }),
  initial: 'idle',
  states: {
    idle: { on: { go: { target: 'awaiting', actions: send('srv', { type: 'ask' }) } } },
    awaiting: {
      on: {
        ans: [
          { guard: ({ context }) => context.left > 1, target: 'awaiting', reenter: true, actions: [assign({ left: ({ context }) => context.left - 1 }), send('srv', { type: 'ask' })] },
          { target: 'done', actions: assign({ left: 0 }) },
        ],
      },
    },
    done: { type: 'final' },
  },
});

const server: ReducerLogic<number> = {
  kind: 'reducer',
  init: () => 0,
  receive: (s, msg, ctx) => (msg.type === 'ask' ? { state: (s + 1) % 4, send: [{ to: ctx.from, msg: { type: 'ans', v: s } }] } : { state: s, unhandled: true }),
};

export interface RandomActorsInfo {
  readonly symmetric: boolean;
  readonly timers: boolean;
  readonly faults: boolean;
  readonly monitor: boolean;
  readonly undeclared: boolean;
  /** Monitors local to one actor, stateless, or over two actors' deliveries; a view invariant. */
  readonly extra: number;
  /** Extended draws only (`{ extended: true }`). */
  readonly boxed?: boolean;
  readonly inputs?: boolean;
  readonly liveness?: boolean;
  readonly acceptEnd?: boolean;
  readonly reachable?: boolean;
}

/** A random actor system, and which features it drew. */
export function randomActors(seed: number, opts: { extended?: boolean } = {}): { sc: Scenario; info: RandomActorsInfo } {
  const r = rng(seed);
  // The extended draws come from a third stream, drawn up front (the first two are unchanged).
  const r3 = rng(seed ^ 0x27d4eb2f);
  const ext = opts.extended === true;
  const box = ext && r3.int(2) === 0;
  const nr = 2 + r.int(2);
  const rids = Array.from({ length: nr }, (_, i) => `p${i}`);
  const symmetric = r.int(3) === 0;
  const hasAsker = r.int(2) === 0;
  const hasTicker = r.int(3) === 0;
  const faults = r.int(2) === 0;
  const monitor = r.int(3) === 0;
  const undeclared = r.int(8) === 0;
  const ids = [...rids];
  if (hasAsker) ids.push('ask');
  if (hasTicker) ids.push('tick');
  const actors: Record<string, any> = {};
  rids.forEach((id, i) => {
    const logic = reducer(r, ids, i, faults && r.int(2) === 0);
    actors[id] = box ? boxed(logic) : logic;
  });
  const start: { to: string; msg: Msg }[] = [];
  const starts = 1 + r.int(2);
  for (let k = 0; k < starts; k++) start.push({ to: rids[r.int(nr)]!, msg: { type: 'm', v: r.int(3), hops: 1 + r.int(2) } });
  if (hasAsker) {
    actors.ask = { logic: asker, input: { to: rids[r.int(nr)]! } };
    start.push({ to: 'ask', msg: { type: 'go' } });
  }
  if (hasTicker) {
    actors.tick = { logic: ticker(r.int(2) === 0), input: { to: rids[r.int(nr)]! } };
    start.push({ to: 'tick', msg: { type: 'm' } });
  }
  const group: string[] = [];
  if (symmetric) {
    // Extended: the server's index between the members' (c0, srv, c1, ...), so a permuted
    // world lists its enabled steps in another order than the world it stands for.
    if (!ext) actors.srv = server;
    const k = 2 + (r.int(4) === 0 ? 1 : 0);
    const rounds = 1 + r.int(2);
    for (let i = 0; i < k; i++) {
      const id = `c${i}`;
      group.push(id);
      actors[id] = { logic: client, input: { rounds } };
      if (ext && i === 0) actors.srv = server;
      start.push({ to: id, msg: { type: 'go' } });
    }
  }
  // Faults never single out one member of the symmetric group (the group would not be symmetric).
  const all = Object.keys(actors).filter((id) => !group.includes(id));
  const a = rids[r.int(nr)]!,
    b = rids[r.int(nr)]!;
  const local: Predicate = (q) => val(q, a) !== 4 || `${a} reached 4`;
  const pair: Predicate = (q) => !(val(q, a) === 3 && val(q, b) === 1 && a !== b) || `${a} = 3 while ${b} = 1`;
  const each: Predicate = (q) => rids.every((id) => val(q, id) !== 4) || 'some reducer reached 4';
  const invariants: Record<string, Predicate> = {
    local: undeclared ? local : reads([a], local),
    pair: reads([a, b], pair),
  };
  if (r.int(2) === 0) invariants.each = readsEach(rids, each);
  if (symmetric) invariants.srvBound = reads(['srv'], (q) => q.context('srv') !== 3 || 'server answered three times');
  const monitors: Record<string, MonitorDef> = {};
  if (monitor) {
    const watched = (e: TraceEvent) => e.kind === 'deliver' && e.msg.type === 'ans';
    const m: MonitorDef<number> = {
      init: 0,
      watches: watched,
      observe(s, e, q) {
        if (!watched(e)) return s;
        // Reads another actor's state: steps it watches commute with nothing.
        if (s >= 1 && val(q, a) === 1) return { fail: `second answer while ${a} = 1` };
        return s + 1;
      },
    };
    monitors.answers = m;
  }
  // Drawn from a second stream so the systems drawn above stay those of earlier runs.
  const r2 = rng(seed ^ 0x5bd1e995);
  let extra = 0;
  if (r2.int(3) === 0) {
    // Local to a: watches only deliveries to a and reads only a.
    extra++;
    const to = (e: TraceEvent) => e.kind === 'deliver' && e.to === a;
    monitors.localA = {
      init: 0,
      reads: [a],
      watches: to,
      observe: (s: number, e, q) => (!to(e) ? s : s >= 2 && val(q, a) === 2 ? { fail: `${a} reached 2 after two deliveries` } : Math.min(s + 1, 3)),
    } as MonitorDef<number>;
  }
  if (r2.int(3) === 0) {
    // Stateless: a verdict on the event alone.
    extra++;
    const last = (e: TraceEvent) => e.kind === 'deliver' && e.to === b && e.msg.type === 'm';
    monitors.statelessB = { init: null, eventsOnly: true, watches: last, observe: (s, e) => (last(e) && (e as { msg: Msg }).msg.v === 2 && (e as { msg: Msg }).msg.hops === 0 ? { fail: `${b} got a last hop of v 2` } : s) };
  }
  if (r2.int(3) === 0 && a !== b) {
    // Stateful over two actors: a delivery to a then one to b, in that order.
    extra++;
    const ab = (e: TraceEvent) => e.kind === 'deliver' && (e.to === a || e.to === b);
    monitors.aThenB = {
      init: '',
      eventsOnly: true,
      watches: ab,
      observe: (s: string, e) => {
        if (!ab(e)) return s;
        const to = (e as { to: string }).to;
        if (s === a && to === b && (e as { msg: Msg }).msg.v === 1) return { fail: `${a} then ${b} with v 1` };
        return to;
      },
    } as MonitorDef<string>;
  }
  if (r2.int(3) === 0) {
    extra++;
    invariants.pairView = readsView(
      [a, b],
      (q) => [val(q, a), val(q, b)],
      ([x, y]) => !(x === 2 && y === 4 && a !== b) || `${a} = 2 while ${b} = 4`,
    );
  }
  const faultSpec = faults
    ? {
        budget: 1 + r.int(2),
        crash: [all[r.int(all.length)]!],
        restart: r.int(2) === 0 ? [all[r.int(all.length)]!] : [],
        drop: [[all[r.int(all.length)]!, all[r.int(all.length)]!]] as [string, string][],
      }
    : undefined;
  const timers = r.int(2) === 0 ? 'any' : 'quiescent';
  const more = ext ? extendedDraws(r3, rids, all, a, b) : undefined;
  const sc = defineScenario({
    name: `random-actors-${seed}`,
    actors,
    start,
    ...(faultSpec ? { faults: faultSpec } : {}),
    timers,
    invariants,
    ...(Object.keys(monitors).length > 0 ? { monitors } : {}),
    atEnd: { someZero: (q) => rids.some((id) => val(q, id) === 0) || 'no reducer rests in 0' },
    ...(symmetric ? { symmetry: [group] } : {}),
    ...(more?.def ?? {}),
  });
  return { sc, info: { symmetric, timers: hasTicker, faults, monitor, undeclared, extra, ...(ext ? { boxed: box, ...more!.info } : {}) } };
}

/** The extended draws: environment inputs, liveness with fairness, acceptEnd, reachable properties. */
function extendedDraws(r: ReturnType<typeof rng>, rids: readonly string[], all: readonly string[], a: string, b: string) {
  const pick = <T>(xs: readonly T[]): T => xs[r.int(xs.length)]!;
  const def: { inputs?: InputSpec[]; liveness?: Record<string, LivenessProperty>; fairness?: Fairness; acceptEnd?: Predicate; reachable?: Record<string, Predicate> } = {};
  if (r.int(2) === 0) {
    // Budgeted, so the state space stays finite; sometimes guarded by the receiver's state.
    const inputs: InputSpec[] = [];
    // One spec per receiver (an event is listed once per actor).
    const targets = [...new Set([pick(all), ...(r.int(2) === 0 ? [pick(all)] : [])])];
    for (const to of targets) {
      const events = to === 'ask' ? ['m'] : to === 'tick' ? ['m', 'ans'] : [{ type: 'm', v: r.int(3), hops: r.int(2) }, ...(r.int(2) === 0 ? ['ask'] : [])];
      const guard = rids.includes(to) && r.int(2) === 0 ? r.int(5) : -1;
      inputs.push({ to, events, budget: 1 + r.int(2), ...(guard >= 0 ? { when: (q: WorldQuery) => val(q, to) !== guard } : {}) });
    }
    def.inputs = inputs;
  }
  if (r.int(3) === 0) {
    const x = pick(rids);
    const y = pick(rids);
    const z = r.int(5);
    const kinds: Record<string, LivenessProperty> = {
      reachZero: eventually((q) => rids.some((id) => val(q, id) === 0)),
      oneThenTwo: leadsTo((q) => val(q, x) === 1, (q) => val(q, y) === 2),
      progress: nonProgressCycles((q) => val(q, x) === z),
    };
    const names = Object.keys(kinds).filter(() => r.int(2) === 0);
    def.liveness = Object.fromEntries((names.length > 0 ? names : ['oneThenTwo']).map((n) => [n, kinds[n]!]));
    const f = r.int(3);
    if (f === 1) def.fairness = 'none';
    if (f === 2) def.fairness = { actors: [a, b] };
  }
  if (r.int(4) === 0) {
    const c = r.int(5);
    def.acceptEnd = (q) => val(q, a) !== c || `${a} ended in ${c}`;
  }
  if (r.int(2) === 0) {
    const c = r.int(5);
    def.reachable = { aIsC: reads([a], (q) => val(q, a) === c), bothEqual: reads([a, b], (q) => val(q, a) === val(q, b) && a !== b) };
  }
  return { def, info: { inputs: def.inputs !== undefined, liveness: def.liveness !== undefined, acceptEnd: def.acceptEnd !== undefined, reachable: def.reachable !== undefined } };
}

