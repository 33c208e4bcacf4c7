// A mistake in the model rather than a violation of its properties: a property that
// names an actor or a state the scenario does not have, a predicate that throws, a
// message sent to no one. The check stops on it (exit 2 on the command line) instead of
// reporting a counterexample, and says where it happened.
import type { World } from './types.ts';

/** Where a model error happened, as far as the code that noticed it knows. */
export interface ModelErrorDetails {
  /** The property being evaluated (`invariant 'x'`, `reachable 'y'`, ...). */
  readonly property?: string;
  /** The actor involved. */
  readonly actor?: string;
  /** The value involved (a state value the machine does not have, say). */
  readonly value?: unknown;
  /** What threw, when the model error wraps an exception. */
  readonly cause?: unknown;
}

/**
 * The model is wrong (not the protocol): a property names an unknown actor or a state its
 * machine does not have, a predicate throws, or an actor sends a message with no target.
 * `check` rejects with it; `schedule` (when known) reaches the world where it happened,
 * and the command line saves it as a trace and exits 2.
 */
export class ModelError extends Error {
  /** Always `ModelError`. */
  override readonly name = 'ModelError';
  /** The property being evaluated, when one was. */
  property: string | undefined;
  /** The actor involved, when one was. */
  actor: string | undefined;
  /** The value involved, when one was. */
  value: unknown;
  /** The step being taken when it happened, if it happened inside one. */
  step: string | undefined;
  /** The steps that reach the world where it happened (filled in by `check`). */
  schedule: string[] | undefined;
  /** @internal The world where it happened, to find `schedule` from. */
  world: World | undefined;

  constructor(message: string, details: ModelErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.property = details.property;
    this.actor = details.actor;
    this.value = details.value;
    this.step = undefined;
    this.schedule = undefined;
    this.world = undefined;
  }
}

/** Whether `e` is a ModelError (also across module copies). */
export function isModelError(e: unknown): e is ModelError {
  return e instanceof ModelError || (e instanceof Error && e.name === 'ModelError');
}
