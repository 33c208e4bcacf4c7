// Production-trace-seeded exploration: start from a recorded schedule (a live run,
// or any saved trace) and explore every schedule within `k` deviations of it. A
// deviation is taking, at some point, a step other than the recorded one: a
// delivery from another channel first (a reordering), or a fault the scenario
// allows (crash, drop, a storage fault outcome), or the next request from
// outside (`env`) arriving earlier. Between deviations the search
// follows the recording: the next step is the earliest recorded step not yet taken
// that is enabled (so a reordered step is not taken twice), or, once the recording
// no longer fits, the first enabled non-fault step.
//
// Live recordings name the actors that ran as externals (real storage). Explored
// against a scenario that models them, their recorded replies are dropped and the
// model answers instead, so the whole neighbourhood uses the model's semantics.
import {
  Divergence,
  apply,
  enabled,
  initialWorld,
  inputStep,
  isFault,
  isQuiescent,
  type Message,
  type Scenario,
  type Step,
  type TraceEvent,
  type World,
} from '../../actors/index.ts';
import { modelledExternals } from './recorded.ts';
import { WorldHasher } from '../fingerprint/fingerprint.ts';
import { quiescentViolation, stepViolation } from '../properties.ts';
import { replaySchedule, type ScheduleInput } from './replay.ts';
import { shrinkSchedule } from './shrink.ts';
import { Subject } from 'rxjs';
import type { CheckResult, CheckRun, Progress, PropertyRef, TraceFile, Violation } from '../types.ts';
import { VisitedSet } from '../search/visited.ts';

/** Options of `fromTrace`: how far from the recording to search, and the budgets. */
export interface FromTraceOptions {
  /** Deviations allowed from the recorded schedule (default 1). */
  readonly within?: number;
  /** Stop after this many distinct states (default 200,000). */
  readonly maxStates?: number;
  /** Stop after this much wall time, milliseconds (default: none). */
  readonly timeLimitMs?: number;
  /** Steps past the recording's length a path may take (default: the recording's length + 1,000). */
  readonly maxDepth?: number;
  /** Shrink a violation's schedule (default true; skipped when it has input steps). */
  readonly shrink?: boolean;
}

/** What `fromTrace` found: a violation near the recording, or none within the bounds. */
export interface FromTraceResult {
  /** False when a violation was found. */
  readonly ok: boolean;
  /** True when every schedule within `within` deviations was explored. */
  readonly complete: boolean;
  /** True when `maxDepth` (and nothing else) cut paths that could go on. */
  readonly depthCut?: boolean;
  /** The deviations allowed (the `within` option in effect). */
  readonly within: number;
  /** The recording, as explored (ticks dropped; replies of modelled externals dropped). */
  readonly seedLength: number;
  /** Counts and time of the search. */
  readonly stats: {
    /** States generated. */
    readonly states: number;
    /** Distinct worlds visited. */
    readonly distinctStates: number;
    /** Runs that reached an end. */
    readonly ends: number;
    /** Wall time, milliseconds. */
    readonly ms: number;
  };
  /** The first violation found, with how many deviations from the recording it took and the payloads of its input steps. */
  readonly violation?: Violation & {
    /** Deviations from the recorded schedule the violation took. */
    readonly deviations: number;
    /** The payloads of its input steps, by schedule position. */
    readonly inputs?: readonly ScheduleInput[];
  };
}

/** One recorded step to follow: its id, and the payload when it is an input. */
interface Seeded {
  readonly id: string;
  readonly input?: ScheduleInput;
  /** Its index in the file's schedule. */
  readonly at: number;
}

interface Frame {
  readonly world: World;
  /** Smallest recorded position not yet taken, and taken positions past it. */
  readonly cursor: number;
  readonly ahead: readonly number[];
  readonly left: number;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly step: Step | undefined;
  readonly deviated: boolean;
}

const WINDOW = 256;

/** Explores the schedules within `within` deviations of a recorded one, reporting the first violated property. */
export function fromTrace(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>, opts: FromTraceOptions = {}): FromTraceResult {
  const search = fromTraceSearch(sc, file, opts);
  for (;;) {
    const r = search.run(Infinity);
    if (r) return r;
  }
}

