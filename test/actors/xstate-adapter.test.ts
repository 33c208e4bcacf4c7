// The xstate adapter: conformance (what each xstate feature becomes under the
// kernel) and a differential test of the cached-scope fast path against xstate's
// public transition()/initialTransition(). Both must pass before an xstate upgrade.
import { describe, expect, it, beforeEach } from 'vitest';
import fc from 'fast-check';
import { assign, createMachine, fromPromise, initialTransition, sendTo, setup, spawnChild, transition, type AnyMachineSnapshot } from 'xstate';
import { MachineStepper, formatStateValue, isAddressStub, snapshotStateText, type CollectedAction } from '../../src/actors/xstate-adapter.ts';
import { ScenarioError, defineScenario, type Scenario, type Step, type TraceEvent, type World } from 'interleave';
import { apply, enabled, initialWorld, toPlain } from 'interleave/kernel';
import { finisher, notes, picky, recorder, talker, timekeeper } from '../fixtures/actors/machines.ts';
import { diffCases } from '../fixtures/actors/xstate-diff-cases.ts';
import { randomMachineSystem } from '../fixtures/check/random-machines.ts';
import { rng } from 'interleave';

/** Calls of `machine.transition` so far (counted by a wrapper installed on first use). */
function countTransitions(machine: AnyMachineSnapshot['machine']): number {
  const m = machine as typeof machine & { __calls?: number };
  if (m.__calls === undefined) {
    const orig = m.transition.bind(m);
    m.__calls = 0;
    m.transition = ((...args: Parameters<typeof orig>) => {
      m.__calls!++;
      return orig(...args);
    }) as typeof orig;
  }
  return m.__calls;
}

function stepById(sc: Scenario, w: World, id: string): Step {
  const s = enabled(sc, w).find((x) => x.id === id);
  if (!s) throw new Error(`step ${id} not enabled; enabled: ${enabled(sc, w).map((x) => x.id).join(', ')}`);
  return s;
}

function deliver(sc: Scenario, w: World, id: string): { world: World; events: readonly TraceEvent[] } {
  return apply(sc, w, stepById(sc, w, id));
}

