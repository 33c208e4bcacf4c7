// Nondeterminism detection during exploration (issue 13, defect 3). The search
// trusts that a step from a world always gives the same world: the step memo hands
// a recorded result to every world where a (snapshot, message) pair recurs, and the
// visited set prunes a world by its fingerprint. A machine whose guard reads
// Math.random() (or a clock, or mutable data outside its snapshot) breaks that
// silently: verdicts and counterexamples then depend on luck. Like Stateright
// rebuilding paths and madsim running twice, the checker re-steps a deterministic
// sample of (world, step) pairs without the memo and compares the results.
//
// Sample: the first `first` transitions (small models are covered whole), then every
// `every`-th; each sampled pair is re-stepped `repeats` times. Comparison: the
// fingerprint of the resulting world (no symmetry) and the kinds of the step's events.
import { ScenarioError, apply, formatStateValue, initialWorld, type Scenario, type Step, type TraceEvent, type World } from '../actors/index.ts';
import { Hasher, WorldHasher } from './fingerprint.ts';
import type { DeterminismOptions } from './types.ts';

export const DETERMINISM_DEFAULTS: Required<DeterminismOptions> = { first: 512, every: 64, repeats: 2 };

/** Thrown when one step from one world gave two different results: a machine is impure. */
export class NondeterminismError extends ScenarioError {
  override name = 'NondeterminismError';
  constructor(
    message: string,
    readonly actor: string,
    readonly state: string,
    readonly event: string,
  ) {
    super(message);
  }
}

export class DeterminismCheck {
  private readonly first: number;
  private readonly every: number;
  private readonly repeats: number;
  private readonly hasher: WorldHasher;
  private n = 0;
  /** Re-steps done (for the benchmark). */
  resteps = 0;

  constructor(
    private readonly sc: Scenario,
    opts: DeterminismOptions,
  ) {
    this.first = opts.first ?? DETERMINISM_DEFAULTS.first;
    this.every = opts.every ?? DETERMINISM_DEFAULTS.every;
    this.repeats = opts.repeats ?? DETERMINISM_DEFAULTS.repeats;
    for (const [k, v] of [['first', this.first], ['every', this.every], ['repeats', this.repeats]] as const) {
      if (!Number.isInteger(v) || v < 0) throw new Error(`determinism.${k} must be a whole number >= 0, got ${String(v)}`);
    }
    this.hasher = new WorldHasher(sc, false);
  }

  /** The initial world, built again: an impure initial context or entry action differs. */
  checkInitial(got: World): void {
    if (this.repeats === 0) return;
    const a = this.hasher.fp(got);
    const again = this.hasher.fp(initialWorld(this.sc, { detail: false }).world);
    if (a.a !== again.a || a.b !== again.b) {
      throw new NondeterminismError(
        `nondeterminism: building the initial world twice gave different worlds: an initial context, input or entry action is impure (no Math.random(), clocks or I/O in machines; pass such values in as scenario input). \`determinism: false\` turns this check off.`,
        '?',
        'initial',
        'start',
      );
    }
  }

  /** Called after each transition of the search: re-steps it when sampled; throws on a difference. */
  check(from: World, t: Step, got: World, events: readonly TraceEvent[]): void {
    const n = ++this.n;
    if (n > this.first && (this.every === 0 || n % this.every !== 0)) return;
    if (this.repeats === 0) return;
    this.hasher.world(got);
    const a = this.hasher.ha,
      b = this.hasher.hb;
    const lanes = this.hasher.lastLanes;
    const kinds = kindsOf(events);
    for (let k = 0; k < this.repeats; k++) {
      this.resteps++;
      let again;
      try {
        again = apply(this.sc, from, t, { detail: false });
      } catch (e) {
        throw this.error(from, t, `the first time it stepped, a second time it threw: ${e instanceof Error ? e.message : String(e)}`);
      }
      this.hasher.world(again.world, got, lanes);
      if (this.hasher.ha !== a || this.hasher.hb !== b) throw this.error(from, t, `the two runs reached different worlds${differing(this.sc, got, again.world)}`);
      if (kindsOf(again.events) !== kinds) throw this.error(from, t, `the two runs did different things (${kinds || 'nothing'} vs ${kindsOf(again.events) || 'nothing'})`);
    }
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

function kindsOf(events: readonly TraceEvent[]): string {
  let s = '';
  for (const e of events) if (e.kind !== 'state' && e.kind !== 'log') s += s ? `,${e.kind}` : e.kind;
  return s;
}

/** Which actors' snapshots, statuses or inboxes differ between two results, for the message. */
function differing(sc: Scenario, x: World, y: World): string {
  const h = new Hasher();
  const out: string[] = [];
  for (let i = 0; i < sc.ids.length; i++) {
    h.hash([x.snaps[i], x.status[i], x.inbox[i]]);
    const a = h.ha,
      b = h.hb;
    h.hash([y.snaps[i], y.status[i], y.inbox[i]]);
    if (h.ha !== a || h.hb !== b) out.push(`'${sc.ids[i]}' ${stateOf(x.snaps[i])} vs ${stateOf(y.snaps[i])}`);
  }
  return out.length ? ` (${out.join('; ')})` : ' (timers, monitors or the clock differ)';
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
