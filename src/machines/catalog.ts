// Every bundled family, loaded (for `interleave/machines` and `list`); the table of their
// names and modules is family-table.ts.
import type { ScenarioFamily } from '../actors/index.ts';
import { familyNames, loadFamily } from './family-table.ts';

export { familyNames, loadFamily, familySource, type FamilySource } from './family-table.ts';

/** Every bundled family, loaded, in the order `interleave list` shows them. */
export const families: readonly ScenarioFamily[] = await Promise.all(familyNames.map((n) => loadFamily(n)!));

/** The bundled family with this name, or undefined. */
export function findFamily(name: string): ScenarioFamily | undefined {
  return families.find((f) => f.name === name);
}
