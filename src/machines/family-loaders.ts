// The catalog's families one at a time: `interleave check lost-update` loads the
// lost-update model only, not the Amber model and apache-arrow with it (about half of the
// command's start-up). test/family-loaders.test.ts keeps this list equal to catalog.ts.
import type { ScenarioFamily } from '../actors/family.ts';

const loaders: Readonly<Record<string, () => Promise<ScenarioFamily>>> = {
  'ping-pong': async () => (await import('./demo/family.ts')).pingPongFamily,
  'lost-update': async () => (await import('./demo/lost-update-family.ts')).lostUpdateFamily,
  'amber-loop': async () => (await import('./amber/family.ts')).amberLoopFamily,
  'materialize-peeks': async () => (await import('./materialize/family.ts')).materializePeeksFamily,
  'airflow-checkpoints': async () => (await import('./airflow/family.ts')).airflowFamily,
  rally: async () => (await import('./demo/liveness-families.ts')).rallyFamily,
  retry: async () => (await import('./demo/liveness-families.ts')).retryFamily,
};

export const familyNames: readonly string[] = Object.keys(loaders);

/** The catalog family named `name`, loading only its own module; undefined if there is none. */
export function loadFamily(name: string): Promise<ScenarioFamily> | undefined {
  return Object.hasOwn(loaders, name) ? loaders[name]!() : undefined;
}
