// Exhaustive exploration: depth-first and breadth-first search over `enabled` /
// `apply`, with state dedupe by fingerprint, stubborn sets (por/stubborn.ts) with
// the cycle proviso, and sleep sets (por/sleep-sets.ts). Breadth-first finds a shortest
// counterexample first when the reduction is off (with it, a shortest one in the
// reduced graph; shrinking follows). Both explore with `apply(..., { detail: false })`;
// the counterexample trace is replayed with detail.
import { checkerMemo } from './memo-key.ts';
import { apply, enabled, type Scenario, type Step, type StepMemo, type World } from '../../actors/index.ts';
import { inSet, markOf, nextSleep, visible, wokenSteps, type PorContext } from '../por/sleep-sets.ts';
import { Stubborn } from '../por/stubborn.ts';
import { stepViolation } from '../properties.ts';
import type { Lanes } from '../fingerprint/fingerprint.ts';
import type { Explorer, Session } from './session.ts';
import type { ShardRoot } from '../distributed/shard.ts';
import type { PropertyRef } from '../types.ts';

/** A state to expand: the steps still to take from it and its sleep set. */
export interface Node {
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
  /** Every enabled step, while `steps` is a stubborn subset (undefined once expanded fully). */
  all: Step[] | undefined;
  /** The world's fingerprint folded to a number (depth-first: the on-stack set). */
  readonly key: number;
  /** Every enabled step of `world`, kept only for the compact frontier (search/bfs-compact.ts). */
  en: Step[] | undefined;
  /** The node's entry number in the compact frontier (-1 elsewhere). */
  readonly index: number;
}

/** Folds a 64-bit fingerprint to a safe integer; a collision only expands a state fully. */
export function keyOf(a: number, b: number): number {
  return (a >>> 0) * 2097152 + (b & 0x1fffff);
}

/** Released nodes share this (frozen: a push into it would be a bug). */
const NONE = Object.freeze([]) as unknown as Step[];

function scheduleOf(n: Node | undefined, last?: string): string[] {
  const out: string[] = [];
  if (last !== undefined) out.push(last);
  for (let x = n; x && x.via !== undefined; x = x.parent) out.push(x.via);
  return out.reverse();
}

/** A shard's prefix schedule as a chain of spent nodes: only `scheduleOf` reads them. */
function prefixChain(schedule: readonly string[]): Node | undefined {
  let p: Node | undefined;
  schedule.forEach((via, i) => {
    p = { world: undefined, depth: i + 1, steps: NONE, i: 0, sleep: NONE, done: NONE, parent: p, via, lanes: undefined, all: undefined, key: 0, en: undefined, index: -1 };
  });
  return p;
}

/**
 * Shared-visited mode (distributed/claims.ts): the shards tell each other the worlds they visit.
 * The search reports each world it visits first, lets the hook add other shards'
 * worlds to its visited set (a world found there is not expanded), and starts from
 * the frontier worlds one at a time, as the hook hands them out.
 */
export interface VisitHook {
  /** A world this search just visited for the first time (its fingerprint, as the two 32-bit halves the visited set keys on), and the sleep-set mark it is expanded with (0: every step). */
  visited(a: number, b: number, mark: number): void;
  /** Takes other shards' claims into the visited set (when due, or now if `force`); true when the search must stop (another shard stopped the run). */
  poll(force: boolean): boolean;
  /**
   * The next frontier world to start from, hashed (the session's hasher holds it) and in
   * the visited set (its slot the last touched): `fresh` when it was not there before,
   * else it was met with a sleep set and must be met again with none. Undefined when none
   * is left or the run stopped.
   */
  nextRoot(): { root: ShardRoot; fresh: boolean } | undefined;
}

/** Shared by dfs and bfs: the root node, and what to do with each successor. */
export abstract class Search implements Explorer {
  protected readonly sc: Scenario;
  private started = false;
  /** The same (snapshot, message) pair recurs across interleavings: step it once. */
  protected readonly memo: StepMemo;
  /** Nodes keep their enabled steps (`Node.en`): the compact frontier encodes steps as positions in it. */
  protected keepsEnabled = false;
  /** Expands level by level, so an undiverged search's first violation is a shortest one (`Found.shortest`). */
  protected breadthFirst = false;

  /** Evaluate invariants on revisited worlds too (see `step`). */
  private readonly checkRevisits: boolean;
  /** The state-reducing part of POR (undefined when POR is off). */
  readonly stubborn: Stubborn | undefined;
  /**
   * Sleep sets run with POR, except under symmetry: there a world met again may be a
   * permutation of the first, whose mark cannot be read, so every such meeting would
   * have to expand the world again in full, which costs more transitions than the
   * reduction saves (por/README.md, docs/measurements.md).
   */
  private readonly sleepSets: boolean;
  /**
   * True once this search has left the unreduced search's order: a world expanded with
   * fewer steps than it enables, or a world met again expanded (the unreduced search
   * expands a world once). Until then both searches have done the same steps in the
   * same order on the same visited set, so they meet the same first violation
   * (search/first-violation.ts re-runs the unreduced search only when this is true).
   */
  diverged = false;
  /** Shared-visited mode: set by index.ts before the first step. */
  hook: VisitHook | undefined;

