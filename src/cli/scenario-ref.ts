// What `check`, `list`, `simulate`, `replay` and `show` name a scenario by: a built-in
// family ('lost-update'), a user's module ('./scenarios.ts#checkout'), or a name that a
// project's interleave.config.(js|mjs|ts) lists.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ScenarioFamily } from '../actors/index.ts';
import type { TraceFileData } from '../report/index.ts';
import { ModuleLoadError, importModule, scenarioExports, type ScenarioExport } from '../check/load-module.ts';
import { UsageError, didYouMean } from './errors.ts';

async function builtinFamily(name: string): Promise<ScenarioFamily | undefined> {
  const { loadFamily } = await import('../machines/family-table.ts');
  return loadFamily(name);
}

async function builtinNames(): Promise<readonly string[]> {
  return (await import('../machines/family-table.ts')).familyNames;
}

/** A scenario family and, for a user's module, where it was exported from. */
export interface Target {
  readonly family: ScenarioFamily;
  /** Absent for the built-in families. */
  readonly origin?: { readonly path: string; readonly export: string };
}

const MODULE_FILE = /\.(c|m)?[jt]sx?$/i;

/** A module reference ('./x.ts', '../x.mjs#name', '/abs/x.js') rather than a scenario name. */
export function isModuleRef(arg: string): boolean {
  const file = splitRef(arg).path;
  return /^\.{1,2}[\\/]/.test(arg) || isAbsolute(file) || MODULE_FILE.test(file);
}

export function splitRef(arg: string): { path: string; export?: string } {
  const i = arg.lastIndexOf('#');
  return i > 0 ? { path: arg.slice(0, i), export: arg.slice(i + 1) } : { path: arg };
}

/** How a user's scenario is named on a command line run from the current directory. */
export function refText(origin: { path: string; export: string }): string {
  return `${modulePathText(origin.path)}#${origin.export}`;
}

/** A module path as typed on a command line: relative to the current directory when that is shorter. */
export function modulePathText(abs: string): string {
  const rel = relative(process.cwd(), abs);
  if (isAbsolute(rel) || rel.length >= abs.length) return abs;
  return (rel.startsWith('..') ? rel : `./${rel}`).split(sep).join('/');
}

async function moduleExports(path: string, shownAs = path): Promise<ScenarioExport[]> {
  try {
    return scenarioExports(await importModule(path));
  } catch (e) {
    if (e instanceof ModuleLoadError) throw new UsageError(e.message.replace(path, shownAs));
    throw e;
  }
}

function choices(path: string, xs: readonly ScenarioExport[]): string {
  return xs.map((x) => `${path}#${x.export} (${x.kind} '${x.family.name}')`).join(', ');
}

function nothingUsable(path: string, mod: readonly string[]): UsageError {
  return new UsageError(`${path} exports no scenario or family${mod.length ? ` (its exports: ${mod.join(', ')})` : ''}; export one made with defineScenario(...) or defineFamily(...) from 'interleave'`);
}

/** Every usable export of a module reference (the one named after '#', or all of them). */
export function targetsOf(arg: string, base = process.cwd()): Promise<Target[]> {
  return targetsOfRef(splitRef(arg), base);
}

async function targetsOfRef(ref: { path: string; export?: string }, base: string): Promise<Target[]> {
  const abs = resolve(base, ref.path);
  const xs = await moduleExports(abs, ref.path);
  const targets = xs.map((x) => ({ family: x.family, origin: { path: abs, export: x.export } }));
  if (ref.export === undefined) {
    if (!xs.length) throw nothingUsable(ref.path, Object.keys(await importModule(abs)));
    return targets;
  }
  // '#name' is an export name, or else the name of the scenario or family.
  const hit = targets.find((t) => t.origin.export === ref.export) ?? targets.find((t) => t.family.name === ref.export);
  if (hit) return [hit];
  if (!xs.length) throw nothingUsable(ref.path, Object.keys(await importModule(abs)));
  throw new UsageError(`${ref.path} has no scenario export '${ref.export}'${didYouMean(ref.export, xs.map((x) => x.export))}; it exports: ${choices(ref.path, xs)}`);
}

