// Random systems (models.ts) as a user's module, for tests that run the CLI in separate
// processes: their properties dropped, so every search runs to the end and the shards'
// fingerprints can be compared with one process's.
import type { Scenario } from '../../src/actors/index.ts';
import { randomSystem } from './models.ts';

function quiet(seed: number, withFaults: boolean): Scenario {
  const { invariants: _invariants, atEnd: _atEnd, eventually: _eventually, ...rest } = randomSystem(seed, withFaults);
  return { ...rest, name: `random-${seed}${withFaults ? '-faults' : ''}` } as Scenario;
}

export const r1 = quiet(1, false);
export const r11 = quiet(11, false);
export const r14 = quiet(14, true);
export const r24 = quiet(24, true);
