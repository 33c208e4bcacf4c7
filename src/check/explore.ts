// Exhaustive exploration: depth-first and breadth-first search over `enabled` /
// `apply`, with state dedupe by fingerprint and sleep-set reduction (por.ts).
// Breadth-first finds a shortest counterexample first. Both explore with
// `apply(..., { detail: false })`; the counterexample trace is replayed with detail.
import { StepMemo, apply, enabled, initialWorld, isQuiescent, type Scenario, type Step, type World } from '../actors/index.ts';
import { inSet, markOf, nextSleep, visible, wokenSteps, type PorContext } from './por.ts';
import { endViolation, stepViolation } from './properties.ts';
import type { Lanes } from './fingerprint.ts';
import type { Explorer, Session } from './session.ts';
import type { PropertyRef } from './types.ts';

/** A state to expand: the steps still to take from it and its sleep set. */
interface Node {
  world: World | undefined;
  readonly depth: number;
  steps: Step[];
  i: number;
  sleep: Step[];
  /** Non-visible siblings already explored (they join later siblings' sleep sets). */
  done: Step[];
  readonly parent: Node | undefined;
  readonly via: string | undefined;
  /** Per-actor fingerprint lanes of `world` (successors reuse the untouched ones). */
  lanes: Lanes | undefined;
}

/** Released nodes share this (frozen: a push into it would be a bug). */
const NONE = Object.freeze([]) as unknown as Step[];

function scheduleOf(n: Node | undefined, last?: string): string[] {
  const out: string[] = [];
  if (last !== undefined) out.push(last);
  for (let x = n; x && x.via !== undefined; x = x.parent) out.push(x.via);
  return out.reverse();
}

/** Shared by dfs and bfs: the root node, and what to do with each successor. */
abstract class Search implements Explorer {
  protected readonly sc: Scenario;
  private started = false;
  /** The same (snapshot, message) pair recurs across interleavings: step it once. */
  private readonly memo = new StepMemo();

  /** Evaluate invariants on revisited worlds too (see `step`). */
  private readonly checkRevisits: boolean;

  constructor(
    protected readonly s: Session,
    protected readonly por: PorContext,
  ) {
    this.sc = s.sc;
    this.checkRevisits = s.hasher.symmetric || s.opts.inspect?.violation !== undefined;
  }

  protected abstract push(n: Node): void;
  protected abstract next(): Node | undefined;
  protected abstract size(): number;
  /** Called when a node has no more steps. */
  protected abstract retire(n: Node): void;

  /** Records a violation; true when exploration stops (unless an inspector asks to go on). */
  private report(property: PropertyRef, schedule: string[]): boolean {
    if (this.s.opts.inspect?.violation?.(property, schedule)) return false;
    this.s.found = { property, schedule };
    return true;
  }

  /** Records a new or revisited state; returns the node to expand, if any. */
  private arrive(world: World, fresh: boolean, depth: number, sleep: Step[], parent: Node | undefined, via: string | undefined): Node | undefined {
    const s = this.s;
    if (!fresh) {
      if (!this.por.enabled) return undefined;
      const m = s.visited.mark();
      if (m === 0) return undefined;
      if (depth >= s.maxDepthBudget) {
        s.cutBy ??= 'maxDepth';
        return undefined;
      }
      // Met again with a different sleep set: explore what the first visit left asleep.
      const all = enabled(this.sc, world);
      const steps = wokenSteps(m, all, sleep);
      if (steps.length === 0) return undefined;
      s.visited.setMark(m & markOf(sleep, all));
      return { world, depth, steps, i: 0, sleep, done: [], parent, via, lanes: s.hasher.lastLanes };
    }
    s.reach.see(world);
    if (depth > s.maxDepth) s.maxDepth = depth;
    const all = enabled(this.sc, world);
    if (this.por.enabled && sleep.length > 0) s.visited.setMark(markOf(sleep, all));
    const inspect = s.opts.inspect;
    if (inspect?.quiescent && isQuiescent(all)) inspect.quiescent(world);
    const end = endViolation(this.sc, world, all);
    if (end && this.report(end, scheduleOf(parent, via))) return undefined;
    if (all.length === 0) return undefined;
    if (depth >= s.maxDepthBudget) {
      s.cutBy ??= 'maxDepth';
      return undefined;
    }
    const steps = sleep.length === 0 ? all : all.filter((t) => !inSet(t, sleep));
    if (steps.length === 0) return undefined;
    return { world, depth, steps, i: 0, sleep, done: [], parent, via, lanes: s.hasher.lastLanes };
  }

