// Discrete-event simulation in virtual time over the same enabled/apply: each
// actor serves one message at a time, each delivery costs a service time from a
// cost model, each message a latency. The clock advances by `tick` steps, so a
// simulation's schedule replays exactly like any other.
import { apply, enabled, initialWorld, tickStep } from './kernel.ts';
import { rng } from './prng.ts';
import { actorName, type Scenario } from './scenario.ts';
import type { Message, RecordedEvent, Step, World } from './types.ts';

/** How long things take in a simulation: service time at the receiver and network latency, in virtual ms. */
export interface CostModel {
  /** Virtual ms the receiver is busy with this message (default 0). */
  service?(msg: Message, to: string, from: string, world: World): number;
  /** Virtual ms from send to arrival (default 0). */
  latency?(msg: Message, from: string, to: string): number;
}

/** Options of `simulate`. */
export interface SimulateOptions {
  /** Seed for tie-breaks and the cost model's draws (default 1). */
  readonly seed?: number;
  /** Stop when the clock passes this (virtual ms). */
  readonly until?: number;
  /** Stop after this many steps (default 5,000,000). */
  readonly maxSteps?: number;
  /** Record events (default true); turn off for long runs and use `onEvent`. */
  readonly record?: boolean;
  /** Called with every event and the virtual time it happened at. */
  readonly onEvent?: (e: RecordedEvent, now: number) => void;
  /** Pick which of several steps ready at the same instant goes first (default: seeded random). */
  readonly tieBreak?: 'random' | 'first';
  /** Called every 10,000 steps with the steps taken and the virtual time (a progress line for a long run). */
  readonly onProgress?: (steps: number, now: number) => void;
  /**
   * Treat a timer firing at an actor like a delivery: it waits until the actor is
   * free and costs `service(event, actor, owner)` (default false: timers are free
   * and fire at their due time).
   */
  readonly timerService?: boolean;
}

/** A simulated run: the world at the end, its events and schedule, the virtual time reached. */
export interface SimulationRun {
  /** The world at the end. */
  readonly world: World;
  /** The recorded events (empty with `record: false`). */
  readonly events: readonly RecordedEvent[];
  /** The step ids taken, in order. */
  readonly schedule: readonly string[];
  /** Virtual time at the end, in milliseconds. */
  readonly now: number;
  /** Steps taken. */
  readonly steps: number;
  /** Why it stopped: nothing left to do, the `until` time, or `maxSteps`. */
  readonly end: 'quiescent' | 'until' | 'max-steps';
}

/** Runs a scenario in virtual time under a cost model. Faults are never chosen here. */
export function simulate(sc: Scenario, cost: CostModel, opts: SimulateOptions = {}): SimulationRun {
  const r = rng(opts.seed ?? 1);
  const record = opts.record ?? true;
  const maxSteps = opts.maxSteps ?? 5_000_000;
  const n = sc.ids.length;
  const busyUntil = new Float64Array(n + 1);
  // Ready times of messages in flight, per channel key, parallel to the world's queues.
  const ready = new Map<number, number[]>();
  const key = (from: number, to: number): number => from * (n + 1) + to;
  const events: RecordedEvent[] = [];
  const schedule: string[] = [];
  let stepNo = 0;
  const note = (evs: readonly RecordedEvent[] | readonly any[], now: number, doneAt: number): void => {
    for (const e of evs) {
      const rec = { ...e, step: stepNo } as RecordedEvent;
      if (record) events.push(rec);
      opts.onEvent?.(rec, now);
      if (e.kind === 'send') {
        const f = e.from === 'env' ? sc.envIndex : sc.index.get(e.from)!;
        const t = sc.index.get(e.to)!;
        const lat = cost.latency?.(e.msg, e.from, e.to) ?? 0;
        const k = key(f, t);
        const q = ready.get(k) ?? [];
        q.push(doneAt + lat);
        ready.set(k, q);
      }
    }
  };
  const init = initialWorld(sc, { detail: false });
  let world = init.world;
  note(init.events as any, 0, 0);
  for (;;) {
    if (stepNo >= maxSteps) return { world, events, schedule, now: world.now, steps: stepNo, end: 'max-steps' };
    const steps = enabled(sc, world);
    let best: Step | undefined;
    let bestAt = Infinity;
    let ties = 0;
    for (const s of steps) {
      let at: number;
      if (s.kind === 'deliver' && s.outcome === undefined) {
        at = Math.max(ready.get(key(s.from, s.to))?.[0] ?? 0, busyUntil[s.to]!);
      } else if (s.kind === 'timer') {
        const t = world.timers[s.timer]!;
        at = opts.timerService && t.to < n ? Math.max(t.due, busyUntil[t.to]!) : t.due;
      } else continue;
      if (at < bestAt) {
        best = s;
        bestAt = at;
        ties = 1;
      } else if (at === bestAt && opts.tieBreak !== 'first') {
        ties++;
        if (r.int(ties) === 0) best = s;
      }
    }
    if (!best) return { world, events, schedule, now: world.now, steps: stepNo, end: 'quiescent' };
    if (opts.until !== undefined && bestAt > opts.until) return { world, events, schedule, now: world.now, steps: stepNo, end: 'until' };
    if (bestAt > world.now) {
      const t = tickStep(bestAt);
      world = apply(sc, world, t, { detail: false }).world;
      schedule.push(t.id);
    }
    let doneAt = world.now;
    if (best.kind === 'deliver') {
      const q = ready.get(key(best.from, best.to));
      q?.shift();
      const msg = world.inbox[best.to]!.find((c) => c.from === best.from)!.queue[0]!;
      const c = cost.service?.(msg, sc.ids[best.to]!, actorName(sc, best.from), world) ?? 0;
      doneAt = world.now + c;
      busyUntil[best.to] = doneAt;
    } else if (best.kind === 'timer' && opts.timerService) {
      const t = world.timers[best.timer]!;
      if (t.to < n) {
        const c = cost.service?.(t.event, sc.ids[t.to]!, actorName(sc, t.owner), world) ?? 0;
        doneAt = world.now + c;
        busyUntil[t.to] = doneAt;
      }
    }
    stepNo++;
    if (opts.onProgress && stepNo % 10_000 === 0) opts.onProgress(stepNo, world.now);
    const res = apply(sc, world, best, { detail: false });
    world = res.world;
    schedule.push(best.id);
    note(res.events, world.now, doneAt);
  }
}

/** The p-th percentile (0..100) of a list of numbers, nearest-rank. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const k = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[k]!;
}
