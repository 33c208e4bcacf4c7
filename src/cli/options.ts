// Parsing and validating command-line values: numbers, shards, `--param k=v`, scenarios.
import { InvalidArgumentError } from 'commander';
import { describeParam, parseParams, type ParamValues, type ScenarioFamily } from '../actors/family.ts';
import { ScenarioError } from '../actors/scenario.ts';
import { UsageError, didYouMean } from './errors.ts';

export function intArg(what: string, min = 0) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${what} must be a whole number${min > 0 ? ` ≥ ${min}` : min === 0 ? ' ≥ 0' : ''}; got '${v}'.`);
    return n;
  };
}

export function secondsArg(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`--time-limit takes seconds (a positive number, e.g. 30 or 0.5); got '${v}'.`);
  return n;
}

/** A positive number of seconds for `flag`. */
export function secondsArgFor(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${flag} takes seconds (a positive number, e.g. 30 or 0.5); got '${v}'.`);
    return n;
  };
}

export function shardArg(v: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(v.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new InvalidArgumentError(`--shard takes i/n with 1 ≤ i ≤ n (this machine runs slice i of n), e.g. 1/4; got '${v}'.`);
  }
  // The checker numbers slices from 0.
  return { index: index - 1, count };
}

export function collectParam(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** The scenario catalog, loaded on first use: it imports every protocol model, which `show` and `--help` do not need. */
export function loadCatalog(): Promise<{ readonly families: readonly ScenarioFamily[] }> {
  return import('../machines/catalog.ts');
}

export async function scenarioNames(): Promise<string[]> {
  return (await loadCatalog()).families.map((f) => f.name);
}

/** Turns repeated `--param k=v` into the family's typed parameters (with defaults). */
/**
 * The family's parameters from `--param k=v` flags. `recorded`: the parameters of
 * a trace the check starts from (`--from`); those the family marks `fromTrace`
 * (where the recorded run started) are taken from it unless given.
 */
export function resolveParams(f: ScenarioFamily, raw: readonly string[], recorded?: { readonly name: string; readonly params: Readonly<Record<string, unknown>> }): ParamValues {
  const given: Record<string, string> = {};
  if (recorded?.name === f.name) {
    for (const [k, spec] of Object.entries(f.params)) if (spec.fromTrace && recorded.params[k] !== undefined) given[k] = String(recorded.params[k]);
  }
  for (const kv of raw) {
    const i = kv.indexOf('=');
    if (i <= 0) {
      const names = Object.keys(f.params);
      throw new UsageError(`--param takes key=value, got '${kv}'; parameters of '${f.name}': ${names.length ? names.map((k) => `${k}=<${describeParam(f.params[k]!)}>`).join(', ') : '(none)'}`);
    }
    given[kv.slice(0, i)] = kv.slice(i + 1);
  }
  try {
    return parseParams(f, given);
  } catch (e) {
    if (e instanceof ScenarioError) {
      const unknown = Object.keys(given).find((k) => !(k in f.params));
      throw new UsageError(`${e.message}${unknown ? didYouMean(unknown, Object.keys(f.params)) : ''}`);
    }
    throw e;
  }
}

/** `k=v, k=v` for messages and reproduction commands. */
/** `--param` flags for `p` (those off their defaults unless `all`); `fromTrace` ones left out when the command names the trace. */
export function paramFlags(f: ScenarioFamily, p: ParamValues, all = false, withTrace = false): string {
  return Object.entries(p)
    .filter(([k, v]) => all || f.params[k]?.default !== v)
    .filter(([k]) => !(withTrace && f.params[k]?.fromTrace))
    .map(([k, v]) => ` --param ${shellWord(`${k}=${String(v)}`)}`)
    .join('');
}

export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