  constructor(
    protected readonly s: Session,
    protected readonly por: PorContext,
  ) {
    this.sc = s.sc;
    this.memo = checkerMemo(s.sc);
    this.checkRevisits = s.hasher.symmetric || s.opts.inspect?.violation !== undefined;
    this.sleepSets = por.enabled && !s.hasher.symmetric;
    // A shard's learned may-send relation could miss steps only other shards reach (docs/sharding.md).
    this.stubborn = por.enabled ? new Stubborn(s.sc, por, s.hasher.symmetric, s.shard ? 'a sharded search keeps the state reduction off (its learned relation would only cover its own slice)' : undefined, s.determinism?.fork()) : undefined;
  }

  /** What `result.options` says about the reduction that ran. */
  reductionInfo(): Record<string, unknown> {
    const st = this.stubborn;
    if (!st) return { reduction: 'none' };
    const parts = [...(st.on ? ['stubborn-sets'] : []), ...(this.sleepSets ? ['sleep-sets'] : [])];
    const out: Record<string, unknown> = { reduction: parts.length > 0 ? parts.join('+') : 'none' };
    if (!st.on && st.reason) out.stubbornNote = `state reduction off: ${st.reason}`;
    if (!this.sleepSets) out.sleepNote = 'sleep sets off under symmetry (a world met again may be a permutation of the first, so what was asleep cannot be read)';
    if (st.restarts > 0) out.porRestarts = st.restarts;
    return out;
  }

  protected abstract push(n: Node): void;
  protected abstract next(): Node | undefined;
  protected abstract size(): number;
  /** Called when a node has no more steps. */
  protected abstract retire(n: Node): void;
  /** Forgets every node (the search restarts). */
  protected abstract clear(): void;
  /** Cycle proviso: true when the edge from `n` to the world just visited (not new) may close a cycle. */
  protected abstract closesCycle(n: Node): boolean;

  /** The schedule that reaches `n`'s world, then `last`. */
  protected scheduleOf(n: Node | undefined, last?: string): string[] {
    return scheduleOf(n, last);
  }

  /** Expands a stubborn node fully (the proviso asked for it). */
  private expandFully(n: Node): void {
    const all = n.all!;
    n.all = undefined;
    for (const t of all) if (!inSet(t, n.steps) && !inSet(t, n.sleep)) n.steps.push(t);
  }

  /** Records a violation; true when exploration stops (unless an inspector asks to go on). */
  private report(property: PropertyRef, schedule: string[]): boolean {
    const s = this.s;
    if (s.opts.inspect?.violation?.(property, schedule)) return false;
    const shortest = this.breadthFirst && !this.diverged && !this.hook && !s.shard && !s.hasher.symmetric;
    s.found = shortest ? { property, schedule, shortest } : { property, schedule };
    return true;
  }

  /** Records a new or revisited state; returns the node to expand, if any. */
  private arrive(world: World, fresh: boolean, depth: number, sleep: Step[], parent: Node | undefined, via: string | undefined): Node | undefined {
    const s = this.s;
    const ha = s.hasher.ha,
      hb = s.hasher.hb;
    const key = keyOf(ha, hb);
    if (!fresh) {
      if (!this.sleepSets) return undefined;
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
      this.diverged = true;
      s.visited.setMark(m & markOf(sleep, all));
      return { world, depth, steps, i: 0, sleep, done: [], parent, via, lanes: s.hasher.lastLanes, all: this.stubborn?.on && steps.length < all.length ? all : undefined, key, en: this.keepsEnabled ? all : undefined, index: -1 };
    }
    const { all, end } = s.firstVisit(world, depth);
    const mark = sleep.length > 0 ? markOf(sleep, all) : 0;
    if (mark !== 0) s.visited.setMark(mark);
    // Claimed once its mark is known: the claim promises every step outside it is expanded here.
    this.hook?.visited(ha, hb, mark);
    if (this.stubborn?.on && s.visited.hasAux) s.visited.setAux(depth);
    if (end && this.report(end, this.scheduleOf(parent, via))) return undefined;
    if (all.length === 0) return undefined;
    if (depth >= s.maxDepthBudget) {
      s.cutBy ??= 'maxDepth';
      return undefined;
    }
    const stub = this.stubborn?.on ? this.stubborn.reduce(world, all) : undefined;
    const base = stub ?? all;
    const steps = sleep.length === 0 ? base : base.filter((t) => !inSet(t, sleep));
    const node: Node = { world, depth, steps, i: 0, sleep, done: [], parent, via, lanes: s.hasher.lastLanes, all: stub ? all : undefined, key, en: this.keepsEnabled ? all : undefined, index: -1 };
    if (steps.length < all.length) this.diverged = true;
    if (steps.length === 0) {
      // Every stubborn step is asleep: the rest of the world's steps may not be.
      if (!stub) return undefined;
      this.expandFully(node);
      if (node.steps.length === 0) return undefined;
    }
    return node;
  }