describe('adapter conformance: what each xstate feature becomes', () => {
  beforeEach(() => {
    notes.length = 0;
  });

  it('sendTo(system.get(id)) and sendParent resolve to address stubs of world actors', () => {
    const st = new MachineStepper(talker, 'talker', 'boss');
    const s0 = st.initial().snapshot;
    const { actions } = st.step(s0, { type: 'hello' });
    const sends = actions.filter((a) => a.type === 'xstate.sendTo');
    expect(sends.map((a) => [isAddressStub(a.params.to), a.params.to.id, a.params.event.type])).toEqual([
      [true, 'peer', 'hi'],
      [true, 'boss', 'up'],
    ]);
    // Stubs print and serialize (the spawn trap on `system` is not enumerable).
    expect(JSON.parse(JSON.stringify(sends[1]!.params.to))).toEqual({ id: 'boss', sessionId: 'boss', __interleaveAddress: true });
    expect(toPlain(sends[0]!.params)).toMatchObject({ event: { type: 'hi' }, to: { id: 'peer' } });
  });

  it('the kernel puts sends on channels, emit and log in the trace, in action order', () => {
    const sc = defineScenario({ name: 'talk', actors: { talker: { logic: talker, parent: 'boss' }, peer: recorder, boss: recorder }, start: [{ to: 'talker', msg: { type: 'hello' } }] });
    const w0 = initialWorld(sc).world;
    const r = deliver(sc, w0, 'deliver:env->talker:hello');
    expect(r.events.filter((e) => e.kind !== 'deliver' && e.kind !== 'state').map((e) => [e.kind, (e as any).to ?? '', (e as any).msg?.type ?? (e as any).data])).toEqual([
      ['send', 'peer', 'hi'],
      ['send', 'boss', 'up'],
      ['emit', '', 'spoke'],
      ['log', '', 'said hello'],
    ]);
    expect(enabled(sc, r.world).map((s) => s.id)).toEqual(['deliver:talker->peer:hi', 'deliver:talker->boss:up', 'timer:talker:xstate.after.1000.talker.open']);
  });

  it('sendParent without a declared parent is a clear scenario error', () => {
    const sc = defineScenario({ name: 'orphan', actors: { talker, peer: recorder }, start: [{ to: 'talker', msg: { type: 'hello' } }] });
    const w0 = initialWorld(sc).world;
    expect(() => deliver(sc, w0, 'deliver:env->talker:hello')).toThrow(/actor 'talker' used sendParent but has no parent: declare it .*parent/);
  });

  it('sendTo a name (not system.get) is a clear scenario error that says what to write', () => {
    const byName = createMachine({ on: { go: { actions: sendTo('peer', { type: 'x' }) } } });
    const sc = defineScenario({ name: 'by-name', actors: { a: byName, peer: recorder }, start: [{ to: 'a', msg: { type: 'go' } }] });
    expect(() => deliver(sc, initialWorld(sc).world, 'deliver:env->a:go')).toThrow(/actor 'a' sent to 'peer' by name.*send\('peer', msg\)/);
  });

  it('after and delayed raise become virtual-time timers; leaving the state cancels the after', () => {
    const sc = defineScenario({ name: 'timers', actors: { talker: { logic: talker, parent: 'boss' }, peer: recorder, boss: recorder }, start: [{ to: 'talker', msg: { type: 'shout' } }, { to: 'talker', msg: { type: 'leave' } }] });
    const init = initialWorld(sc);
    expect(init.events.filter((e) => e.kind === 'timer-set')).toEqual([{ kind: 'timer-set', actor: 'talker', id: 'xstate.after.1000.talker.open', due: 1000, msg: { type: 'xstate.after.1000.talker.open' } }]);
    const r1 = deliver(sc, init.world, 'deliver:env->talker:shout');
    expect(r1.events.filter((e) => e.kind === 'timer-set')).toEqual([{ kind: 'timer-set', actor: 'talker', id: 'echo', due: 10, msg: { type: 'echo' } }]);
    expect(r1.world.timers.map((t) => [t.id, t.due])).toEqual([
      ['echo', 10],
      ['xstate.after.1000.talker.open', 1000],
    ]);
    const r2 = deliver(sc, r1.world, 'deliver:env->talker:leave');
    expect(r2.events.filter((e) => e.kind === 'timer-cancel')).toEqual([{ kind: 'timer-cancel', actor: 'talker', id: 'xstate.after.1000.talker.open' }]);
    expect(r2.world.timers.map((t) => t.id)).toEqual(['echo']);
  });

  it('cancel(id) removes a pending delayed raise', () => {
    const sc = defineScenario({ name: 'cancel', actors: { timekeeper }, start: [{ to: 'timekeeper', msg: { type: 'arm' } }, { to: 'timekeeper', msg: { type: 'disarm' } }], unhandled: 'trace' });
    const w0 = initialWorld(sc).world;
    const r1 = deliver(sc, w0, 'deliver:env->timekeeper:arm');
    expect(r1.world.timers.map((t) => t.id)).toEqual(['anon:0', 'xstate.after.100.timekeeper.armed', 'r2']);
    const r2 = deliver(sc, r1.world, 'deliver:env->timekeeper:disarm');
    expect(r2.events.filter((e) => e.kind === 'timer-cancel').map((e) => (e as any).id).sort()).toEqual(['r2', 'xstate.after.100.timekeeper.armed']);
    expect(r2.world.timers.map((t) => t.id)).toEqual(['anon:0']);
  });

  it('custom actions with an implementation run, with their resolved params', () => {
    const sc = defineScenario({ name: 'custom', actors: { talker: { logic: talker, parent: 'boss' }, peer: recorder, boss: recorder }, start: [{ to: 'talker', msg: { type: 'custom', v: 7 } }] });
    const r = deliver(sc, initialWorld(sc).world, 'deliver:env->talker:custom');
    expect(notes).toEqual([7]);
    expect(r.events.some((e) => e.kind === 'error')).toBe(false);
  });

  it('invoke and spawnChild are rejected when the scenario is defined, naming the actor and the alternative', () => {
    const child = fromPromise(async () => 1);
    const invoking = setup({ actors: { child } }).createMachine({ initial: 'a', states: { a: { on: { go: 'b' } }, b: { invoke: { src: 'child' } } } });
    const spawning = setup({ actors: { child } }).createMachine({ initial: 'a', states: { a: { entry: spawnChild('child') } } });
    expect(() => defineScenario({ name: 'inv', actors: { worker: invoking } })).toThrow(ScenarioError);
    expect(() => defineScenario({ name: 'inv', actors: { worker: invoking } })).toThrow(/actor 'worker' invokes 'child'.*declare the child as a scenario actor.*send\(id, msg\)/);
    expect(() => defineScenario({ name: 'sp', actors: { worker: spawning } })).toThrow(/actor 'worker' spawns a child actor.*storage or effect actor/);
  });

  it('a spawn hidden in assign is rejected when it runs, naming the actor', () => {
    const child = fromPromise(async () => 1);
    const m = setup({ actors: { child } }).createMachine({ context: { ref: undefined as unknown }, on: { go: { actions: assign({ ref: ({ spawn }) => spawn('child') }) } } });
    const sc = defineScenario({ name: 'hidden', actors: { sneaky: m }, start: [{ to: 'sneaky', msg: { type: 'go' } }] });
    expect(() => deliver(sc, initialWorld(sc).world, 'deliver:env->sneaky:go')).toThrow(/actor 'sneaky' creates a child actor .*send\(id, msg\)/);
  });

  it('an unmatched event is detected; a handled no-op transition is not', () => {
    const st = new MachineStepper(picky, 'picky');
    const s0 = st.initial().snapshot;
    expect(st.step(s0, { type: 'noise' })).toMatchObject({ unhandled: true, snapshot: s0, actions: [] });
    expect(st.step(s0, { type: 'quiet' }).unhandled).toBe(false);
    const pinged = st.step(s0, { type: 'ping' });
    expect(pinged.unhandled).toBe(false);
    expect(pinged.snapshot.context).toEqual({ pings: 1 });
  });

  it('a machine in a final state takes no events, even ones a root handler would match', () => {
    const st = new MachineStepper(finisher, 'f');
    const s0 = st.initial().snapshot;
    expect(st.step(s0, { type: 'late' }).unhandled).toBe(false);
    const done = st.step(s0, { type: 'stop' }).snapshot;
    expect(done.status).toBe('done');
    expect(st.step(done, { type: 'late' }).unhandled).toBe(true);
  });
});

