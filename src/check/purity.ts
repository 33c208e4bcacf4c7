// Nondeterminism detection during exploration. The search
// trusts that a step from a world always gives the same world: the step memo hands
// a recorded result to every world where a (snapshot, message) pair recurs, and the
// visited set prunes a world by its fingerprint. A machine whose guard reads
// Math.random() (or a clock, or mutable data outside its snapshot) breaks that
// silently: verdicts and counterexamples then depend on luck. Like Stateright
// rebuilding paths and madsim running twice, the checker re-steps a deterministic
// sample of (world, step) pairs without the memo and compares the results.
//
// Sample: the first `first` transitions, then every `every`-th; each sampled pair is
// re-stepped `repeats` times with the clocks and the random source shifted
// (shifted-sources.ts). Comparison: the fingerprint of the resulting world (no
// symmetry), the kinds of the step's events, and the steps the world offers. User code
// run outside the search (learning walks, shrinking, replays) steps through a `fork`.
// Not seen here: state outside the snapshots that is the same in both runs, such as a
// module-level Map one actor writes once and another reads (fresh-modules.ts replays
// short schedules in fresh copies of the module; the lint rule in src/eslint).
import { ScenarioError, apply, enabled, formatStateValue, initialWorld, type Scenario, type Step, type StepMemo, type TraceEvent, type World } from '../actors/index.ts';
import { sameContent } from '../actors/same-content.ts';
import { Hasher, WorldHasher } from './fingerprint/fingerprint.ts';
import { cpuNowMs, type PhaseTime } from './phases.ts';
import { withShiftedSources } from './shifted-sources.ts';
import type { DeterminismOptions } from './types.ts';

/** The default sampling of `CheckOptions.determinism`: the first 128 transitions, then every 512th, re-stepped twice. */
export const DETERMINISM_DEFAULTS: Required<DeterminismOptions> = { first: 128, every: 512, repeats: 2 };

/** Thrown when one step from one world gave two different results: a machine is impure. */
export class NondeterminismError extends ScenarioError {
  /** Always `'NondeterminismError'`. */
  override name = 'NondeterminismError';
  constructor(
    message: string,
    /** The actor whose step differed. */
    readonly actor: string,
    /** Its state when stepped. */
    readonly state: string,
    /** The event it was stepped with. */
    readonly event: string,
  ) {
    super(message);
  }
}

/**
 * The re-step sample that catches impure machines (`CheckOptions.determinism`): call
 * {@link DeterminismCheck.check} after each transition of a search (or step with
 * {@link DeterminismCheck.apply}); sampled transitions are stepped again with the
 * clocks and the random source shifted, and a difference throws a `NondeterminismError`.
 */
export class DeterminismCheck {
  private readonly first: number;
  private readonly every: number;
  private readonly repeats: number;
  /** For the initial world only (compared whole). */
  private readonly hasher: WorldHasher;
  private n = 0;
  /** Re-steps done (for the benchmark). */
  resteps = 0;
  /** Time spent re-stepping (the check's `determinism` phase). */
  readonly time: PhaseTime = { wallMs: 0, cpuMs: 0 };

  /** A sample over `sc`'s steps, as `opts` says (defaults: {@link DETERMINISM_DEFAULTS}). */
  constructor(
    private readonly sc: Scenario,
    private readonly opts: DeterminismOptions,
  ) {
    this.first = opts.first ?? DETERMINISM_DEFAULTS.first;
    this.every = opts.every ?? DETERMINISM_DEFAULTS.every;
    this.repeats = opts.repeats ?? DETERMINISM_DEFAULTS.repeats;
    for (const [k, v] of [['first', this.first], ['every', this.every], ['repeats', this.repeats]] as const) {
      if (!Number.isInteger(v) || v < 0) throw new Error(`determinism.${k} must be a whole number >= 0, got ${String(v)}`);
    }
    this.hasher = new WorldHasher(sc, false);
  }