/** The one scenario a module reference names; several without '#export' is an error listing them. */
async function moduleTarget(arg: string): Promise<Target> {
  const ts = await targetsOf(arg);
  if (ts.length === 1) return ts[0]!;
  const path = splitRef(arg).path;
  throw new UsageError(`${path} exports ${ts.length} scenarios; choose one with '#': ${ts.map((t) => `${path}#${t.origin!.export}`).join(', ')}`);
}

// ---- interleave.config.(js|mjs|ts) --------------------------------------------------

const CONFIG_NAMES = ['interleave.config.js', 'interleave.config.mjs', 'interleave.config.ts', 'interleave.config.mts'];

/**
 * The config file to use: --config, else the nearest one from the current directory up to
 * the project's root (the first directory with a package.json), as a command run from a
 * subdirectory (`cd traces && interleave replay x.json`) still belongs to the project.
 */
export function configPath(explicit?: string): string | undefined {
  if (explicit !== undefined) {
    if (!existsSync(explicit)) throw new UsageError(`--config: no such file: ${explicit}`);
    return resolve(explicit);
  }
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    const found = CONFIG_NAMES.map((n) => join(dir, n)).find((p) => existsSync(p));
    if (found || existsSync(join(dir, 'package.json')) || dirname(dir) === dir) return found;
  }
}

/** The scenarios a project's config lists (module references relative to the config file). */
export async function configTargets(explicit?: string): Promise<{ file: string; targets: Target[] } | undefined> {
  const file = configPath(explicit);
  if (!file) return undefined;
  const shown = relative(process.cwd(), file) || file;
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file);
  } catch (e) {
    if (e instanceof ModuleLoadError) throw new UsageError(`config ${e.message}`);
    throw e;
  }
  const cfg = (mod.default ?? mod) as { scenarios?: unknown };
  const list = cfg?.scenarios;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) {
    throw new UsageError(`${shown}: expected \`export default { scenarios: ['./path/to/module.ts', ...] }\` (a list of module paths, relative to the config file, each optionally with #export)`);
  }
  const targets: Target[] = [];
  for (const ref of list as string[]) {
    try {
      targets.push(...(await targetsOf(ref, dirname(file))));
    } catch (e) {
      if (e instanceof UsageError) throw new UsageError(`${shown}: scenario module '${ref}': ${e.message}`);
      throw e;
    }
  }
  return { file, targets };
}

/** The scenario a command-line argument names. Built-in names come first, then the config's. */
export async function resolveTarget(arg: string, config?: string): Promise<Target> {
  if (isModuleRef(arg)) return moduleTarget(arg);
  // Only the named built-in model is loaded (start-up time).
  const builtin = await builtinFamily(arg);
  if (builtin) return { family: builtin };
  const project = await configTargets(config);
  const mine = project?.targets.filter((t) => t.family.name === arg || t.origin?.export === arg) ?? [];
  if (mine.length === 1) return mine[0]!;
  if (mine.length > 1) throw new UsageError(`'${arg}' names ${mine.length} scenarios of ${relative(process.cwd(), project!.file)}; choose one: ${mine.map((t) => refText(t.origin!)).join(', ')}`);
  const names = [...(await builtinNames()), ...(project?.targets.map((t) => t.family.name) ?? [])];
  throw new UsageError(
    `unknown scenario '${arg}'${didYouMean(arg, names)}; registered scenarios: ${names.join(', ')} (see 'interleave list')` +
      (project ? '' : `; to check your own, give its module (interleave check ./scenarios.ts#name) or list it in interleave.config.js`),
  );
}

// ---- the scenario of a saved trace ---------------------------------------------------

/** The scenario a trace file was saved from: its module (relative to the trace), else a built-in or config name. */
export async function traceTarget(file: TraceFileData, tracePath: string, config?: string): Promise<Target> {
  const m = file.scenario.module;
  if (m) {
    const abs = resolve(dirname(resolve(tracePath)), m.path);
    if (!existsSync(abs)) {
      throw new UsageError(`${tracePath} was saved from scenario '${file.scenario.name}' of ${m.path}#${m.export} (relative to the trace file), and there is no module at ${abs}; keep the trace and the module where they were (or move them together)`);
    }
    const [t] = await targetsOfRef({ path: abs, export: m.export }, '/');
    return t!;
  }
  const builtin = await builtinFamily(file.scenario.name);
  if (builtin) return { family: builtin };
  const project = await configTargets(config);
  const mine = project?.targets.filter((t) => t.family.name === file.scenario.name) ?? [];
  if (mine.length === 1) return mine[0]!;
  const names = [...(await builtinNames()), ...(project?.targets.map((t) => t.family.name) ?? [])];
  throw new UsageError(
    `${tracePath}: unknown scenario '${file.scenario.name}'${didYouMean(file.scenario.name, names)}, and the trace does not say which module it came from; ` +
      `scenarios: ${names.join(', ')}. Traces written by 'interleave check ./module.ts#export', or by saveTraceFile(path, file, { module, export }) (a live recording), record their module; for others, list the module in interleave.config.js`,
  );
}
