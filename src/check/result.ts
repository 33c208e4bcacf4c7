// A check's result, assembled from its session after the search: the violation shrunk
// and replayed with detail (or the lasso replayed), the counts, and what was unreached.
import type { Scenario } from '../actors/index.ts';
import type { replayLasso } from './liveness/lasso.ts';
import { sameProperty } from './properties.ts';
import { runSchedule } from './trace/replay.ts';
import { nearestPassing, shrinkSchedule } from './trace/shrink.ts';
import type { Session } from './search/session.ts';
import type { Plan } from './plan.ts';
import type { PhaseClock } from './phases.ts';
import type { CheckOptions, CheckResult, Violation } from './types.ts';

/**
 * TLC's optimistic estimate of the chance that some state was omitted because its
 * fingerprint equalled an earlier one's: each of the m - n generated states that
 * were found "seen" could have been a new state colliding with one of n keys.
 */
export function collisionProbability(distinct: number, generated: number): number {
  return Math.min(1, (distinct * Math.max(0, generated - distinct)) / 2 ** 64);
}

/** The violation the session found, shrunk (a lasso: replayed) and replayed with detail. */
function violationOf(sc: Scenario, s: Session, opts: CheckOptions, clock: PhaseClock, lasso: typeof replayLasso | undefined): Violation | undefined {
  const f = s.found;
  if (!f) return undefined;
  // Shrinking and the replays run user code after the search: their steps are sampled too.
  const purity = s.determinism?.fork();
  if (f.property.kind === 'liveness') {
    // A lasso: no shrinking (the prefix is a shortest one, the cycle is built inside one component).
    // With an inspector that went on past safety violations, the lasso may pass through one.
    if (!lasso) throw new Error(`internal: a liveness counterexample for '${f.property.name}' from a mode that cannot replay one`);
    const out = lasso(sc, f.schedule, f.cycleStart, f.property.name, opts.inspect?.violation !== undefined, purity);
    if (!out.property || out.property.kind !== 'liveness') throw new Error(`internal: the liveness counterexample for '${f.property.name}' does not replay (${out.note ?? out.property?.message ?? '?'})`);
    const v: Violation = { property: f.property, schedule: out.schedule, originalLength: f.schedule.length, trace: out.trace, world: out.world };
    if (f.cycleStart !== undefined) v.cycleStart = f.cycleStart;
    return v;
  }
  let schedule = f.schedule;
  const endShrink = clock.start();
  if (opts.shrink !== false && schedule.length > 0) schedule = shrinkSchedule(sc, f.property, schedule, { purity, shortest: f.shortest === true });
  // The final trace: replay with detail on.
  let out = runSchedule(sc, schedule, { detail: true, lenient: false, purity });
  if (!out.property || !sameProperty(out.property, f.property)) {
    schedule = f.schedule;
    out = runSchedule(sc, schedule, { detail: true, lenient: false });
  }
  endShrink('shrink');
  const v: Violation = { property: out.property ?? f.property, schedule: out.schedule, originalLength: f.schedule.length, trace: out.trace, world: out.world };
  if (f.seed !== undefined) v.seed = f.seed;
  const passing = clock.time('nearbyPassing', () => nearestPassing(sc, out.schedule, undefined, purity));
  if (passing) {
    v.passing = passing.schedule;
    v.passingNote = passing.note;
  }
  return v;
}

/** The check's result from its session once the search has ended; `lasso` replays a liveness counterexample (the liveness mode loads it). */
export function checkResult(sc: Scenario, s: Session, opts: CheckOptions, plan: Plan, clock: PhaseClock, lasso?: typeof replayLasso): CheckResult {
  const violation = violationOf(sc, s, opts, clock, lasso);
  // Exploration time only (shrinking and the final replay are not part of the rate).
  const ms = s.exploreMs ?? s.ms();
  const distinct = s.distinct;
  const complete = plan.exhaustive && !s.found && s.cutBy === undefined;
  const result: CheckResult = {
    ok: !s.found,
    complete,
    stats: {
      states: s.states,
      ...(s.countDistinct ? { distinctStates: distinct, statesPerSecond: ms > 0 ? (distinct * 1000) / ms : 0 } : {}),
      transitions: s.transitions,
      maxDepth: s.maxDepth,
      ms,
      bytesPerState: s.visited.size > 0 ? s.visited.bytes / s.visited.size : 0,
    },
    unreached: s.found ? [] : s.reach.unreached(),
    strategy: plan.strategy,
    seed: plan.seed,
    options: plan.notes,
  };
  const memory = s.memory.stats(distinct);
  if (memory) result.stats.memory = memory;
  if (s.runs > 0) result.stats.runs = s.runs;
  if (plan.exhaustive) result.collisionProbability = collisionProbability(distinct, s.states);
  if (!complete && !s.found && s.cutBy) result.cutBy = s.cutBy;
  if (violation) result.violation = violation;
  // A shard reaches only its slice: whether a goal was reached is decided for all shards together.
  // Under symmetry a goal naming one member may hold only in a permutation the search skipped.
  const missed = complete && !s.shard && !plan.exchange && !plan.symmetry ? s.reach.required() : undefined;
  if (missed) {
    const goals = missed.goals.map((g) => `'${g}'`).join(', ');
    result.ok = false;
    result.finding = {
      kind: 'unreached',
      goals: missed.goals,
      message: `the complete search never reached ${goals}: a model that never gets there may be testing nothing; mark a goal optional(p) if it may not happen`,
      ...(missed.closest ? { closest: missed.closest } : {}),
    };
  }
  // Which properties could not have failed: meaningful for a whole search in one process.
  if (plan.exhaustive && !s.shard && !plan.exchange && !s.found) {
    const vacuous = s.reach.vacuous();
    if (vacuous.length) result.vacuous = vacuous;
    const ends = Object.keys(sc.eventually ?? {});
    if (complete && ends.length && s.reach.ends === 0) {
      plan.notes.endNote = `no run ends (no world is quiescent), so the end-of-run properties ${ends.map((n) => `'${n}'`).join(', ')} were never checked; a property of runs that never end is a liveness property: liveness: { name: eventually(p) }`;
    }
  }
  return result;
}