  /**
   * The same sample with a counter of its own, for user code run outside the search
   * (the reduction's learning walks, shrinking, replays): its first transitions are
   * re-stepped whatever the search has done.
   */
  fork(): DeterminismCheck {
    return new DeterminismCheck(this.sc, this.opts);
  }

  private initialChecked = false;

  /** The initial world, built again (on the first call only): an impure initial context or entry action differs. */
  checkInitial(got: World): void {
    if (this.repeats === 0 || this.initialChecked) return;
    this.initialChecked = true;
    const w0 = performance.now(),
      c0 = cpuNowMs();
    const a = this.hasher.fp(got);
    let differs = false;
    for (let k = 0; k < this.repeats && !differs; k++) {
      const again = this.hasher.fp(withShiftedSources(k, () => initialWorld(this.sc, { detail: false }).world));
      differs = a.a !== again.a || a.b !== again.b;
    }
    this.time.wallMs += performance.now() - w0;
    this.time.cpuMs += cpuNowMs() - c0;
    if (differs) {
      throw new NondeterminismError(
        `nondeterminism: building the initial world twice gave different worlds: an initial context, input or entry action is impure (no Math.random(), clocks or I/O in machines; pass such values in as scenario input). \`determinism: false\` turns this check off.`,
        '?',
        'initial',
        'start',
      );
    }
  }

  /** `apply` followed by {@link check}: how user code run outside the search is stepped. */
  apply(from: World, t: Step, opts: { detail?: boolean; memo?: StepMemo | undefined } = {}): ReturnType<typeof apply> {
    const r = apply(this.sc, from, t, { detail: opts.detail ?? false, memo: opts.memo });
    this.check(from, t, r.world, r.events);
    return r;
  }

  /**
   * Called after each transition of the search: re-steps it when sampled; throws on a
   * difference. `offered`: the steps `from` enables, when the caller has them (listed
   * outside the re-step, so the re-step's own listing is compared with them).
   */
  check(from: World, t: Step, got: World, events: readonly TraceEvent[], offered?: readonly Step[]): void {
    const n = ++this.n;
    if (n > this.first && (this.every === 0 || n % this.every !== 0)) return;
    if (this.repeats === 0) return;
    const w0 = performance.now(),
      c0 = cpuNowMs();
    try {
      this.restep(from, t, got, events, offered ?? enabled(this.sc, from));
    } finally {
      this.time.wallMs += performance.now() - w0;
      this.time.cpuMs += cpuNowMs() - c0;
    }
  }

