// Re-running a saved trace's schedule on its scenario: `replay`'s verdict, and `show`'s
// check that the file's trace is what its schedule produces (a hand-edited schedule
// next to a stale trace would otherwise render as if it had happened).
import { ScenarioError, canonicalJson, parseParams, toPlain, type RecordedEvent, type Scenario } from '../actors/index.ts';
import type { TraceFileData } from '../report/index.ts';
import type { Violation } from './check-api.ts';
import { buildScenario } from './commands/check.ts';
import { UsageError } from './errors.ts';
import { traceTarget, type Target } from './scenario-ref.ts';
import type { RecordingMisfit } from '../check/trace/recorded.ts';
import { DATA_WHY } from './recording-misfit.ts';

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
  /** Steps replayed: the file's, less the recorded replies the model gave itself (live recordings). */
  readonly steps: number;
  /** Recorded replies left out because the scenario models their sender, and those senders. */
  readonly answered: number;
  readonly answeredBy: readonly string[];
  /** The schedule replayed (a live recording's, without the replies the model gave itself). */
  readonly schedule: readonly string[];
}

/**
 * Replays the file's schedule (a live recording's store replies are dropped where the
 * scenario models the store: replayOnModel). A step the scenario cannot take
 * is bad input naming the file's step: exit 2; for a live recording, the first
 * recorded reply the model answered differently is named (what differed, field by field).
 */
export async function rerunTrace(file: TraceFileData, path: string, sc: Scenario, opts: { ignoreData?: boolean } = {}): Promise<Rerun> {
  const { replayOnModel } = await import('../live/replay-on-model.ts');
  try {
    return replayOnModel(sc, file, opts);
  } catch (e) {
    if (e instanceof Error && e.name === 'RecordingMisfit') {
      const d = e as RecordingMisfit;
      if (d.reply !== undefined) throw new UsageError(`${path}: replay diverges at step ${d.step + 1}: a recorded reply differs from the model's: ${d.reply}. ${DATA_WHY}`);
      const dv = d.divergence!;
      const can = dv.enabledIds.length ? `the steps it can take there: ${dv.enabledIds.join(', ')}` : 'it can take no step there: the run had ended';
      throw new UsageError(
        `${path}: step ${d.step + 1} of the file, '${dv.expected}', is not a step scenario '${sc.name}' can take (${can}). ` +
          `The file's schedule was edited, or (if it was not) the model changed since the trace was saved.`,
      );
    }
    if (e instanceof ScenarioError || (e instanceof Error && e.name === 'ScenarioError')) throw new UsageError(`${path}: ${e.message}`);
    throw e;
  }
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
