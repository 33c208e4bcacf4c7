// The kernel's semantics: unmatched events, per-channel FIFO, interleavings,
// virtual-time timers, errors as events, and faults within their budget.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { apply, enabled, initialWorld, isFailureEvent, isFault, canonicalJson } from 'interleave/kernel';
import { defineScenario, drive, randomChooser, rng, queryOf, type Message, type Scenario, type Chooser, type Step, type TraceEvent, type World } from 'interleave';
import { alarm, badGuard, finisher, picky, recorder, sender, store, talker, timekeeper } from '../fixtures/actors/machines.ts';
import { explore } from '../fixtures/actors/explore.ts';

const first: Chooser = (_w, steps) => steps[0];

function take(sc: Scenario, w: World, id: string): { world: World; events: readonly TraceEvent[] } {
  const s = enabled(sc, w).find((x) => x.id === id);
  if (!s) throw new Error(`${id} is not enabled; enabled: ${enabled(sc, w).map((x) => x.id).join(', ')}`);
  return apply(sc, w, s);
}

function got(sc: Scenario, w: World, id = 'r'): string[] {
  return queryOf(sc, w).context(id).got;
}

describe('unmatched events', () => {
  const pickyScenario = (unhandled?: 'error' | 'trace') =>
    defineScenario({ name: 'picky', actors: { picky }, start: [{ to: 'picky', msg: { type: 'noise' } }, { to: 'picky', msg: { type: 'ping' } }], ...(unhandled ? { unhandled } : {}) });

  it('are an error by default: the event says so and the run fails there', () => {
    const run = drive(pickyScenario(), first);
    const ev = run.events.find((e) => e.kind === 'unhandled');
    expect(ev).toEqual({ kind: 'unhandled', actor: 'picky', from: 'env', msg: { type: 'noise' }, state: 'on', policy: 'error', step: 1 });
    expect(isFailureEvent(ev!)).toBe(true);
    expect(run.end).toBe('failure');
    expect(run.schedule).toEqual(['deliver:env->picky:noise']);
  });

  it("are only recorded with unhandled: 'trace', and the run goes on", () => {
    const run = drive(pickyScenario('trace'), first);
    const ev = run.events.find((e) => e.kind === 'unhandled')!;
    expect(ev).toMatchObject({ kind: 'unhandled', actor: 'picky', policy: 'trace' });
    expect(isFailureEvent(ev)).toBe(false);
    expect(run.end).toBe('quiescent');
    expect(queryOf(pickyScenario('trace'), run.world).context('picky')).toEqual({ pings: 1 });
  });

  it('include messages to a machine that has finished, and to a reducer with no case for them', () => {
    const sc = defineScenario({ name: 'late', actors: { finisher, store }, start: [{ to: 'finisher', msg: { type: 'stop' } }, { to: 'finisher', msg: { type: 'late' } }, { to: 'store', msg: { type: 'get' } }], unhandled: 'trace' });
    const run = drive(sc, first);
    expect(run.events.filter((e) => e.kind === 'unhandled').map((e) => [(e as any).actor, (e as any).msg.type, (e as any).state])).toEqual([
      ['finisher', 'late', 'finished (done)'],
      ['store', 'get', 'reducer'],
    ]);
  });
});

describe('channels', () => {
  const senders = (count: number) =>
    defineScenario({
      name: 'two-senders',
      actors: { a: { logic: sender, input: { to: 'r', count, tag: 'x' } }, b: { logic: sender, input: { to: 'r', count, tag: 'y' } }, r: recorder },
      start: [
        { to: 'a', msg: { type: 'go' } },
        { to: 'b', msg: { type: 'go' } },
      ],
    });

  it('offer only the head of each channel', () => {
    const sc = senders(3);
    let w = initialWorld(sc).world;
    w = take(sc, w, 'deliver:env->a:go').world;
    w = take(sc, w, 'deliver:env->b:go').world;
    expect(enabled(sc, w).map((s) => s.id)).toEqual(['deliver:a->r:x', 'deliver:b->r:y']);
    expect(queryOf(sc, w).pending('r', 'a').map((m) => m.n)).toEqual([1, 2, 3]);
  });

  it('are FIFO per (sender, receiver) on every random schedule', () => {
    const sc = senders(12);
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const run = drive(sc, randomChooser(seed));
        const order = got(sc, run.world);
        expect(order.filter((m) => m.startsWith('x')).map((m) => Number(m.slice(2)))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
        expect(order.filter((m) => m.startsWith('y')).map((m) => Number(m.slice(2)))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      }),
      { seed: 7, numRuns: 40 },
    );
  });

  it('from two senders interleave in every order FIFO allows, across steps', () => {
    const sc = senders(2);
    const orders = new Set<string>();
    const leaves = explore(sc, (l) => orders.add(got(sc, l.world).join(' ')));
    // Every merge of x1 x2 with y1 y2 that keeps each sender's order, and nothing else.
    expect([...orders].sort()).toEqual(['x:1 x:2 y:1 y:2', 'x:1 y:1 x:2 y:2', 'x:1 y:1 y:2 x:2', 'y:1 x:1 x:2 y:2', 'y:1 x:1 y:2 x:2', 'y:1 y:2 x:1 x:2'].sort());
    expect(leaves).toBeGreaterThan(orders.size);
  });
});