  step(until: number): boolean {
    const s = this.s;
    const sc = this.sc;
    if (!this.started) {
      this.started = true;
      const init = initialWorld(sc, { detail: false });
      s.states++;
      const fresh = s.visit(init.world);
      const v = stepViolation(sc, init.world, init.events);
      if (v && this.report(v, [])) return true;
      const root = this.arrive(init.world, fresh, 0, [], undefined, undefined);
      if (s.found) return true;
      if (root) this.push(root);
    }
    let k = 0;
    for (;;) {
      if ((++k & 63) === 0) {
        const now = performance.now();
        if (s.outOfBudget(now)) return true;
        if (now > until) {
          s.queue = this.size();
          return false;
        }
      }
      const n = this.next();
      if (!n) {
        s.queue = 0;
        return true;
      }
      const t = n.steps[n.i++]!;
      const from = n.world!;
      const fromLanes = n.lanes;
      const r = apply(sc, from, t, { detail: false, memo: this.memo });
      s.transitions++;
      s.states++;
      // Invariants read only the world, so a world met again (same fingerprint) passed
      // them on its first visit: check them on new worlds only (two thirds of the
      // successors on protocol models are revisits). Not under symmetry (a permuted
      // world need not satisfy an invariant that is not symmetric) nor when an
      // inspector collects every violation.
      const fresh = s.visit(r.world, from, fromLanes);
      const v = stepViolation(sc, r.world, r.events, fresh || this.checkRevisits);
      if (v && this.report(v, scheduleOf(n, t.id))) return true;
      let sleep: Step[] = [];
      if (this.por.enabled) {
        const vis = visible(this.por, r.events);
        sleep = nextSleep(n.sleep, n.done, t, vis);
        if (!vis) n.done.push(t);
      }
      const child = this.arrive(r.world, fresh, n.depth + 1, sleep, n, t.id);
      if (n.i >= n.steps.length) this.retire(n);
      if (s.found) return true;
      if (s.visited.size >= s.maxStates) {
        s.cutBy ??= 'maxStates';
        return true;
      }
      if (child) this.push(child);
    }
  }
}

/** Depth-first: a stack of nodes; the path to the top is the current schedule. */
export class Dfs extends Search {
  private readonly stack: Node[] = [];
  protected push(n: Node): void {
    this.stack.push(n);
  }
  protected next(): Node | undefined {
    while (this.stack.length > 0) {
      const top = this.stack[this.stack.length - 1]!;
      if (top.i < top.steps.length) return top;
      this.stack.pop();
    }
    return undefined;
  }
  protected size(): number {
    return this.stack.length;
  }
  protected retire(_n: Node): void {
    // An exhausted node is popped by `next` once its children are done.
  }
}

/** Breadth-first: a FIFO of nodes; parents are kept for schedules, worlds dropped once expanded. */
export class Bfs extends Search {
  private queue: Node[] = [];
  private head = 0;
  protected push(n: Node): void {
    // The frontier can hold a large share of the states: keep its lanes compact (4 bytes an int).
    if (Array.isArray(n.lanes)) n.lanes = Int32Array.from(n.lanes);
    this.queue.push(n);
  }
  protected next(): Node | undefined {
    const n = this.queue[this.head];
    if (!n) return undefined;
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return n;
  }
  protected size(): number {
    return this.queue.length - this.head;
  }
  protected retire(n: Node): void {
    this.head++;
    // Drop what expansion needed; keep the parent chain for schedules.
    n.steps = NONE;
    n.sleep = NONE;
    n.done = NONE;
    n.world = undefined;
    n.lanes = undefined;
  }
}
