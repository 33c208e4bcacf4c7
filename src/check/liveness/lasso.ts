// Replaying a liveness counterexample: run the prefix, remember the world's
// fingerprint, run the cycle once and confirm it comes back to the same
// fingerprint; along the way re-decide the property (the obligation stays owed on
// every world of the cycle, and the cycle starves no weakly fair class). A run
// that ends (no cycle) must end owed at a quiescent world. Nothing here trusts the
// search that found the lasso.
import { Divergence, apply, enabled, initialWorld, isQuiescent, queryOf, type RecordedEvent, type Scenario, type TraceEvent, type World } from '../../actors/index.ts';
import { FairClasses } from './fairness.ts';
import { WorldHasher, fpHex } from '../fingerprint/fingerprint.ts';
import { livenessMessage, livenessSpecs, owedOf } from './scc.ts';
import { stepViolation } from '../properties.ts';
import type { PropertyRef } from '../types.ts';
import type { DeterminismCheck } from '../purity.ts';

/** What replaying a liveness lasso found (`replayLasso`). */
export interface LassoReplay {
  /** The steps replayed: the prefix, then the cycle once. */
  readonly schedule: string[];
  /** Their events, each with its step number. */
  readonly trace: RecordedEvent[];
  /** The world at the end of the replay. */
  readonly world: World;
  /** The violation confirmed by this replay (a safety property met on the way comes first). */
  readonly property?: PropertyRef;
  /** For a lasso: the fingerprints where the cycle starts and where it ends. */
  readonly loop?: {
    /** Fingerprint of the world where the cycle starts. */
    readonly from: string;
    /** Fingerprint of the world the cycle ends in. */
    readonly to: string;
    /** True when the cycle returns to its start. */
    readonly returns: boolean;
    /** True when the cycle starves no weakly fair step class (every class enabled all along it is taken). */
    readonly fair: boolean;
    /** True when the property stays owed on every world of the cycle (never paid on it). */
    readonly owed: boolean;
  };
  /** Why the saved liveness violation did not replay as one. */
  readonly note?: string;
}

function record(out: RecordedEvent[], evs: readonly TraceEvent[], step: number): void {
  for (const e of evs) out.push({ ...e, step } as RecordedEvent);
}

/**
 * Replays `schedule` strictly (throws `Divergence`) and re-decides liveness property `name` on it.
 * A safety violation on the way ends the replay (it comes first) unless `pastSafety` (the
 * search went on past safety violations because `inspect.violation` asked it to, so its
 * lasso may pass through one).
 */
export function replayLasso(sc: Scenario, schedule: readonly string[], cycleStart: number | undefined, name: string, pastSafety = false, purity?: DeterminismCheck): LassoReplay {
  const trace: RecordedEvent[] = [];
  const taken: string[] = [];
  const init = initialWorld(sc, { detail: true });
  let w = init.world;
  purity?.checkInitial(w);
  record(trace, init.events, 0);
  const v0 = stepViolation(sc, w, init.events);
  if (v0 && !pastSafety) return { schedule: taken, trace, world: w, property: v0 };
  const spec = livenessSpecs(sc).specs.find((s) => s.name === name);
  const classes = new FairClasses(sc);
  const hasher = new WorldHasher(sc, false);
  const { preds } = livenessSpecs(sc);
  const holds = (x: World) => {
    const cache = new Map<number, boolean>();
    return (slot: number) => {
      if (!cache.has(slot)) {
        let r: boolean | string = false;
        try {
          r = preds[slot]!(queryOf(sc, x));
        } catch {
          r = false;
        }
        cache.set(slot, r === true);
      }
      return cache.get(slot)!;
    };
  };
  const A = spec ? owedOf(spec) : undefined;
  let owed = A ? A.init(holds(w)) : 0;
  let owedFrom = 0;
  const W = classes.words;
  const enAnd = new Uint32Array(W).fill(0xffffffff);
  const takenMask = new Uint32Array(W);
  let owedAll = true;
  let fpFrom = '';
  const fp = (x: World) => {
    hasher.world(x);
    return fpHex({ a: hasher.ha >>> 0, b: hasher.hb >>> 0 });
  };
  for (let i = 0; i < schedule.length; i++) {
    const steps = enabled(sc, w);
    const step = steps.find((s) => s.id === schedule[i]);
    if (!step) throw new Divergence(i, schedule[i]!, steps.map((s) => s.id));
    if (cycleStart !== undefined && i >= cycleStart) {
      if (i === cycleStart) fpFrom = fp(w);
      const m = new Uint32Array(W);
      for (const t of steps) classes.orInto(m, 0, classes.of(t, w));
      for (let j = 0; j < W; j++) enAnd[j]! &= m[j]!;
      classes.orInto(takenMask, 0, classes.of(step, w));
      if (owed !== 1) owedAll = false;
    }
    const r = purity ? purity.apply(w, step, { detail: true }) : apply(sc, w, step, { detail: true });
    w = r.world;
    taken.push(step.id);
    record(trace, r.events, taken.length);
    const v = stepViolation(sc, w, r.events);
    if (v && !pastSafety) return { schedule: taken, trace, world: w, property: v };
    if (A) {
      const next = A.next(owed as 0 | 1, holds(w));
      if (next === 1 && owed === 0) owedFrom = i + 1;
      owed = next;
    }
  }
  if (!spec || !A) return { schedule: taken, trace, world: w, note: `the scenario declares no liveness property '${name}'` };
  if (cycleStart === undefined) {
    const ends = isQuiescent(enabled(sc, w));
    if (A.endsCount && ends && owed === 1) return { schedule: taken, trace, world: w, property: livenessMessage(spec, classes, taken.length, owedFrom, undefined) };
    return { schedule: taken, trace, world: w, note: !ends ? 'the run does not end where the schedule ends' : `'${name}' is not owed where the run ends` };
  }
  if (cycleStart < 0 || cycleStart >= schedule.length) return { schedule: taken, trace, world: w, note: `cycleStart ${cycleStart} is outside the schedule (${schedule.length} steps)` };
  const fpTo = fp(w);
  let fair = true;
  for (let j = 0; j < W; j++) if ((enAnd[j]! & ~takenMask[j]!) !== 0) fair = false;
  const loop = { from: fpFrom, to: fpTo, returns: fpFrom === fpTo, fair, owed: owedAll && owed === 1 };
  if (loop.returns && loop.fair && loop.owed) {
    return { schedule: taken, trace, world: w, loop, property: livenessMessage(spec, classes, cycleStart, owedFrom, schedule.length - cycleStart) };
  }
  const why = !loop.returns ? `the cycle does not return to the world it starts at (fingerprint ${fpFrom} then ${fpTo})` : !loop.fair ? 'the cycle starves a weakly fair step class' : `'${name}' is paid on the cycle`;
  return { schedule: taken, trace, world: w, loop, note: why };
}
