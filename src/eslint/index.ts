// The `interleave/eslint` entry point: an ESLint plugin for users' model files.
import { noModuleState, type LintRule } from './no-module-state.ts';

export { noModuleState, type LintRule, type LintRuleMeta, type RuleContext } from './no-module-state.ts';

/** A flat config: the plugin under the name `interleave` and the rules it turns on. */
export interface InterleaveConfig {
  /** `{ interleave: plugin }`. */
  readonly plugins: Record<string, unknown>;
  /** Rule settings, by rule id. */
  readonly rules: Record<string, unknown>;
}

/** An ESLint flat-config plugin: its rules and a `recommended` config. */
export interface InterleavePlugin {
  /** The plugin's name, as ESLint reports it. */
  readonly meta: {
    /** `'interleave'`. */
    readonly name: string;
  };
  /** The plugin's rules, by name. */
  readonly rules: {
    /** Reports module-level state written inside a function ({@link noModuleState}). */
    readonly 'no-module-state': LintRule;
  };
  /** Ready-made configs. */
  readonly configs: {
    /** `no-module-state`, and no `Date.now()`, `Math.random()` or `performance.now()`. */
    readonly recommended: InterleaveConfig;
  };
}

const restricted = [
  { object: 'Date', property: 'now', message: 'Machines are pure: time comes from timers (the world clock), not the wall clock.' },
  { object: 'Math', property: 'random', message: 'Machines are pure: pass randomness in as data (scenario input or messages).' },
  { object: 'performance', property: 'now', message: 'Machines are pure: time comes from timers (the world clock), not the wall clock.' },
];

const rules = { 'no-module-state': noModuleState };
const recommended = { plugins: {} as Record<string, unknown>, rules: { 'interleave/no-module-state': 'error', 'no-restricted-properties': ['error', ...restricted] } };

/**
 * The interleave ESLint plugin (flat config). Apply it to the files that define your
 * machines, reducers and scenarios: `no-module-state` reports module-level state that
 * code inside them writes, which the checker's run-time purity sample cannot always see.
 *
 * @example
 * ```js
 * // eslint.config.mjs
 * import interleave from 'interleave/eslint';
 * export default [{ files: ['src/models/**'], ...interleave.configs.recommended }];
 * ```
 */
export const plugin: InterleavePlugin = { meta: { name: 'interleave' }, rules, configs: { recommended } };
recommended.plugins.interleave = plugin;

export default plugin;
