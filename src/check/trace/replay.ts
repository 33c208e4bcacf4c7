// Replay: follow a schedule of step ids from the initial world, checking every
// property on the way. Strict replay throws `Divergence` (src/actors/drive.ts) at
// the first step that is not enabled; lenient replay (for shrinking) skips it.
import {
  Divergence,
  apply,
  enabled,
  initialWorld,
  inputStep,
  isQuiescent,
  tickStep,
  type Message,
  type RecordedEvent,
  type Scenario,
  type Step,
  type StepMemo,
  type TraceEvent,
  type World,
} from '../../actors/index.ts';
import { quiescentViolation, stepViolation } from '../properties.ts';
import type { DeterminismCheck } from '../purity.ts';
import type { PropertyRef, Violation } from '../types.ts';

/** Messages from outside recorded with a schedule (live runs): `input:` steps need their payload. */
export interface ScheduleInput {
  readonly index: number;
  readonly from: string;
  readonly to: string;
  readonly msg: unknown;
}

export interface ReplayOutcome {
  /** The steps actually taken (lenient replay skips some). */
  readonly schedule: string[];
  readonly world: World;
  readonly trace: RecordedEvent[];
  readonly property?: PropertyRef;
}

function record(out: RecordedEvent[] | undefined, evs: readonly TraceEvent[], step: number): void {
  if (out) for (const e of evs) out.push({ ...e, step } as RecordedEvent);
}

/**
 * Runs `schedule`; stops at the first violated property. Quiescent properties
 * (eventually, deadlock) are checked where the schedule ends, if the world is quiescent there.
 */
export function runSchedule(
  sc: Scenario,
  schedule: readonly string[],
  opts: { detail: boolean; lenient: boolean; inputs?: readonly ScheduleInput[]; through?: boolean; collect?: (events: readonly TraceEvent[]) => void; purity?: DeterminismCheck | undefined; memo?: StepMemo | undefined },
): ReplayOutcome {
  let first: PropertyRef | undefined;
  const trace: RecordedEvent[] | undefined = opts.detail ? [] : undefined;
  const taken: string[] = [];
  const memo = opts.memo;
  const init = initialWorld(sc, { detail: opts.detail, memo });
  let w = init.world;
  opts.purity?.checkInitial(w);
  record(trace, init.events, 0);
  const v0 = stepViolation(sc, w, init.events);
  if (v0 && !opts.through) return { schedule: taken, world: w, trace: trace ?? [], property: v0 };
  first = v0;
  const inputs = new Map((opts.inputs ?? []).map((x) => [x.index, x]));
  for (let i = 0; i < schedule.length; i++) {
    const want = schedule[i]!;
    let step: Step | undefined;
    const inp = inputs.get(i);
    if (inp) step = inputStep(sc, inp.from, inp.to, inp.msg as Message);
    else if (want.startsWith('tick:')) step = tickStep(Number(want.slice(5)));
    else {
      const steps = enabled(sc, w);
      step = steps.find((s) => s.id === want);
      if (!step) {
        if (opts.lenient) continue;
        throw new Divergence(i, want, steps.map((s) => s.id));
      }
    }
    const r = opts.purity ? opts.purity.apply(w, step, { detail: opts.detail, memo }) : apply(sc, w, step, { detail: opts.detail, memo });
    w = r.world;
    taken.push(step.id);
    record(trace, r.events, taken.length);
    opts.collect?.(r.events);
    const v = first ? undefined : stepViolation(sc, w, r.events);
    if (v && !opts.through) return { schedule: taken, world: w, trace: trace ?? [], property: v };
    first ??= v;
  }
  // With `through`, every step was taken to see that the schedule fits; the first violation is the verdict.
  if (first) return { schedule: taken, world: w, trace: trace ?? [], property: first };
  const end = enabled(sc, w);
  const q = isQuiescent(end) ? quiescentViolation(sc, w) : undefined;
  return q ? { schedule: taken, world: w, trace: trace ?? [], property: q } : { schedule: taken, world: w, trace: trace ?? [] };
}

/**
 * Replays a schedule (a list of step ids, as in `Violation.schedule` or a trace file)
 * exactly, with full trace detail, checking every property on the way; `violation` is
 * set when one fails. Throws `Divergence` naming the step index, the expected step and
 * the enabled ones when a step is not one the scenario can take there (the model or
 * the schedule changed). `inputs` are the payloads of `input:` steps (live recordings).
 *
 * @example
 * ```ts
 * const { violation } = replaySchedule(scenario, result.violation!.schedule);
 * ```
 */
export function replaySchedule(
  sc: Scenario,
  schedule: readonly string[],
  inputs?: readonly ScheduleInput[],
): {
  /** The trace events along the schedule. */
  trace: RecordedEvent[];
  /** The world at the end. */
  world: World;
  /** The property that failed on the way, if any (the replay stops there). */
  violation?: Violation;
} {
  const out = runSchedule(sc, schedule, { detail: true, lenient: false, ...(inputs ? { inputs } : {}) });
  if (!out.property) return { trace: out.trace, world: out.world };
  return {
    trace: out.trace,
    world: out.world,
    violation: { property: out.property, schedule: out.schedule, originalLength: out.schedule.length, trace: out.trace, world: out.world },
  };
}
