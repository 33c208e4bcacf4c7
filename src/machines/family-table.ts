// The one table of bundled scenario families: each family's name, module and export.
// The CLI loads one family without the others (`interleave check lost-update` does not
// load the Amber model and apache-arrow with it), and swarm workers rebuild a bundled
// scenario from `familySource`, as they rebuild a user's from `{ module, export }`.
import { fileURLToPath } from 'node:url';
import type { ScenarioFamily } from '../actors/index.ts';

interface Entry {
  readonly name: string;
  /** The family's module, relative to this file, without its extension. */
  readonly file: string;
  readonly export: string;
  readonly load: () => Promise<Record<string, unknown>>;
}

const table: readonly Entry[] = [
  { name: 'ping-pong', file: './demo/family', export: 'pingPongFamily', load: () => import('./demo/family.ts') },
  { name: 'lost-update', file: './demo/lost-update-family', export: 'lostUpdateFamily', load: () => import('./demo/lost-update-family.ts') },
  { name: 'amber-loop', file: './amber/family', export: 'amberLoopFamily', load: () => import('./amber/family.ts') },
  { name: 'materialize-peeks', file: './materialize/family', export: 'materializePeeksFamily', load: () => import('./materialize/family.ts') },
  { name: 'airflow-checkpoints', file: './airflow/family', export: 'airflowFamily', load: () => import('./airflow/family.ts') },
  { name: 'rally', file: './demo/liveness-families', export: 'rallyFamily', load: () => import('./demo/liveness-families.ts') },
  { name: 'retry', file: './demo/liveness-families', export: 'retryFamily', load: () => import('./demo/liveness-families.ts') },
];

// The sources run as .ts (a clone), the package as compiled .js next to this file.
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** The bundled families' names, in the order `interleave list` shows them. */
export const familyNames: readonly string[] = table.map((e) => e.name);

function entry(name: string): Entry | undefined {
  return table.find((e) => e.name === name);
}

/** The bundled family named `name`, loading only its own module; undefined if there is none. */
export function loadFamily(name: string): Promise<ScenarioFamily> | undefined {
  const e = entry(name);
  return e ? e.load().then((m) => m[e.export] as ScenarioFamily) : undefined;
}

/** A bundled family as a check's `source`. */
export interface FamilySource {
  /** The family's module file (absolute path). */
  readonly module: string;
  /** The family's export in it. */
  readonly export: string;
  /** The parameters it is built with. */
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * Where a bundled family is defined, as a check's `source` (`{ module, export, params }`):
 * swarm workers rebuild the scenario from it. Undefined for a name that is not bundled.
 */
export function familySource(name: string, params: Readonly<Record<string, unknown>> = {}): FamilySource | undefined {
  const e = entry(name);
  return e ? { module: fileURLToPath(new URL(e.file + EXT, import.meta.url)), export: e.export, params } : undefined;
}