/** A `fromTrace` search that runs in slices: `run(until)` works until the `performance.now()` deadline, then returns undefined if not done. */
export interface FromTraceSearch {
  /** Works until the `performance.now()` deadline `until`; the result when done, else undefined. */
  run(until: number): FromTraceResult | undefined;
  /** Counts so far: states, distinct states, runs ended, current depth, milliseconds. */
  stats(): {
    /** States generated. */
    states: number;
    /** Distinct worlds visited. */
    distinctStates: number;
    /** Runs that reached an end. */
    ends: number;
    /** Current depth. */
    depth: number;
    /** Wall time so far, milliseconds. */
    ms: number;
  };
  /** Ends the search at the next slice; its result is cut (not complete). */
  stop(): void;
}

/** Starts a `fromTrace` search to run in slices (the CLI drives it with a progress line). */
export function fromTraceSearch(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>, opts: FromTraceOptions = {}): FromTraceSearch {
  const within = opts.within ?? 1;
  const maxStates = opts.maxStates ?? 200_000;
  const t0 = performance.now();
  const deadline = opts.timeLimitMs === undefined ? Infinity : t0 + opts.timeLimitMs;
  // Externals the scenario models answer for themselves: their recorded replies go.
  const modelled = modelledExternals(sc, file);
  const inputs = new Map(((file.inputs ?? []) as ScheduleInput[]).map((x) => [x.index, x]));
  const seed: Seeded[] = [];
  file.schedule.forEach((id, i) => {
    if (id.startsWith('tick:')) return; // timers fire by virtual time; wall-clock ticks are not choices
    const inp = inputs.get(i);
    if (id.startsWith('input:')) {
      if (inp && modelled.has(inp.from)) return;
      if (!inp) throw new Error(`trace step ${i + 1} is '${id}' but the trace has no payload for it in 'inputs'; a live recording carries them`);
      seed.push({ id, input: inp, at: i });
    } else seed.push({ id, at: i });
  });
  const maxDepth = opts.maxDepth ?? seed.length + 1000;
  // Zobrist keys for the positions taken, so (world, taken, left) dedupes cheaply.
  const zob = new Uint32Array(seed.length * 2);
  let x = 0x9e3779b9;
  for (let i = 0; i < zob.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    zob[i] = x >>> 0;
  }
  const hasher = new WorldHasher(sc, true);
  const visited = new VisitedSet();
  let states = 0;
  let ends = 0;
  let cut = false;
  let depthCut = false;

  let stopped = false;
  let depth = 0;
  const init = initialWorld(sc, { detail: false });
  const v0 = stepViolation(sc, init.world, init.events);

  const taken = (f: Frame, i: number): boolean => i < f.cursor || f.ahead.includes(i);
  const take = (f: Frame, i: number): { cursor: number; ahead: readonly number[] } => {
    if (i !== f.cursor) return { cursor: f.cursor, ahead: [...f.ahead, i].sort((a, b) => a - b) };
    let c = f.cursor + 1;
    let ahead = f.ahead;
    while (ahead.length && ahead[0] === c) {
      ahead = ahead.slice(1);
      c++;
    }
    return { cursor: c, ahead };
  };
  /** The recorded position to follow next here, or -1; with the step it means. */
  const next = (f: Frame, steps: readonly Step[]): { pos: number; step: Step } | undefined => {
    const end = Math.min(seed.length, f.cursor + WINDOW);
    for (let i = f.cursor; i < end; i++) {
      if (taken(f, i)) continue;
      const s = seed[i]!;
      if (s.input) return { pos: i, step: inputStep(sc, s.input.from, s.input.to, s.input.msg as Message) };
      const st = steps.find((y) => y.id === s.id);
      if (st) return { pos: i, step: st };
    }
    return undefined;
  };
  const key = (w: World, f: { cursor: number; ahead: readonly number[] }, left: number): [number, number] => {
    hasher.world(w);
    let a = hasher.ha ^ Math.imul(f.cursor + 1, 0x85ebca6b) ^ Math.imul(left + 1, 0xc2b2ae35);
    let b = hasher.hb ^ Math.imul(f.cursor + 7, 0x27d4eb2f);
    for (const i of f.ahead) {
      a ^= zob[2 * i]!;
      b ^= zob[2 * i + 1]!;
    }
    return [a >>> 0, b >>> 0];
  };

  const stack: Frame[] = v0 ? [] : [{ world: init.world, cursor: 0, ahead: [], left: within, depth: 0, parent: undefined, step: undefined, deviated: false }];
  let result: FromTraceResult | undefined = v0 ? done(v0, undefined) : undefined;
  let fits = false;
  return {
    run(until: number) {
      if (!fits && !result && !stopped) {
        checkFit();
        fits = true;
      }
      result ??= explore(until);
      return result;
    },
    stats: () => ({ states, distinctStates: visited.size, ends, depth, ms: performance.now() - t0 }),
    stop() {
      stopped = true;
    },
  };

  /**
   * Follows the recording with no deviation (as the search's first path does) and throws a
   * `Divergence` at the first recorded step it never takes. A recording that does not fit
   * the scenario (another design, parameter or model) would otherwise be explored along
   * unrelated steps and reported as holding, or as broken "within 0 deviations" by a run
   * that never happened. Following may take a later recorded step first (live I/O
   * reorders replies), so only a step left untaken at the end is a misfit.
   */
  function checkFit(): void {
    let f: Frame = { world: init.world, cursor: 0, ahead: [], left: 0, depth: 0, parent: undefined, step: undefined, deviated: false };
    let stuck: { cursor: number; enabled: string[] } | undefined;
    while (f.cursor < seed.length && f.depth < maxDepth) {
      const steps = enabled(sc, f.world);
      const follow = next(f, steps);
      if (follow?.pos !== f.cursor && stuck?.cursor !== f.cursor) stuck = { cursor: f.cursor, enabled: steps.map((s) => s.id) };
      const step = follow?.step ?? steps.find((s) => !isFault(s) && s.kind !== 'restart');
      if (!step) break;
      const pos = follow ? take(f, follow.pos) : { cursor: f.cursor, ahead: f.ahead };
      f = { ...f, ...pos, world: apply(sc, f.world, step, { detail: false }).world, depth: f.depth + 1 };
    }
    if (f.cursor < seed.length && f.depth < maxDepth) {
      const s = seed[f.cursor]!;
      throw new Divergence(s.at, s.id, stuck?.cursor === f.cursor ? stuck.enabled : enabled(sc, f.world).map((x) => x.id));
    }
  }

  function explore(until: number): FromTraceResult | undefined {
    let n = 0;
    while (stack.length > 0) {
      if (states >= maxStates || stopped || ((++n & 255) === 0 && performance.now() > deadline)) {
        cut = true;
        break;
      }
      if ((n & 255) === 0 && performance.now() > until) return undefined;
      const f = stack.pop()!;
      if (f.depth > depth) depth = f.depth;
      const steps = enabled(sc, f.world);
      const follow = next(f, steps);
      const normal = steps.filter((s) => !isFault(s) && s.kind !== 'restart');
      if (!follow && (normal.length === 0 || f.depth >= maxDepth)) {
        ends++;
        if (isQuiescent(steps)) {
          const q = quiescentViolation(sc, f.world);
          if (q) return done(q, f);
        }
      }
      if (f.depth >= maxDepth) {
        // The bound cut a path that could go on: the exploration is not complete.
        if (steps.length > 0) depthCut = true;
        continue;
      }
      // Children: the followed step (free), then each other enabled step (one deviation).
      const children: { step: Step; pos: number; cost: number }[] = [];
      const dflt = follow ?? (normal[0] ? { pos: -1, step: normal[0] } : undefined);
      if (dflt) children.push({ step: dflt.step, pos: dflt.pos, cost: 0 });
      if (f.left > 0) {
        for (const s of steps) {
          if (dflt && s.id === dflt.step.id) continue;
          if (s.kind === 'restart' && !dflt) {
            children.push({ step: s, pos: -1, cost: 0 });
            continue;
          }
          // Taking a later recorded step early consumes it (a reordering, not a repeat).
          let pos = -1;
          for (let i = f.cursor; i < Math.min(seed.length, f.cursor + WINDOW); i++) {
            if (!taken(f, i) && !seed[i]!.input && seed[i]!.id === s.id) {
              pos = i;
              break;
            }
          }
          children.push({ step: s, pos, cost: 1 });
        }
        // A request from outside arriving earlier than it did (env inputs keep their own order).
        for (let i = f.cursor; i < Math.min(seed.length, f.cursor + WINDOW); i++) {
          const inp = seed[i]!.input;
          if (taken(f, i) || !inp || inp.from !== 'env') continue;
          if (i !== dflt?.pos) children.push({ step: inputStep(sc, 'env', inp.to, inp.msg as Message), pos: i, cost: 1 });
          break;
        }
      }
      // Push deviations first so the followed path is explored first (depth-first).
      for (let c = children.length - 1; c >= 0; c--) {
        const ch = children[c]!;
        const r = apply(sc, f.world, ch.step, { detail: false });
        states++;
        const pos = ch.pos >= 0 ? take(f, ch.pos) : { cursor: f.cursor, ahead: f.ahead };
        const left = f.left - ch.cost;
        const [a, b] = key(r.world, pos, left);
        if (!visited.add(a, b)) continue;
        const nf: Frame = { world: r.world, ...pos, left, depth: f.depth + 1, parent: f, step: ch.step, deviated: ch.cost > 0 };
        const v = stepViolation(sc, r.world, r.events as readonly TraceEvent[]);
        if (v) return done(v, nf);
        stack.push(nf);
      }
    }
    return done(undefined, undefined);
  }

  function done(p: PropertyRef | undefined, at: Frame | undefined): FromTraceResult {
    const stats = { states, distinctStates: visited.size, ends, ms: performance.now() - t0 };
    const base = { within, seedLength: seed.length, stats };
    if (!p) return { ok: true, complete: !cut && !depthCut, ...(depthCut && !cut ? { depthCut: true } : {}), ...base };
    const path: Step[] = [];
    let deviations = 0;
    for (let f = at; f?.step; f = f.parent) {
      path.push(f.step);
      if (f.deviated) deviations++;
    }
    path.reverse();
    const schedule = path.map((s) => s.id);
    const ins: ScheduleInput[] = [];
    path.forEach((s, i) => {
      if (s.kind === 'input') ins.push({ index: i, from: s.from === sc.envIndex ? 'env' : sc.ids[s.from]!, to: sc.ids[s.to]!, msg: s.msg });
    });
    let shrunk = schedule;
    if ((opts.shrink ?? true) && ins.length === 0) {
      try {
        shrunk = shrinkSchedule(sc, p, schedule);
      } catch {
        shrunk = schedule;
      }
    }
    const rep = replaySchedule(sc, shrunk, ins.length ? ins : undefined);
    return {
      ok: false,
      complete: false,
      ...base,
      violation: { property: p, schedule: shrunk, originalLength: schedule.length, trace: rep.trace, world: rep.world, deviations, ...(ins.length ? { inputs: ins } : {}) },
    };
  }
}

