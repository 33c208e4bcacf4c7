// `start=materialized`: the world at the moment the coordinator schedules the first
// Loop End region, with the Src / Loop Start (/ body) regions already executed and
// materialized. It is derived, never written by hand: every interleaving of the
// scratch scenario up to that moment is explored, and the start is used only when
// they all meet in one world, no property fails on the way and no fault can fire
// there. Checking from that world then covers exactly the runs a check from scratch
// covers, minus a prefix they all share; the loop's race (and every other outcome)
// lies after it. Otherwise (an error holds an earlier region, F_recreate can hit an
// earlier reader, a timer is still pending, ...) the scenario starts from scratch
// and says why.
import { apply, enabled, initialWorld, isFailureEvent, queryOf, type Message, type RecordedEvent, type Scenario, type Step, type World } from '../../actors/index.ts';
import { drive } from '../../actors/index.ts';
import type { CoordinatorContext } from './coordinator.ts';
import { COORDINATOR } from './worker.ts';

/** What the seeded scenario boots with: every actor's context (or reducer state), the messages in flight, the monitors. */
export interface StartSeed {
  /** Per actor: its xstate context, or the reducer's state. */
  readonly contexts: Readonly<Record<string, unknown>>;
  /** Per xstate actor: its state value. */
  readonly states: Readonly<Record<string, string>>;
  /** Messages in flight at that moment, per channel in FIFO order. */
  readonly start: readonly { readonly from: string; readonly to: string; readonly msg: Message }[];
  /** Monitor states by name (what the properties remember of the earlier regions). */
  readonly monitors: Readonly<Record<string, unknown>>;
  /** The earlier regions: one deterministic run up to the cut (for traces and whole-run counts). */
  readonly prefix: { readonly schedule: readonly string[]; readonly events: readonly RecordedEvent[]; readonly world: World };
  /** Distinct worlds explored before the cut (all interleavings of the earlier regions). */
  readonly explored: number;
}

export type Derived = { readonly ok: true; readonly seed: StartSeed } | { readonly ok: false; readonly reason: string };

const isFaultStep = (s: Step) => !(s.kind === 'timer' || (s.kind === 'deliver' && s.outcome === undefined));

/** Canonical text of a world's state (everything that decides behaviour; not `now`, not anonymous ids). */
export function worldKey(w: World): string {
  return canon({ snaps: w.snaps, status: w.status, inbox: w.inbox, timers: w.timers, faults: w.faults, monitors: w.monitors, failure: w.failure ?? null });
}

// Worlds are immutable and share structure, so each object's text is computed once.
const texts = new WeakMap<object, string>();
function canon(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v !== 'object') return typeof v === 'function' ? `fn:${(v as { name?: string }).name ?? ''}` : JSON.stringify(v);
  let t = texts.get(v);
  if (t === undefined) texts.set(v, (t = canonObject(v)));
  return t;
}

function canonObject(v: object): string {
  if (v instanceof Uint8Array) {
    let h = 0x811c9dc5;
    for (let i = 0; i < v.length; i++) h = Math.imul(h ^ v[i]!, 0x01000193);
    return JSON.stringify(`bytes:${v.length}:${(h >>> 0).toString(16)}`);
  }
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  const o = v as Record<string, unknown>;
  // An xstate snapshot: its state and context are its state.
  if ('machine' in o && 'value' in o && 'context' in o) return canon({ value: o.value, context: o.context, status: o.status });
  // An interned Arrow batch (data.ts): its content key names it.
  if (typeof o.key === 'string' && 'rb' in o) return JSON.stringify(`batch:${o.key}`);
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canon(o[k])}`)
    .join(',')}}`;
}

/**
 * Explores every interleaving of `sc` (a scratch scenario) until the coordinator's
 * cursor reaches `level`, and returns the one world they all reach there, or why
 * there is none. `maxWorlds` bounds the exploration.
 */