// --- differential: cached-scope MachineStepper against xstate's public API ---

interface Projection {
  readonly value: unknown;
  readonly context: unknown;
  readonly status: string;
  readonly actions: readonly unknown[];
}

function project(snapshot: AnyMachineSnapshot, actions: readonly CollectedAction[] | readonly { type: string; params?: unknown }[]): Projection {
  return {
    value: toPlain(snapshot.value),
    context: toPlain(snapshot.context),
    status: snapshot.status,
    actions: actions.map((a) => ({ type: a.type, params: toPlain(a.params) })),
  };
}

describe('adapter differential: MachineStepper.step == public transition() on random schedules', () => {
  for (const c of diffCases) {
    it(c.name, () => {
      const seen = new Set<string>();
      let changed = 0;
      let unhandled = 0;
      fc.assert(
        fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 30 }), (choices) => {
          const st = new MachineStepper(c.machine, 'x');
          const fast0 = st.initial(c.input);
          const [ref0, refActions0] = initialTransition(c.machine, c.input);
          expect(project(fast0.snapshot, fast0.actions)).toEqual(project(ref0 as AnyMachineSnapshot, refActions0));
          let fast = fast0.snapshot;
          let ref = ref0 as AnyMachineSnapshot;
          // Timers the machine asked for, so the schedule can also fire them.
          const pending: { key: string; event: { type: string } }[] = [];
          let anon = 0;
          const track = (actions: readonly CollectedAction[]): void => {
            for (const a of actions) {
              seen.add(a.type + (a.params?.delay !== undefined ? '+delay' : ''));
              if (a.type === 'xstate.raise' && typeof a.params.delay === 'number') {
                const key = a.params.id ?? `anon:${anon++}`;
                const k = pending.findIndex((p) => p.key === key);
                if (k >= 0) pending.splice(k, 1);
                pending.push({ key, event: a.params.event });
              }
              if (a.type === 'xstate.cancel') {
                const k = pending.findIndex((p) => p.key === a.params.sendId);
                if (k >= 0) pending.splice(k, 1);
              }
            }
          };
          track(fast0.actions);
          for (const choice of choices) {
            const options = [...c.alphabet, ...pending.map((p) => p.event)];
            const pick = choice % options.length;
            const event = options[pick]!;
            if (pick >= c.alphabet.length) pending.splice(pick - c.alphabet.length, 1);
            const f = st.step(fast, event);
            const [refNext, refActions] = transition(c.machine, ref, event as any);
            expect(project(f.snapshot, f.actions), `after ${event.type}`).toEqual(project(refNext as AnyMachineSnapshot, refActions));
            if (f.unhandled) {
              unhandled++;
              expect(refActions).toEqual([]);
            }
            if (f.snapshot !== fast) changed++;
            track(f.actions);
            fast = f.snapshot;
            ref = refNext as AnyMachineSnapshot;
          }
        }),
        { seed: 20261130, numRuns: 60 },
      );
      // Not vacuous: the schedules moved the machine, hit unmatched events and produced actions.
      expect(changed).toBeGreaterThan(50);
      expect(unhandled).toBeGreaterThan(0);
      expect(seen.size).toBeGreaterThan(1);
    });
  }
});