describe('timers', () => {
  it('fire in virtual-time order, each at its due time', () => {
    const sc = defineScenario({ name: 'arm', actors: { timekeeper }, start: [{ to: 'timekeeper', msg: { type: 'arm' } }] });
    const fired = new Set<string>();
    explore(sc, (l) => {
      const fires = l.events.filter((e) => e.kind === 'timer-fire') as Extract<TraceEvent, { kind: 'timer-fire' }>[];
      expect(fires.map((e) => [e.id, e.at])).toEqual([
        ['anon:0', 50],
        ['xstate.after.100.timekeeper.armed', 100],
        ['r2', 200],
      ]);
      fired.add(queryOf(sc, l.world).context('timekeeper').fired.join(','));
    });
    expect([...fired]).toEqual(['self,after100,ring2']);
  });

  it('a timer step is matched by its id, so a stale step cannot fire the wrong timer', () => {
    const sc = defineScenario({ name: 'stale', actors: { timekeeper }, start: [{ to: 'timekeeper', msg: { type: 'arm' } }] });
    const armed = take(sc, initialWorld(sc).world, 'deliver:env->timekeeper:arm').world;
    const stale = enabled(sc, armed)[0]!;
    expect(stale).toMatchObject({ kind: 'timer', id: 'timer:timekeeper:anon:0', timer: 0 });
    const after = apply(sc, armed, stale).world;
    expect(after.timers.map((t) => t.id)).toEqual(['xstate.after.100.timekeeper.armed', 'r2']);
    expect(() => apply(sc, after, stale)).toThrow(/timer step 'timer:timekeeper:anon:0' is not pending in this world; pending: timer:timekeeper:xstate.after.100.timekeeper.armed, timer:timekeeper:r2/);
    // A timer that is not the earliest is not enabled either.
    expect(() => apply(sc, after, { kind: 'timer', id: 'timer:timekeeper:r2', timer: 0 })).toThrow(/'timer:timekeeper:r2' is not due: 'timer:timekeeper:xstate.after.100.timekeeper.armed' fires first, at 100/);
  });

  it('timers due at the same time are all enabled, and the id picks which one fires', () => {
    const sc = defineScenario({ name: 'ties', actors: { alarm }, start: [0, 1, 2].map((n) => ({ to: 'alarm', msg: { type: 'set', n, delay: 10 } })) });
    let w = initialWorld(sc).world;
    for (let i = 0; i < 3; i++) w = apply(sc, w, enabled(sc, w)[0]!).world;
    const ids = enabled(sc, w).map((s) => s.id);
    expect(ids).toEqual(['timer:alarm:anon:0', 'timer:alarm:anon:1', 'timer:alarm:anon:2']);
    // Position 0 holds anon:0, but the step names anon:2: anon:2 fires.
    const fired = apply(sc, w, { kind: 'timer', id: 'timer:alarm:anon:2', timer: 0 });
    expect(fired.events[0]).toMatchObject({ kind: 'timer-fire', id: 'anon:2', at: 10 });
    expect(queryOf(sc, fired.world).context('alarm').rang).toEqual([2]);
  });

  it('set at random delays fire sorted by due time, and the clock never goes back', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 12 }), fc.integer(), (delays, seed) => {
        const sc = defineScenario({ name: 'alarms', actors: { alarm }, timers: 'quiescent', start: delays.map((delay, n) => ({ to: 'alarm', msg: { type: 'set', n, delay } })) });
        const run = drive(sc, randomChooser(seed));
        const fires = run.events.filter((e) => e.kind === 'timer-fire') as Extract<TraceEvent, { kind: 'timer-fire' }>[];
        expect(fires.map((e) => e.at)).toEqual([...delays].sort((a, b) => a - b));
        const rang: number[] = queryOf(sc, run.world).context('alarm').rang;
        expect(rang.map((n) => delays[n])).toEqual(fires.map((e) => e.at));
        expect(run.world.now).toBe(Math.max(...delays));
      }),
      { seed: 11, numRuns: 50 },
    );
  });

  it('that were cancelled never fire, on any schedule', () => {
    const sc = defineScenario({
      name: 'disarm',
      actors: { timekeeper },
      unhandled: 'trace',
      start: [
        { to: 'timekeeper', msg: { type: 'arm' } },
        { to: 'timekeeper', msg: { type: 'disarm' } },
      ],
    });
    let withCancel = 0;
    explore(sc, (l) => {
      const cancelled = new Set<string>();
      for (const e of l.events) {
        if (e.kind === 'timer-cancel') cancelled.add(e.id);
        if (e.kind === 'timer-fire') expect(cancelled.has(e.id), `${e.id} fired after it was cancelled`).toBe(false);
      }
      if (cancelled.has('r2')) {
        withCancel++;
        expect(l.events.some((e) => e.kind === 'timer-fire' && e.id === 'r2')).toBe(false);
        expect(l.world.timers.some((t) => t.id === 'r2')).toBe(false);
      }
    });
    expect(withCancel).toBeGreaterThan(0);
  });
});

