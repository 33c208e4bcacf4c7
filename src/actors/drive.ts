// The one deterministic step loop. A chooser picks the next step among the enabled
// ones; random walks, replay, PCT and simulation are choosers.
// rxjs's own subpath (in its exports map): the package index loads every operator (about 70 ms of CPU).
import { Observable } from 'rxjs/internal/Observable';
import type { Subscriber } from 'rxjs';
import { apply, enabled, initialWorld, inputStep, isFailureEvent, isQuiescent, tickStep } from './kernel.ts';
import { rng } from './prng.ts';
import { ScenarioError, type Scenario } from './scenario.ts';
import { canonicalJson } from './serialize.ts';
import type { Message, RecordedEvent, Step, TraceEvent, World } from './types.ts';

/** Picks the next step, or `undefined` to stop. */
export type Chooser = ((world: World, steps: readonly Step[], depth: number) => Step | undefined) & {
  /** The chooser may supply steps `enabled` never offers (ticks, inputs): ask it even when nothing is enabled. */
  readonly injects?: boolean;
};

/** Options of the step loop under `replay` and the random walks. */
export interface DriveOptions {
  /** Stop after this many steps (default 10,000). */
  readonly maxSteps?: number;
  /** Record context changes on state events (default true). */
  readonly detail?: boolean;
  /** Called with every event as it happens. */
  readonly onEvent?: (e: RecordedEvent) => void;
  /** Stop at the first failure event: a monitor failure, a machine error, or an unhandled event under `unhandled: 'error'` (default true). */
  readonly stopOnFailure?: boolean;
  /** Keep the events in the returned run (default true); false leaves `events` empty, so a long run with large payloads holds none of them (`onEvent` still sees each). */
  readonly record?: boolean;
}

/** Why a run stopped. */
export type RunEnd = 'quiescent' | 'max-steps' | 'stopped' | 'failure';

/** One run: the steps taken, the events they caused, the world at the end and why it ended. */
export interface Run {
  /** The step ids taken, in order (replay takes this). */
  readonly schedule: readonly string[];
  /** The trace events, each with its step number (empty with `record: false`). */
  readonly events: readonly RecordedEvent[];
  /** The world after the last step. */
  readonly world: World;
  /** Why the run stopped. */
  readonly end: RunEnd;
}

function record(out: RecordedEvent[] | undefined, evs: readonly TraceEvent[], step: number, onEvent?: (e: RecordedEvent) => void): boolean {
  let bad = false;
  for (const e of evs) {
    const r = { ...e, step } as RecordedEvent;
    out?.push(r);
    onEvent?.(r);
    if (isFailureEvent(e)) bad = true;
  }
  return bad;
}

/** Runs a scenario from its initial world, letting `choose` pick each step. */
export function drive(sc: Scenario, choose: Chooser, opts: DriveOptions = {}): Run {
  const maxSteps = opts.maxSteps ?? 10_000;
  const detail = opts.detail ?? true;
  const stopOnFailure = opts.stopOnFailure ?? true;
  const events: RecordedEvent[] = [];
  const kept = opts.record === false ? undefined : events;
  const schedule: string[] = [];
  const init = initialWorld(sc, { detail });
  let world = init.world;
  if (record(kept, init.events, 0, opts.onEvent) && stopOnFailure) return { schedule, events, world, end: 'failure' };
  for (let depth = 0; ; depth++) {
    if (depth >= maxSteps) return { schedule, events, world, end: 'max-steps' };
    const steps = enabled(sc, world);
    if (steps.length === 0 && !choose.injects) return { schedule, events, world, end: 'quiescent' };
    const step = choose(world, steps, depth);
    if (step === undefined) return { schedule, events, world, end: isQuiescent(steps) ? 'quiescent' : 'stopped' };
    const r = apply(sc, world, step, { detail });
    world = r.world;
    schedule.push(step.id);
    if (record(kept, r.events, depth + 1, opts.onEvent) && stopOnFailure) return { schedule, events, world, end: 'failure' };
  }
}

/** Uniformly random among enabled steps; faults are taken only with probability `faultRate` each time one is offered. */
export function randomChooser(seed: number, faultRate = 0.1): Chooser {
  const r = rng(seed);
  return (_w, steps) => {
    const normal = steps.filter((s) => s.kind === 'deliver' ? s.outcome === undefined : s.kind === 'timer' || s.kind === 'input');
    const faults = steps.filter((s) => !normal.includes(s));
    if (faults.length > 0 && (normal.length === 0 || r.next() < faultRate)) {
      // With only faults left, stop half the time so runs also end without them.
      if (normal.length === 0 && r.next() < 0.5) return undefined;
      return r.pick(faults);
    }
    return normal.length > 0 ? r.pick(normal) : undefined;
  };
}

