// Sampling strategies: seeded random walks, PCT and POS. Run i draws everything from
// `deriveSeed(root, i)`, so any failing run replays alone (`runOne`).
//
// PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010): every actor (a
// "thread": the receiver of a delivery, the owner of a timer) gets a distinct random
// priority >= d; d - 1 change points are drawn uniformly in [1, k]; at each step the
// enabled actor with the highest priority runs, and at the i-th change point the
// actor about to run drops to priority d - i. A bug of depth d is found with
// probability >= 1 / (n k^(d-1)) per run. k (the expected run length) is fixed
// before the runs from pilot walks, so each run depends only on its own seed.
//
// POS (partial order sampling; Yuan, Yang and Gu, CAV 2018): every enabled event gets a
// random priority when it becomes enabled and keeps it while it waits; the enabled
// event with the highest priority runs, and the events that race with it (in an actor
// system: those handled by the same actor) draw fresh priorities. An event that drew a
// low priority stays back while the others run, so "B runs to completion between two
// steps of A" costs one unlucky draw, not one coin toss per step as in a random walk, and
// unlike PCT no change point has to land on the right step. No parameters.
import { apply, deriveSeed, enabled, initialWorld, isQuiescent, rng, type Rng, type Scenario, type Step, type World } from '../../actors/index.ts';
import { quiescentViolation, stepViolation } from '../properties.ts';
import type { Explorer, Found, Session } from './session.ts';
import type { Lanes } from '../fingerprint/fingerprint.ts';
import type { PropertyRef } from '../types.ts';

/** Picks the next step of one run at world `w`, or undefined to end it. */
type Pick = (steps: readonly Step[], depth: number, w: World) => Step | undefined;

/** PCT's parameters (Burckhardt et al.): bug depth d and expected run length k. */
export interface PctConfig {
  /** Bug depth d. */
  readonly depth: number;
  /** Expected run length k. */
  readonly k: number;
}

function isNormal(s: Step): boolean {
  return s.kind === 'timer' || s.kind === 'input' || (s.kind === 'deliver' && s.outcome === undefined);
}

/** Takes a fault with probability `faultRate` when one is offered; with only faults left, ends half the time. */
function faultsOr(r: Rng, faultRate: number, steps: readonly Step[], w: World, normal: (ns: readonly Step[], w: World) => Step | undefined): Step | undefined {
  // Most steps offer no fault: no copy of the list then (a run takes one pick per step).
  let all = true;
  for (const s of steps) if (!isNormal(s)) all = false;
  if (all) return normal(steps, w);
  const ns = steps.filter(isNormal);
  const fs = steps.filter((s) => !isNormal(s));
  if (ns.length === 0) return r.next() < 0.5 ? undefined : r.pick(fs);
  if (r.next() < faultRate) return r.pick(fs);
  return normal(ns, w);
}

export function randomPick(seed: number, faultRate: number): Pick {
  const r = rng(seed);
  const normal = (ns: readonly Step[]) => r.pick(ns);
  return (steps, _depth, w) => faultsOr(r, faultRate, steps, w, normal);
}

/** The actor a step belongs to, for PCT priorities. */
function threadOf(sc: Scenario, w: World, s: Step): number {
  switch (s.kind) {
    case 'deliver':
    case 'drop':
    case 'input':
      return s.to;
    case 'timer':
      return w.timers[s.timer]?.owner ?? sc.envIndex;
    case 'crash':
    case 'restart':
      return s.actor;
    case 'tick':
      return sc.envIndex;
  }
}

