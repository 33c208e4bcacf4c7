// Counterexample shrinking. Every candidate is re-checked by (lenient) replay: steps
// that are no longer enabled are skipped, and the candidate counts only if the run
// still violates the same property (same kind and name).
// 1. Delta debugging (Zeller's ddmin) over steps, faults included: remove chunks,
//    halving the chunk size when no chunk can go.
// 2. Adjacent swaps toward fewer context switches (consecutive steps of different
//    actors), so the story reads actor by actor.
// Also finds a nearby passing schedule (greedy, bounded: see `nearestPassing`).
import { StepMemo, apply, enabled, isFault, type Scenario } from '../../actors/index.ts';
import { endViolation, sameProperty, stepViolation } from '../properties.ts';
import { runSchedule } from './replay.ts';
import { NondeterminismError, type DeterminismCheck } from '../purity.ts';
import type { PropertyRef } from '../types.ts';

// Both searches are bounded by work (candidate replays and replayed steps), never by
// wall-clock time, so the printed counterexample does not depend on machine load.
/** Bounds of `shrinkSchedule`, in work (never wall time). */
export interface ShrinkOptions {
  /** Stop after this many candidate replays (default 4000). */
  readonly maxReplays?: number;
  /** Stop after replaying this many steps in all (default 1,000,000). */
  readonly maxSteps?: number;
  /** The nondeterminism sample the replays' steps go through (shrinking runs user code after the search). */
  readonly purity?: DeterminismCheck | undefined;
  /** The schedule is a shortest violating one (a breadth-first search's, `Found.shortest`): skip deleting steps, only reorder. */
  readonly shortest?: boolean;
}

/** The actor a step id is about: the receiver of a delivery or drop, the owner of a timer, the crashed actor. */
export function actorOfStep(id: string): string {
  const arrow = id.indexOf('->');
  if (arrow >= 0) {
    const rest = id.slice(arrow + 2);
    const colon = rest.indexOf(':');
    return colon >= 0 ? rest.slice(0, colon) : rest;
  }
  const parts = id.split(':');
  return parts[1] ?? id;
}

/** How many times consecutive steps of a schedule are about different actors (shrinking prefers fewer). */
export function contextSwitches(schedule: readonly string[]): number {
  let n = 0;
  for (let i = 1; i < schedule.length; i++) if (actorOfStep(schedule[i]!) !== actorOfStep(schedule[i - 1]!)) n++;
  return n;
}

