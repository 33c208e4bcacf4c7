// Importing a user's scenario module by path, in the CLI and in swarm worker threads.
// TypeScript modules go through tsx, registered on first need: tsx is an optional
// dependency, so plain .js/.mjs modules load without it.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Scenario, ScenarioFamily } from '../actors/index.ts';

/** A module could not be found or loaded: the message names the path and what to do. */
export class ModuleLoadError extends Error {
  override name = 'ModuleLoadError';
}

const TS_FILE = /\.(c|m)?tsx?$/i;

export function isTypeScriptPath(path: string): boolean {
  return TS_FILE.test(path);
}

/** tsx's loader, registered at most once per thread (keyed by the API's specifier). */
const registered = new Map<string, Promise<void>>();

function registerTsx(forPath: string, specifier: string): Promise<void> {
  let p = registered.get(specifier);
  if (!p) {
    p = (async () => {
      let api: { register: () => unknown };
      try {
        api = (await import(specifier)) as typeof api;
      } catch (e) {
        registered.delete(specifier);
        const code = (e as { code?: string }).code;
        if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
          throw new ModuleLoadError(`${forPath} is TypeScript, and loading TypeScript needs tsx, which is not installed: install it (npm install --save-dev tsx) or compile the module to .js and give that file`);
        }
        throw e;
      }
      api.register();
    })();
    registered.set(specifier, p);
  }
  return p;
}

/**
 * The module's namespace. `path` is absolute or relative to the current directory.
 * `tsxApi` names tsx's loader API (tests pass a missing package to see the message).
 */
export async function importModule(path: string, opts: { tsxApi?: string; fresh?: string } = {}): Promise<Record<string, unknown>> {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new ModuleLoadError(`no such module: ${path}`);
  if (statSync(abs).isDirectory()) throw new ModuleLoadError(`${path} is a directory; give the scenario module's file (.js, .mjs or .ts)`);
  if (isTypeScriptPath(abs)) await registerTsx(path, opts.tsxApi ?? 'tsx/esm/api');
  try {
    // `fresh`: another URL for the same file, so it is evaluated again (the modules it imports are not).
    const href = pathToFileURL(abs).href + (opts.fresh === undefined ? '' : `?interleave-fresh=${encodeURIComponent(opts.fresh)}`);
    return (await import(href)) as Record<string, unknown>;
  } catch (e) {
    const code = (e as { code?: string }).code;
    const msg = e instanceof Error ? e.message : String(e);
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION') throw new ModuleLoadError(`cannot load ${path}: ${msg}; give a .js, .mjs or .ts module`);
    throw new ModuleLoadError(`cannot load ${path}: ${e instanceof Error ? `${e.name}: ${msg}` : msg}`);
  }
}

/** A usable export of a scenario module: a family, or a plain scenario seen as a family without parameters. */
export interface ScenarioExport {
  readonly export: string;
  readonly kind: 'scenario' | 'family';
  readonly family: ScenarioFamily;
}

export function isScenario(x: unknown): x is Scenario {
  return typeof x === 'object' && x !== null && (x as Scenario).compiled === true && typeof (x as Scenario).name === 'string';
}

export function isFamily(x: unknown): x is ScenarioFamily {
  const f = x as ScenarioFamily;
  return typeof x === 'object' && x !== null && typeof f.name === 'string' && typeof f.build === 'function' && typeof f.params === 'object' && f.params !== null;
}

/** A plain scenario as a family with no parameters, so the CLI treats both alike. */
export function scenarioAsFamily(sc: Scenario): ScenarioFamily {
  return { name: sc.name, description: sc.description ?? `scenario '${sc.name}'`, params: {}, build: () => sc };
}

/** The scenarios and families a module exports, in export-name order (`default` included). */
export function scenarioExports(mod: Record<string, unknown>): ScenarioExport[] {
  const out: ScenarioExport[] = [];
  for (const [name, x] of Object.entries(mod)) {
    // `export default x` next to `export { x }` is one scenario, not two.
    if (name === 'default' && Object.entries(mod).some(([k, y]) => k !== 'default' && y === x)) continue;
    if (isFamily(x)) out.push({ export: name, kind: 'family', family: x });
    else if (isScenario(x)) out.push({ export: name, kind: 'scenario', family: scenarioAsFamily(x) });
  }
  return out;
}
