// The example's iterable task as a model: it completes, covers every index once,
// and the marker comes after every checkpoint, in simulation and random schedules.
import { describe, expect, it } from 'vitest';
import { drive, randomChooser, simulate } from 'interleave';
import { iterableTaskScenario } from '../../examples/iterable-task/scenario.ts';
import { MARKER, SCOPE } from '../../examples/iterable-task/machine.ts';
import type { TaskStateState } from 'interleave/storage';

/** key -> value of the example's scope in the simulated store. */
function kvOf(s: TaskStateState): Record<string, string> {
  const out: Record<string, string> = {};
  const prefix = JSON.stringify([SCOPE.dagId, SCOPE.runId, SCOPE.taskId, SCOPE.mapIndex]).slice(0, -1);
  for (const [id, row] of Object.entries(s.rows)) out[id.startsWith(prefix) ? (JSON.parse(id) as unknown[]).at(-1) as string : id] = row.value;
  return out;
}

function covered(kv: Record<string, string>, perIndex: boolean): number[] {
  const out: number[] = [];
  for (const [k, v] of Object.entries(kv)) {
    if (k === MARKER) continue;
    if (perIndex) out.push((JSON.parse(v) as [number, string])[0]);
    else for (const [i] of JSON.parse(v) as [number, string][]) out.push(i);
  }
  return out.sort((a, b) => a - b);
}

describe('iterable task model', () => {
  for (const perIndex of [false, true]) {
    it(`completes with every index checkpointed exactly once (${perIndex ? 'per index' : 'per round'})`, () => {
      const sc = iterableTaskScenario({ n: 37, w: 4, perIndex });
      for (const seed of [1, 2, 3]) {
        const r = drive(sc, randomChooser(seed), { maxSteps: 5000 });
        expect(r.world.failure).toBeUndefined();
        expect(r.end).toBe('quiescent');
        const kv = kvOf(r.world.snaps[sc.index.get('store')!] as TaskStateState);
        expect(covered(kv, perIndex)).toEqual(Array.from({ length: 37 }, (_, i) => i));
        expect(kv[MARKER]).toBeDefined();
      }
      const sim = simulate(sc, {}, { seed: 1 });
      expect(sim.end).toBe('quiescent');
    });
  }
});