describe('errors in machines are events, not crashes of the runtime', () => {
  it('a throwing action becomes an error event; the actor keeps its state', () => {
    const sc = defineScenario({ name: 'explode', actors: { talker: { logic: talker, parent: 'env' } }, start: [{ to: 'talker', msg: { type: 'leave' } }, { to: 'talker', msg: { type: 'hello' } }] });
    const run = drive(sc, first);
    expect(run.end).toBe('failure');
    expect(run.events.at(-1)).toEqual({ kind: 'error', actor: 'talker', message: "action 'explode' threw: kaboom", step: 2 });
    const all = drive(sc, first, { stopOnFailure: false });
    expect(all.end).toBe('quiescent');
  });

  it('a throwing guard becomes an error event and the actor stops taking messages', () => {
    const sc = defineScenario({ name: 'guard', actors: { badGuard }, start: [{ to: 'badGuard', msg: { type: 'bad' } }, { to: 'badGuard', msg: { type: 'ok' } }] });
    const run = drive(sc, first, { stopOnFailure: false });
    const bad = run.events.filter((e) => e.kind === 'error' || e.kind === 'dropped');
    expect(bad.map((e) => e.kind)).toEqual(['error', 'dropped']);
    expect((bad[0] as any).message).toMatch(/^on 'bad' in state 'a': .*guard 'broken'.*guard exploded/s);
    expect((bad[1] as any).reason).toBe('receiver is error');
    expect(run.world.status).toEqual(['error']);
  });
});