  private restep(from: World, t: Step, got: World, events: readonly TraceEvent[], offered: readonly Step[]): void {
    const kinds = kindsOf(events);
    for (let k = 0; k < this.repeats; k++) {
      this.resteps++;
      let again;
      let steps: readonly Step[] = offered;
      try {
        // The clock and the random source differ on purpose in each re-step. Input guards
        // (`when`) and reducers' fault outcomes run in `enabled`.
        again = withShiftedSources(k, () => {
          steps = enabled(this.sc, from);
          return apply(this.sc, from, t, { detail: false });
        });
      } catch (e) {
        throw this.error(from, t, `the first time it stepped, a second time it threw: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (!sameIds(steps, offered)) throw this.error(from, t, `the world offered different steps the two times (an input's \`when\` or a reducer's \`faultOutcomes\` is impure): ${idsOf(offered)} vs ${idsOf(steps)}`);
      const diff = this.differ(got, again.world);
      if (diff !== undefined) throw this.error(from, t, `the two runs reached different worlds (${diff})`);
      if (kindsOf(again.events) !== kinds) throw this.error(from, t, `the two runs did different things (${kinds || 'nothing'} vs ${kindsOf(again.events) || 'nothing'})`);
    }
  }

  private readonly h = new Hasher();

  private same(x: unknown, y: unknown): boolean {
    // Equal as data means equal hashes, and most of a re-step's result is shared with
    // or equal to the first result: compare first, hash only what that cannot tell.
    if (x === y || sameContent(x, y)) return true;
    this.h.hash(x);
    const a = this.h.ha,
      b = this.h.hb;
    this.h.hash(y);
    return a === this.h.ha && b === this.h.hb;
  }

  /**
   * What differs between two results of one step, or undefined. Both share every part
   * the step did not touch with the world it started from, so only parts that are not
   * the same objects are hashed (structurally, as fingerprints hash them).
   */
  private differ(x: World, y: World): string | undefined {
    const out: string[] = [];
    for (let i = 0; i < x.snaps.length; i++) {
      if (x.status[i] !== y.status[i] || !this.same(x.snaps[i], y.snaps[i]) || !this.same(x.inbox[i], y.inbox[i])) {
        out.push(`'${this.sc.ids[i]}' ${stateOf(x.snaps[i])} vs ${stateOf(y.snaps[i])}${this.same(x.inbox[i], y.inbox[i]) ? '' : ', different messages in flight to it'}`);
      }
    }
    if (x.now !== y.now || x.faults !== y.faults || !this.same(x.timers, y.timers)) out.push('timers or the clock');
    if (!this.same(x.monitors, y.monitors) || !this.same(x.failure, y.failure)) out.push('monitors');
    return out.length ? out.join('; ') : undefined;
  }

  private error(from: World, t: Step, what: string): NondeterminismError {
    const { actor, state, event } = describeStep(this.sc, from, t);
    return new NondeterminismError(
      `nondeterminism: actor '${actor}' in state '${state}' handling ${event} was stepped twice from the same world and ${what}. ` +
        `Machines must be pure (no Math.random(), clocks, I/O or state kept outside the snapshot); otherwise verdicts and counterexamples depend on luck. ` +
        `Pass randomness in as data (scenario input or messages) and time through timers. (This re-step sample is the check's \`determinism\` option; \`determinism: false\` turns it off.)`,
      actor,
      state,
      event,
    );
  }
}

function idsOf(steps: readonly Step[]): string {
  return steps.map((s) => s.id).join(' ');
}

/** True when two lists of steps have the same ids in the same order (as `idsOf` would print them alike). */
function sameIds(a: readonly Step[], b: readonly Step[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && a[i]!.id !== b[i]!.id) return false;
  return true;
}

function kindsOf(events: readonly TraceEvent[]): string {
  let s = '';
  for (const e of events) if (e.kind !== 'state' && e.kind !== 'context' && e.kind !== 'log') s += s ? `,${e.kind}` : e.kind;
  return s;
}

function stateOf(s: unknown): string {
  const v = (s as { value?: unknown } | null)?.value;
  return v === undefined ? 'state' : `in '${formatStateValue(v)}'`;
}

/** The actor a step runs, its state before, and the event it handles. */
function describeStep(sc: Scenario, w: World, t: Step): { actor: string; state: string; event: string } {
  let to: number;
  let event: string;
  if (t.kind === 'deliver' || t.kind === 'drop') {
    to = t.to;
    const ch = w.inbox[t.to]?.find((c) => c.from === t.from);
    const from = t.from === sc.envIndex ? 'env' : sc.ids[t.from];
    event = `'${ch?.queue[0]?.type ?? '?'}' from '${from}'${t.kind === 'deliver' && t.outcome ? ` (fault outcome ${t.outcome})` : ''}`;
  } else if (t.kind === 'timer') {
    const timer = w.timers[t.timer]!;
    to = timer.to;
    event = `timer '${timer.id}' ('${timer.event.type}')`;
  } else if (t.kind === 'input') {
    to = t.to;
    event = `input '${t.msg.type}'`;
  } else if (t.kind === 'crash' || t.kind === 'restart') {
    to = t.actor;
    event = t.kind;
  } else {
    return { actor: '?', state: '?', event: t.id };
  }
  const s = w.snaps[to] as { value?: unknown } | undefined;
  const state = s && typeof s === 'object' && 'value' in s ? formatStateValue(s.value) : sc.actorList[to]?.kind === 'reducer' ? 'reducer state' : '?';
  return { actor: sc.ids[to] ?? '?', state, event };
}
