// `enabled`: every step a world allows, with stable printable ids. Step objects
// are cached per scenario so listing them allocates little on the checker's path.
import { ScenarioError, actorName, type CompiledActor, type Scenario } from './scenario.ts';
import { queryOf } from './query.ts';
import type { Message, Step, Timer, World } from './types.ts';
import type { WorldQuery } from './scenario.ts';

// Step objects are cached so `enabled` allocates little on the checker's hot path.
const stepCache = new WeakMap<Scenario, Map<string, Step>>();
function cached(sc: Scenario, key: string, make: () => Step): Step {
  let m = stepCache.get(sc);
  if (!m) stepCache.set(sc, (m = new Map()));
  let s = m.get(key);
  if (!s) m.set(key, (s = make()));
  return s;
}

// Normal deliveries, by channel (from, to) and then by message type: looking a step
// up costs no string building, which `enabled` would otherwise pay per channel head.
const deliverCache = new WeakMap<Scenario, (Map<string, Step> | undefined)[]>();

/** The delivery of the head (of type `type`) of channel from -> to: the one place step ids are spelt. */
export function deliverStep(sc: Scenario, from: number, to: number, type: string, outcome?: string): Step {
  if (outcome === undefined) {
    let byPair = deliverCache.get(sc);
    if (!byPair) deliverCache.set(sc, (byPair = new Array((sc.envIndex + 1) * sc.envIndex)));
    const k = from * sc.envIndex + to;
    let byType = byPair[k];
    if (!byType) byPair[k] = byType = new Map();
    let s = byType.get(type);
    if (!s) {
      const id = `deliver:${actorName(sc, from)}->${actorName(sc, to)}:${type}`;
      byType.set(type, (s = { kind: 'deliver', id, from, to }));
    }
    return s;
  }
  const id = `deliver:${actorName(sc, from)}->${actorName(sc, to)}:${type}!${outcome}`;
  return cached(sc, id, () => ({ kind: 'deliver', id, from, to, outcome }));
}

/** Every step the world allows, in a fixed order: deliveries, environment inputs, timers, faults. */
export function enabled(sc: Scenario, w: World): Step[] {
  const steps: Step[] = [];
  const faultsLeft = w.faults < sc.budget;
  const inbox = w.inbox;
  for (let to = 0; to < inbox.length; to++) {
    const chs = inbox[to]!;
    for (let c = 0; c < chs.length; c++) {
      const ch = chs[c]!;
      const head = ch.queue[0]!;
      steps.push(deliverStep(sc, ch.from, to, head.type));
      if (faultsLeft && sc.faultyOutcomes[to] && w.status[to] === 'up') {
        const actor = sc.actorList[to] as CompiledActor & { kind: 'reducer' };
        const outs = actor.logic.faultOutcomes?.(w.snaps[to], head, actorName(sc, ch.from)) ?? [];
        for (const o of outs) steps.push(deliverStep(sc, ch.from, to, head.type, o));
      }
    }
  }
  // Under 'quiescent' a timer waits for messages in flight only: the environment's
  // offers do not hold it back (an input-only world is quiescent, see isQuiescent).
  const inFlight = steps.length;
  if (sc.inputList.length > 0) offerInputs(sc, w, steps);
  if (w.timers.length > 0 && (sc.timers !== 'quiescent' || inFlight === 0)) {
    const due = w.timers[0]!.due;
    for (let k = 0; k < w.timers.length && w.timers[k]!.due === due; k++) {
      const t = w.timers[k]!;
      steps.push({ kind: 'timer', id: timerStepId(sc, t), timer: k });
    }
  }
  const plan = planOf(sc);
  if (faultsLeft) {
    for (const i of plan.crashable) if (w.status[i] === 'up') steps.push(plan.crash[i]!);
    for (const [from, to] of plan.droppable) {
      const chs = inbox[to]!;
      for (let c = 0; c < chs.length; c++) {
        if (chs[c]!.from !== from) continue;
        const id = `drop:${actorName(sc, from)}->${sc.ids[to]}:${chs[c]!.queue[0]!.type}`;
        steps.push(cached(sc, id, () => ({ kind: 'drop', id, from, to })));
        break;
      }
    }
  }
  for (const i of plan.restartable) if (w.status[i] === 'crashed') steps.push(plan.restart[i]!);
  return steps;
}