/**
 * `fromTrace` shaped like the checker's `checkRun` (result, progress$, stop), so the
 * CLI's check command runs it in place of a strategy: `--from <trace.json> --within k`.
 * Runs in 50 ms slices on the event loop, so progress shows and Ctrl-C stops it.
 */
export function fromTraceRun(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>, opts: FromTraceOptions & { readonly from?: string } = {}): CheckRun {
  const search = fromTraceSearch(sc, file, opts);
  const progress = new Subject<Progress>();
  const result = new Promise<CheckResult>((resolve, reject) => {
    const slice = (): void => {
      try {
        const r = search.run(performance.now() + 50);
        const st = search.stats();
        progress.next({ states: st.states, distinctStates: st.distinctStates, transitions: st.states, depth: st.depth, queue: 0, ms: st.ms, statesPerSecond: st.ms > 0 ? (st.states * 1000) / st.ms : 0 });
        if (!r) return void setImmediate(slice);
        progress.complete();
        resolve(toCheckResult(r, st.depth, opts));
      } catch (e) {
        progress.complete();
        reject(e);
      }
    };
    setImmediate(slice);
  });
  return { result, progress$: progress.asObservable(), stop: () => search.stop() };
}

function toCheckResult(r: FromTraceResult, maxDepth: number, opts: FromTraceOptions & { readonly from?: string }): CheckResult {
  const options: Record<string, unknown> = { strategy: 'from-trace', within: r.within, seedLength: r.seedLength, ...(opts.from ? { from: opts.from } : {}) };
  const cut = !r.ok || r.complete ? {} : r.depthCut ? { cutBy: 'maxDepth' as const } : { cutBy: opts.timeLimitMs !== undefined && r.stats.states < (opts.maxStates ?? 200_000) ? ('timeLimit' as const) : ('maxStates' as const) };
  return {
    ok: r.ok,
    complete: r.complete,
    ...cut,
    stats: {
      states: r.stats.states,
      distinctStates: r.stats.distinctStates,
      transitions: r.stats.states,
      maxDepth,
      ms: r.stats.ms,
      statesPerSecond: r.stats.ms > 0 ? (r.stats.states * 1000) / r.stats.ms : 0,
      bytesPerState: 16,
    },
    ...(r.violation ? { violation: r.violation } : {}),
    unreached: [],
    strategy: 'from-trace',
    seed: 0,
    options,
  };
}
