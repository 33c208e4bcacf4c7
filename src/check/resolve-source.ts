// A scenario built from where it lives (`CheckOptions.source`): a module exporting a
// Scenario, a family (built with the given parameters) or a function returning one. Swarm
// workers rebuild their scenario this way, and fresh-modules.ts builds fresh copies of it.
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../actors/index.ts';
import type { ScenarioSource } from './types.ts';

/**
 * Builds a scenario from a source (used by workers; exported for the CLI and tests).
 * `fresh`: a new copy of the module itself, evaluated again (its own module-level state).
 */
export async function resolveSource(src: ScenarioSource, fresh?: string): Promise<Scenario> {
  const { importModule, isFamily } = await import('./load-module.ts');
  const mod = await importModule(src.module.startsWith('file:') ? fileURLToPath(src.module) : src.module, fresh === undefined ? {} : { fresh });
  const x = mod[src.export];
  if (x === undefined) throw new Error(`module '${src.module}' has no export '${src.export}'`);
  if (isFamily(x)) {
    const { parseParams } = await import('../actors/family.ts');
    return x.build(parseParams(x, src.params ?? {}));
  }
  const sc = typeof x === 'function' ? (x as (...a: unknown[]) => unknown)(...(src.args ?? [])) : x;
  if (!sc || typeof sc !== 'object' || (sc as Scenario).compiled !== true) throw new Error(`export '${src.export}' of '${src.module}' is not a scenario, a family, or a function returning a scenario`);
  return sc as Scenario;
}
