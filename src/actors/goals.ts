// `reachable` goals: a complete check that never reaches one fails (the model may test
// nothing), unless the goal is marked optional.
import type { Predicate } from './scenario.ts';

/**
 * Marks a `reachable` goal as optional: a complete check that never reaches it lists it
 * in `unreached` but still passes. Goals not marked fail a complete check they are not
 * reached in, since a model that never gets there may be testing nothing.
 *
 * @example
 * ```ts no-run
 * reachable: { 'both booked': bothBooked, 'a retry': optional(retried) }
 * ```
 */
export function optional<P extends Predicate>(p: P): P {
  return Object.assign(p, { optional: true as const });
}

/** Whether a goal was marked `optional`. */
export function isOptional(p: unknown): boolean {
  return (p as { optional?: unknown } | undefined)?.optional === true;
}