describe('faults', () => {
  const faulty = (budget: number) =>
    defineScenario({
      name: 'faulty',
      actors: { a: { logic: sender, input: { to: 'r', count: 2, tag: 'x' } }, r: recorder, s: store, c: { logic: sender, input: { to: 's', count: 1, tag: 'put' } } },
      unhandled: 'trace',
      start: [
        { to: 'a', msg: { type: 'go' } },
        { to: 'c', msg: { type: 'go' } },
      ],
      faults: { budget, crash: ['a', 'r'], restart: ['r'], drop: [['a', 'r']] },
    });

  it('never exceed the budget, on every schedule; restarts are free', () => {
    for (const budget of [0, 1, 2]) {
      const sc = faulty(budget);
      const used = new Set<number>();
      let restartsAtFullBudget = 0;
      explore(sc, (l) => {
        const faults = l.schedule.filter(isFault).length;
        used.add(faults);
        expect(faults).toBeLessThanOrEqual(budget);
        expect(l.world.faults).toBe(faults);
        l.schedule.forEach((s, k) => {
          if (s.kind === 'restart' && l.worlds[k]!.faults === budget) restartsAtFullBudget++;
        });
        for (const w of l.worlds) if (w.faults >= budget) expect(enabled(sc, w).filter(isFault)).toEqual([]);
      });
      // Not vacuous: some schedule spends the whole budget.
      expect(Math.max(...used)).toBe(budget);
      if (budget > 0) expect(restartsAtFullBudget).toBeGreaterThan(0);
    }
  });

  it('crash empties the inbox and loses later messages; restart boots the initial state', () => {
    const sc = faulty(2);
    let w = initialWorld(sc).world;
    w = take(sc, w, 'deliver:env->a:go').world;
    w = take(sc, w, 'deliver:a->r:x').world;
    expect(got(sc, w)).toEqual(['x:1']);
    const crash = take(sc, w, 'crash:r');
    expect(crash.events).toEqual([{ kind: 'fault', fault: 'crash', actor: 'r' }]);
    w = crash.world;
    expect(queryOf(sc, w).pending('r')).toEqual([]);
    expect(enabled(sc, w).map((s) => s.id)).toContain('restart:r');
    w = take(sc, w, 'restart:r').world;
    expect(w.status[sc.index.get('r')!]).toBe('up');
    expect(got(sc, w)).toEqual([]);
    expect(w.faults).toBe(1);
  });

  it('a message to a crashed actor is dropped with the reason in the trace', () => {
    const sc = faulty(1);
    let w = initialWorld(sc).world;
    w = take(sc, w, 'deliver:env->a:go').world;
    w = take(sc, w, 'crash:r').world;
    expect(w.inbox[sc.index.get('r')!]).toEqual([]);
    const sc2 = defineScenario({ name: 'late', actors: { r: recorder }, start: [{ to: 'r', msg: { type: 'm', n: 1 } }], faults: { budget: 1, crash: ['r'] } });
    // Crash after the message is queued: the inbox is lost with the actor.
    const w2 = take(sc2, initialWorld(sc2).world, 'crash:r').world;
    expect(enabled(sc2, w2)).toEqual([]);
    // A message sent to an actor already crashed is delivered and dropped.
    const sc3 = defineScenario({ name: 'after', actors: { a: { logic: sender, input: { to: 'r', count: 1 } }, r: recorder }, start: [{ to: 'a', msg: { type: 'go' } }], faults: { budget: 1, crash: ['r'] } });
    let w3 = take(sc3, initialWorld(sc3).world, 'crash:r').world;
    w3 = take(sc3, w3, 'deliver:env->a:go').world;
    expect(take(sc3, w3, 'deliver:a->r:m').events).toEqual([
      { kind: 'deliver', from: 'a', to: 'r', msg: { type: 'm', n: 1 } },
      { kind: 'dropped', from: 'a', to: 'r', msg: { type: 'm', n: 1 }, reason: 'receiver is crashed' },
    ]);
  });

  it('a reducer fault outcome costs budget and changes the reply', () => {
    const sc = faulty(1);
    let w = initialWorld(sc).world;
    w = take(sc, w, 'deliver:env->c:go').world;
    const ids = enabled(sc, w).map((s: Step) => s.id);
    expect(ids).toContain('deliver:c->s:put');
    expect(ids).toContain('deliver:c->s:put!503');
    const r = take(sc, w, 'deliver:c->s:put!503');
    expect(r.world.faults).toBe(1);
    expect(r.events.filter((e) => e.kind === 'send')).toEqual([{ kind: 'send', from: 's', to: 'c', msg: { type: 'err', code: 503 } }]);
    expect(enabled(sc, r.world).filter(isFault)).toEqual([]);
  });
});