export function pctPick(sc: Scenario, seed: number, cfg: PctConfig, faultRate: number): Pick {
  const r = rng(seed);
  const n = sc.ids.length + 1;
  // Distinct initial priorities d .. d + n - 1, in random order (Fisher-Yates).
  const pri = Array.from({ length: n }, (_, i) => cfg.depth + i);
  for (let i = n - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [pri[i], pri[j]] = [pri[j]!, pri[i]!];
  }
  const changeAt = new Map<number, number>();
  for (let i = 1; i < cfg.depth; i++) {
    let at = 1 + r.int(Math.max(1, cfg.k));
    while (changeAt.has(at)) at = 1 + r.int(Math.max(cfg.k, cfg.depth));
    changeAt.set(at, cfg.depth - i);
  }
  // The highest-priority actor among the steps (no closures per step: a run takes thousands).
  const best = (ns: readonly Step[], w: World): number => {
    let top = -1,
      tp = -Infinity;
    for (const s of ns) {
      const t = threadOf(sc, w, s);
      if (pri[t]! > tp) {
        tp = pri[t]!;
        top = t;
      }
    }
    return top;
  };
  let stepNo = 0;
  const normal = (ns: readonly Step[], w: World): Step | undefined => {
    let t = best(ns, w);
    const low = changeAt.get(stepNo + 1);
    if (low !== undefined) {
      pri[t] = low;
      t = best(ns, w);
    }
    let mine: Step | undefined;
    let count = 0;
    for (const s of ns) {
      if (threadOf(sc, w, s) !== t) continue;
      mine = s;
      count++;
    }
    return count === 1 ? mine : r.pick(ns.filter((s) => threadOf(sc, w, s) === t));
  };
  return (steps, depth, w) => {
    stepNo = depth;
    return faultsOr(r, faultRate, steps, w, normal);
  };
}

export function posPick(sc: Scenario, seed: number, faultRate: number): Pick {
  const r = rng(seed);
  // Priorities of waiting events, by step id (one enabled step per id at a time).
  const pri = new Map<string, number>();
  let last: Step | undefined;
  let lastThread = -1;
  const normal = (ns: readonly Step[], w: World): Step | undefined => {
    let best: Step | undefined;
    let top = -1;
    for (const s of ns) {
      let p = pri.get(s.id);
      // New since the last pick, or racing with the step just taken (same actor): a fresh draw.
      if (p === undefined || (last !== undefined && threadOf(sc, w, s) === lastThread)) {
        p = r.next();
        pri.set(s.id, p);
      }
      if (p > top) {
        top = p;
        best = s;
      }
    }
    return best;
  };
  return (steps, _depth, w) => {
    if (last) pri.delete(last.id);
    const s = faultsOr(r, faultRate, steps, w, normal);
    last = s;
    if (s) lastThread = threadOf(sc, w, s);
    return s;
  };
}

export interface RunOutcome {
  readonly found?: { property: PropertyRef; schedule: string[] };
  readonly length: number;
}

const NO_DETAIL = { detail: false } as const;

/** One run from the initial world, choosing with `pick`, checking every property on the way. */
export function walk(sc: Scenario, pick: Pick, maxDepth: number, onWorld?: (w: World) => void): RunOutcome {
  const init = initialWorld(sc, { detail: false });
  let w = init.world;
  onWorld?.(w);
  const v0 = stepViolation(sc, w, init.events);
  if (v0) return { found: { property: v0, schedule: [] }, length: 0 };
  const schedule: string[] = [];
  for (let depth = 0; depth < maxDepth; depth++) {
    const steps = enabled(sc, w);
    if (isQuiescent(steps)) {
      const q = quiescentViolation(sc, w);
      if (q) return { found: { property: q, schedule }, length: depth };
      if (steps.length === 0) break;
    }
    const s = pick(steps, depth, w);
    if (!s) break;
    const r = apply(sc, w, s, NO_DETAIL);
    w = r.world;
    schedule.push(s.id);
    onWorld?.(w);
    const v = stepViolation(sc, w, r.events);
    if (v) return { found: { property: v, schedule }, length: depth + 1 };
  }
  return { length: schedule.length };
}