/** A shorter schedule that violates the same property: delta debugging over its steps (faults included), then adjacent swaps toward fewer context switches, within the `opts` budget. Returns the schedule as replayed when nothing shorter fails. */
export function shrinkSchedule(sc: Scenario, property: PropertyRef, schedule: readonly string[], opts: ShrinkOptions = {}): string[] {
  const maxReplays = opts.maxReplays ?? 4000;
  const maxSteps = opts.maxSteps ?? 1_000_000;
  let replays = 0;
  let steps = 0;
  const budget = () => replays < maxReplays && steps < maxSteps;
  // Candidates share most of their steps with the schedule they came from: the memo
  // (and the start results it keeps) lets each replay reuse those machine steps.
  const memo = new StepMemo();
  /** The schedule actually taken, if the candidate still fails the same way. */
  const fails = (cand: readonly string[]): string[] | undefined => {
    replays++;
    steps += cand.length;
    let out;
    try {
      out = runSchedule(sc, cand, { detail: false, lenient: true, purity: opts.purity, memo });
    } catch (e) {
      if (e instanceof NondeterminismError) throw e;
      return undefined;
    }
    return out.property && sameProperty(out.property, property) ? out.schedule : undefined;
  };

  let cur = fails(schedule) ?? [...schedule];
  // 1. ddmin over steps (no shorter schedule fails when a breadth-first search found this one).
  let n = 2;
  while (opts.shortest !== true && cur.length > 0 && budget()) {
    const chunk = Math.ceil(cur.length / n);
    let reduced = false;
    for (let start = 0; start < cur.length && budget(); start += chunk) {
      const cand = [...cur.slice(0, start), ...cur.slice(start + chunk)];
      const r = fails(cand);
      if (r && r.length < cur.length) {
        cur = r;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (chunk <= 1) break;
      n = Math.min(cur.length, n * 2);
    }
  }
  // 2. Adjacent swaps that lower the number of context switches.
  let improved = true;
  while (improved && budget()) {
    improved = false;
    const base = contextSwitches(cur);
    for (let i = 0; i + 1 < cur.length && budget(); i++) {
      if (actorOfStep(cur[i]!) === actorOfStep(cur[i + 1]!)) continue;
      const cand = cur.slice();
      [cand[i], cand[i + 1]] = [cand[i + 1]!, cand[i]!];
      if (contextSwitches(cand) >= base) continue;
      const r = fails(cand);
      if (r && r.length <= cur.length && contextSwitches(r) < base) {
        cur = r;
        improved = true;
        break;
      }
    }
  }
  return cur;
}

/** A passing schedule near a counterexample, and how it was obtained (printed with it). */
export interface NearPassing {
  /** The passing schedule's step ids. */
  readonly schedule: string[];
  /** What changed and how it was searched, in words. */
  readonly note: string;
}

/** Candidate replays `nearestPassing` tries at most (each runs on to quiescence). */
export const NEAREST_PASSING_TRIES = 200;

/**
 * A passing schedule one reordering away from `schedule`: two adjacent steps swapped,
 * or one step moved earlier past others to just before a step on the same actor.
 * Steps on different actors commute in the world (only a monitor can tell their
 * order), so longer moves are tried only between conflicting steps. Nearer
 * reorderings (smaller moves, later in the run) are tried first. A moved fault
 * outcome (`…!403`) that the new order does not offer becomes the normal delivery:
 * that a fault is impossible in the other order is often the whole point. When no
 * reordering passes, the same interleaving without one fault outcome is tried.
 *
 * This is a greedy heuristic bounded by `maxTries` candidate replays, not a search
 * for the fewest reordered steps: the first single move that passes is returned,
 * and the note says which move (or that the fallback "same run without the fault"
 * was used).
 */
export function nearestPassing(sc: Scenario, schedule: readonly string[], maxTries = NEAREST_PASSING_TRIES, purity?: DeterminismCheck): NearPassing | undefined {
  let tries = 0;
  const memo = new StepMemo();
  const passes = (cand: string[]): string[] | undefined => {
    tries++;
    try {
      return runsClean(sc, cand, purity, memo);
    } catch (e) {
      if (e instanceof NondeterminismError) throw e;
      // a candidate that cannot run is simply not a passing schedule
      return undefined;
    }
  };
  const bound = () => `greedy search over single moves, nearest first, ${tries} of at most ${maxTries} replays; not proven nearest`;
  for (let d = 1; d < schedule.length && tries < maxTries; d++) {
    for (let i = schedule.length - 1 - d; i >= 0 && tries < maxTries; i--) {
      const j = i + d;
      // Adjacent swaps are always tried (a monitor sees the order of steps on different
      // actors); longer moves only between steps on the same actor, which conflict.
      if (d > 1 && actorOfStep(schedule[i]!) !== actorOfStep(schedule[j]!)) continue;
      const moved = schedule[j]!;
      const cand = [...schedule.slice(0, i), moved, ...schedule.slice(i, j), ...schedule.slice(j + 1)];
      let found = passes(cand);
      let asNormal = false;
      if (!found && isFaultOutcome(moved)) {
        found = passes(cand.map((id, k) => (k === i ? withoutOutcome(id) : id)));
        asNormal = found !== undefined;
      }
      if (found) {
        return { schedule: found, note: `step ${j + 1} (${moved}) moved before step ${i + 1}${asNormal ? ' as a normal delivery' : ''}, then run on to the end with normal steps (${bound()})` };
      }
    }
  }
  // No reordering passes: the same interleaving with one fault outcome turned into the
  // normal delivery shows which fault the failure needs.
  for (let i = schedule.length - 1; i >= 0 && tries < maxTries; i--) {
    if (!isFaultOutcome(schedule[i]!)) continue;
    const found = passes(schedule.map((id, k) => (k === i ? withoutOutcome(id) : id)));
    if (found) return { schedule: found, note: `no single move passed; the same run with step ${i + 1} (${schedule[i]}) as a normal delivery instead of the fault (${bound()})` };
  }
  return undefined;
}

/**
 * Runs `cand` (skipping at most two steps the changed order no longer enables: a
 * reply that now reads differently), then carries on to quiescence with normal
 * steps, preferring the candidate's own. The whole schedule if nothing fails on the
 * way or at the end.
 */
function runsClean(sc: Scenario, cand: readonly string[], purity: DeterminismCheck | undefined, memo: StepMemo): string[] | undefined {
  const r = runSchedule(sc, cand, { detail: false, lenient: true, purity, memo });
  if (r.property || cand.length - r.schedule.length > 2) return undefined;
  const taken = [...r.schedule];
  const rest = cand.filter((id) => !taken.includes(id));
  let w = r.world;
  for (let n = 0; n < 4 * cand.length + 50; n++) {
    const steps = enabled(sc, w);
    const end = endViolation(sc, w, steps);
    if (end) return undefined;
    const normal = steps.filter((x) => !isFault(x) && x.kind !== 'restart');
    if (normal.length === 0) return taken;
    const step = normal.find((x) => rest.includes(x.id)) ?? normal[0]!;
    const res = purity ? purity.apply(w, step, { memo }) : apply(sc, w, step, { detail: false, memo });
    w = res.world;
    taken.push(step.id);
    if (stepViolation(sc, w, res.events)) return undefined;
  }
  return undefined;
}

function isFaultOutcome(id: string): boolean {
  return id.startsWith('deliver:') && id.includes('!');
}

function withoutOutcome(id: string): string {
  return id.slice(0, id.lastIndexOf('!'));
}