  /** A sharded search's frontier world (hashed by the caller), below its prefix schedule, met with the empty sleep set. */
  private rootNode(r: ShardRoot, fresh = true): Node | undefined {
    return this.arrive(r.world, fresh, r.schedule.length, [], prefixChain(r.schedule.slice(0, -1)), r.schedule.at(-1));
  }

  /** Shared-visited mode, once the search is empty: the next frontier world no shard has fully expanded yet. */
  private takeRoot(): Node | undefined {
    for (let r; this.hook && !this.s.found && (r = this.hook.nextRoot()); ) {
      const root = this.rootNode(r.root, r.fresh);
      if (root) {
        this.push(root);
        return this.next();
      }
    }
    return undefined;
  }

  private restart(): void {
    this.stubborn!.restarts++;
    this.started = false;
    this.diverged = false;
    this.clear();
    this.s.resetVisited();
  }

  step(until: number): boolean {
    const s = this.s;
    const sc = this.sc;
    if (!this.started) {
      this.started = true;
      if (s.shard) {
        // A sharded search starts from its frontier worlds (distributed/shard.ts ran the prefix); with a hook, one at a time (takeRoot).
        if (!this.hook) {
          for (const r of [...s.shard.roots].reverse()) {
            s.hasher.world(r.world);
            const root = this.rootNode(r);
            if (s.found) return true;
            if (root) this.push(root);
          }
        }
      } else {
        const init = s.start();
        if (init.violation && this.report(init.violation, [])) return true;
        const root = this.arrive(init.world, init.fresh, 0, [], undefined, undefined);
        if (s.found) return true;
        if (root) this.push(root);
      }
    }
    let k = 0;
    for (;;) {
      if ((++k & 63) === 0) {
        const now = performance.now();
        if (s.outOfBudget(now)) return true;
        if (this.hook?.poll(false)) return true;
        if (now > until) {
          s.queue = this.size();
          return false;
        }
      }
      const n = this.next() ?? this.takeRoot();
      if (!n) {
        s.queue = 0;
        return true;
      }
      const t = n.steps[n.i++]!;
      const from = n.world!;
      const fromLanes = n.lanes;
      const r = apply(sc, from, t, { detail: false, memo: this.memo });
      s.determinism?.check(from, t, r.world, r.events, n.en);
      s.transitions++;
      s.states++;
      if (this.stubborn?.learn(t, r.events, from, r.world)) {
        // The step did something the reduction did not know an actor could do: the
        // stubborn sets chosen so far may be too small. Start again with what it knows.
        this.restart();
        return false;
      }
      // Invariants read only the world, so a world met again (same fingerprint) passed
      // them on its first visit: check them on new worlds only (most successors on
      // protocol models are revisits). Not under symmetry (a permuted
      // world need not satisfy an invariant that is not symmetric) nor when an
      // inspector collects every violation.
      const fresh = s.visit(r.world, from, fromLanes);
      if (!fresh && n.all && this.closesCycle(n)) this.expandFully(n);
      const v = stepViolation(sc, r.world, r.events, fresh || this.checkRevisits);
      if (v && this.report(v, this.scheduleOf(n, t.id))) return true;
      let sleep: Step[] = [];
      if (this.sleepSets) {
        const vis = visible(this.por, r.events);
        sleep = nextSleep(n.sleep, n.done, t, vis);
        if (!vis) n.done.push(t);
      }
      const child = this.arrive(r.world, fresh, n.depth + 1, sleep, n, t.id);
      if (n.i >= n.steps.length) this.retire(n);
      if (s.found) return true;
      if (s.distinct >= s.maxStates) {
        s.cutBy ??= 'maxStates';
        return true;
      }
      if (child) this.push(child);
    }
  }
}

/** Depth-first: a stack of nodes; the path to the top is the current schedule. */
export class Dfs extends Search {
  private stack: Node[] = [];
  /** Keys of the worlds on the stack, with counts (the stack proviso). */
  private onStack = new Map<number, number>();
  protected push(n: Node): void {
    this.stack.push(n);
    this.onStack.set(n.key, (this.onStack.get(n.key) ?? 0) + 1);
  }
  protected next(): Node | undefined {
    while (this.stack.length > 0) {
      const top = this.stack[this.stack.length - 1]!;
      if (top.i < top.steps.length) return top;
      this.stack.pop();
      const c = this.onStack.get(top.key)!;
      if (c > 1) this.onStack.set(top.key, c - 1);
      else this.onStack.delete(top.key);
    }
    return undefined;
  }
  protected clear(): void {
    this.stack = [];
    this.onStack = new Map();
  }
  protected closesCycle(_n: Node): boolean {
    // Spin's proviso: an edge back into the stack closes a cycle of the reduced graph.
    return this.onStack.has(keyOf(this.s.hasher.ha, this.s.hasher.hb));
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
  protected override breadthFirst = true;
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
  protected clear(): void {
    this.queue = [];
    this.head = 0;
  }
  protected closesCycle(n: Node): boolean {
    // Every cycle has an edge to a world first met no deeper than the edge's source
    // (depths cannot rise all the way round), so expanding such sources fully leaves
    // no cycle of stubborn steps only.
    return this.s.visited.getAux() <= n.depth;
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