describe('the world is an immutable value', () => {
  /** Freezes what the kernel owns: the world's arrays, channels, messages, timers and contexts (not xstate's machine). */
  function freeze(w: World): void {
    const deep = (x: unknown): void => {
      if (typeof x !== 'object' || x === null || Object.isFrozen(x)) return;
      Object.freeze(x);
      for (const v of Object.values(x)) deep(v);
    };
    Object.freeze(w);
    Object.freeze(w.snaps);
    for (const snap of w.snaps) {
      if (snap && typeof snap === 'object' && 'machine' in snap) {
        Object.freeze(snap);
        deep((snap as unknown as { context: unknown }).context);
      } else deep(snap); // a reducer's state
    }
    deep(w.status);
    deep(w.inbox);
    deep(w.timers);
  }

  it('apply never mutates the world it is given, and shares every actor and inbox the step did not touch', () => {
    const sc = defineScenario({
      name: 'frozen',
      actors: { a: { logic: sender, input: { to: 'r', count: 3, tag: 'x' } }, b: { logic: sender, input: { to: 'r', count: 3, tag: 'y' } }, r: recorder, s: store, c: { logic: sender, input: { to: 's', count: 2, tag: 'put' } }, timekeeper },
      unhandled: 'trace',
      start: [
        { to: 'a', msg: { type: 'go' } },
        { to: 'b', msg: { type: 'go' } },
        { to: 'c', msg: { type: 'go' } },
        { to: 'timekeeper', msg: { type: 'arm' } },
      ],
      faults: { budget: 2, crash: ['r'], restart: ['r'], drop: [['a', 'r']] },
    });
    let shared = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed);
      let w = initialWorld(sc).world;
      for (let depth = 0; depth < 60; depth++) {
        const steps = enabled(sc, w);
        if (steps.length === 0) break;
        const step = r.pick(steps);
        freeze(w);
        const before = canonicalJson(w);
        const next = apply(sc, w, step).world;
        expect(canonicalJson(w), `step ${step.id} changed its input world`).toBe(before);
        // Structural sharing: only the receiver's snapshot, and only inboxes that got or lost a message, are new.
        const touched = new Set<number>();
        if (step.kind === 'deliver' || step.kind === 'drop') touched.add(step.to);
        if (step.kind === 'crash' || step.kind === 'restart') touched.add(step.actor);
        if (step.kind === 'timer') touched.add(w.timers.find((t) => `timer:${sc.ids[t.owner]}:${t.id}` === step.id)!.owner);
        for (let i = 0; i < sc.ids.length; i++) {
          if (touched.has(i)) continue;
          expect(next.snaps[i]).toBe(w.snaps[i]);
          shared++;
          const gotMail = next.inbox[i]!.reduce((n, c) => n + c.queue.length, 0) > w.inbox[i]!.reduce((n, c) => n + c.queue.length, 0);
          if (!gotMail) expect(next.inbox[i]).toBe(w.inbox[i]);
        }
        w = next;
      }
    }
    expect(shared).toBeGreaterThan(1000);
  });
});

describe("a reducer's state changes", () => {
  // A counter reducer (a record), a tally (a bare number) and a monitor that counts every event it sees.
  const tally = { kind: 'reducer' as const, init: () => 0, receive: (n: number, msg: Message) => (msg.type === 'put' ? { state: n + 1 } : { state: n, unhandled: true }) };
  const sc = defineScenario({
    name: 'reducer-detail',
    actors: { store, tally },
    start: [
      { to: 'store', msg: { type: 'put' } },
      { to: 'tally', msg: { type: 'put' } },
    ],
    monitors: { seen: { init: 0, observe: (n: number) => n + 1 } },
  });
  const run = (detail: boolean) => {
    let r = initialWorld(sc, { detail });
    const events = [...r.events];
    for (let s = enabled(sc, r.world)[0]; s; s = enabled(sc, r.world)[0]) {
      r = apply(sc, r.world, s, { detail });
      events.push(...r.events);
    }
    return { world: r.world, events };
  };

  it('are context events with detail: the initial state, then the keys that changed (a bare value under the key "")', () => {
    const ctx = run(true).events.filter((e) => e.kind === 'context');
    expect(ctx).toEqual([
      { kind: 'context', actor: 'store', changed: { puts: 0 } },
      { kind: 'context', actor: 'tally', changed: { '': 0 } },
      { kind: 'context', actor: 'store', changed: { puts: 1 } },
      { kind: 'context', actor: 'tally', changed: { '': 1 } },
    ]);
  });

  it('are not recorded without detail, and monitors never see them', () => {
    const plain = run(false);
    const detailed = run(true);
    expect(plain.events.some((e) => e.kind === 'context')).toBe(false);
    expect(detailed.events.length).toBeGreaterThan(plain.events.length);
    expect(canonicalJson(detailed.world)).toBe(canonicalJson(plain.world));
    expect(detailed.world.monitors).toEqual(plain.world.monitors);
  });
});
