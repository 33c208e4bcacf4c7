// Properties a scenario declares, evaluated on worlds and steps.
//
// - after every step: machine errors and unhandled events (trace events of kind
//   `error` / `unhandled`, the latter only under the default `unhandled: 'error'`),
//   monitor failures (the kernel steps monitors inside `apply` and sets
//   `world.failure`), then `invariants`;
// - at quiescence (nothing enabled but faults and restarts): `eventually`, then
//   deadlock.
//
// Deadlock. A quiescent world is an accepted end when the scenario's `acceptEnd`
// holds; without `acceptEnd`, when no actor is *waiting*. A machine actor is
// waiting when it is up, its snapshot is not final (`status: 'done'`), its state
// has no `idle` or `end` tag, and either it has left its initial state or its
// initial state sends a message on entry (it started by making a request: a peer
// that asks and waits for a reply that never comes is deadlocked in its first
// state). So servers resting in an initial state that sends nothing (a store, a
// ponger) are not waiting, and neither are reducers, crashed actors or actors that
// stopped with an error (reported as errors anyway). A client stuck in
// `awaitingReply` is. Tag a state `idle` to accept resting there.
import { ENV, ModelError, isModelError, isQuiescent, offersInput, queryOf, type Scenario, type Step, type TraceEvent, type World, type WorldQuery } from '../actors/index.ts';
import { XS, isAddressStub } from '../actors/xstate-adapter.ts';
import { isOptional } from '../actors/goals.ts';
import type { PropertyRef } from './types.ts';

function verdict(r: boolean | string, fallback: string): string | undefined {
  if (r === true) return undefined;
  if (typeof r === 'string') return r.length ? r : fallback;
  return fallback;
}

/**
 * Evaluates a property. A throw is a mistake in the model, not a verdict: it becomes a
 * ModelError naming the property and the world it was evaluated on (check finds the
 * schedule to that world).
 */
