// Environment inputs (`scenario.inputs`): events the outside world may send at any
// time, explored as steps of their own, with no driver actor and no message in flight.
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { apply, enabled, initialWorld, isQuiescent, WorldHasher } from 'interleave/kernel';
import { defineScenario, ScenarioError, check, formatViolation, replaySchedule, toTraceFile, formatHtml } from 'interleave';
import { traceView } from '../../src/report/index.ts';

const door = setup({ types: { events: {} as { type: 'OPEN' } | { type: 'CLOSE' } | { type: 'LOCK' } | { type: 'UNLOCK' } } }).createMachine({
  id: 'door',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'open', LOCK: 'locked' } },
    open: { on: { CLOSE: 'closed' } },
    locked: { on: { UNLOCK: 'closed' } },
  },
});

const counter = setup({
  types: { context: {} as { n: number }, events: {} as { type: 'ADD'; by: number } | { type: 'RESET' } },
}).createMachine({
  id: 'counter',
  context: { n: 0 },
  on: {
    ADD: { actions: assign({ n: ({ context, event }) => context.n + event.by }) },
    RESET: { actions: assign({ n: 0 }) },
  },
});

describe('scenario inputs', () => {
  it('explores exactly the machine states, one world per state, and completes', async () => {
    const sc = defineScenario({
      name: 'door',
      actors: { door },
      unhandled: 'trace',
      inputs: [{ to: 'door', events: ['OPEN', 'CLOSE', 'LOCK', 'UNLOCK'] }],
      reachable: { locked: (q) => q.matches('door', 'locked') },
    });
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.ok).toBe(true);
    expect(r.complete).toBe(true);
    // closed, open, locked: no world holds a message in flight.
    expect(r.stats.distinctStates).toBe(3);
    expect(r.unreached).toEqual([]);
  });

  it('finds a violation that takes several inputs, and the schedule replays and formats', async () => {
    const sc = defineScenario({
      name: 'counter',
      actors: { counter },
      inputs: [{ to: 'counter', events: [{ type: 'ADD', by: 1 }, { type: 'ADD', by: 2 }, 'RESET'], budget: 3 }],
      invariants: { belowFive: (q) => q.context('counter').n < 5 || `n reached ${q.context('counter').n}` },
    });
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    const v = r.violation!;
    // Shortest: 2 + 2 + 1 (or an order of it).
    expect(v.schedule).toHaveLength(3);
    expect(v.schedule.every((id) => id.startsWith('input:env->counter:ADD{'))).toBe(true);
    const again = replaySchedule(sc, v.schedule);
    expect(again.violation?.property.name).toBe('belowFive');
    expect(formatViolation(v)).toContain('counter');
    const file = toTraceFile(sc, v, { params: {}, options: {}, seed: 0 });
    expect(file.schedule).toEqual(v.schedule);
  });

  it('random walks find it too, shrink to the shortest, and the viewer shows inputs from env', async () => {
    const sc = defineScenario({
      name: 'counter',
      actors: { counter },
      inputs: [{ to: 'counter', events: [{ type: 'ADD', by: 1 }, { type: 'ADD', by: 2 }, 'RESET'] }],
      invariants: { belowFive: (q) => q.context('counter').n < 5 || `n reached ${q.context('counter').n}` },
    });
    const r = await check(sc, { strategy: 'random', seed: 3, runs: 50, maxDepth: 40 });
    expect(r.ok).toBe(false);
    const sched = r.violation!.schedule;
    expect(sched.length).toBeLessThan(r.violation!.originalLength);
    // Shrunk to a 1-minimal schedule: dropping any one input no longer breaks the invariant.
    for (let k = 0; k < sched.length; k++) {
      expect(replaySchedule(sc, sched.filter((_, j) => j !== k)).violation).toBeUndefined();
    }
    const file = toTraceFile(sc, r.violation, { params: {}, options: {}, seed: 3 });
    const view = traceView(file.schedule, file.trace);
    const steps = view.steps.filter((x) => x.kind === 'input');
    expect(steps).toHaveLength(sched.length);
    expect(steps.every((x) => x.from === 'env' && x.actor === 'counter')).toBe(true);
    expect(formatHtml(file as never)).toContain('input:env-\\u003ecounter');
  });

  it('payload choices get their own step ids; a budget limits each event', () => {
    const sc = defineScenario({
      name: 'counter',
      actors: { counter },
      inputs: [{ to: 'counter', events: [{ type: 'ADD', by: 1 }, { type: 'ADD', by: 2 }], budget: 1 }, { to: 'counter', events: ['RESET'] }],
    });
    let w = initialWorld(sc).world;
    const ids = enabled(sc, w).map((s) => s.id);
    expect(ids).toEqual(['input:env->counter:ADD{"by":1}', 'input:env->counter:ADD{"by":2}', 'input:env->counter:RESET']);
    const add1 = enabled(sc, w)[0]!;
    const r = apply(sc, w, add1);
    expect(r.events[0]).toMatchObject({ kind: 'deliver', from: 'env', to: 'counter', msg: { type: 'ADD', by: 1 } });
    w = r.world;
    expect(w.inbox.every((chs) => chs.length === 0)).toBe(true);
    expect(enabled(sc, w).map((s) => s.id)).toEqual(['input:env->counter:ADD{"by":2}', 'input:env->counter:RESET']);
    // Only environment inputs left: the system itself is at rest.
    expect(isQuiescent(enabled(sc, w))).toBe(true);
  });

  it('the budget counters are part of the fingerprint', () => {
    const sc = defineScenario({
      name: 'counter',
      actors: { counter },
      inputs: [{ to: 'counter', events: [{ type: 'ADD', by: 0 }], budget: 2 }],
    });
    const w0 = initialWorld(sc).world;
    const w1 = apply(sc, w0, enabled(sc, w0)[0]!).world;
    // Same snapshot content (n stays 0), different budget left.
    expect(w1.snaps[0]).not.toBe(w0.snaps[0]);
    const h = new WorldHasher(sc, false);
    const a = h.fp(w0),
      b = h.fp(w1);
    expect(a.a !== b.a || a.b !== b.b).toBe(true);
  });

  it('`when` offers events only where it holds', async () => {
    const sc = defineScenario({
      name: 'door-when',
      actors: { door },
      inputs: [{ to: 'door', events: ['OPEN', 'CLOSE'] }, { to: 'door', events: ['LOCK'], when: (q) => q.matches('door', 'open') }],
      unhandled: 'trace',
      reachable: { locked: (q) => q.matches('door', 'locked') },
    });
    const r = await check(sc, { strategy: 'bfs' });
    // LOCK is offered only while open, where the door ignores it: never locked, which fails the complete check.
    expect(r.ok).toBe(false);
    expect(r.finding?.goals).toEqual(['locked']);
    expect(r.complete).toBe(true);
    expect(r.unreached).toEqual(['locked']);
    expect(r.stats.distinctStates).toBe(2);
  });

  it('rejects inputs that name no actor, no events, a bad budget or a symmetric actor', () => {
    const base = { name: 'x', actors: { door, door2: door } } as const;
    const bad = (inputs: unknown, extra: object = {}) => () => defineScenario({ ...base, ...extra, inputs } as never);
    expect(bad([{ to: 'nobody', events: ['OPEN'] }])).toThrow(/inputs\[0\]\.to names unknown actor 'nobody'/);
    expect(bad([{ to: 'door', events: [] }])).toThrow(/events must be a non-empty array/);
    expect(bad([{ to: 'door', events: [{ kind: 'x' }] }])).toThrow(/events\[0\] must be an event type/);
    expect(bad([{ to: 'door', events: ['OPEN'], budget: 0 }])).toThrow(/budget must be a whole number >= 1/);
    expect(bad([{ to: 'door', events: ['OPEN', 'OPEN'] }])).toThrow(ScenarioError);
    expect(bad([{ to: 'door', events: ['OPEN'] }], { symmetry: [['door', 'door2']] })).toThrow(/symmetry group/);
    expect(bad([{ to: 'env', events: ['OPEN'] }])).toThrow(/outside world itself/);
  });
});
