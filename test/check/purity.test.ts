// Impure machines are caught during exploration (issue 13, defect 3): the checker
// re-steps a deterministic sample of transitions without the step memo and stops
// with an error naming the actor, its state and the event.
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { defineScenario, NondeterminismError, check, type Scenario } from 'interleave';
import { lostUpdate } from '../fixtures/check/models.ts';

/**
 * A coin flipped by three senders; the guard reads Math.random(). Three heads in a
 * row (probability 1/8 along one run) break the invariant.
 */
function coinModel(): Scenario {
  const coin = setup({ types: {} as { context: { heads: number; flips: number } } }).createMachine({
    id: 'coin',
    context: { heads: 0, flips: 0 },
    initial: 'flipping',
    states: {
      flipping: {
        tags: ['idle'],
        on: {
          flip: [
            { guard: () => Math.random() < 0.5, actions: assign({ heads: ({ context }) => context.heads + 1, flips: ({ context }) => context.flips + 1 }) },
            { actions: assign({ flips: ({ context }) => context.flips + 1 }) },
          ],
        },
      },
    },
  });
  const idle = { kind: 'reducer' as const, init: () => 0, receive: (s: number) => ({ state: s, unhandled: true }) };
  return defineScenario({
    name: 'random-coin',
    actors: { coin, a: idle, b: idle, c: idle },
    start: [
      { from: 'a', to: 'coin', msg: { type: 'flip' } },
      { from: 'b', to: 'coin', msg: { type: 'flip' } },
      { from: 'c', to: 'coin', msg: { type: 'flip' } },
    ],
    invariants: { notThreeHeads: (q) => q.context('coin').heads < 3 },
  });
}

describe('nondeterminism detection', () => {
  it('stops with an error naming the actor, its state and the event in at least 19 of 20 bfs runs', async () => {
    let detected = 0;
    let wrong = 0;
    for (let run = 0; run < 20; run++) {
      try {
        const r = await check(coinModel(), { strategy: 'bfs' });
        if (r.ok && r.complete) wrong++;
      } catch (e) {
        expect(e).toBeInstanceOf(NondeterminismError);
        const err = e as NondeterminismError;
        expect(err.actor).toBe('coin');
        expect(err.state).toBe('flipping');
        expect(err.message).toMatch(/actor 'coin' in state 'flipping' handling 'flip' from '[abc]'/);
        detected++;
      }
    }
    expect(detected).toBeGreaterThanOrEqual(19);
    expect(wrong).toBeLessThanOrEqual(1);
  });

  it('dfs too, and `determinism: false` turns the check off (the verdict is then luck)', async () => {
    await expect(check(coinModel(), { strategy: 'dfs', determinism: { repeats: 8 } })).rejects.toThrow(NondeterminismError);
    const off = await check(coinModel(), { strategy: 'bfs', determinism: false });
    // Off: no re-steps, so the run ends with some verdict (whichever the coin gave).
    expect(off.stats.transitions).toBeGreaterThan(0);
  });

  it('pure models pass with the check on, with the same state counts as with it off', async () => {
    const sc = lostUpdate({ cas: true, clients: 2, rounds: 1 });
    const on = await check(sc, { strategy: 'bfs', determinism: { first: 100000, repeats: 1 } });
    const off = await check(sc, { strategy: 'bfs', determinism: false });
    expect(on.ok).toBe(true);
    expect(on.stats.distinctStates).toBe(off.stats.distinctStates);
    expect(on.stats.transitions).toBe(off.stats.transitions);
  });

  it('an impure initial context is caught before exploring', async () => {
    const m = setup({}).createMachine({ id: 'm', context: () => ({ r: Math.random() }), initial: 'x', states: { x: {} } });
    await expect(check(defineScenario({ name: 'impure-init', actors: { m } }), { strategy: 'bfs' })).rejects.toThrow(/building the initial world twice/);
  });
});
