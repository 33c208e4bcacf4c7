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
//
// `TraceSearch` is an explorer like dfs and bfs: `check` drives it under the same
// session (counters, budgets, visited set, progress and stop) when `from` is given.
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
import { currentStepId, fitRecording, modelScenario, modelledExternals, recordedOrigins } from './recorded.ts';
import { quiescentViolation, stepViolation } from '../properties.ts';
import { replaySchedule, type ScheduleInput } from './replay.ts';
import { shrinkSchedule } from './shrink.ts';
import { Session, type Explorer } from '../search/session.ts';
import type { CheckResult, DeterminismOptions, PropertyRef, TraceFile, Violation } from '../types.ts';
import { NondeterminismError } from '../purity.ts';

/** Options of `fromTrace`: how far from the recording to search, and the budgets. */
export interface FromTraceOptions {
  /** Deviations allowed from the recorded schedule (default 1). */
  readonly within?: number;
  /** Stop after this many distinct states (default 200,000, or 4 a recorded step for a recording longer than 50,000 steps). */
  readonly maxStates?: number;
  /** Stop after this much wall time, milliseconds (default: none). */
  readonly timeLimitMs?: number;
  /** Steps past the recording's length a path may take (default: the recording's length + 1,000). */
  readonly maxDepth?: number;
  /** Shrink a violation's schedule (default true; skipped when it has input steps, and within 0 deviations, where the recorded order is the point). */
  readonly shrink?: boolean;
  /** Before exploring, compare only the recorded steps and reply types with the model's, not the data in the replies (default false). */
  readonly ignoreData?: boolean;
  /** The nondeterminism re-step sample over the search's steps, as `CheckOptions.determinism` (default on). */
  readonly determinism?: boolean | DeterminismOptions;
  /**
   * How the recording must fit the scenario before anything is explored. `exact` (default): it
   * replays on the model step for step, as `interleave replay` does, the data in recorded replies
   * included. `follow`: the model may take other steps between the recorded ones (another
   * design explored around a production run, such as a fix), as long as it takes every recorded
   * step; replies are not compared.
   */
  readonly fit?: 'exact' | 'follow';
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

/** How far past the first untaken recorded step a reordering may reach. */
const WINDOW = 256;

/** The recording to search around, for `check`'s `from` option. */
export interface TraceSeed {
  /** The recorded run: a live recording or any saved trace. */
  readonly trace: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>;
  /** Deviations allowed from the recorded schedule (default 1). */
  readonly within?: number;
  /** Where the recording was read from, for the result's notes. */
  readonly path?: string;
  /** Compare only the recorded steps and reply types with the model's, not the data in the replies (default false). */
  readonly ignoreData?: boolean;
}

/** The default distinct-state budget of a search around a recording. */
export const FROM_TRACE_MAX_STATES = 200_000;

/** The default distinct-state budget around a recording of `steps` steps: {@link FROM_TRACE_MAX_STATES}, or 4 states a recorded step for a long recording (within 0 alone takes one a step). */
export function traceStateBudget(steps: number): number {
  return Math.max(FROM_TRACE_MAX_STATES, 4 * steps);
}

/** The session options a search around a recording (of `steps` steps) runs under. */
export function traceSessionOptions(opts: FromTraceOptions, steps = 0): { maxStates: number; timeLimitMs?: number; symmetry: true; determinism: boolean | DeterminismOptions } {
  return { maxStates: opts.maxStates ?? traceStateBudget(steps), ...(opts.timeLimitMs === undefined ? {} : { timeLimitMs: opts.timeLimitMs }), symmetry: true, determinism: opts.determinism ?? true };
}

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

/** Starts a `fromTrace` search to run in slices, on a session of its own. */
export function fromTraceSearch(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>, opts: FromTraceOptions = {}): FromTraceSearch {
  const s = new Session(modelScenario(sc, file), traceSessionOptions(opts, file.schedule.length), false);
  const x = new TraceSearch(s, file, opts);
  return {
    run: (until) => (x.step(until) ? x.result() : undefined),
    stats: () => ({ states: s.states, distinctStates: s.visited.size, ends: x.ends, depth: s.maxDepth, ms: s.ms() }),
    stop() {
      s.stopped = true;
    },
  };
}

/**
 * The search around a recording, as an explorer: follows the recording, and at every
 * world also takes each other enabled step while deviations are left (depth-first,
 * the followed path first). Its session's visited set keys a world with the recorded
 * positions taken and the deviations left.
 */
export class TraceSearch implements Explorer {
  /** Runs that reached an end. */
  ends = 0;
  private readonly within: number;
  private readonly seed: Seeded[] = [];
  private readonly maxDepth: number;
  /** Zobrist keys for the positions taken, so (world, taken, left) dedupes cheaply. */
  private readonly zob: Uint32Array;
  private readonly init: { world: World; violation: PropertyRef | undefined };
  private readonly stack: Frame[];
  private cut = false;
  private depthCut = false;
  private fits = false;
  private outcome: FromTraceResult | undefined;

