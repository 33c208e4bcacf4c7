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
import type { Predicate, WorldQuery } from './scenario.ts';

/**
 * A property over whole runs, not single worlds. A run is an infinite sequence of
 * worlds, or a finite one that ends where nothing but faults is enabled (a
 * quiescent world). Runs that starve a weakly fair step class are not runs (see
 * `FairnessSpec`). A predicate holds when it returns `true` (a string means no).
 */
export type LivenessProperty =
  /** Every run passes a world where `p` holds. */
  | {
      /** `eventually(p)`. */
      readonly kind: 'eventually';
      /** The world every run must reach. */
      readonly p: Predicate;
    }
  /** In every run, every world where `p` holds is followed (or matched) by one where `q` holds. */
  | {
      /** `leadsTo(p, q)`. */
      readonly kind: 'leadsTo';
      /** The trigger. */
      readonly p: Predicate;
      /** What must follow it. */
      readonly q: Predicate;
    }
  /** No infinite run stays out of `progress` worlds forever (Spin's non-progress cycles). Runs that end are fine. */
  | {
      /** `nonProgressCycles(progress)`. */
      readonly kind: 'progress';
      /** Which worlds count as progress. */
      readonly progress: Predicate;
    };

/** `eventually(p)`: every run reaches a world where `p` holds (LTL `F p`). */
export function eventually(p: Predicate): LivenessProperty {
  return { kind: 'eventually', p };
}

/** `leadsTo(p, q)`: whenever `p` holds, `q` holds then or later (TLA+'s `p ~> q`, LTL `G(p -> F q)`). */
export function leadsTo(p: Predicate, q: Predicate): LivenessProperty {
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
export function nonProgressCycles(progress: Predicate = progressTag): LivenessProperty {
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
