// Mistakes in a model are model errors, never silent: a property naming a state or an
// actor the scenario does not have, a predicate that throws, a message with no target;
// a `reachable` goal a complete search never reaches fails the check; properties that
// could not have failed are listed.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { check, defineScenario, ModelError, optional, reads, send, type Scenario } from 'interleave';
import { toBeViolatedBy } from 'interleave/vitest';
import { cli, runMainIn, scratchDir } from '../helpers/cli.ts';

const client = createMachine({
  id: 'client',
  initial: 'idle',
  states: {
    idle: { on: { Book: { target: 'booking', actions: send('store', { type: 'Reserve' }) } } },
    booking: { on: { Reserved: 'booked' } },
    booked: { tags: ['end'] },
  },
});
const store = {
  kind: 'reducer' as const,
  init: () => ({ sold: 0 }),
  receive: (s: { sold: number }, msg: { type: string }, ctx: { from: string }) =>
    msg.type === 'Reserve' ? { state: { sold: s.sold + 1 }, send: [{ to: ctx.from, msg: { type: 'Reserved' } }] } : { state: s, unhandled: true },
};
const base = { actors: { alice: client, bob: client, store }, start: [{ to: 'alice', msg: { type: 'Book' } }, { to: 'bob', msg: { type: 'Book' } }] };

async function modelError(sc: Scenario): Promise<ModelError> {
  const e = await check(sc).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ModelError);
  return e as ModelError;
}

describe('model errors', () => {
  it('a state the machine does not have names the property, the actor and the value, with the schedule to it', async () => {
    const e = await modelError(defineScenario({ ...base, name: 'typo', invariants: { 'not both': (q) => !(q.matches('alice', 'bookd') && q.matches('bob', 'booked')) } }));
    expect(e.message).toContain("invariant 'not both'");
    expect(e.message).toContain("'bookd' is not a state (the machine has 'idle', 'booking', 'booked')");
    expect(e.actor).toBe('alice');
    expect(e.value).toBe('bookd');
    expect(e.schedule).toEqual([]);
  });

  it('a nested state path is checked segment by segment, and a valid one passes', async () => {
    const m = createMachine({ id: 'm', initial: 'a', states: { a: { initial: 'x', states: { x: {}, y: {} } } } });
    const ok = await check(defineScenario({ name: 'nested', actors: { m }, invariants: { in: (q) => q.matches('m', 'a.x') && q.matches('m', { a: 'x' }) } }));
    expect(ok.ok).toBe(true);
    const e = await modelError(defineScenario({ name: 'nested-bad', actors: { m }, invariants: { in: (q) => q.matches('m', { a: 'z' }) } }));
    expect(e.message).toContain("'a.z' is not a state ('a' has 'x', 'y')");
  });

  it('an unknown actor and a throwing predicate are model errors, not violations', async () => {
    // A type error in TypeScript; JavaScript users and casts get the model error.
    // @ts-expect-error 'bobb' is not an actor of this scenario
    const unknown = await modelError(defineScenario({ ...base, name: 'who', invariants: { who: (q) => q.context('bobb') === undefined } }));
    expect(unknown.message).toContain("invariant 'who': unknown actor 'bobb'; the actors of scenario 'who' are 'alice', 'bob', 'store'");
    const threw = await modelError(defineScenario({ ...base, name: 'throws', reachable: { sold: (q) => (q.context('store') as any).seats.length > 0 } }));
    expect(threw.message).toMatch(/^reachable 'sold': threw: /);
    expect(threw.property).toBe("reachable 'sold'");
  });

  it('matches on a reducer is a model error (it has no states)', async () => {
    // @ts-expect-error a reducer has no state values
    const e = await modelError(defineScenario({ ...base, name: 'reducer', invariants: { r: (q) => !q.matches('store', 'open') } }));
    expect(e.message).toContain("'store' is not a state machine");
  });

  it('a message with no target names the step, the message handled and the state, with the schedule', async () => {
    const lost = createMachine({
      id: 'lost',
      types: {} as { context: { peer?: string } },
      context: {},
      initial: 'idle',
      states: { idle: { on: { Go: { target: 'sent', actions: send(({ context }) => context.peer as string, { type: 'Hi' }) } } }, sent: {} },
    });
    const e = await modelError(defineScenario({ name: 'no-target', actors: { a: lost }, start: [{ to: 'a', msg: { type: 'Go' } }] }));
    expect(e.message).toContain("actor 'a' sent 'Hi' with no target");
    expect(e.message).toContain("while 'a' in state 'idle' handled 'Go' from 'env' (step 'deliver:env->a:Go')");
    expect(e.schedule).toEqual(['deliver:env->a:Go']);
  });
});