  constructor(
    private readonly s: Session,
    private readonly file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>,
    private readonly opts: FromTraceOptions = {},
  ) {
    const sc = s.sc;
    this.within = opts.within ?? 1;
    // Externals the scenario models answer for themselves: their recorded replies go.
    const modelled = modelledExternals(sc, file);
    const inputs = new Map(((file.inputs ?? []) as ScheduleInput[]).map((x) => [x.index, x]));
    file.schedule.forEach((id, i) => {
      if (id.startsWith('tick:')) return; // timers fire by virtual time; wall-clock ticks are not choices
      const inp = inputs.get(i);
      if (id.startsWith('input:')) {
        if (inp && modelled.has(inp.from)) return;
        if (!inp) throw new Error(`trace step ${i + 1} is '${id}' but the trace has no payload for it in 'inputs'; a live recording carries them`);
        this.seed.push({ id, input: inp, at: i });
      } else this.seed.push({ id: id.startsWith('timer:') ? currentStepId(sc, id) : id, at: i });
    });
    this.maxDepth = opts.maxDepth ?? this.seed.length + 1000;
    this.zob = new Uint32Array(this.seed.length * 2);
    let x = 0x9e3779b9;
    for (let i = 0; i < this.zob.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.zob[i] = x >>> 0;
    }
    const init = initialWorld(sc, { detail: false });
    s.determinism?.checkInitial(init.world);
    this.init = { world: init.world, violation: stepViolation(sc, init.world, init.events) };
    this.stack = this.init.violation ? [] : [{ world: init.world, cursor: 0, ahead: [], left: this.within, depth: 0, parent: undefined, step: undefined, deviated: false }];
    if (this.init.violation) this.outcome = this.done(this.init.violation, undefined);
  }

  /** A step of the search, through the nondeterminism sample. */
  private apply(w: World, t: Step): { world: World; events: readonly TraceEvent[] } {
    const d = this.s.determinism;
    return d ? d.apply(w, t) : apply(this.s.sc, w, t, { detail: false });
  }

  /** The depth bound in effect: `maxDepth`, or the recording's length as explored + 1,000. */
  get depthBound(): number {
    return this.maxDepth;
  }

  /** The recording's length as explored (ticks and modelled replies dropped). */
  get seedLength(): number {
    return this.seed.length;
  }

  step(until: number): boolean {
    if (!this.fits && !this.outcome && !this.s.stopped) {
      this.checkFit();
      this.fits = true;
    }
    this.outcome ??= this.explore(until);
    return this.outcome !== undefined;
  }

  /** The search's result once `step` returned true. */
  result(): FromTraceResult {
    if (!this.outcome) throw new Error('internal: the trace search has not ended');
    return this.outcome;
  }

  private taken(f: Frame, i: number): boolean {
    return i < f.cursor || f.ahead.includes(i);
  }

  private take(f: Frame, i: number): { cursor: number; ahead: readonly number[] } {
    if (i !== f.cursor) return { cursor: f.cursor, ahead: [...f.ahead, i].sort((a, b) => a - b) };
    let c = f.cursor + 1;
    let ahead = f.ahead;
    while (ahead.length && ahead[0] === c) {
      ahead = ahead.slice(1);
      c++;
    }
    return { cursor: c, ahead };
  }

  /** The recorded position to follow next here, with the step it means; undefined when none is enabled. */
  private next(f: Frame, steps: readonly Step[]): { pos: number; step: Step } | undefined {
    const end = Math.min(this.seed.length, f.cursor + WINDOW);
    for (let i = f.cursor; i < end; i++) {
      if (this.taken(f, i)) continue;
      const s = this.seed[i]!;
      if (s.input) return { pos: i, step: inputStep(this.s.sc, s.input.from, s.input.to, s.input.msg as Message) };
      const st = steps.find((y) => y.id === s.id);
      if (st) return { pos: i, step: st };
    }
    return undefined;
  }