function call(kind: string, name: string, p: (q: any) => boolean | string, q: WorldQuery): boolean | string {
  try {
    return p(q);
  } catch (e) {
    const what = kind === 'acceptEnd' ? 'acceptEnd' : `${kind} '${name}'`;
    const err = isModelError(e) ? e : new ModelError(`threw: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    if (err.property === undefined) {
      err.property = what;
      err.message = `${what}: ${err.message}`;
    }
    err.world ??= q.world;
    throw err;
  }
}

/**
 * A violation caused by the events of one step, or the world after it (not counting
 * quiescence). `invariants: false` skips the invariants (a world already checked).
 */
export function stepViolation(sc: Scenario, w: World, events: readonly TraceEvent[], invariants = true): PropertyRef | undefined {
  for (const e of events) {
    if (e.kind === 'error') return { name: e.actor, kind: 'error', message: `actor '${e.actor}' failed: ${e.message}` };
    if (e.kind === 'unhandled' && ((e as { policy?: string }).policy ?? sc.unhandled ?? 'error') !== 'trace') {
      return { name: e.actor, kind: 'unhandled', message: `actor '${e.actor}' in state '${e.state}' has no transition for '${e.msg.type}' from '${e.from}' (the message would be lost)` };
    }
  }
  if (w.failure) return { name: w.failure.monitor, kind: 'monitor', message: w.failure.message };
  return invariants ? invariantViolation(sc, w) : undefined;
}

export function invariantViolation(sc: Scenario, w: World): PropertyRef | undefined {
  const inv = sc.invariants;
  if (!inv) return undefined;
  let q;
  for (const name in inv) {
    q ??= queryOf(sc, w);
    const m = verdict(call('invariant', name, inv[name]!, q), `invariant '${name}' does not hold`);
    if (m !== undefined) return { name, kind: 'invariant', message: m };
  }
  return undefined;
}

/** Actors that wait for something at a quiescent world (see the module comment). */
export function waitingActors(sc: Scenario, w: World): string[] {
  const out: string[] = [];
  for (const a of sc.actorList) {
    if (a.kind !== 'machine' || w.status[a.index] !== 'up') continue;
    const s = w.snaps[a.index] as any;
    if (!s || s.status !== 'active') continue;
    if (typeof s.hasTag === 'function' && (s.hasTag('idle') || s.hasTag('end'))) continue;
    const init = initialOf(a.stepper as any, a.input);
    if (!init.sends && sameValue(s.value, init.value)) continue;
    out.push(a.id);
  }
  return out;
}

/** A machine's initial state value, and whether entering it sends a message to an actor. */
interface Initial {
  readonly value: unknown;
  readonly sends: boolean;
}
const initials = new WeakMap<object, Map<unknown, Initial>>();
function initialOf(stepper: { initial(input: unknown): { snapshot: { value: unknown }; actions: readonly { type: string; params: any }[] } }, input: unknown): Initial {
  let byInput = initials.get(stepper);
  if (!byInput) initials.set(stepper, (byInput = new Map()));
  let init = byInput.get(input);
  if (!init) {
    try {
      const r = stepper.initial(input);
      const sends = r.actions.some((x) => x.type === XS.sendTo && targetId(x.params?.to) !== ENV);
      init = { value: r.snapshot.value, sends };
    } catch {
      // A machine whose initial state throws is reported as an error elsewhere.
      init = { value: Symbol('unknown'), sends: false };
    }
    byInput.set(input, init);
  }
  return init;
}

function targetId(to: unknown): unknown {
  return isAddressStub(to) ? to.id : to;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a),
    kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => sameValue((a as any)[k], (b as any)[k]));
}

/** At a quiescent world: a failing `atEnd` property (violation kind `eventually`), or a deadlock. */
export function quiescentViolation(sc: Scenario, w: World): PropertyRef | undefined {
  const ev = sc.atEnd;
  let q;
  if (ev) {
    for (const name in ev) {
      q ??= queryOf(sc, w);
      const m = verdict(call('eventually', name, ev[name]!, q), `'${name}' never happened`);
      if (m !== undefined) return { name, kind: 'eventually', message: m };
    }
  }
  // An actor waiting for the environment is not stuck while the environment may still send.
  if (offersInput(sc, w)) return undefined;
  if (sc.acceptEnd) {
    q ??= queryOf(sc, w);
    const r = call('acceptEnd', 'acceptEnd', sc.acceptEnd, q);
    if (r === true) return undefined;
    const waiting = waitingActors(sc, w);
    const why = typeof r === 'string' && r.length ? r : 'acceptEnd does not hold';
    return { name: 'deadlock', kind: 'deadlock', message: `no step is enabled and ${why}${waiting.length ? ` (waiting: ${describeWaiting(sc, w, waiting)})` : ''}` };
  }
  const waiting = waitingActors(sc, w);
  if (waiting.length === 0) return undefined;
  return { name: 'deadlock', kind: 'deadlock', message: `no step is enabled but ${describeWaiting(sc, w, waiting)} ${waiting.length === 1 ? 'is' : 'are'} still waiting` };
}

function describeWaiting(sc: Scenario, w: World, ids: readonly string[]): string {
  return ids.map((id) => `'${id}' in '${fmt((w.snaps[sc.index.get(id)!] as any).value)}'`).join(', ');
}

function fmt(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k}.${fmt(x)}`).join(',');
  return String(v);
}

/** The violation at a world whose enabled steps are `steps`, if quiescent. */
export function endViolation(sc: Scenario, w: World, steps: readonly Step[]): PropertyRef | undefined {
  return isQuiescent(steps) ? quiescentViolation(sc, w) : undefined;
}

/** A required `reachable` goal no explored world satisfied, and the explored world closest to it. */
export interface Unreached {
  /** The goals' names. */
  readonly goals: readonly string[];
  /** The world with the most actors out of their initial state among those explored. */
  readonly closest: World | undefined;
  /** How many actors had left their initial state there. */
  readonly moved: number;
}

/** How many actors of `w` (of `among`, when given) differ from their snapshot in `init`. */
function movedActors(init: World, w: World, among?: readonly number[]): number {
  let n = 0;
  if (among) {
    for (const i of among) if (w.snaps[i] !== init.snaps[i] || w.status[i] !== init.status[i]) n++;
  } else {
    for (let i = 0; i < w.snaps.length; i++) if (w.snaps[i] !== init.snaps[i] || w.status[i] !== init.status[i]) n++;
  }
  return n;
}

/** The actor indices a predicate declares it reads (`reads`), or undefined for all. */
function readsOf(sc: Scenario, p: unknown): number[] | undefined {
  const r = (p as { reads?: readonly string[] }).reads;
  return r ? r.map((id) => sc.index.get(id)).filter((i): i is number => i !== undefined) : undefined;
}

/**
 * Tracks which `reachable` predicates some explored world satisfied, the explored world
 * closest to the unreached ones, and which properties were only ever evaluated on worlds
 * where the actors they read had not moved (vacuous: they could not have failed).
 */
export class Reachability {
  private readonly left: string[];
  private init: World | undefined;
  private closest: World | undefined;
  private moved = -1;
  /** Properties not yet evaluated on a world where an actor they read had moved: name -> actors read. */
  private readonly untested = new Map<string, { readonly actors: number[] | undefined; readonly atEnd: boolean }>();
  /** Quiescent worlds seen (where end-of-run properties are decided). */
  ends = 0;

  constructor(private readonly sc: Scenario) {
    this.left = Object.keys(sc.reachable ?? {});
    for (const [name, p] of Object.entries(sc.invariants ?? {})) this.untested.set(`invariant '${name}'`, { actors: readsOf(sc, p), atEnd: false });
    for (const [name, p] of Object.entries(sc.eventually ?? {})) this.untested.set(`end-of-run '${name}'`, { actors: readsOf(sc, p), atEnd: true });
  }

  see(w: World, quiescent?: boolean): void {
    if (!this.init) this.init = w;
    if (quiescent) this.ends++;
    if (this.untested.size > 0) {
      for (const [name, u] of this.untested) if ((!u.atEnd || quiescent) && movedActors(this.init, w, u.actors) > 0) this.untested.delete(name);
    }
    if (this.left.length === 0) return;
    const q = queryOf(this.sc, w);
    for (let i = this.left.length - 1; i >= 0; i--) {
      if (call('reachable', this.left[i]!, this.sc.reachable![this.left[i]!]!, q) === true) this.left.splice(i, 1);
    }
    if (this.left.some((n) => !isOptional(this.sc.reachable![n]))) {
      const m = movedActors(this.init, w);
      if (m > this.moved) {
        this.moved = m;
        this.closest = w;
      }
    }
  }

  /** True while some `reachable` goal has not been met. */
  get goalsLeft(): boolean {
    return this.left.length > 0;
  }

  unreached(): string[] {
    return [...this.left];
  }

  /** The required goals left unreached (not marked `optional`), with the closest world explored; undefined when every one was reached. */
  required(): Unreached | undefined {
    const goals = this.left.filter((n) => !isOptional(this.sc.reachable![n]));
    return goals.length ? { goals, closest: this.closest, moved: Math.max(0, this.moved) } : undefined;
  }

  /**
   * Properties that could not have failed in what was explored: never evaluated on a world
   * where an actor they read had left its initial state (end-of-run properties: at an end
   * of a run; all of them when no run ended).
   */
  vacuous(): string[] {
    return [...this.untested.keys()];
  }

  /** Keeps only these as unreached (a swarm merges what its workers reached). */
  restrictTo(names: readonly string[]): void {
    for (let i = this.left.length - 1; i >= 0; i--) if (!names.includes(this.left[i]!)) this.left.splice(i, 1);
  }
}

/** Same property, for shrinking and replay: kind and name (messages may differ). */
export function sameProperty(a: PropertyRef, b: PropertyRef): boolean {
  return a.kind === b.kind && a.name === b.name;
}
