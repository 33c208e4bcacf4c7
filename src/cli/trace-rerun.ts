// Re-running a saved trace's schedule on its scenario: `replay`'s verdict, and `show`'s
// check that the file's trace is what its schedule produces (a hand-edited schedule
// next to a stale trace would otherwise render as if it had happened).
import { Divergence, ScenarioError, canonicalJson, parseParams, toPlain, type RecordedEvent, type Scenario } from '../actors/index.ts';
import type { TraceFileData } from '../report/index.ts';
import { loadChecker, type Violation } from './check-api.ts';
import { buildScenario } from './commands/check.ts';
import { UsageError } from './errors.ts';
import { traceTarget, type Target } from './scenario-ref.ts';

/** The scenario a trace was saved from, built with the trace's parameters. */
export async function scenarioOfTrace(file: TraceFileData, path: string, config?: string): Promise<{ target: Target; sc: Scenario }> {
  const target = await traceTarget(file, path, config);
  const f = target.family;
  let p;
  try {
    p = parseParams(f, file.scenario.params);
  } catch (e) {
    if (e instanceof ScenarioError || (e instanceof Error && e.name === 'ScenarioError')) throw new UsageError(`${path}: the trace's parameters no longer fit scenario '${f.name}': ${e.message}`);
    throw e;
  }
  return { target, sc: buildScenario(f, p) };
}

export interface Rerun {
  readonly trace: RecordedEvent[];
  readonly violation?: Violation;
}

/**
 * Replays the file's schedule (a live recording's store replies are dropped where the
 * scenario models the store, src/check/from-trace.ts). A step the scenario cannot take
 * is bad input naming the file's step: exit 2.
 */
export async function rerunTrace(file: TraceFileData, path: string, sc: Scenario): Promise<Rerun> {
  const api = await loadChecker();
  const { modelSchedule } = await import('../check/from-trace.ts');
  const m = modelSchedule(sc, file);
  try {
    return api.replaySchedule(sc, m.schedule, m.inputs.length ? m.inputs : undefined);
  } catch (e) {
    if (e instanceof Divergence || (e instanceof Error && e.name === 'Divergence')) {
      const d = e as Divergence;
      // The model schedule may skip recorded replies; name the step as the file numbers it.
      const at = fileIndex(file.schedule, m.schedule, d.index);
      const can = d.enabledIds.length ? `the steps it can take there: ${d.enabledIds.join(', ')}` : 'it can take no step there: the run had ended';
      throw new UsageError(
        `${path}: step ${at + 1} of the file, '${d.expected}', is not a step scenario '${sc.name}' can take (${can}). ` +
          `The file's schedule was edited, or (if it was not) the model changed since the trace was saved.`,
      );
    }
    if (e instanceof ScenarioError || (e instanceof Error && e.name === 'ScenarioError')) throw new UsageError(`${path}: ${e.message}`);
    throw e;
  }
}

/** Where the i-th step of the model schedule stands in the file's schedule. */
function fileIndex(file: readonly string[], model: readonly string[], i: number): number {
  let j = 0;
  for (let k = 0; k < file.length; k++) {
    if (j < model.length && file[k] === model[j]) {
      if (j === i) return k;
      j++;
    }
  }
  return i;
}

/** The first event where the file's trace and the re-run's differ, or undefined if they agree. */
export function firstDifference(saved: readonly unknown[], rerun: readonly RecordedEvent[]): { index: number; step: number } | undefined {
  const norm = (e: unknown) => canonicalJson(JSON.parse(JSON.stringify(e)));
  const n = Math.max(saved.length, rerun.length);
  for (let i = 0; i < n; i++) {
    const a = saved[i];
    const b = rerun[i] === undefined ? undefined : toPlain(rerun[i]);
    if (a === undefined || b === undefined || norm(a) !== norm(b)) {
      const step = ((a ?? b) as { step?: number }).step ?? 0;
      return { index: i, step };
    }
  }
  return undefined;
}
