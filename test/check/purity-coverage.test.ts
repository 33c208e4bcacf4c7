// User code the checker runs outside its sampled search (the reduction's learning walks,
// shrinking, replays) is covered by the nondeterminism check too, and the clock and the
// random source differ on purpose between a step and its re-step, so dependence on them
// shows every time rather than when a millisecond happens to pass.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { NondeterminismError, check, defineScenario, fromTrace, reads, type Scenario, type TraceFile } from 'interleave';
import { DeterminismCheck } from '../../src/check/purity.ts';
import { runSchedule } from '../../src/check/trace/replay.ts';
import { nearestPassing, shrinkSchedule } from '../../src/check/trace/shrink.ts';

/** A guard over a module-level counter: true for its first two calls, false after. */
function countedGuardModel(): Scenario {
  let seen = 0;
  const m = setup({ types: {} as { context: { ok: number } } }).createMachine({
    id: 'm',
    context: { ok: 0 },
    initial: 'on',
    states: {
      on: {
        tags: ['idle'],
        on: { Try: [{ guard: () => ++seen <= 2, actions: assign({ ok: ({ context }) => context.ok + 1 }) }, {}] },
      },
    },
  });
  const idle = { kind: 'reducer' as const, init: () => 0, receive: (s: number) => ({ state: s, unhandled: true }) };
  return defineScenario({
    name: 'counted-guard',
    actors: { m, a: idle, b: idle, c: idle },
    start: [
      { from: 'a', to: 'm', msg: { type: 'Try' } },
      { from: 'b', to: 'm', msg: { type: 'Try' } },
      { from: 'c', to: 'm', msg: { type: 'Try' } },
    ],
    reachable: { 'ok = 2': reads(['m'], (q) => q.context('m').ok === 2) },
  });
}

/** An action that stamps the clock into the context. */
function clockModel(read: () => number): Scenario {
  const m = setup({ types: {} as { context: { at: number } } }).createMachine({
    id: 'm',
    context: { at: 0 },
    initial: 'idle',
    states: { idle: { on: { stamp: { target: 'done', actions: assign({ at: () => read() }) } } }, done: { tags: ['end'] } },
  });
  return defineScenario({ name: 'clock', actors: { m }, start: [{ to: 'm', msg: { type: 'stamp' } }] });
}

describe('purity coverage', () => {
  for (const strategy of ['bfs', 'dfs'] as const) {
    for (const por of [true, false]) {
      it(`flags a guard over a module-level counter: ${strategy}, por ${por}`, async () => {
        await expect(check(countedGuardModel(), { strategy, por })).rejects.toThrow(NondeterminismError);
      });
    }
  }

  const sources: [string, () => number][] = [
    ['Date.now()', () => Date.now()],
    ['new Date()', () => new Date().getTime()],
    ['performance.now()', () => Math.floor(performance.now() / 1000)],
    ['Math.random()', () => Math.floor(Math.random() * 2)],
    ['crypto.randomUUID()', () => (crypto.randomUUID().charCodeAt(0) % 2)],
  ];
  for (const [name, read] of sources) {
    it(`flags an action reading ${name}, every time`, async () => {
      for (let run = 0; run < 10; run++) {
        await expect(check(clockModel(read), { strategy: 'bfs' })).rejects.toThrow(NondeterminismError);
      }
    });
  }

  it('leaves the clock and the random source as they were', async () => {
    const now = Date.now;
    const random = Math.random;
    await expect(check(clockModel(() => Date.now()), { strategy: 'bfs' })).rejects.toThrow(NondeterminismError);
    expect(Date.now).toBe(now);
    expect(Math.random).toBe(random);
    expect(Math.abs(Date.now() - new Date().getTime())).toBeLessThan(60_000);
  });
});

describe('purity coverage after the search', () => {
  const stamp = ['deliver:env->m:stamp'];

  it('shrinking, the final replay and the nearby-passing search step through the sample', () => {
    const sc = clockModel(() => Date.now());
    const purity = new DeterminismCheck(sc, {});
    expect(() => runSchedule(sc, stamp, { detail: true, lenient: false, purity })).toThrow(NondeterminismError);
    expect(() => shrinkSchedule(sc, { kind: 'invariant', name: 'x', message: 'x' }, stamp, { purity: new DeterminismCheck(sc, {}) })).toThrow(NondeterminismError);
    expect(() => nearestPassing(sc, [...stamp, ...stamp], undefined, new DeterminismCheck(sc, {}))).toThrow(NondeterminismError);
    // Without the sample the same replays pass: the sample is what sees it.
    expect(runSchedule(sc, stamp, { detail: true, lenient: false }).schedule).toEqual(stamp);
  });

  it('a search around a recording (`fromTrace`) is sampled too', () => {
    const sc = clockModel(() => Date.now());
    expect(() => fromTrace(sc, { options: {} as TraceFile['options'], schedule: stamp }, { within: 1 })).toThrow(NondeterminismError);
    expect(fromTrace(sc, { options: {} as TraceFile['options'], schedule: stamp }, { within: 1, determinism: false }).ok).toBe(true);
  });
});

describe('state shared between actors outside their snapshots', () => {
  const module = fileURLToPath(new URL('../fixtures/check/shared-map.ts', import.meta.url));

  for (const strategy of ['bfs', 'dfs'] as const) {
    for (const por of [true, false]) {
      it(`is flagged by replays in fresh copies of the scenario's module: ${strategy}, por ${por}`, async () => {
        const { sharedMap } = (await import(`${pathToFileURL(module).href}?case=${strategy}-${por}`)) as typeof import('../fixtures/check/shared-map.ts');
        const err = await check(sharedMap, { strategy, por, source: { module, export: 'sharedMap' } }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(NondeterminismError);
        expect((err as Error).message).toMatch(/fresh copy of module .*shared-map\.ts.*interleave\/no-module-state/s);
      });
    }
  }

  it('without a source the run-time check cannot see it (stated in docs/checker.md): complete, `missed` unreached', async () => {
    const { sharedMap } = (await import(`${pathToFileURL(module).href}?case=nosource`)) as typeof import('../fixtures/check/shared-map.ts');
    const r = await check(sharedMap, { strategy: 'bfs' });
    expect([r.complete, r.unreached]).toEqual([true, ['missed']]);
  });

  it('a pure scenario from a module passes the fresh-copy replays', async () => {
    const { pureTwin } = await import('../fixtures/check/shared-map.ts');
    const r = await check(pureTwin, { strategy: 'bfs', source: { module, export: 'pureTwin' } });
    expect([r.ok, r.complete]).toEqual([true, true]);
  });
});
