// Liveness properties and fairness, as a scenario declares them. The checker's
// SCC pass (src/check/liveness/scc.ts) decides them on the explored state graph; this
// file only says what they mean and validates the declaration.
//
//   liveness: {
//     done: eventually((q) => q.matches('pinger', 'done')),
//     answered: leadsTo((q) => q.matches('client', 'waiting'), (q) => q.matches('client', 'served')),
//     moves: nonProgressCycles((q) => q.context('counter').ticks > 0),
//   },
//   fairness: { actors: 'all' },   // the default: weak fairness on each actor's deliveries
import type { ActorId } from './types.ts';
import type { ActorMap, Predicate, WorldQuery } from './scenario.ts';

/**
 * A property over whole runs, not single worlds. A run is an infinite sequence of
 * worlds, or a finite one that ends where nothing but faults is enabled (a
 * quiescent world). Runs that starve a weakly fair step class are not runs (see
 * `FairnessSpec`). A predicate holds when it returns `true` (a string means no).
 * `LivenessProperty<A>` reads the typed world query of actor map `A`.
 */
export type LivenessProperty<A extends ActorMap = any> =
  /** Every run passes a world where `p` holds. */
  | {
      /** `eventually(p)`. */
      readonly kind: 'eventually';
      /** The world every run must reach. */
      readonly p: Predicate<A>;
    }
  /** In every run, every world where `p` holds is followed (or matched) by one where `q` holds. */
  | {
      /** `leadsTo(p, q)`. */
      readonly kind: 'leadsTo';
      /** The trigger. */
      readonly p: Predicate<A>;
      /** What must follow it. */
      readonly q: Predicate<A>;
    }
  /** No infinite run stays out of `progress` worlds forever (Spin's non-progress cycles). Runs that end are fine. */
  | {
      /** `nonProgressCycles(progress)`. */
      readonly kind: 'progress';
      /** Which worlds count as progress. */
      readonly progress: Predicate<A>;
    };

// Each combinator has a second signature that no call matches (it needs an argument of
// type `never`) and that returns a function. Its only effect is on inference: TypeScript
// resolves a call to a generic function that may return a function after the scenario's
// actor map is inferred, so that the predicate written inline, as in
// `liveness: { done: eventually((q) => q.matches('client', 'paid')) }`, gets the
// scenario's typed query rather than the erased one.

/** `eventually(p)`: every run reaches a world where `p` holds (LTL `F p`). */
export function eventually<A extends ActorMap = any>(p: Predicate<A>): LivenessProperty<A>;
/** Never matches a call (its second parameter is `never`); see the first signature. It lets an inline `p` take the scenario's types. */
export function eventually<A extends ActorMap = any>(p: Predicate<A>, typedByTheScenario: never): () => never;
export function eventually(p: Predicate): LivenessProperty | (() => never) {
  return { kind: 'eventually', p };
}

/** `leadsTo(p, q)`: whenever `p` holds, `q` holds then or later (TLA+'s `p ~> q`, LTL `G(p -> F q)`). */
export function leadsTo<A extends ActorMap = any>(p: Predicate<A>, q: Predicate<A>): LivenessProperty<A>;
/** Never matches a call (its third parameter is `never`); see the first signature. It lets inline predicates take the scenario's types. */
export function leadsTo<A extends ActorMap = any>(p: Predicate<A>, q: Predicate<A>, typedByTheScenario: never): () => never;
export function leadsTo(p: Predicate, q: Predicate): LivenessProperty | (() => never) {
  return { kind: 'leadsTo', p, q };
}

/** True when some machine actor is in a state tagged `progress` (Spin's progress labels). */
export const progressTag: Predicate = (q: WorldQuery) => {
  const w = q.world;
  for (const s of w.snaps as any[]) if (s && typeof s.hasTag === 'function' && s.hasTag('progress')) return true;
  return false;
};

/**
 * Non-progress cycles: an infinite run that visits a `progress` world only finitely
 * often is a violation. The default marks progress by a state tagged `progress` in
 * any machine actor.
 */