describe('no vacuous pass', () => {
  it('a complete search that never reaches a required goal fails, with the closest world', async () => {
    const r = await check(defineScenario({ ...base, name: 'three', reachable: { 'three sold': (q) => q.context('store').sold === 3 } }));
    expect(r.complete).toBe(true);
    expect(r.ok).toBe(false);
    expect(r.violation).toBeUndefined();
    expect(r.finding?.kind).toBe('unreached');
    expect(r.finding?.goals).toEqual(['three sold']);
    expect(r.unreached).toEqual(['three sold']);
    // The first world explored in which every actor has moved: both clients booking, a seat sold.
    expect((r.finding!.closest!.snaps[2] as { sold: number }).sold).toBe(1);
  });

  it('an optional goal may go unreached; a reached one is not listed', async () => {
    const r = await check(defineScenario({ ...base, name: 'opt', reachable: { both: (q) => q.matches('alice', 'booked') && q.matches('bob', 'booked'), three: optional((q) => q.context('store').sold === 3) } }));
    expect(r.ok).toBe(true);
    expect(r.finding).toBeUndefined();
    expect(r.unreached).toEqual(['three']);
  });

  it('an incomplete search does not fail on an unreached goal (it is only listed)', async () => {
    const r = await check(defineScenario({ ...base, name: 'cut', reachable: { three: (q) => q.context('store').sold === 3 } }), { maxStates: 2 });
    expect(r.complete).toBe(false);
    expect(r.ok).toBe(true);
    expect(r.unreached).toEqual(['three']);
  });

  it('lists properties that could not have failed: those reading an actor that never moves', async () => {
    const idle = createMachine({ id: 'idle', initial: 'waiting', states: { waiting: {} } });
    const r = await check(defineScenario({ ...base, actors: { ...base.actors, carol: idle }, name: 'vacuous', invariants: { 'carol waits': reads(['carol'], (q) => q.matches('carol', 'waiting')), 'sold <= 2': reads(['store'], (q) => q.context('store').sold <= 2) } }));
    expect(r.ok).toBe(true);
    expect(r.vacuous).toEqual(["invariant 'carol waits'"]);
  });

  it('end-of-run properties of a model whose runs never end are never checked, and the result says so', async () => {
    const player = (peer: string) => createMachine({ id: 'player', initial: 'play', states: { play: { on: { ball: { actions: send(peer, { type: 'ball' }) } } }, done: {} } });
    const sc = defineScenario({ name: 'endless', actors: { a: player('b'), b: player('a') }, start: [{ to: 'a', msg: { type: 'ball' } }], eventually: { 'a done': (q) => q.matches('a', 'done') } });
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.complete).toBe(true);
    expect(String(r.options.endNote)).toMatch(/no run ends .*'a done' were never checked; a property of runs that never end is a liveness property/);
    expect(r.vacuous).toContain("end-of-run 'a done'");
  });

  it('toBeViolatedBy a property the scenario does not have lists those it has', async () => {
    const sc = defineScenario({ ...base, name: 'names', invariants: { 'sold <= 2': (q) => q.context('store').sold <= 2 } });
    await expect(toBeViolatedBy(sc, 'sold < 2')).rejects.toThrow("scenario 'names' has no property named 'sold < 2'; its properties are 'sold <= 2', 'deadlock', 'alice', 'bob', 'store'");
  });
});

describe('interleave check on a JavaScript model', () => {
  const mod = join(dirname(), '..', 'fixtures', 'user-scenarios', 'booking.mjs');
  it('exits 2 naming a state the machine does not have, and saves the schedule', () => {
    const dir = scratchDir();
    const r = cli(['check', `${mod}#typoState`], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain("model error in the initial world: invariant 'not both': matches('alice', \"bookd\"): 'bookd' is not a state");
    expect(r.stderr).toContain('the schedule that reaches it is saved');
  });
  // The rest run the command in this process (the exit code above is a real child's).
  it('shards only list an unreached goal; merge of the complete shards fails on it', async () => {
    const dir = scratchDir();
    for (const i of [1, 2]) {
      const r = await runMainIn(dir, 'check', `${mod}#unreached`, '--strategy', 'dfs', '--shard', `${i}/2`, '--result', `s${i}.json`);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
    const merged = await runMainIn(dir, 'merge', 's1.json', 's2.json');
    expect(merged.code, merged.stdout + merged.stderr).toBe(1);
    expect(merged.stdout).toContain('✗ never reached: three sold');
  });
  it('exits 1 on an unreached goal, 0 when it is optional', async () => {
    const dir = scratchDir();
    const r = await runMainIn(dir, 'check', `${mod}#unreached`);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('✗ never reached: three sold');
    expect((await runMainIn(dir, 'check', `${mod}#optionalGoal`)).code).toBe(0);
  });
});

function dirname(): string {
  return fileURLToPath(new URL('.', import.meta.url));
}