export function deriveStart(sc: Scenario, level: number, maxWorlds = 20_000): Derived {
  const atCut = (w: World) => (queryOf(sc, w).context(COORDINATOR) as CoordinatorContext).cursor >= level;
  const init = initialWorld(sc, { detail: false });
  if (init.events.some(isFailureEvent)) return { ok: false, reason: 'the initial world already fails a property' };
  const seen = new Set<string>([worldKey(init.world)]);
  const cuts = new Set<string>();
  const stack: World[] = [init.world];
  while (stack.length > 0) {
    const w = stack.pop()!;
    const bad = property(sc, w);
    if (bad) return { ok: false, reason: `a property fails before the Loop End region (${bad})` };
    if (atCut(w)) {
      if (w.timers.length > 0) return { ok: false, reason: 'a timer is still pending when the Loop End region is scheduled' };
      // A machine boots in a top-level state only (its chart's `initial`).
      const nested = sc.ids.find((_id, i) => sc.actorList[i]!.kind === 'machine' && typeof (w.snaps[i] as { value?: unknown }).value !== 'string');
      if (nested) return { ok: false, reason: `actor ${nested} is inside a compound state when the Loop End region is scheduled` };
      cuts.add(worldKey(w));
      continue;
    }
    const steps = enabled(sc, w);
    const fault = steps.find(isFaultStep);
    if (fault) return { ok: false, reason: `a fault can fire before the Loop End region (${fault.id})` };
    if (steps.length === 0) return { ok: false, reason: 'a run stops before the Loop End region is scheduled' };
    for (const step of steps) {
      const r = apply(sc, w, step, { detail: false });
      const failed = r.events.find(isFailureEvent);
      if (failed) return { ok: false, reason: `a step fails before the Loop End region (${step.id}: ${failed.kind})` };
      const k = worldKey(r.world);
      if (seen.has(k)) continue;
      seen.add(k);
      if (seen.size > maxWorlds) return { ok: false, reason: `the earlier regions have more than ${maxWorlds} worlds` };
      stack.push(r.world);
    }
  }
  if (cuts.size !== 1) return { ok: false, reason: `the earlier regions end in ${cuts.size} different worlds` };
  // One deterministic run to the cut: the world to seed from, and the prefix of every trace.
  const run = drive(sc, (w, steps) => (atCut(w) ? undefined : steps.find((s) => !isFaultStep(s))), { maxSteps: maxWorlds, stopOnFailure: true });
  if (!atCut(run.world) || worldKey(run.world) !== [...cuts][0]) return { ok: false, reason: 'the deterministic run did not reach the explored cut' };
  return { ok: true, seed: seedOf(sc, run.world, run.schedule, run.events, seen.size) };
}

function property(sc: Scenario, w: World): string | undefined {
  if (w.failure !== undefined) return 'a monitor failed';
  if (w.status.some((s) => s !== 'up')) return 'an actor is not up';
  const q = queryOf(sc, w);
  for (const [name, p] of Object.entries(sc.invariants ?? {})) {
    const v = p(q);
    if (v !== true) return `${name}: ${String(v)}`;
  }
  return undefined;
}

function seedOf(sc: Scenario, w: World, schedule: readonly string[], events: readonly RecordedEvent[], explored: number): StartSeed {
  const contexts: Record<string, unknown> = {};
  const states: Record<string, string> = {};
  sc.ids.forEach((id, i) => {
    const snap = w.snaps[i] as any;
    if (sc.actorList[i]!.kind === 'reducer') contexts[id] = snap;
    else {
      contexts[id] = snap.context;
      states[id] = String(snap.value);
    }
  });
  const start: { from: string; to: string; msg: Message }[] = [];
  w.inbox.forEach((chans, to) => {
    for (const ch of chans) for (const msg of ch.queue) start.push({ from: ch.from === sc.envIndex ? 'env' : sc.ids[ch.from]!, to: sc.ids[to]!, msg });
  });
  const monitors = Object.fromEntries(sc.monitorNames.map((n, i) => [n, w.monitors[i]]));
  return { contexts, states, start, monitors, prefix: { schedule, events, world: w }, explored };
}
