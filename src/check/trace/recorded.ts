// Trace files recorded with externals (live runs) read against a model: which actors
// ran as externals, the schedule the model replays (the replies of modelled externals
// dropped), and `replayTraceFile`, which replays any trace file in simulation.
import { withExternals, type RecordedEvent, type Scenario, type World } from '../../actors/index.ts';
import { replaySchedule, type ScheduleInput } from './replay.ts';
import type { TraceFile, Violation } from '../types.ts';

/** The actors a trace file says ran as externals (live recordings), else none. */
export function externalsOf(file: Pick<TraceFile, 'options'>): string[] {
  const x = file.options?.externals;
  return Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];
}

/**
 * The scenario to replay a trace file on: for a live recording, the actors that
 * ran as externals are swapped for externals again, so the recorded replies (the
 * `inputs`) are what they answer. Use this before `replaySchedule(sc, file.schedule, file.inputs)`.
 */
export function scenarioForTrace(sc: Scenario, file: Pick<TraceFile, 'options'>): Scenario {
  const ext = externalsOf(file).filter((id) => sc.index.has(id));
  return ext.length ? withExternals(sc, ext) : sc;
}

/**
 * A live recording's schedule for the model: the replies of actors the scenario
 * models (recorded as `input:` steps from externals) are dropped, since the model
 * answers for itself at the delivery; the other inputs are renumbered.
 */
export function modelSchedule(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>): ModelSchedule {
  const modelled = modelledExternals(sc, file);
  const byIndex = new Map(((file.inputs ?? []) as ScheduleInput[]).map((x) => [x.index, x]));
  const schedule: string[] = [];
  const inputs: ScheduleInput[] = [];
  const origin: number[] = [];
  const dropped: ScheduleInput[] = [];
  file.schedule.forEach((id, i) => {
    const inp = byIndex.get(i);
    if (inp && modelled.has(inp.from)) return void dropped.push(inp);
    if (inp) inputs.push({ ...inp, index: schedule.length });
    schedule.push(id);
    origin.push(i);
  });
  return { schedule, inputs, origin, dropped };
}

/** A live recording's schedule for the model, with where each step was in the recording and the replies dropped. */
export interface ModelSchedule {
  readonly schedule: string[];
  readonly inputs: ScheduleInput[];
  /** Per step of `schedule`: its position in the recording. */
  readonly origin: readonly number[];
  /** The recorded replies of modelled externals (the model gives its own), with their positions in the recording. */
  readonly dropped: readonly ScheduleInput[];
}

/** The actors a live recording ran as externals that the scenario models (they answer for themselves on replay). */
export function modelledExternals(sc: Scenario, file: Pick<TraceFile, 'options'>): Set<string> {
  return new Set(externalsOf(file).filter((id) => sc.index.has(id) && sc.actorList[sc.index.get(id)!]!.kind !== 'external'));
}

/**
 * Replays a trace file (live or checked) in simulation: what `interleave replay` does,
 * for a scenario you build yourself. A checked trace replays its schedule as
 * {@link replaySchedule} does. A live recording replays on
 * the model: actors that ran as externals but are modelled answer for themselves
 * (so every property, including those reading a store's state, is checked), and a
 * live reply the model would not give shows up as a `Divergence`. With `recorded`,
 * they are swapped for externals fed by the recorded replies instead.
 *
 * Two lengths: `recordedSteps` is the file's schedule, the run as recorded (what
 * `interleave replay` reports); `schedule` is what was replayed, which for a live
 * recording on the model lacks the `answeredByModel` replies the model gave itself.
 */
export function replayTraceFile(
  sc: Scenario,
  file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>,
  opts: { readonly recorded?: boolean } = {},
): {
  /** The scenario replayed (with externals swapped in when `recorded`). */
  scenario: Scenario;
  /**
   * The schedule replayed: the file's, except that a live recording replayed on the model
   * leaves out the recorded replies of the actors the scenario models, which the model
   * gives itself at their delivery. So `schedule.length` is `recordedSteps - answeredByModel`.
   */
  schedule: string[];
  /** Steps in the file's schedule (`file.schedule.length`): the run as recorded. */
  recordedSteps: number;
  /** Recorded replies left out of `schedule` because the scenario models their sender (0 for a checked trace or with `recorded`). */
  answeredByModel: number;
  /** Its trace events. */
  trace: RecordedEvent[];
  /** The world at the end. */
  world: World;
  /** The property that failed on the way, if any. */
  violation?: Violation;
} {
  const recordedSteps = file.schedule.length;
  if (opts.recorded) {
    const s = scenarioForTrace(sc, file);
    return { scenario: s, schedule: [...file.schedule], recordedSteps, answeredByModel: 0, ...replaySchedule(s, file.schedule, file.inputs as ScheduleInput[] | undefined) };
  }
  const m = modelSchedule(sc, file);
  return { scenario: sc, schedule: m.schedule, recordedSteps, answeredByModel: m.dropped.length, ...replaySchedule(sc, m.schedule, m.inputs.length ? m.inputs : undefined) };
}