describe('MachineStepper skips the step when no active state can take the event', () => {
  it('gives what the full step gives, and skips most steps of random walks (diff cases and random machine systems); state texts are right', () => {
    let skipped = 0;
    let steps = 0;
    const machines = [...diffCases.map((c) => ({ machine: c.machine, input: c.input, alphabet: c.alphabet }))];
    for (let seed = 1; seed <= 12; seed++) {
      const sc = randomMachineSystem(seed);
      for (const a of sc.actorList) if (a.kind === 'machine') machines.push({ machine: a.stepper.machine, input: undefined, alphabet: [{ type: 'm', v: 1, hops: 2 }, { type: 'm', v: 2, hops: 0 }, { type: 'other' }] as never });
    }
    for (const [k, m] of machines.entries()) {
      const fast = new MachineStepper(m.machine, 'x');
      const full = new MachineStepper(m.machine, 'x');
      const r = rng(1000 + k);
      let a = fast.initial(m.input).snapshot;
      let b = full.initial(m.input).snapshot;
      for (let i = 0; i < 200; i++) {
        const event = r.pick(m.alphabet);
        const calls = countTransitions(m.machine);
        const f = fast.step(a, event);
        if (countTransitions(m.machine) === calls) skipped++;
        MachineStepper.shortcut = false;
        let g: ReturnType<MachineStepper['step']>;
        try {
          g = full.step(b, event);
        } finally {
          MachineStepper.shortcut = true;
        }
        steps++;
        expect(f.unhandled, `${m.machine.id} after ${event.type}`).toBe(g.unhandled);
        expect(f.snapshot === a, `${m.machine.id} after ${event.type}: unchanged`).toBe(g.snapshot === b);
        expect(project(f.snapshot, f.actions), `${m.machine.id} after ${event.type}`).toEqual(project(g.snapshot, g.actions));
        // State texts are cached by active state nodes: each must still be its own value's.
        expect(snapshotStateText(f.snapshot)).toBe(formatStateValue(f.snapshot.value));
        expect(snapshotStateText(g.snapshot)).toBe(formatStateValue(g.snapshot.value));
        a = f.snapshot;
        b = g.snapshot;
      }
    }
    // Not vacuous: the shortcut was taken on a good share of the steps, and not on all.
    expect(skipped).toBeGreaterThan(steps / 10);
    expect(skipped).toBeLessThan(steps);
  });
});
