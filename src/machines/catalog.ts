// Every scenario family the CLI knows, by name. Each protocol adds one import and one entry.
import type { ScenarioFamily } from '../actors/family.ts';
import { pingPongFamily } from './demo/family.ts';
import { lostUpdateFamily } from './demo/lost-update-family.ts';
import { rallyFamily, retryFamily } from './demo/liveness-families.ts';
import { amberLoopFamily } from './amber/family.ts';
import { materializePeeksFamily } from './materialize/family.ts';
import { airflowFamily } from './airflow/family.ts';

/** Every bundled scenario family, in the order `interleave list` shows them. */
export const families: readonly ScenarioFamily[] = [pingPongFamily, lostUpdateFamily, amberLoopFamily, materializePeeksFamily, airflowFamily, rallyFamily, retryFamily];

/** The bundled family with this name, or undefined. */
export function findFamily(name: string): ScenarioFamily | undefined {
  return families.find((f) => f.name === name);
}
