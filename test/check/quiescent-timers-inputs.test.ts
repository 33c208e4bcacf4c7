// `timers: 'quiescent'` with offered inputs: a timer fires once no message is in flight,
// whether or not the environment may still send something, so an input-only world with a
// pending timer is not where a run ends. `enabled`, `isQuiescent` and the liveness pass
// must agree on that under every strategy, with and without the reduction.
import { setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { check, defineScenario, eventually, formatViolation, type Scenario } from 'interleave';
import { enabled, initialWorld, isQuiescent } from 'interleave/kernel';

function alarmModel(budget: number | undefined, fairness?: 'none', timers: 'any' | 'quiescent' = 'quiescent'): Scenario {
  const alarm = setup({}).createMachine({
    id: 'alarm',
    initial: 'waiting',
    states: { waiting: { after: { 100: 'rang' } }, rang: { tags: ['end'] } },
  });
  const m = setup({}).createMachine({
    id: 'm',
    initial: 'idle',
    states: { idle: { tags: ['idle'], on: { poke: 'poked' } }, poked: { tags: ['idle'], on: { poke: 'poked' } } },
  });
  const rang = (q: Parameters<NonNullable<Parameters<typeof defineScenario>[0]['acceptEnd']>>[0]) => q.matches('alarm', 'rang');
  return defineScenario({
    name: `alarm-poke-${budget ?? 'unbudgeted'}`,
    actors: { alarm, m },
    timers,
    inputs: [{ to: 'm', events: ['poke'], ...(budget === undefined ? {} : { budget }) }],
    atEnd: { rings: rang },
    liveness: { rang: eventually(rang) },
    // Unbudgeted pokes can go on forever: only a fair timer must then fire.
    ...(fairness ? { fairness } : budget === undefined ? { fairness: { actors: 'all' as const, timers: 'all' as const } } : {}),
  });
}

describe("timers: 'quiescent' with inputs", () => {
  it('offers the pending timer beside the input, so the initial world is not an end', () => {
    const sc = alarmModel(1);
    const steps = enabled(sc, initialWorld(sc).world);
    expect(steps.map((s) => s.id).sort()).toEqual(['input:env->m:poke', 'timer:alarm:xstate.after.100.alarm.waiting']);
    expect(isQuiescent(steps)).toBe(false);
  });

  for (const budget of [1, undefined]) {
    for (const strategy of ['bfs', 'dfs'] as const) {
      for (const por of [true, false]) {
        it(`holds: ${strategy}, por ${por}, input budget ${budget ?? 'none'}`, async () => {
          const r = await check(alarmModel(budget), { strategy, por });
          expect(r.violation ? formatViolation(r.violation) : r.finding).toBeUndefined();
          expect(r.ok).toBe(true);
          expect(r.complete).toBe(true);
        });
        it(`agrees with timers: 'any': ${strategy}, por ${por}, input budget ${budget ?? 'none'}, no fairness`, async () => {
          const q = await check(alarmModel(budget, 'none'), { strategy, por });
          const a = await check(alarmModel(budget, 'none', 'any'), { strategy, por });
          expect([q.ok, q.complete, q.violation?.property]).toEqual([a.ok, a.complete, a.violation?.property]);
          expect(q.ok).toBe(budget !== undefined);
        });
      }
    }
  }
});
