// The `interleave/vitest` entry point: two matchers for model-checking in a vitest test.
//
//   import 'interleave/vitest';
//   await expect(scenario).toHoldUnder({ strategy: 'bfs' });
//   await expect(buggy).toBeViolatedBy('no lost update');
//
// Importing the module registers the matchers (expect.extend) and their types. A
// failure message shows the shrunk counterexample step by step, the seed, where the
// trace JSON and the HTML viewer were written, and the command that replays it.
/**
 * The vitest matchers `toHoldUnder` and `toBeViolatedBy`; importing the module registers them.
 *
 * @module interleave/vitest
 */
import { expect } from 'vitest';
import { assertScenario, type Scenario } from '../actors/index.ts';
import { check, type CheckOptions, type CheckResult, type ScenarioSource } from '../check/index.ts';
import { htmlPathOf, writeCounterexample, type Written } from './counterexample.ts';

export interface HoldOptions extends CheckOptions {
  /**
   * Pass when no violation was found although exploration was not complete: cut by
   * `maxStates`, `maxDepth` or `timeLimitMs`, or a sampling strategy (random, pct,
   * swarm), which never proves absence. Default false: only a complete exploration passes.
   */
  readonly allowIncomplete?: boolean;
  /**
   * Where to write a counterexample's trace JSON (the HTML viewer goes next to it, `.html`).
   * Default `.interleave/<scenario>-seed<N>.json` under the current directory; `false`
   * writes nothing.
   */
  readonly out?: string | false;
  /**
   * Where the scenario comes from, so that `npx interleave replay` of the trace can rebuild
   * it (and swarm workers can): `{ module: fileURLToPath(new URL('./scenarios.js', import.meta.url)),
   * export: 'checkout' }` for a module's export, `familySource(name, params)` from `interleave/machines` for a bundled model. Without it the failure
   * message shows how to replay the trace in code.
   */
  readonly source?: ScenarioSource;
}

/** Options of `toBeViolatedBy`: those of `toHoldUnder` but `allowIncomplete` (a violation is found or not). */
export type ViolationOptions = Omit<HoldOptions, 'allowIncomplete'>;

/** What a vitest matcher returns. */
export interface MatcherResult {
  /** True when the expectation is met. */
  pass: boolean;
  /** The failure message (or, under `.not`, the message of the unexpected pass). */
  message: () => string;
}

const CUT: Record<string, string> = {
  maxStates: 'the maxStates budget',
  maxDepth: 'the maxDepth bound',
  timeLimit: 'the time limit',
  runs: 'the number of runs (sampling never proves absence)',
  stopped: 'a stop request',
};

function stats(r: CheckResult): string {
  const s = r.stats;
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const distinct = s.distinctStates === undefined ? `${n(s.states)} states (distinct not counted)` : `${n(s.distinctStates)} distinct states`;
  return `${r.strategy}, seed ${r.seed}: ${distinct}, ${n(s.transitions)} transitions, max depth ${s.maxDepth}${s.runs !== undefined ? `, ${n(s.runs)} runs` : ''}`;
}

function verdict(r: CheckResult): string {
  return r.complete ? 'exploration complete' : `exploration not complete: cut by ${CUT[r.cutBy ?? ''] ?? r.cutBy ?? (r.strategy === 'bfs' || r.strategy === 'dfs' ? 'a budget' : 'sampling')}`;
}