export function nonProgressCycles<A extends ActorMap = any>(progress?: Predicate<A>): LivenessProperty<A>;
/** Never matches a call (its second parameter is `never`); see the first signature. It lets an inline `progress` take the scenario's types. */
export function nonProgressCycles<A extends ActorMap = any>(progress: Predicate<A> | undefined, typedByTheScenario: never): () => never;
export function nonProgressCycles(progress: Predicate = progressTag): LivenessProperty | (() => never) {
  return { kind: 'progress', progress };
}

/**
 * Weak fairness (TLC's WF): a step class that stays enabled from some point on is
 * eventually taken. A class is a set of steps: the normal deliveries to one actor
 * (`actors`), the normal deliveries on one channel (`channels`), or the timers one
 * actor owns (`timers`). Faults (crash, drop, fault outcomes) and restarts are never
 * fair. Without a `fairness` field a scenario gets `{ actors: 'all' }`; `'none'`
 * makes every run count, including ones that starve a delivery forever.
 */
export interface FairnessSpec {
  /** Actors whose normal deliveries are fair (each actor one class), or `'all'`. */
  readonly actors?: readonly ActorId[] | 'all';
  /** Channels `[from, to]` whose normal deliveries are fair (each channel one class). */
  readonly channels?: readonly (readonly [ActorId, ActorId])[];
  /** Actors whose timers are fair (each actor's timers one class), or `'all'`. */
  readonly timers?: readonly ActorId[] | 'all';
}

/** A scenario's `fairness`: `'none'`, or the step classes that are weakly fair (see {@link FairnessSpec}). */
export type Fairness = 'none' | FairnessSpec;

/** The fairness of a scenario without a `fairness` field: every actor's deliveries. */
export const DEFAULT_FAIRNESS: FairnessSpec = Object.freeze({ actors: 'all' as const });

const KINDS = ['eventually', 'leadsTo', 'progress'];

/** A message naming what is wrong with a `liveness` / `fairness` declaration, or undefined. */
export function livenessProblem(
  liveness: unknown,
  fairness: unknown,
  ids: readonly ActorId[],
): string | undefined {
  if (liveness !== undefined) {
    if (typeof liveness !== 'object' || liveness === null || Array.isArray(liveness)) return '`liveness` must be an object mapping names to eventually(p), leadsTo(p, q) or nonProgressCycles(p)';
    for (const [name, v] of Object.entries(liveness)) {
      const p = v as Partial<Record<string, unknown>> | null;
      if (typeof p !== 'object' || p === null || !KINDS.includes(p.kind as string)) return `liveness.${name} must be built with eventually(p), leadsTo(p, q) or nonProgressCycles(p)`;
      for (const k of p.kind === 'leadsTo' ? ['p', 'q'] : p.kind === 'eventually' ? ['p'] : ['progress']) {
        if (typeof p[k] !== 'function') return `liveness.${name}: ${k} must be a function (q) => boolean | string`;
      }
    }
  }
  if (fairness === undefined || fairness === 'none') return undefined;
  if (typeof fairness !== 'object' || fairness === null || Array.isArray(fairness)) return "`fairness` must be 'none' or { actors, channels, timers }";
  const f = fairness as Record<string, unknown>;
  for (const k of Object.keys(f)) if (!['actors', 'channels', 'timers'].includes(k)) return `fairness.${k} is not a fairness setting; use actors, channels, timers`;
  for (const k of ['actors', 'timers'] as const) {
    const v = f[k];
    if (v === undefined || v === 'all') continue;
    if (!Array.isArray(v)) return `fairness.${k} must be 'all' or an array of actor ids`;
    for (const id of v) if (!ids.includes(id)) return `fairness.${k} names unknown actor '${String(id)}'; known actors: ${ids.join(', ')}`;
  }
  if (f.channels !== undefined) {
    if (!Array.isArray(f.channels)) return 'fairness.channels must be an array of [from, to] pairs';
    for (const [k, pair] of (f.channels as unknown[]).entries()) {
      if (!Array.isArray(pair) || pair.length !== 2) return `fairness.channels[${k}] must be a [from, to] pair of actor ids`;
      if (pair[0] !== 'env' && !ids.includes(pair[0])) return `fairness.channels[${k}] names unknown sender '${String(pair[0])}'; known actors: env, ${ids.join(', ')}`;
      if (!ids.includes(pair[1])) return `fairness.channels[${k}] names unknown receiver '${String(pair[1])}'; known actors: ${ids.join(', ')}`;
    }
  }
  return undefined;
}
