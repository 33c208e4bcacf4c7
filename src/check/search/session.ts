// What every strategy shares: counters, budgets, the visited set and fingerprints,
// reachability, and cooperative yielding (so progress$ emits and stop() works).
import { enabled, initialWorld, isQuiescent, type Scenario, type Step, type World } from '../../actors/index.ts';
import { WorldHasher, type Lanes } from '../fingerprint/fingerprint.ts';
import { Reachability, quiescentViolation, stepViolation } from '../properties.ts';
import { VisitedSet } from './visited.ts';
import { DeterminismCheck } from '../purity.ts';
import { MemoryMeter } from './memory.ts';
import type { ShardPlan } from '../distributed/shard.ts';
import type { CheckOptions, CutBy, Progress, PropertyRef } from '../types.ts';

/** A violation as found by a strategy, before replay with detail and shrinking. */
export interface Found {
  readonly property: PropertyRef;
  readonly schedule: string[];
  readonly seed?: number;
  /** A lasso (liveness): `schedule` from this index on is a cycle back to the world it starts at. */
  readonly cycleStart?: number;
  /**
   * Met by a breadth-first search from the initial world in the unreduced order (no
   * reduction had pruned anything, no symmetry, no shard): every property is checked where
   * a world or step is first generated, level by level, so no shorter schedule violates
   * any property, and shrinking need not try deleting steps.
   */
  readonly shortest?: true;
}

/** Work between two yields to the event loop. */
export const SLICE_MS = 50;

export class Session {
  readonly t0 = performance.now();
  states = 0;
  transitions = 0;
  maxDepth = 0;
  queue = 0;
  runs = 0;
  /** Distinct states counted elsewhere (swarm workers, each with its own visited set). */
  extraDistinct = 0;
  /** False for a sampled check that does not hash its worlds: `distinct` then means nothing and is not reported. */
  countDistinct = true;
  cutBy: CutBy | undefined;
  found: Found | undefined;
  stopped = false;
  /** Progress's `phase` (search/first-violation.ts: the unreduced re-run). */
  phase: string | undefined;
  /** Set when exploration ends (before shrinking). */
  exploreMs: number | undefined;
  visited: VisitedSet;
  readonly hasher: WorldHasher;
  readonly reach: Reachability;
  readonly maxStates: number;
  readonly maxDepthBudget: number;
  readonly deadline: number;
  /** A sharded dfs / bfs: the roots and seeded visited set the shared prefix left (distributed/shard.ts). */
  shard: ShardPlan | undefined;
  /** dfs / bfs: the re-step sample that detects impure machines (undefined when off). */
  readonly determinism: DeterminismCheck | undefined;
  /** Peak RSS and heap of the whole search (sampled at each progress tick). */
  readonly memory = new MemoryMeter();

  constructor(
    readonly sc: Scenario,
    readonly opts: CheckOptions,
    /** The visited set keeps a sleep-set mark per state (POR on). */
    readonly withMarks: boolean,
    /** Liveness keeps a node number per state (its state graph). */
    private readonly withIds = false,
  ) {
    this.visited = this.newVisited();
    this.hasher = new WorldHasher(sc, opts.symmetry ?? (sc.symmetry?.length ?? 0) > 0);
    this.reach = new Reachability(sc);
    this.maxStates = opts.maxStates ?? Infinity;
    this.maxDepthBudget = opts.maxDepth ?? Infinity;
    this.deadline = opts.timeLimitMs === undefined ? Infinity : this.t0 + opts.timeLimitMs;
    const d = opts.determinism ?? true;
    this.determinism = d === false ? undefined : new DeterminismCheck(sc, d === true ? {} : d);
  }

  private newVisited(): VisitedSet {
    // Breadth-first POR keeps each state's depth for its cycle proviso (search/explore.ts).
    return new VisitedSet(this.withMarks, 1024, this.withIds, this.withMarks && (this.opts.strategy ?? 'bfs') === 'bfs');
  }

  /** Forgets every visited state (the reduction restarts the search when what it learned grows). */
  resetVisited(): void {
    this.visited = this.newVisited();
  }

  /**
   * The initial world, built (twice, when the determinism check is on), counted and
   * visited, with the violation its start events show, if any: how every search begins.
   */
  start(): { world: World; fresh: boolean; violation: PropertyRef | undefined } {
    const init = initialWorld(this.sc, { detail: false });
    this.determinism?.checkInitial(init.world);
    this.states++;
    const fresh = this.visit(init.world);
    return { world: init.world, fresh, violation: stepViolation(this.sc, init.world, init.events) };
  }

  /** Adds the world's fingerprint to the visited set; true when new. */
  visit(w: World, base?: World, baseLanes?: Lanes): boolean {
    this.hasher.world(w, base, baseLanes);
    return this.visited.add(this.hasher.ha, this.hasher.hb);
  }

  /**
   * What every exhaustive search does at a world it meets for the first time: marks it
   * reached, records its depth, tells the inspector (`inspect.state` only when `state`:
   * the shard prefix does not), and decides its end properties. Returns the world's
   * enabled steps and its end violation, if any.
   */
  firstVisit(world: World, depth: number, state = true): { all: Step[]; end: PropertyRef | undefined } {
    if (depth > this.maxDepth) this.maxDepth = depth;
    const all = enabled(this.sc, world);
    const quiet = isQuiescent(all);
    this.reach.see(world, quiet);
    const inspect = this.opts.inspect;
    if (state) inspect?.state?.(world);
    if (inspect?.quiescent && quiet) inspect.quiescent(world);
    return { all, end: quiet ? quiescentViolation(this.sc, world) : undefined };
  }

  /** Distinct states this search counts: its visited set, less other shards' claims it holds, plus what swarm workers visited. */
  get distinct(): number {
    return this.visited.size + this.extraDistinct;
  }

  /** True when exploration must stop now (and records why). */
  outOfBudget(now: number): boolean {
    if (this.stopped) {
      this.cutBy ??= 'stopped';
      return true;
    }
    if (now > this.deadline) {
      this.cutBy ??= 'timeLimit';
      return true;
    }
    if (this.distinct >= this.maxStates) {
      this.cutBy ??= 'maxStates';
      return true;
    }
    return false;
  }

  ms(): number {
    return performance.now() - this.t0;
  }

  progress(): Progress {
    const ms = this.ms();
    const p: Progress = { states: this.states, transitions: this.transitions, depth: this.maxDepth, queue: this.queue, ms };
    if (this.countDistinct) {
      p.distinctStates = this.distinct;
      p.statesPerSecond = ms > 0 ? (this.distinct * 1000) / ms : 0;
    }
    if (this.runs > 0) p.runs = this.runs;
    if (this.phase) p.phase = this.phase;
    return p;
  }
}

/** Gives the event loop a turn (timers, I/O, Ctrl-C handlers, progress subscribers). */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A strategy: does work until done (returns true) or until `until` (performance.now()) passes. */
export interface Explorer {
  step(until: number): boolean;
  /** Between slices (default: one turn of the event loop); an exchange shard sleeps while idle. */
  pause?(): Promise<void>;
}