/** True when the environment may still send something in this world (then no actor is stuck). */
export function offersInput(sc: Scenario, w: World): boolean {
  if (sc.inputList.length === 0) return false;
  const steps: Step[] = [];
  offerInputs(sc, w, steps);
  return steps.length > 0;
}

/** The scenario's environment inputs this world allows: receiver up, budget left, `when` true. */
function offerInputs(sc: Scenario, w: World, steps: Step[]): void {
  let q: WorldQuery | undefined;
  for (const inp of sc.inputList) {
    if (w.status[inp.step.to] !== 'up') continue;
    if (inp.slot >= 0 && (w.inputs?.[inp.slot] ?? 0) >= inp.budget) continue;
    if (inp.when && !inp.when((q ??= queryOf(sc, w)))) continue;
    steps.push(inp.step);
  }
}

export function timerStepId(sc: Scenario, t: Timer): string {
  return `timer:${actorName(sc, t.owner)}:${t.id}`;
}

/** Per scenario, computed once: which actors may fail, and their (constant) fault steps. */
interface FaultPlan {
  readonly crashable: readonly number[];
  readonly restartable: readonly number[];
  readonly droppable: readonly (readonly [number, number])[];
  readonly crash: readonly (Step | undefined)[];
  readonly restart: readonly (Step | undefined)[];
}

const plans = new WeakMap<Scenario, FaultPlan>();

function planOf(sc: Scenario): FaultPlan {
  let p = plans.get(sc);
  if (p) return p;
  const n = sc.ids.length;
  const idx = (flags: readonly boolean[]): number[] => Array.from({ length: n }, (_, i) => i).filter((i) => flags[i]);
  const crashable = idx(sc.crashable);
  const restartable = idx(sc.restartable);
  const droppable: [number, number][] = [];
  for (let to = 0; to < sc.droppable.length; to++) for (const from of sc.droppable[to]!) droppable.push([from, to]);
  const crash: (Step | undefined)[] = new Array(n);
  const restart: (Step | undefined)[] = new Array(n);
  for (const i of crashable) crash[i] = { kind: 'crash', id: `crash:${sc.ids[i]}`, actor: i };
  for (const i of restartable) restart[i] = { kind: 'restart', id: `restart:${sc.ids[i]}`, actor: i };
  p = { crashable, restartable, droppable, crash, restart };
  plans.set(sc, p);
  return p;
}

/** True when the step is a fault (costs budget). */
export function isFault(step: Step): boolean {
  return step.kind === 'crash' || step.kind === 'drop' || (step.kind === 'deliver' && step.outcome !== undefined);
}

/** An `input` step: a message from outside (env, or an external actor's reply) put on a channel. */
export function inputStep(sc: Scenario, from: string, to: string, msg: Message): Step {
  const f = from === 'env' ? sc.envIndex : sc.index.get(from);
  const t = sc.index.get(to);
  if (f === undefined) throw new ScenarioError(`input from unknown actor '${from}'; known actors: ${sc.ids.join(', ')}`);
  if (t === undefined) throw new ScenarioError(`input to unknown actor '${to}'; known actors: ${sc.ids.join(', ')}`);
  if (typeof msg !== 'object' || msg === null || typeof msg.type !== 'string') throw new ScenarioError(`input to '${to}' must be an event object with a string \`type\``);
  return { kind: 'input', id: `input:${from}->${to}:${msg.type}`, from: f, to: t, msg };
}

/** A `tick` step: virtual time moves to `t` (simulation and live runs). */
export function tickStep(t: number): Step {
  return { kind: 'tick', id: `tick:${t}`, to: t };
}

/**
 * True when an `eventually` check applies: nothing but faults, restarts and the
 * environment's inputs is enabled (the system itself has nothing left to do).
 */
export function isQuiescent(steps: readonly Step[]): boolean {
  return steps.every((s) => isFault(s) || s.kind === 'restart' || isOffered(s));
}

/** True for an environment input the scenario offers (`inputs`), not a recorded one. */
export function isOffered(step: Step): boolean {
  return step.kind === 'input' && step.offered !== undefined;
}
