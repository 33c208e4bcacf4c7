// A scenario family: a named, parameterised scenario builder that the CLI lists,
// checks and simulates. Protocols register families in src/machines/catalog.ts.
import { ScenarioError, type ActorMap, type Scenario } from './scenario.ts';

/** What every kind of parameter may have besides its type and default. */
export interface ParamCommon {
  /** One line, shown by `interleave list`. */
  readonly description?: string;
  /**
   * The parameter describes where a recorded run started (a resumed live run's durable
   * state); `check --from <trace>` takes it from the trace unless given.
   */
  readonly fromTrace?: boolean;
}

/** A parameter with a fixed set of values. */
export interface EnumParam extends ParamCommon {
  /** The parameter's kind. */
  readonly type: 'enum';
  /** The allowed values. */
  readonly values: readonly string[];
  /** The value used when `--param` does not set it (one of `values`). */
  readonly default: string;
}

/** An integer (`int`) or a number (`number`) parameter, optionally bounded. */
export interface NumberParam extends ParamCommon {
  /** The parameter's kind. */
  readonly type: 'int' | 'number';
  /** Smallest allowed value (inclusive; default none). */
  readonly min?: number;
  /** Largest allowed value (inclusive; default none). */
  readonly max?: number;
  /** The value used when `--param` does not set it. */
  readonly default: number;
}

/** A boolean parameter (`true`/`false` on the command line). */
export interface BoolParam extends ParamCommon {
  /** The parameter's kind. */
  readonly type: 'bool';
  /** The value used when `--param` does not set it. */
  readonly default: boolean;
}

/** A free-form string parameter. */
export interface StringParam extends ParamCommon {
  /** The parameter's kind. */
  readonly type: 'string';
  /** The value used when `--param` does not set it. */
  readonly default: string;
}

/** A parameter of a scenario family: its type, allowed values and default (shown by `interleave list`). */
export type ParamSpec = EnumParam | NumberParam | BoolParam | StringParam;

/** Parameter values by name, after parsing and defaults. */
export type ParamValues = Readonly<Record<string, string | number | boolean>>;

/** One table of a simulation or benchmark report. */
export interface ReportTable {
  /** The table's heading. */
  readonly title: string;
  /** Column headers. */
  readonly columns: readonly string[];
  /** Rows of cells, one per column. */
  readonly rows: readonly (readonly (string | number)[])[];
  /** A line printed under the table. */
  readonly note?: string;
}

/** What a family's `simulate` returns: tables to print, and the figures for `--json`. */
export interface SimulationReport {
  /** The report's heading. */
  readonly title: string;
  /** The tables, printed in order. */
  readonly tables: readonly ReportTable[];
  /** Machine-readable figures (printed by `--json`). */
  readonly data: unknown;
}

/** Check options a family suggests (the CLI uses them unless the user overrides). */
export interface CheckDefaults {
  /** Search strategy (`check --strategy`). */
  readonly strategy?: 'dfs' | 'bfs' | 'random' | 'pct' | 'pos' | 'swarm';
  /** Longest schedule explored (`--max-depth`). */
  readonly maxDepth?: number;
  /** Distinct-state budget (`--max-states`). */
  readonly maxStates?: number;
  /** Runs for random, PCT, POS and swarm (`--runs`). */
  readonly runs?: number;
  /** PCT's bug depth d (`--depth`). */
  readonly depth?: number;
}

/**
 * A parameterised scenario: `build(params)` makes the scenario for given parameter values.
 * The CLI lists families (`interleave list`), checks and simulates them by name. `A` is
 * the actor map of the scenarios it builds (`defineFamily` infers it from `build`), so
 * `queryOf(family.build(params), world)` is typed; `ScenarioFamily` is the erased form.
 */
export interface ScenarioFamily<A extends ActorMap = any> {
  /** The name the CLI takes (`interleave check <name>`). */
  readonly name: string;
  /** One line, shown by `interleave list`. */
  readonly description: string;
  /** Its parameters by name; `--param key=value` sets them. */
  readonly params: Readonly<Record<string, ParamSpec>>;
  /** Builds the scenario for parsed parameter values (every parameter present, defaults filled in). */
  build(params: ParamValues): Scenario<A>;
  /** Check options for this family, or a function of the parameters. */
  readonly checkDefaults?: CheckDefaults | ((params: ParamValues) => CheckDefaults);
  /** Virtual-time simulation (`interleave simulate`), if the family has a cost model. */
  simulate?(params: ParamValues, opts: { readonly seed: number; readonly onProgress?: SimulationProgress }): SimulationReport;
  /** A line printed after a check (for example the command that shows the fixed design). */
  hint?(params: ParamValues, violated: boolean): string | undefined;
}

/** Told now and then how a long simulation is going: what it runs (a design), steps taken, virtual ms reached. */
export type SimulationProgress = (what: string, steps: number, now: number) => void;

/** Checks a family's name (lower-case words joined by '-') and that each enum parameter's default is one of its values; returns the family. */
export function defineFamily<A extends ActorMap = any>(f: ScenarioFamily<A>): ScenarioFamily<A> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(f.name)) throw new ScenarioError(`scenario family name '${f.name}' must be lower-case words joined by '-'`);
  for (const [k, p] of Object.entries(f.params)) {
    if (p.type === 'enum' && !p.values.includes(p.default)) throw new ScenarioError(`family '${f.name}': param '${k}' default '${p.default}' is not one of ${p.values.join(', ')}`);
  }
  return f;
}

/** A parameter's allowed values in one line, as `interleave list` prints them: `a | b`, `int 1..50`, `true | false`. */
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
