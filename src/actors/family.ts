// A scenario family: a named, parameterised scenario builder that the CLI lists,
// checks and simulates. Protocols register families in src/machines/catalog.ts.
import { ScenarioError, type Scenario } from './scenario.ts';

/**
 * A parameter of a scenario family: its type, allowed values and default (shown by `interleave list`).
 * `fromTrace`: the parameter describes where a recorded run started (a resumed live
 * run's durable state); `check --from <trace>` takes it from the trace unless given.
 */
type Common = { readonly description?: string; readonly fromTrace?: boolean };
export type ParamSpec =
  | ({ readonly type: 'enum'; readonly values: readonly string[]; readonly default: string } & Common)
  | ({ readonly type: 'int'; readonly min?: number; readonly max?: number; readonly default: number } & Common)
  | ({ readonly type: 'number'; readonly min?: number; readonly max?: number; readonly default: number } & Common)
  | ({ readonly type: 'bool'; readonly default: boolean } & Common)
  | ({ readonly type: 'string'; readonly default: string } & Common);

/** Parameter values by name, after parsing and defaults. */
export type ParamValues = Readonly<Record<string, string | number | boolean>>;

/** One table of a simulation or benchmark report. */
export interface ReportTable {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | number)[])[];
  readonly note?: string;
}

/** What a family's `simulate` returns: tables to print, and the figures for `--json`. */
export interface SimulationReport {
  readonly title: string;
  readonly tables: readonly ReportTable[];
  /** Machine-readable figures (printed by `--json`). */
  readonly data: unknown;
}

/** Check options a family suggests (the CLI uses them unless the user overrides). */
export interface CheckDefaults {
  readonly strategy?: 'dfs' | 'bfs' | 'random' | 'pct' | 'swarm';
  readonly maxDepth?: number;
  readonly maxStates?: number;
  readonly runs?: number;
  readonly depth?: number;
}

/**
 * A parameterised scenario: `build(params)` makes the scenario for given parameter values.
 * The CLI lists families (`interleave list`), checks and simulates them by name.
 */
export interface ScenarioFamily {
  readonly name: string;
  /** One line, shown by `interleave list`. */
  readonly description: string;
  readonly params: Readonly<Record<string, ParamSpec>>;
  build(params: ParamValues): Scenario;
  readonly checkDefaults?: CheckDefaults | ((params: ParamValues) => CheckDefaults);
  /** Virtual-time simulation (`interleave simulate`), if the family has a cost model. */
  simulate?(params: ParamValues, opts: { readonly seed: number }): SimulationReport;
  /** A line printed after a check (for example the command that shows the fixed design). */
  hint?(params: ParamValues, violated: boolean): string | undefined;
}

/** Checks a family's name (lower-case words joined by '-') and that each enum parameter's default is one of its values; returns the family. */
export function defineFamily(f: ScenarioFamily): ScenarioFamily {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(f.name)) throw new ScenarioError(`scenario family name '${f.name}' must be lower-case words joined by '-'`);
  for (const [k, p] of Object.entries(f.params)) {
    if (p.type === 'enum' && !p.values.includes(p.default)) throw new ScenarioError(`family '${f.name}': param '${k}' default '${p.default}' is not one of ${p.values.join(', ')}`);
  }
  return f;
}

export function describeParam(p: ParamSpec): string {
  switch (p.type) {
    case 'enum':
      return p.values.join(' | ');
    case 'int':
    case 'number':
      return `${p.type}${p.min !== undefined || p.max !== undefined ? ` ${p.min ?? '-inf'}..${p.max ?? 'inf'}` : ''}`;
    case 'bool':
      return 'true | false';
    case 'string':
      return 'string';
  }
}

/** Parses `k=v` strings (or already typed values) into a family's parameters, with its defaults. */
export function parseParams(f: ScenarioFamily, raw: Readonly<Record<string, unknown>>): ParamValues {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, p] of Object.entries(f.params)) out[k] = p.default;
  for (const [k, v] of Object.entries(raw)) {
    const p = f.params[k];
    if (!p) {
      const known = Object.keys(f.params);
      throw new ScenarioError(`scenario '${f.name}' has no parameter '${k}'; its parameters are: ${known.length ? known.join(', ') : '(none)'}`);
    }
    const s = String(v);
    switch (p.type) {
      case 'enum':
        if (!p.values.includes(s)) throw new ScenarioError(`parameter '${k}' of '${f.name}' must be one of ${p.values.join(', ')}; got '${s}'`);
        out[k] = s;
        break;
      case 'int':
      case 'number': {
        const n = Number(s);
        if (s.trim() === '' || !Number.isFinite(n) || (p.type === 'int' && !Number.isInteger(n))) {
          throw new ScenarioError(`parameter '${k}' of '${f.name}' must be ${p.type === 'int' ? 'a whole number' : 'a number'}; got '${s}'`);
        }
        if ((p.min !== undefined && n < p.min) || (p.max !== undefined && n > p.max)) {
          throw new ScenarioError(`parameter '${k}' of '${f.name}' must be within ${p.min ?? '-inf'}..${p.max ?? 'inf'}; got ${n}`);
        }
        out[k] = n;
        break;
      }
      case 'bool':
        if (!['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'].includes(s)) throw new ScenarioError(`parameter '${k}' of '${f.name}' must be true or false; got '${s}'`);
        out[k] = ['true', '1', 'on', 'yes'].includes(s);
        break;
      case 'string':
        out[k] = s;
        break;
    }
  }
  return out;
}