  /** Adds (world, positions taken, deviations left) to the visited set; true when new. */
  private visit(w: World, f: { cursor: number; ahead: readonly number[] }, left: number): boolean {
    const hasher = this.s.hasher;
    hasher.world(w);
    let a = hasher.ha ^ Math.imul(f.cursor + 1, 0x85ebca6b) ^ Math.imul(left + 1, 0xc2b2ae35);
    let b = hasher.hb ^ Math.imul(f.cursor + 7, 0x27d4eb2f);
    for (const i of f.ahead) {
      a ^= this.zob[2 * i]!;
      b ^= this.zob[2 * i + 1]!;
    }
    return this.s.visited.add(a >>> 0, b >>> 0);
  }

  /**
   * Replays the recording on the model exactly, as `interleave replay` does, and throws a
   * `RecordingMisfit` naming the first recorded step the model cannot take, or the first
   * recorded reply whose data the model answers differently (unless `ignoreData`). A
   * recording that does not fit the scenario (another design, parameter, model or start)
   * would otherwise be explored along unrelated steps and reported as holding, or as broken
   * "within 0 deviations" by a run that never happened.
   */
  private checkFit(): void {
    if (this.opts.fit === 'follow') this.followFit();
    else fitRecording(this.s.sc, this.file, { ignoreData: this.opts.ignoreData ?? false, trace: false });
  }

  /**
   * With `fit: 'follow'`: follows the recording with no deviation (as the search's first path
   * does) and throws a `Divergence` at the first recorded step it never takes. A recording that does not fit
   * the scenario (another design, parameter or model) would otherwise be explored along
   * unrelated steps and reported as holding, or as broken "within 0 deviations" by a run
   * that never happened. Following may take a later recorded step first (live I/O
   * reorders replies), so only a step left untaken at the end is a misfit.
   */
  private followFit(): void {
    const sc = this.s.sc;
    let f: Frame = { world: this.init.world, cursor: 0, ahead: [], left: 0, depth: 0, parent: undefined, step: undefined, deviated: false };
    let stuck: { cursor: number; enabled: string[] } | undefined;
    while (f.cursor < this.seed.length && f.depth < this.maxDepth) {
      const steps = enabled(sc, f.world);
      const follow = this.next(f, steps);
      if (follow?.pos !== f.cursor && stuck?.cursor !== f.cursor) stuck = { cursor: f.cursor, enabled: steps.map((s) => s.id) };
      const step = follow?.step ?? steps.find((s) => !isFault(s) && s.kind !== 'restart');
      if (!step) break;
      const pos = follow ? this.take(f, follow.pos) : { cursor: f.cursor, ahead: f.ahead };
      f = { ...f, ...pos, world: this.apply(f.world, step).world, depth: f.depth + 1 };
    }
    if (f.cursor < this.seed.length && f.depth < this.maxDepth) {
      const s = this.seed[f.cursor]!;
      throw new Divergence(s.at, s.id, stuck?.cursor === f.cursor ? stuck.enabled : enabled(sc, f.world).map((x) => x.id));
    }
  }

  private explore(until: number): FromTraceResult | undefined {
    const s = this.s;
    const sc = s.sc;
    const seed = this.seed;
    let n = 0;
    while (this.stack.length > 0) {
      if (s.states >= s.maxStates || s.stopped || ((++n & 255) === 0 && performance.now() > s.deadline)) {
        s.cutBy ??= s.stopped ? 'stopped' : s.states >= s.maxStates ? 'maxStates' : 'timeLimit';
        this.cut = true;
        break;
      }
      if ((n & 255) === 0 && performance.now() > until) return undefined;
      const f = this.stack.pop()!;
      if (f.depth > s.maxDepth) s.maxDepth = f.depth;
      const steps = enabled(sc, f.world);
      const follow = this.next(f, steps);
      const normal = steps.filter((x) => !isFault(x) && x.kind !== 'restart');
      if (!follow && (normal.length === 0 || f.depth >= this.maxDepth)) {
        this.ends++;
        if (isQuiescent(steps)) {
          const q = quiescentViolation(sc, f.world);
          if (q) return this.done(q, f);
        }
      }
      if (f.depth >= this.maxDepth) {
        // The bound cut a path that could go on: the exploration is not complete.
        if (steps.length > 0) this.depthCut = true;
        continue;
      }
      // Children: the followed step (free), then each other enabled step (one deviation).
      const children: { step: Step; pos: number; cost: number }[] = [];
      const dflt = follow ?? (normal[0] ? { pos: -1, step: normal[0] } : undefined);
      if (dflt) children.push({ step: dflt.step, pos: dflt.pos, cost: 0 });
      if (f.left > 0) {
        for (const x of steps) {
          if (dflt && x.id === dflt.step.id) continue;
          if (x.kind === 'restart' && !dflt) {
            children.push({ step: x, pos: -1, cost: 0 });
            continue;
          }
          // Taking a later recorded step early consumes it (a reordering, not a repeat).
          let pos = -1;
          for (let i = f.cursor; i < Math.min(seed.length, f.cursor + WINDOW); i++) {
            if (!this.taken(f, i) && !seed[i]!.input && seed[i]!.id === x.id) {
              pos = i;
              break;
            }
          }
          children.push({ step: x, pos, cost: 1 });
        }
        // A request from outside arriving earlier than it did (env inputs keep their own order).
        for (let i = f.cursor; i < Math.min(seed.length, f.cursor + WINDOW); i++) {
          const inp = seed[i]!.input;
          if (this.taken(f, i) || !inp || inp.from !== 'env') continue;
          if (i !== dflt?.pos) children.push({ step: inputStep(sc, 'env', inp.to, inp.msg as Message), pos: i, cost: 1 });
          break;
        }
      }
      // Push deviations first so the followed path is explored first (depth-first).
      for (let c = children.length - 1; c >= 0; c--) {
        const ch = children[c]!;
        const r = this.apply(f.world, ch.step);
        s.states++;
        s.transitions++;
        const pos = ch.pos >= 0 ? this.take(f, ch.pos) : { cursor: f.cursor, ahead: f.ahead };
        const left = f.left - ch.cost;
        if (!this.visit(r.world, pos, left)) continue;
        const nf: Frame = { world: r.world, ...pos, left, depth: f.depth + 1, parent: f, step: ch.step, deviated: ch.cost > 0 };
        const v = stepViolation(sc, r.world, r.events as readonly TraceEvent[]);
        if (v) return this.done(v, nf);
        this.stack.push(nf);
      }
    }
    if (this.depthCut && !this.cut) s.cutBy ??= 'maxDepth';
    return this.done(undefined, undefined);
  }