/** The counterexample block of a failure message. */
function counterexample(r: CheckResult, w: Written | undefined): string {
  const v = r.violation!;
  const lines = [w?.text ?? '', '', `seed      ${r.seed} (${r.strategy}${v.seed !== undefined && v.seed !== r.seed ? `, failing run's seed ${v.seed}` : ''})`];
  if (w?.jsonPath) {
    lines.push(`trace     ${w.jsonPath}`, `viewer    ${htmlPathOf(w.jsonPath)}#step=${v.schedule.length}  (open in a browser, at the failing step)`, `replay    ${w.replay}`);
  } else if (w?.error) lines.push(`trace     not written: ${w.error}`);
  return lines.join('\n');
}

async function run(received: unknown, opts: ViolationOptions, matcher: string): Promise<{ sc: Scenario; r: CheckResult; w: Written | undefined }> {
  try {
    assertScenario(received);
  } catch {
    throw new TypeError(`${matcher}: expect(...) must be given a scenario made with defineScenario(...), got ${received === null ? 'null' : typeof received}`);
  }
  const { out, ...checkOpts } = opts as HoldOptions;
  delete (checkOpts as { allowIncomplete?: boolean }).allowIncomplete;
  const r = await check(received, checkOpts);
  const w = r.violation ? writeCounterexample(received, r, out, checkOpts.source) : undefined;
  return { sc: received, r, w };
}

/** Passes when every property holds in a complete exploration (or, with `allowIncomplete`, in the part explored). */
export async function toHoldUnder(received: unknown, options: HoldOptions = {}): Promise<MatcherResult> {
  const { sc, r, w } = await run(received, options, 'toHoldUnder');
  if (r.violation) {
    const v = r.violation;
    return { pass: false, message: () => `expected scenario '${sc.name}' to hold, but ${v.property.kind} '${v.property.name}' is violated (${stats(r)})${firstNote(r)}\n\n${counterexample(r, w)}` };
  }
  if (r.finding) {
    const fd = r.finding;
    return { pass: false, message: () => `expected scenario '${sc.name}' to hold, but ${fd.message} (${stats(r)})` };
  }
  if (!r.complete && !options.allowIncomplete) {
    return {
      pass: false,
      message: () => `expected scenario '${sc.name}' to hold, but the ${verdict(r)}: no violation in the part explored, which proves nothing about the rest (${stats(r)}). Raise the budget, use strategy 'bfs' or 'dfs', or pass { allowIncomplete: true } to accept a partial search.`,
    };
  }
  return { pass: true, message: () => `expected scenario '${sc.name}' to be violated, but every property holds (${verdict(r)}; ${stats(r)})` };
}

/** When a budget cut the unreduced re-run, the violation shown is the reduced search's: say so (the checker's first-violation re-run). */
function firstNote(r: CheckResult): string {
  return typeof r.options.firstViolationNote === 'string' ? `\nnote: ${r.options.firstViolationNote}` : '';
}

/** Passes when the check finds a violation of the property named `property` (an invariant, monitor or eventually property). */
export async function toBeViolatedBy(received: unknown, property: string, options: ViolationOptions = {}): Promise<MatcherResult> {
  if (typeof property !== 'string' || property === '') throw new TypeError("toBeViolatedBy: give the name of the property expected to break, e.g. toBeViolatedBy('no lost update')");
  const known = propertyNames(received);
  if (known && !known.includes(property)) {
    throw new TypeError(`toBeViolatedBy: scenario '${(received as Scenario).name}' has no property named '${property}'; its properties are ${known.length ? known.map((n) => `'${n}'`).join(', ') : '(none)'}`);
  }
  const { sc, r, w } = await run(received, options, 'toBeViolatedBy');
  const v = r.violation;
  if (!v) {
    return { pass: false, message: () => `expected scenario '${sc.name}' to be violated by '${property}', but no property was violated (${verdict(r)}; ${stats(r)})` };
  }
  if (v.property.name !== property) {
    return {
      pass: false,
      message: () => `expected scenario '${sc.name}' to be violated by '${property}', but ${v.property.kind} '${v.property.name}' broke first (${stats(r)})${firstNote(r)}\n\n${counterexample(r, w)}`,
    };
  }
  return { pass: true, message: () => `expected scenario '${sc.name}' not to be violated by '${property}', but it is (${stats(r)})\n\n${counterexample(r, w)}` };
}

/** The names a violation can carry: invariants, monitors, end-of-run and liveness properties, and `deadlock`; undefined for what is not a scenario. */
function propertyNames(x: unknown): string[] | undefined {
  try {
    assertScenario(x);
  } catch {
    return undefined;
  }
  const names = [...Object.keys(x.invariants ?? {}), ...Object.keys(x.monitors ?? {}), ...Object.keys(x.eventually ?? {}), ...Object.keys(x.liveness ?? {}), 'deadlock'];
  // Machine errors and unhandled messages are named by the actor.
  return [...names, ...x.ids];
}

/** The matchers, for `expect.extend(interleaveMatchers)` (importing this module already does it). */
export const interleaveMatchers = {
  /** {@link toHoldUnder}: every property holds. */
  toHoldUnder,
  /** {@link toBeViolatedBy}: the named property breaks. */
  toBeViolatedBy,
};

expect.extend(interleaveMatchers);

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the merged declaration must repeat vitest's type parameter
  interface Matchers<T = any> {
    /** Checks the scenario (default strategy bfs); fails on a violation or an incomplete exploration. */
    toHoldUnder(options?: HoldOptions): Promise<void>;
    /** Checks the scenario (default strategy bfs); passes when the named property is the one violated. */
    toBeViolatedBy(property: string, options?: ViolationOptions): Promise<void>;
  }
}