/** A recorded schedule does not fit the model: the step at `index` is not enabled. */
export class Divergence extends Error {
  /** Always `'Divergence'`. */
  override name = 'Divergence';
  constructor(
    /** The schedule position (0-based) that could not be taken. */
    readonly index: number,
    /** The step id the schedule asked for. */
    readonly expected: string,
    /** The step ids that were enabled there instead. */
    readonly enabledIds: readonly string[],
  ) {
    super(`schedule diverges at step ${index + 1}: expected '${expected}', enabled: ${enabledIds.length ? enabledIds.join(', ') : '(nothing)'}`);
  }
}

/** An `input` step's payload, by its position in a schedule (live recordings carry these). */
export interface ScheduleInput {
  /** The position in the schedule of the `input:` step this payload belongs to. */
  readonly index: number;
  /** The sender (`env` for the outside). */
  readonly from: string;
  /** The receiver. */
  readonly to: string;
  /** The message itself. */
  readonly msg: Message;
}

/**
 * Follows a schedule of step ids exactly; throws `Divergence` at the first step that is not enabled.
 * `input:` steps are rebuilt from `inputs` (matched by schedule position), when given.
 */
export function replayChooser(schedule: readonly string[], inputs?: readonly ScheduleInput[], sc?: Scenario): Chooser {
  const byIndex = new Map((inputs ?? []).map((x) => [x.index, x]));
  const choose: Chooser = (_w, steps, depth) => {
    if (depth >= schedule.length) return undefined;
    const want = schedule[depth]!;
    if (want.startsWith('tick:')) return tickStep(Number(want.slice(5)));
    const inp = byIndex.get(depth);
    if (inp && sc && want.startsWith('input:')) {
      const s = inputStep(sc, inp.from, inp.to, inp.msg);
      if (s.id !== want) throw new Divergence(depth, want, [s.id]);
      return s;
    }
    const s = steps.find((x) => x.id === want);
    if (!s) throw new Divergence(depth, want, steps.map((x) => x.id));
    return s;
  };
  return Object.assign(choose, { injects: true });
}

/** Runs a schedule through the step loop, recording events, without stopping at failures; `replaySchedule` is the checked replay. */
export function replay(sc: Scenario, schedule: readonly string[], opts: DriveOptions & { readonly inputs?: readonly ScheduleInput[] } = {}): Run {
  const { inputs, ...rest } = opts;
  return drive(sc, replayChooser(schedule, inputs, sc), { maxSteps: schedule.length, stopOnFailure: false, ...rest });
}

/** A run's events as a cold observable: each subscription runs the scenario afresh. */
export function trace$(sc: Scenario, choose: () => Chooser, opts: Omit<DriveOptions, 'onEvent'> = {}): Observable<RecordedEvent> {
  return new Observable((sub: Subscriber<RecordedEvent>) => {
    try {
      drive(sc, choose(), { ...opts, onEvent: (e) => sub.next(e) });
      sub.complete();
    } catch (e) {
      sub.error(e);
    }
  });
}

/** The outcome of `checkDeterminism`: the first trace event two runs with the same seed disagree on, if any. */
export interface DeterminismReport {
  /** True when both runs produced the same trace. */
  readonly deterministic: boolean;
  /** Index of the first event that differs, and both versions, when not deterministic. */
  readonly firstDifference?: {
    /** Index of the first event that differs. */
    readonly index: number;
    /** That event in the first run (canonical JSON). */
    readonly first: string;
    /** That event in the second run. */
    readonly second: string;
  };
  /** Events compared (in the first run). */
  readonly events: number;
}

/**
 * Runs the scenario twice with the same seed and compares the serialized traces.
 * A difference means some machine is impure (reads a clock, draws a random number,
 * or keeps state outside its snapshot).
 */
export function checkDeterminism(sc: Scenario, seed: number, opts: DriveOptions = {}): DeterminismReport {
  const a = drive(sc, randomChooser(seed), { maxSteps: 1000, ...opts }).events.map(canonicalJson);
  const b = drive(sc, randomChooser(seed), { maxSteps: 1000, ...opts }).events.map(canonicalJson);
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) {
      return { deterministic: false, firstDifference: { index: i, first: a[i] ?? '(end of trace)', second: b[i] ?? '(end of trace)' }, events: n };
    }
  }
  return { deterministic: true, events: n };
}

/** Throws a `ScenarioError` unless `x` is a scenario made with `defineScenario`. */
export function assertScenario(x: unknown): asserts x is Scenario {
  if (typeof x !== 'object' || x === null || (x as Scenario).compiled !== true) {
    throw new ScenarioError('expected a scenario made by defineScenario(...)');
  }
}