  private done(p: PropertyRef | undefined, at: Frame | undefined): FromTraceResult {
    const s = this.s;
    const sc = s.sc;
    const stats = { states: s.states, distinctStates: s.visited.size, ends: this.ends, ms: s.ms() };
    const base = { within: this.within, seedLength: this.seed.length, stats };
    if (!p) return { ok: true, complete: !this.cut && !this.depthCut, ...(this.depthCut && !this.cut ? { depthCut: true } : {}), ...base };
    const path: Step[] = [];
    let deviations = 0;
    for (let f = at; f?.step; f = f.parent) {
      path.push(f.step);
      if (f.deviated) deviations++;
    }
    path.reverse();
    const schedule = path.map((x) => x.id);
    const ins: ScheduleInput[] = [];
    path.forEach((x, i) => {
      if (x.kind === 'input') ins.push({ index: i, from: x.from === sc.envIndex ? 'env' : sc.ids[x.from]!, to: sc.ids[x.to]!, msg: x.msg });
    });
    let shrunk = schedule;
    if ((this.opts.shrink ?? true) && ins.length === 0 && this.within > 0) {
      try {
        shrunk = shrinkSchedule(sc, p, schedule, { purity: s.determinism?.fork() });
      } catch (e) {
        if (e instanceof NondeterminismError) throw e;
        shrunk = schedule;
      }
    }
    const rep = replaySchedule(sc, shrunk, ins.length ? ins : undefined);
    return {
      ok: false,
      complete: false,
      ...base,
      violation: { property: p, schedule: shrunk, originalLength: schedule.length, trace: rep.trace, world: rep.world, deviations, recorded: recordedOrigins(sc, this.file, shrunk), ...(ins.length ? { inputs: ins } : {}) },
    };
  }
}

/** A search around a recording as a check result (`strategy: 'from-trace'`). */
export function traceCheckResult(x: TraceSearch, s: Session, seed: TraceSeed): CheckResult {
  const r = x.result();
  return {
    ok: r.ok,
    complete: r.complete,
    ...(r.ok && !r.complete && s.cutBy ? { cutBy: s.cutBy } : {}),
    stats: {
      states: r.stats.states,
      distinctStates: r.stats.distinctStates,
      transitions: r.stats.states,
      maxDepth: s.maxDepth,
      ms: r.stats.ms,
      statesPerSecond: r.stats.ms > 0 ? (r.stats.states * 1000) / r.stats.ms : 0,
      bytesPerState: 16,
    },
    ...(r.violation ? { violation: r.violation } : {}),
    unreached: [],
    strategy: 'from-trace',
    seed: 0,
    options: { strategy: 'from-trace', within: r.within, seedLength: r.seedLength, maxDepth: x.depthBound, ...(seed.path ? { from: seed.path } : {}) },
  };
}
