// Drives the airflow-checkpoints scenario step by step for the scenario tests:
// seeded choices among the normal steps, faults injected where a test says, and
// counts read back from the trace.
import { apply, enabled, initialWorld } from 'interleave/kernel';
import { queryOf, rng, type Message, type RecordedEvent, type Scenario, type Step, type World, type WorldQuery } from 'interleave';
import { buildAirflow } from '../../src/machines/airflow/scenario.ts';
import { type AirflowConfig, parseOutcomes } from '../../src/machines/airflow/config.ts';
import { storedEntries } from '../../src/machines/airflow/properties.ts';
import type { TaskCtx } from '../../src/machines/airflow/attempt.ts';

export interface Policy {
  /** Return a step to take now (a fault, or a held step), or undefined for a normal choice. */
  inject?(w: World, steps: readonly Step[], q: WorldQuery, ctx: TaskCtx): Step | undefined;
  /** Steps not to take while anything else is enabled. */
  hold?(s: Step, q: WorldQuery, ctx: TaskCtx): boolean;
}

export interface Outcome {
  readonly sc: Scenario;
  readonly world: World;
  readonly events: readonly RecordedEvent[];
  /** The task process's outputs (Run, Report, Record, Replay, End, Log, ...). */
  readonly outs: readonly any[];
  /** Request frames the task sent to the supervisor. */
  readonly reqs: readonly any[];
  readonly q: WorldQuery;
  readonly end: 'quiescent' | 'max-steps';
}

export function scenario(over: Partial<AirflowConfig> & { outcomes?: string }): Scenario {
  const { outcomes, ...rest } = over;
  return buildAirflow({ ...rest, ...(outcomes === undefined ? {} : { script: parseOutcomes(outcomes) }) });
}

const isNormal = (s: Step): boolean => (s.kind === 'deliver' && s.outcome === undefined) || s.kind === 'timer' || s.kind === 'restart';

/** Runs to quiescence with seeded choices; the policy injects faults and holds steps back. */
export function runAirflow(over: Partial<AirflowConfig> & { outcomes?: string }, policy: Policy = {}, seed = 1, maxSteps = 2_000_000): Outcome {
  const sc = scenario(over);
  return runScenario(sc, policy, seed, maxSteps);
}

export function runScenario(sc: Scenario, policy: Policy = {}, seed = 1, maxSteps = 2_000_000): Outcome {
  const r = rng(seed);
  const events: RecordedEvent[] = [];
  let world = initialWorld(sc, { detail: false }).world;
  let end: Outcome['end'] = 'max-steps';
  for (let n = 1; n <= maxSteps; n++) {
    const steps = enabled(sc, world);
    const q = queryOf(sc, world);
    const ctx = (world.snaps[sc.index.get('task')!] as any)?.context as TaskCtx;
    let step = policy.inject?.(world, steps, q, ctx);
    if (step === undefined) {
      const normal = steps.filter(isNormal);
      const free = policy.hold ? normal.filter((s) => !policy.hold!(s, q, ctx)) : normal;
      const pool = free.length > 0 ? free : normal;
      if (pool.length === 0) {
        end = 'quiescent';
        break;
      }
      step = r.pick(pool);
    }
    const res = apply(sc, world, step, { detail: false });
    world = res.world;
    for (const e of res.events) events.push({ ...e, step: n } as RecordedEvent);
  }
  const outs = events.filter((e) => e.kind === 'output' && e.from === 'task').map((e) => (e as any).msg);
  const reqs = events.filter((e) => e.kind === 'send' && e.from === 'task' && e.to === 'supervisor').map((e) => (e as any).msg);
  return { sc, world, events, outs, reqs, q: queryOf(sc, world), end };
}

/** The step delivering `type` (optionally matching `pred`) from `from` to `to`, with `outcome`. */
export function deliverStep(steps: readonly Step[], w: World, sc: Scenario, from: string, to: string, pred: (m: Message) => boolean, outcome?: string): Step | undefined {
  const f = sc.index.get(from)!;
  const t = sc.index.get(to)!;
  const ch = w.inbox[t]!.find((c) => c.from === f);
  if (!ch || !pred(ch.queue[0]!)) return undefined;
  return steps.find((s) => s.kind === 'deliver' && s.from === f && s.to === t && s.outcome === outcome);
}

export const writes = (o: Outcome, a: number) => o.reqs.filter((m) => m.a === a && m.type === 'SetTaskStateStore' && (m.role === 'round' || m.role === 'rest' || m.role === 'ckpt'));
export const reads = (o: Outcome, a: number) => o.reqs.filter((m) => m.a === a && m.type === 'GetTaskStateStore');
export const markers = (o: Outcome, a: number) => o.reqs.filter((m) => m.a === a && m.role === 'marker-set');
export const outsOf = (o: Outcome, type: string, a?: number) => o.outs.filter((m) => m.type === type && (a === undefined || m.a === a));
export const runs = (o: Outcome, a: number) => outsOf(o, 'Run', a).map((m) => m.i as number);
export const endOf = (o: Outcome, a: number) => outsOf(o, 'End', a)[0]?.state as string | undefined;
export const runner = (o: Outcome) => o.q.context('runner');
export const stored = (o: Outcome, key: string) => storedEntries(o.q, o.sc.params as any, key);

/** Success callbacks per index over the whole run. */
export function successCallbacks(o: Outcome): Map<number, number> {
  const m = new Map<number, number>();
  for (const x of outsOf(o, 'Report')) if (x.cb === 'success') m.set(x.i, (m.get(x.i) ?? 0) + 1);
  return m;
}

/** Monitor failures and errors recorded along the run (must be none unless a test expects one). */
export function problems(o: Outcome): string[] {
  return o.events.filter((e) => e.kind === 'monitor-fail' || e.kind === 'error' || e.kind === 'unhandled').map((e: any) => `${e.kind}: ${e.message ?? e.monitor ?? JSON.stringify(e.msg)}`);
}
