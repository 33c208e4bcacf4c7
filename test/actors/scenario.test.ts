// defineScenario: invalid input gets a ScenarioError that names the problem and
// says what to write instead; so does a system that misbehaves at run time.
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { ScenarioError, ModelError, defineScenario, send, type ScenarioDef } from 'interleave';
import { apply, enabled, initialWorld, inputStep } from 'interleave/kernel';
import { recorder, sender, store } from '../fixtures/actors/machines.ts';

const ok: ScenarioDef = { name: 'ok', actors: { a: sender, r: recorder, s: store }, start: [{ to: 'a', msg: { type: 'go' } }] };

function rejects(def: unknown, message: RegExp): void {
  let err: unknown;
  try {
    defineScenario(def as ScenarioDef);
  } catch (e) {
    err = e;
  }
  expect(err, 'defineScenario should have thrown').toBeInstanceOf(ScenarioError);
  expect((err as Error).message).toMatch(message);
}

describe('defineScenario validates its input', () => {
  it('accepts a valid scenario and compiles actor indexes', () => {
    const sc = defineScenario({ ...ok, actors: { a: { logic: sender, input: { to: 'r', count: 1 } }, r: recorder, s: store } });
    expect(sc.ids).toEqual(['a', 'r', 's']);
    expect(sc.envIndex).toBe(3);
    expect(sc.actorList.map((x) => x.kind)).toEqual(['machine', 'machine', 'reducer']);
  });

  it('names an unknown actor in start, and lists the known ones', () => {
    rejects({ ...ok, start: [{ to: 'ghost', msg: { type: 'go' } }] }, /scenario 'ok': start\[0\]\.to names unknown actor 'ghost'; known actors: a, r, s/);
    rejects({ ...ok, start: [{ to: 'a', from: 'nobody', msg: { type: 'go' } }] }, /start\[0\]\.from names unknown actor 'nobody'/);
    rejects({ ...ok, start: [{ to: 'env', msg: { type: 'go' } }] }, /start\[0\]\.to is 'env', the outside world/);
    rejects({ ...ok, start: [{ to: 'a', msg: 'go' }] }, /start\[0\]\.msg must be an event object with a string `type`/);
    rejects({ ...ok, start: { to: 'a' } }, /`start` must be an array/);
  });

  it('rejects reserved and malformed actor ids (duplicates cannot occur: ids are object keys)', () => {
    rejects({ ...ok, actors: { env: recorder } }, /actor id 'env' is reserved for the outside world; rename the actor/);
    rejects({ ...ok, actors: { 'a b': recorder } }, /actor id 'a b' has characters other than/);
    rejects({ ...ok, actors: {} }, /`actors` is empty/);
    rejects({ ...ok, actors: [recorder] }, /`actors` must be an object mapping actor ids/);
  });

  it('rejects anything that is not a machine, a reducer or an external actor', () => {
    for (const bad of [() => 1, { on: {} }, 42, null, { logic: { states: {} } }, { kind: 'reducer' }]) {
      rejects({ ...ok, start: [], actors: { x: bad } }, /actor 'x' is not a machine: give an xstate machine/);
    }
  });

  it('names an unknown parent', () => {
    rejects({ ...ok, actors: { a: { logic: recorder, parent: 'boss' } }, start: [] }, /actor 'a' names parent 'boss', which is not an actor/);
  });

  it('rejects bad fault specs', () => {
    rejects({ ...ok, faults: { budget: -1 } }, /faults\.budget must be a whole number >= 0, got -1/);
    rejects({ ...ok, faults: { budget: 1.5 } }, /faults\.budget must be a whole number/);
    rejects({ ...ok, faults: { budget: 1, crash: ['ghost'] } }, /faults\.crash names unknown actor 'ghost'/);
    rejects({ ...ok, faults: { budget: 1, crash: ['env'] } }, /faults\.crash names 'env', the outside world, which cannot fail/);
    rejects({ ...ok, faults: { budget: 1, crash: 'a' } }, /faults\.crash must be an array of actor ids/);
    rejects({ ...ok, faults: { budget: 1, restart: ['ghost'] } }, /faults\.restart names unknown actor 'ghost'/);
    rejects({ ...ok, faults: { budget: 1, drop: [['a', 'ghost']] } }, /faults\.drop\[0\] \(receiver\) names unknown actor 'ghost'/);
    rejects({ ...ok, faults: { budget: 1, drop: [['a', 'env']] } }, /faults\.drop\[0\] \(receiver\) names 'env'/);
    rejects({ ...ok, faults: { budget: 1, drop: ['a'] } }, /faults\.drop\[0\] must be a \[from, to\] pair/);
    rejects({ ...ok, faults: { budget: 1, outcomes: ['r'] } }, /faults\.outcomes names 'r', which is not a reducer actor/);
    rejects({ ...ok, faults: { budget: 1, crashes: ['a'] } }, /faults\.crashes is not a fault setting; use budget, crash, restart, drop, outcomes/);
  });

  it('rejects bad policies and properties', () => {
    rejects({ ...ok, unhandled: 'ignore' }, /unhandled must be 'error' or 'trace', got 'ignore'/);
    rejects({ ...ok, timers: 'sometimes' }, /timers must be 'any' or 'quiescent'/);
    rejects({ ...ok, invariants: { safe: true } }, /invariants\.safe must be a function/);
    rejects({ ...ok, monitors: { order: { init: 0 } } }, /monitors\.order must be \{ init, observe/);
    rejects({ ...ok, symmetry: [['a', 'ghost']] }, /symmetry names unknown actor 'ghost'/);
    rejects({ ...ok, name: '' }, /a scenario needs a non-empty string `name`/);
  });
});

describe('run-time misbehaviour is a model error naming the actors', () => {
  it('a message to an actor that does not exist', () => {
    const lost = createMachine({ on: { go: { actions: send('ghost', { type: 'boo' }) } } });
    const sc = defineScenario({ name: 'lost', actors: { a: lost, r: recorder }, start: [{ to: 'a', msg: { type: 'go' } }] });
    const w = initialWorld(sc).world;
    expect(() => apply(sc, w, enabled(sc, w)[0]!)).toThrow(ModelError);
    expect(() => apply(sc, w, enabled(sc, w)[0]!)).toThrow(/actor 'a' sent 'boo' to 'ghost', which is not an actor of scenario 'lost'; known actors: a, r/);
  });

  it('a reducer replying to an actor that does not exist', () => {
    const bad = { kind: 'reducer' as const, init: () => 0, receive: (s: number) => ({ state: s, send: [{ to: 'nowhere', msg: { type: 'x' } }] }) };
    const sc = defineScenario({ name: 'bad-reply', actors: { b: bad }, start: [{ to: 'b', msg: { type: 'go' } }] });
    const w = initialWorld(sc).world;
    expect(() => apply(sc, w, enabled(sc, w)[0]!)).toThrow(/actor 'b' sent 'x' to 'nowhere', which is not an actor of scenario 'bad-reply'/);
  });

  it('an input for an unknown actor', () => {
    const sc = defineScenario(ok);
    expect(() => inputStep(sc, 'env', 'ghost', { type: 'x' })).toThrow(/input to unknown actor 'ghost'; known actors: a, r, s/);
    expect(() => inputStep(sc, 'who', 'a', { type: 'x' })).toThrow(/input from unknown actor 'who'/);
  });
});