/** What one sampled run needs: its strategy, the session's root seed, the depth bound, the fault rate and PCT's parameters. */
export interface SampleConfig {
  /** Random walk, PCT or POS. */
  readonly strategy: 'random' | 'pct' | 'pos';
  /** The session's seed; run i's seed is derived from it. */
  readonly root: number;
  /** Longest run, in steps. */
  readonly maxDepth: number;
  /** Probability of taking a fault when one is offered. */
  readonly faultRate: number;
  /** PCT's parameters (strategy `pct`). */
  readonly pct?: PctConfig;
  /** Hash every world the runs meet into the visited set, to count the distinct ones (`CheckOptions.countDistinct`). */
  readonly countDistinct?: boolean;
}

/** Run `i` of a sampling session, alone: the same run a full session would make. */
export function runOne(sc: Scenario, cfg: SampleConfig, runSeed: number, onWorld?: (w: World) => void): RunOutcome {
  const pick =
    cfg.strategy === 'random'
      ? randomPick(runSeed, cfg.faultRate)
      : cfg.strategy === 'pos'
        ? posPick(sc, runSeed, cfg.faultRate)
        : pctPick(sc, runSeed, cfg.pct ?? { depth: 3, k: 100 }, cfg.faultRate);
  return walk(sc, pick, cfg.maxDepth, onWorld);
}

/** PCT's k: the longest of a few pilot random walks (fixed seeds, so k depends only on the scenario). */
export function estimateK(sc: Scenario, maxDepth: number, faultRate: number): number {
  let k = 1;
  for (let i = 0; i < 5; i++) k = Math.max(k, walk(sc, randomPick(deriveSeed(0x5eed, i), faultRate), maxDepth).length);
  return k;
}

/** Runs indices `first, first + stride, ...` below `runs`, in this thread. */
export class Sampler implements Explorer {
  private i: number;
  /** Run indices at or above this are not run yet (swarm workers: the end of the block taken). */
  private end = Infinity;
  /** Run indices above this are skipped (swarm: a lower-indexed run already failed). */
  bound = Infinity;
  /** Index of the failing run, once found. */
  foundIndex = -1;
  constructor(
    private readonly s: Session,
    private readonly cfg: SampleConfig,
    private readonly runs: number,
    first = 0,
    private readonly stride = 1,
  ) {
    this.i = first;
  }

  /** Runs the indices of the same `first, first + stride, ...` sequence in [from, to) next (a swarm worker's block). */
  assign(from: number, to: number): void {
    this.i = from;
    this.end = to;
  }

  step(until: number): boolean {
    const s = this.s;
    // A run's worlds come one from the other: each is hashed from its parent's lanes,
    // re-hashing only the actors the step touched (as dfs and bfs do).
    let parent: World | undefined;
    let lanes: Lanes | undefined;
    const visit = (w: World) => {
      if (s.visit(w, parent, lanes)) s.reach.see(w);
      parent = w;
      lanes = s.hasher.lastLanes;
    };
    // Without the count, only reachable goals not yet met need to see the worlds (every
    // world, since nothing tells a new one from a seen one): the verdict needs neither.
    const see = (w: World) => s.reach.see(w);
    for (;;) {
      if (this.i >= this.runs || this.i >= this.end || this.i > this.bound) {
        s.cutBy ??= 'runs';
        return true;
      }
      const now = performance.now();
      if (s.outOfBudget(now)) return true;
      if (now > until) return false;
      const seed = deriveSeed(this.cfg.root, this.i);
      parent = lanes = undefined;
      const out = runOne(s.sc, this.cfg, seed, this.cfg.countDistinct ? visit : s.reach.goalsLeft ? see : undefined);
      // A run meets its initial world and one world per step.
      s.states += out.length + 1;
      s.runs++;
      s.transitions += out.length;
      if (out.length > s.maxDepth) s.maxDepth = out.length;
      this.i += this.stride;
      if (out.found) {
        s.found = { ...out.found, seed } satisfies Found;
        this.foundIndex = this.i - this.stride;
        return true;
      }
    }
  }
}
