// What a predicate reads, declared by the user for partial-order reduction: `reads`,
// `readsEach` and `readsView` tag a predicate with the actors it looks at, so the
// checker's reduction (check/por) knows which steps can change its value.
import type { ActorMap, Predicate, WorldQuery } from './scenario.ts';

/** What a predicate reads, for the reduction (see `reads`). */
export interface Reads {
  /** The actors the predicate reads. */
  readonly reads?: readonly string[];
  /** True when it is one condition per listed actor, each reading only that actor. */
  readonly readsEach?: boolean;
  /** The part of the world it reads (`readsView`): only steps that change it are visible. */
  readonly view?: (q: WorldQuery<any>) => unknown;
}

/**
 * Declares the actors a predicate (invariant or `reachable`) reads: their snapshot,
 * context, status and pending messages. Lets partial-order reduction skip
 * interleavings of the other actors' steps. A wrong declaration makes the check
 * unsound; an undeclared predicate is assumed to read every actor.
 */
export function reads<A extends ActorMap = any>(actors: readonly string[], p: Predicate<A>): Predicate<A> {
  return Object.assign(p, { reads: actors.slice(), readsEach: false });
}

/**
 * Declares a predicate that is a conjunction of one condition per listed actor, each
 * reading only that actor's snapshot, context and status (e.g. "every worker's
 * counters add up"). Such a predicate never makes a step visible.
 */
export function readsEach<A extends ActorMap = any>(actors: readonly string[], p: Predicate<A>): Predicate<A> {
  return Object.assign(p, { reads: actors.slice(), readsEach: true });
}

/**
 * A predicate over several actors written as a `view` of the world (reading only the
 * listed actors' snapshots, contexts and status, returning plain data: numbers,
 * strings, booleans, arrays, objects) and a `check` of that view. Partial-order
 * reduction then treats as visible only the steps that change the view (e.g. a pool's
 * running count), not every step of the listed actors.
 */
export function readsView<V, A extends ActorMap = any>(actors: readonly string[], view: (q: WorldQuery<A>) => V, check: (v: V) => boolean | string): Predicate<A> {
  const p: Predicate<A> = (q) => check(view(q));
  return Object.assign(p, { reads: actors.slice(), readsEach: false, view });
}
