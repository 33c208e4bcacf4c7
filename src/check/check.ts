// `check` and `checkRun`: plan the check, pick its mode (modes.ts), and drive the mode's
// explorer with the one search loop: slices of work between turns of the event loop, so
// progress$ emits and stop() takes effect, under one session's budgets.
// rxjs's own subpath (in its exports map): the package index loads every operator.
import { Subject } from 'rxjs/internal/Subject';
import { assertScenario, isModelError, type Scenario } from '../actors/index.ts';
import { placeOnSchedule } from './trace/schedule-to.ts';
import { leanHeap } from './search/heap.ts';
import { SLICE_MS, yieldToLoop, type Explorer, type Session } from './search/session.ts';
import type { SwarmHandle } from './distributed/swarm.ts';
import type { FromTraceOptions, TraceSeed } from './trace/from-trace.ts';
import { MODES } from './modes.ts';
import { PhaseClock, roundPhases } from './phases.ts';
import { planCheck } from './plan.ts';
import { checkResult } from './result.ts';
import { checkFreshModules } from './fresh-modules.ts';
import type { CheckOptions, CheckResult, CheckRun, Progress, TraceFile } from './types.ts';

/** Starts a check; `result` resolves when it ends, `progress$` emits about every 50 ms. */
export function checkRun(sc: Scenario, opts: CheckOptions = {}): CheckRun {
  assertScenario(sc);
  const progress = new Subject<Progress>();
  let session: Session | undefined;
  let swarm: SwarmHandle | undefined;
  let stopRequested = false;
  let releaseHeap: (() => void) | undefined;
  const result = run(sc, opts, progress, {
    onSession: (s) => {
      session = s;
      if (stopRequested) s.stopped = true;
    },
    onSwarm: (h) => {
      swarm = h;
      if (stopRequested) h.stop();
    },
    onHeap: (release) => (releaseHeap = release),
  }).finally(() => {
    releaseHeap?.();
    progress.complete();
  });
  return {
    result,
    progress$: progress.asObservable(),
    stop() {
      stopRequested = true;
      if (session) session.stopped = true;
      swarm?.stop();
    },
  };
}

/**
 * Explores the schedules of a scenario and checks its properties. Resolves when the
 * search ends: `ok` false with a shrunk, replayable `violation` at the first
 * violation; `ok` true otherwise, with `complete` saying whether every reachable state
 * was explored (dfs/bfs with no budget cut) or only a sample (`cutBy` says what
 * stopped it). A result that is `ok` but not `complete` is not a proof.
 *
 * @example
 * ```ts
 * const result = await check(scenario, { strategy: 'bfs' });
 * if (!result.ok) console.log(formatViolation(result.violation!));
 * ```
 */
export function check(sc: Scenario, opts: CheckOptions = {}): Promise<CheckResult> {
  return checkRun(sc, opts).result;
}

/**
 * `fromTrace` shaped like `checkRun` (result, progress$, stop): the check with `from`,
 * which the CLI runs for `--from <trace.json> --within k`.
 */
export function fromTraceRun(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>, opts: FromTraceOptions & { readonly from?: string } = {}): CheckRun {
  const { from, within, ignoreData, ...rest } = opts;
  const seed: TraceSeed = { trace: file, ...(within === undefined ? {} : { within }), ...(from === undefined ? {} : { path: from }), ...(ignoreData === undefined ? {} : { ignoreData }) };
  return checkRun(sc, { ...rest, from: seed });
}

interface Hooks {
  onSession(s: Session): void;
  onSwarm(h: SwarmHandle): void;
  onHeap(release: () => void): void;
}

async function run(sc: Scenario, opts: CheckOptions, progress: Subject<Progress>, hooks: Hooks): Promise<CheckResult> {
  try {
    return await search(sc, opts, progress, hooks);
  } catch (e) {
    // A mistake in the model: say where, with the schedule that reaches it.
    if (isModelError(e)) throw placeOnSchedule(sc, e, opts.maxStates);
    throw e;
  }
}

async function search(sc: Scenario, opts: CheckOptions, progress: Subject<Progress>, hooks: Hooks): Promise<CheckResult> {
  const plan = planCheck(sc, opts);
  const mode = MODES.find((m) => m.applies(plan, opts))!;
  // Let the caller subscribe to progress$ before any work.
  await yieldToLoop();
  const heap = mode.heap(plan, opts);
  if (heap !== false) hooks.onHeap(leanHeap(heap));
  const clock = new PhaseClock();
  const endSearch = clock.start();
  const s = await mode.session(sc, plan, opts);
  hooks.onSession(s);
  const drive = async (e: Explorer): Promise<void> => {
    for (;;) {
      // A shard whose prefix found a violation or hit a bound has nothing left to explore.
      if (s.shard && (s.found || s.cutBy)) break;
      const done = e.step(performance.now() + SLICE_MS);
      s.memory.sample();
      progress.next(s.progress());
      if (done) break;
      await (e.pause?.() ?? yieldToLoop());
    }
  };
  const opened = await mode.open({ sc, opts, plan, s, notes: plan.notes, progress, drive, onSwarm: hooks.onSwarm });
  try {
    if (opened.explorer) await drive(opened.explorer);
    await opened.wait;
  } catch (e) {
    opened.fail?.(e);
    throw e;
  }
  endSearch('search');
  const resteps = { ...(s.determinism?.time ?? { wallMs: 0, cpuMs: 0 }) };
  const endAfter = clock.start();
  await opened.after?.();
  endAfter(plan.notes.firstViolation ? 'firstViolation' : 'search');
  clock.carve('search', 'determinism', resteps);
  // State shared outside the snapshots: short schedules in fresh copies of the scenario's module.
  if (plan.exhaustive && opts.determinism !== false && opts.source !== undefined && opts.from === undefined && !s.stopped) {
    const endFresh = clock.start();
    await checkFreshModules(sc, opts.source);
    endFresh('determinism');
  }
  s.exploreMs = s.ms();
  s.memory.sample(true);
  if (opened.result) return withPhases(opened.result(), clock);
  const result = checkResult(sc, s, opts, plan, clock, opened.lasso);
  opened.finish?.(result);
  return withPhases(result, clock);
}

function withPhases(r: CheckResult, clock: PhaseClock): CheckResult {
  r.stats.phases = roundPhases({ ...clock.phases, ...r.stats.phases });
  return r;
}
