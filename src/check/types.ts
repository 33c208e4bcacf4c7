// The checker's public types (the contract the CLI, reports and tests build on).
import type { Observable } from 'rxjs';
import type { RecordedEvent, World } from '../actors/index.ts';

/** How `check` explores: exhaustive `bfs`/`dfs`, or sampling `random`/`pct`/`pos`/`swarm` (docs/checker.md). */
export type Strategy = 'dfs' | 'bfs' | 'random' | 'pct' | 'pos' | 'swarm';

/**
 * Where a swarm worker gets the scenario from (scenarios are not transferable between
 * threads): a module (absolute path or file: URL; .ts loads through tsx) exporting a
 * Scenario, a family (built with `params`), or a function returning a Scenario (called
 * with `args`). For a bundled family, `familySource(name, params)` from
 * `interleave/machines` gives it.
 */
export type ScenarioSource = {
      /** The module: an absolute path or a file: URL. */
      readonly module: string;
      /** The export's name. */
      readonly export: string;
      /** Arguments for a function export. */
      readonly args?: readonly unknown[];
      /** Parameters for a family export. */
      readonly params?: Readonly<Record<string, unknown>>;
    };

/** Options of `check` (and of the vitest matchers). Every field is optional. */
export interface CheckOptions {
  /**
   * `bfs` (default: shortest counterexamples) and `dfs` explore every reachable state
   * within the budgets and say whether they were `complete`; `random`, `pct`, `pos` and
   * `swarm` sample `runs` seeded runs (PCT: probabilistic concurrency testing, good at
   * bugs of small depth; POS: partial order sampling, each event keeps a random priority
   * while it waits, no parameters, better than PCT on bugs of depth 3 and more; swarm:
   * PCT, POS or random runs over worker threads).
   */
  strategy?: Strategy;
  /** Root seed of random, pct, pos and swarm, and of tie-breaks; default: drawn from the clock and printed in the result. */
  seed?: number;
  /** Random / pct / pos / swarm: how many runs (default 1000; swarm 10,000). */
  runs?: number;
  /**
   * Random / pct / pos / swarm: hash every world the runs meet to count the distinct ones
   * (`stats.distinctStates`). Off by default, since a sampled verdict needs no fingerprints
   * and hashing costs about as much as the runs themselves; a `maxStates` budget turns it
   * on. dfs, bfs and liveness always count (their visited set is the search), so `false`
   * is refused there.
   */
  countDistinct?: boolean;
  /** PCT bug depth d (default 3): d - 1 priority change points. Only for pct (and swarm running pct). */
  depth?: number;
  /**
   * bfs: how the frontier (states found, not yet expanded) is held. `compact` (default):
   * each entry is its parent entry and step (about 10 bytes, plus 2 a step still to take),
   * and worlds are re-derived by replaying steps when expanded, each checked against its
   * fingerprint. `worlds`: every entry holds its world (far more memory, a little
   * faster; docs/checker.md has the figures). Both explore the same states in the same order.
   */
  frontier?: 'compact' | 'worlds';
  /**
   * dfs / bfs: size V8's heap for memory rather than throughput while the search runs
   * (default true): the young generation keeps its initial size and the old
   * generation grows by 10% between collections for a compact bfs frontier, by 50% for
   * dfs (the lean heap), trading some CPU for much less resident memory
   * (docs/checker.md, "Fingerprints and memory", has the figures).
   * `false` keeps V8's defaults, as do node options that size the heap.
   */
  leanHeap?: boolean;
  /** Stop after generating this many states (`cutBy: 'maxStates'`, not complete). */
  maxStates?: number;
  /** Do not explore past this many steps. */
  maxDepth?: number;
  /** Stop after this many milliseconds. */
  timeLimitMs?: number;
  /** Swarm: worker threads (default: cores). 0 runs in this thread. */
  workers?: number;
  /**
   * Split one check over `count` processes or machines; `index` is 0-based (the CLI's
   * `--shard i/n` is 1-based). Swarm: run only the index-th of count disjoint slices of
   * the run indices. dfs / bfs: explore only this shard's slice of the state space, after
   * a breadth-first prefix every shard shares (docs/sharding.md); `result.shard`
   * describes the partition. Not with liveness properties.
   */
  shard?: {
    /** This shard, 0-based. */
    index: number;
    /** How many shards in all. */
    count: number;
  };
  /**
   * Sharded dfs / bfs: the prefix grows until a level (the partition level) holds at
   * least this many worlds per shard (default 128), then `shardLookahead` levels more,
   * and the last level is dealt out (docs/sharding.md). More gives finer slices and
   * costs a longer prefix that every shard explores.
   */
  shardPrefix?: number;
  /**
   * Sharded dfs / bfs: levels the shared prefix explores past the partition level
   * before it deals the frontier (default 6). Frontier worlds whose futures meet within
   * these levels stay on one shard; every shard pays for them. 0 deals the partition
   * level itself. Every shard of one check must use the same value.
   */
  shardLookahead?: number;
  /**
   * Sharded dfs / bfs (`shard` required): exchange mode. Instead of a shared prefix, every
   * world has one owner shard (by its fingerprint); a shard explores only the worlds it
   * owns and sends the others' to them as files in `dir`, a directory every shard can
   * write (a shared volume). No state is explored twice; the shards must run at the
   * same time. Partial-order reduction is off (`result.options.porNote`); not with
   * liveness properties. docs/sharding.md, "Exchange mode".
   */
  exchange?: import('./distributed/exchange.ts').ExchangeOptions;
  /**
   * Sharded dfs / bfs (`shard` required): shared-visited mode. Every shard runs the
   * shared prefix, starts from its own frontier worlds first and then from the other
   * shards', and tells the others the fingerprints of the worlds it visits through files
   * in `dir` (a directory every shard can write); a world another shard visited is not
   * explored again. The shards must run at the same time to share the work (each ends
   * when its own search is empty). Partial-order reduction is off
   * (`result.options.porNote`); not with liveness properties. docs/sharding.md,
   * "Shared-visited mode".
   */
  shareVisited?: import('./distributed/claims.ts').ShareVisitedOptions;
  /** Swarm: the per-run strategy (default 'pct'). */
  swarmStrategy?: 'random' | 'pct' | 'pos';
  /**
   * Partial-order reduction (stubborn sets and sleep sets), dfs and bfs, default true:
   * steps that commute are explored in one order only (docs/checker.md says what it
   * preserves and what the declarations `reads`/`readsView` are for). A scenario with
   * monitors gets it only if every monitor declares `watches`
   * (`result.options.porNote` says why it was off). The verdict and the violation
   * reported do not depend on it: a violation is the one `por: false` reports, same
   * schedule (`result.options.firstViolation`).
   */
  por?: boolean;
  /** Shrink counterexamples, default true. */
  shrink?: boolean;
  /** Canonicalise symmetric actors, default true when the scenario declares symmetry groups. */
  symmetry?: boolean;
  /**
   * Swarm: how each worker thread rebuilds the scenario (a scenario holds functions and
   * cannot be sent to a thread). `interleave check ./module.ts#export` passes it for you.
   * From code, a scenario of your own needs it: `{ module: absolutePath, export: 'name' }`
   * (plus `args` for a function export, `params` for a family). Default: the built-in
   * family named like the scenario. When neither fits, the swarm runs every run in the
   * calling thread, says so in `result.options.swarmNote` and warns on stderr.
   * dfs / bfs: with a source, short schedules are also replayed in fresh copies of the
   * module, to catch state shared between actors outside their snapshots (docs/checker.md).
   *
   * @example
   * ```ts
   * await check(scenario, { strategy: 'swarm', source: { module: fileURLToPath(import.meta.url), export: 'scenario' } });
   * ```
   */
  source?: ScenarioSource;
  /**
   * Explore around a recorded run instead of from scratch: every schedule within
   * `within` deviations (reorderings, faults, inputs arriving earlier) of the recording
   * (`interleave check --from`). The strategy, POR and sharding options do not apply;
   * `maxStates` counts generated states (default 200,000) and `maxDepth` defaults to the
   * recording's length + 1,000.
   */
  from?: import('./trace/from-trace.ts').TraceSeed;
  /** Random / pct / swarm: the probability of taking a fault step when one is offered (default 0.1). */
  faultRate?: number;
  /**
   * dfs / bfs: check the scenario's `liveness` properties (default true). The search
   * then keeps the state graph and runs without partial-order reduction or symmetry.
   */
  liveness?: boolean;
  /**
   * dfs / bfs: observe the exploration, for tools and soundness tests: every distinct
   * quiescent world, and every violation (return true to record it and keep going).
   */
  inspect?: Inspect;
  /**
   * dfs / bfs: re-step a deterministic sample of transitions without the step memo and
   * stop with a `NondeterminismError` (naming the actor, its state and the event) when
   * a result differs: an impure machine. Default on (`{ first: 128, every: 512,
   * repeats: 2 }`); `false` turns it off.
   */
  determinism?: boolean | DeterminismOptions;
}

/** How often dfs / bfs re-step transitions to catch an impure machine (`CheckOptions.determinism`). */
export interface DeterminismOptions {
  /** Re-step every one of the first `first` transitions (default 128: small models whole). */
  first?: number;
  /** Then every `every`-th transition (default 512; 0: none after the first). */
  every?: number;
  /** Re-steps per sampled transition (default 2). */
  repeats?: number;
}

/** Callbacks into a running search (`CheckOptions.inspect`), for tests and tools. */
export interface Inspect {
  /** Called once for every distinct world, when first visited (dfs/bfs without liveness). */
  state?(world: World): void;
  /** Called once for every distinct quiescent world (nothing but faults enabled). */
  quiescent?(world: World): void;
  /**
   * Called for every violation found; return true to record it and keep exploring.
   * Returning false stops the search; with POR on, the unreduced re-run that decides
   * which violation is reported then calls these callbacks again for its own worlds.
   */
  violation?(property: PropertyRef, schedule: readonly string[]): boolean;
  /**
   * dfs / bfs: called once at the end with the fingerprints of every world the search
   * visited (sorted; a shard's leave out other shards' frontier worlds). For tests that
   * compare the union of shards with one search.
   */
  fingerprints?(fps: BigUint64Array): void;
}

/** A progress report of a running check (`CheckRun.progress$`, about every 50 ms). */
export interface Progress {
  /** States generated so far. */
  states: number;
  /** Distinct worlds visited so far; absent when the check does not count them (`CheckOptions.countDistinct`). */
  distinctStates?: number;
  /** Transitions taken so far. */
  transitions: number;
  /** Current depth (dfs) or level (bfs). */
  depth: number;
  /** Worlds waiting: the bfs queue or the dfs stack. */
  queue: number;
  /** Elapsed wall time, milliseconds. */
  ms: number;
  /** Distinct states per second so far; absent when distinct states are not counted. */
  statesPerSecond?: number;
  /** Runs done (random, PCT, swarm). */
  runs?: number;
  /**
   * What the search is doing, when it is not the search itself: `'unreduced re-run'`
   * while a reduced search that met a violation runs the unreduced search again to find
   * the first one (the counts start over; `result.options.firstViolation`).
   */
  phase?: string;
}

/** Which property failed: its name in the scenario, its kind, and the message the predicate or monitor returned. `deadlock`, `error` (a machine threw) and `unhandled` are built in. */
export interface PropertyRef {
  /** The property's name in the scenario (or `deadlock`, `error`, `unhandled`). */
  name: string;
  /** What kind of property it is. */
  kind: 'invariant' | 'monitor' | 'eventually' | 'deadlock' | 'error' | 'unhandled' | 'liveness';
  /** What was wrong, in words (the predicate's or monitor's message). */
  message: string;
}

/**
 * A counterexample: the violated property, the shrunk schedule (step ids, replayable with
 * `replaySchedule`), the trace of events along it and the world where it failed.
 * `originalLength` is the schedule's length before shrinking.
 */
export interface Violation {
  /** The property that failed. */
  property: PropertyRef;
  /** The shrunk schedule: step ids, replayable with `replaySchedule`. */
  schedule: string[];
  /** The schedule's length before shrinking. */
  originalLength: number;
  /** The events along the schedule, each with its step number. */
  trace: RecordedEvent[];
  /** The world where the property failed. */
  world: World;
  /** The seed of the run that found it (random, pct, pos, swarm): replays alone. */
  seed?: number;
  /**
   * A nearby passing schedule, if found: one step moved (or, failing that, one fault
   * outcome turned into a normal delivery), then run on to the end. Found greedily
   * within a bounded number of replays; `passingNote` says what changed.
   */
  passing?: string[];
  /**
   * A liveness lasso: `schedule.slice(cycleStart)` is a cycle that returns to the world
   * reached after `schedule.slice(0, cycleStart)` and repeats forever.
   */
  cycleStart?: number;
  /** How `passing` differs from the counterexample and how it was searched. */
  passingNote?: string;
  /** Found around a recording (`from`): per step of `schedule`, its recorded position or how it deviates from the recording. */
  recorded?: StepOrigin[];
}

/**
 * How a step of a schedule found around a recording departs from it: `reorder` (a recorded
 * step taken before a recorded step that came earlier), `fault` (a crash, restart, drop or
 * storage fault outcome: never in a live recording), `timer-early` / `timer-late` (a timer
 * that fired before, or after, recorded steps that it came after, or before), `input-earlier`
 * (a request from outside arriving before recorded steps that preceded it), `unrecorded` (a
 * step the recording does not have: the model going on past its end, or a consequence of an
 * earlier deviation).
 */
export type DeviationKind = 'reorder' | 'fault' | 'timer-early' | 'timer-late' | 'input-earlier' | 'unrecorded';

/** Where one step of a schedule found around a recording comes from. */
export interface StepOrigin {
  /** The step's 1-based position in the recording's schedule (the file's numbering), when it is a recorded step. */
  readonly recorded?: number;
  /** How it departs from the recording; absent when it is taken in the recorded order. */
  readonly deviation?: DeviationKind;
}


/** What stopped a search before it was complete. */
export type CutBy = 'maxStates' | 'maxDepth' | 'timeLimit' | 'runs' | 'stopped';

/** Counts of a check: states generated and distinct, transitions, depth, time, memory per state. */
export interface CheckStats {
  /** States generated (successors computed, duplicates included). */
  states: number;
  /**
   * Distinct worlds visited. Absent when the check did not count them: a sampled check
   * (random, pct, pos, swarm) counts them only with `countDistinct: true` or a `maxStates`
   * budget, since its verdict needs no fingerprints. dfs, bfs and liveness always count.
   */
  distinctStates?: number;
  /** Transitions taken (steps applied). */
  transitions: number;
  /** The deepest schedule explored. */
  maxDepth: number;
  /** Wall time of the check, milliseconds. */
  ms: number;
  /** Distinct states per second of wall time; absent when distinct states were not counted. */
  statesPerSecond?: number;
  /** Bytes of the visited set per distinct state. */
  bytesPerState: number;
  /**
   * Memory of the whole search in this process (visited set, frontier or stack, caches,
   * the runtime itself), sampled about every 50 ms: see `MemoryStats`. Swarm worker
   * threads share the process, so their heaps are in the RSS but not in the heap figure.
   */
  memory?: MemoryStats;
  /** Runs done (random, PCT, swarm). */
  runs?: number;
  /** The liveness pass (when the scenario declares liveness properties): graph size and memory. */
  liveness?: import('./liveness/state-graph.ts').LivenessStats;
  /**
   * Wall and CPU milliseconds per phase of the check (`search`, `determinism`,
   * `firstViolation`, `shrink`, `nearbyPassing`; `check --json` adds the command line's
   * `moduleLoad`, `scenarioBuild`, `traceWrite`, `htmlWrite`). CPU is the whole process's.
   */
  phases?: import('./phases.ts').Phases;
}

/**
 * Peak memory of a check (from `process.memoryUsage()`, sampled at every progress tick
 * and at the end). The RSS includes the runtime and loaded modules, so `rssBytesPerState` is an upper bound that falls as a search
 * grows; `heapGrowthBytesPerState` is what the search itself added per distinct state.
 */
export interface MemoryStats {
  /** Peak resident set size of the process, bytes. */
  peakRssBytes: number;
  /** Peak JS heap in use plus memory outside it (typed arrays), bytes. */
  peakHeapBytes: number;
  /** RSS when the check began. */
  startRssBytes: number;
  /** Heap (plus typed arrays) in use when the check began. */
  startHeapBytes: number;
  /** Peak RSS / distinct states (0 when they were not counted). */
  rssBytesPerState: number;
  /** (Peak heap - heap at the start) / distinct states (0 when they were not counted). */
  heapGrowthBytesPerState: number;
}

/** pct's parameters in effect (`result.options.pct`). */
export interface PctNote {
  /** The bug depth d (d - 1 priority change points). */
  readonly depth: number;
  /** The estimated steps per run the change points are drawn over. */
  readonly k: number;
}

/** How liveness was decided (`result.options.liveness`). */
export interface LivenessNote {
  /** The algorithm: `scc` (strongly connected components of the state graph). */
  readonly algorithm: string;
  /** The order the state graph was built in: `bfs`. */
  readonly order: string;
  /** The fairness in effect, as the scenario declared it. */
  readonly fairness: unknown;
  /** The liveness properties decided. */
  readonly properties: readonly string[];
}

/**
 * What a check ran with and notes on what it did (`result.options`): the options in effect,
 * the reduction, and why something the options asked for was off. Notes are sentences for
 * people; the other fields are for tools.
 */
export interface CheckNotes {
  /** The strategy that ran (`from-trace` for a search around a recording). */
  strategy: string;
  /** The seed in effect. */
  seed?: number;
  /** Partial-order reduction was on. */
  por?: boolean;
  /** The search folded symmetric worlds. */
  symmetry?: boolean;
  /** Violations are shrunk. */
  shrink?: boolean;
  /** Why partial-order reduction was off although not turned off. */
  porNote?: string;
  /** Why liveness properties were not checked. */
  livenessNote?: string;
  /** dfs / bfs: the nondeterminism re-steps in effect. */
  determinism?: boolean | DeterminismOptions;
  /** bfs: the frontier kind. */
  frontier?: 'compact' | 'worlds';
  /** The budgets given. */
  maxStates?: number;
  /** The depth bound given. */
  maxDepth?: number;
  /** The time limit given, milliseconds. */
  timeLimitMs?: number;
  /** A sharded search: `index/count`. */
  shard?: string;
  /** Exchange mode: its directory. */
  exchange?: string;
  /** A sharded search: the prefix's worlds per shard. */
  shardPrefix?: number;
  /** Shared-visited mode: its directory. */
  shareVisited?: string;
  /** Sampling: runs asked for. */
  runs?: number;
  /** pct: the bug depth and the estimated steps per run. */
  pct?: PctNote;
  /** swarm: the strategy of each run. */
  swarmStrategy?: string;
  /** Liveness: how it was decided. */
  liveness?: LivenessNote;
  /** dfs / bfs: the reduction that ran (`stubborn-sets+sleep-sets`, `none`, ...). */
  reduction?: string;
  /** Why stubborn sets were off. */
  stubbornNote?: string;
  /** Why sleep sets were off. */
  sleepNote?: string;
  /** Times the reduction restarted after learning. */
  porRestarts?: number;
  /** With POR on and a violation: which search's first violation is reported. */
  firstViolation?: import('./search/first-violation.ts').FirstViolationInfo;
  /** When the reported violation is not the unreduced search's first, why. */
  firstViolationNote?: string;
  /** swarm: why it ran in this thread. */
  swarmNote?: string;
  /** swarm: worker threads. */
  workers?: number;
  /** swarm: set when more worker threads were asked for than the machine has cores, which then take turns on them. */
  workersNote?: string;
  /** swarm: the failing run's index. */
  failingRun?: number;
  /** swarm over worker threads: how many blocks of run indices each worker took. */
  workerBlocks?: number[];
  /** swarm: where the workers rebuilt the scenario from. */
  source?: ScenarioSource;
  /** swarm: how distinct states are counted. */
  distinctStatesNote?: string;
  /** A complete check in which no run ended: its end-of-run properties were never checked. */
  endNote?: string;
  /** from-trace: the deviations allowed. */
  within?: number;
  /** from-trace: the recording's length as explored. */
  seedLength?: number;
  /** from-trace: the recording's path. */
  from?: string;
  /** Other notes. */
  [note: string]: unknown;
}

/** A complete check that never reached a required `reachable` goal (`result.finding`). */
export interface UnreachedFinding {
  /** Always `unreached`. */
  readonly kind: 'unreached';
  /** The goals never reached. */
  readonly goals: readonly string[];
  /** What it means, in a sentence. */
  readonly message: string;
  /** The explored world with the most actors out of their initial state: the nearest the search got. */
  readonly closest?: World;
}

/**
 * The outcome of `check`. `ok` false means a violation was found (`violation`). `ok` true
 * is a proof only when `complete` is true; otherwise `cutBy` says what stopped the search
 * (or it was a sampling strategy, which never completes).
 */
export interface CheckResult {
  /** False when a violation was found. */
  ok: boolean;
  /** True when every reachable state was explored (dfs/bfs without a budget cut or violation). */
  complete: boolean;
  /** What stopped the search before it was complete, if anything. */
  cutBy?: CutBy;
  /** Counts and timings. */
  stats: CheckStats;
  /** The counterexample, when `ok` is false. */
  violation?: Violation;
  /** `reachable` properties no explored world satisfied (conclusive only when `complete`). */
  unreached: string[];
  /**
   * What failed a complete check that found no violation: required `reachable` goals it
   * never reached (`ok` is false). Mark a goal `optional(p)` to let it go unreached.
   */
  finding?: UnreachedFinding;
  /**
   * dfs / bfs in one process: properties that could not have failed in what was
   * explored, because they were only ever evaluated where the actors they read were
   * still in their initial state (end-of-run properties: where no run ended).
   */
  vacuous?: string[];
  /** The strategy that ran. */
  strategy: string;
  /** The seed in effect. */
  seed: number;
  /** The options in effect, including seed-derived ones (pct's d and k), and notes on what ran. */
  options: CheckNotes;
  /**
   * dfs / bfs: estimated probability that two distinct states shared a 64-bit
   * fingerprint, so that one was never explored (TLC's optimistic estimate,
   * n * (m - n) / 2^64 for n distinct states out of m generated).
   */
  collisionProbability?: number;
  /** A sharded dfs / bfs (`shard` option): the partition and this shard's fingerprint digest. */
  shard?: import('./distributed/shard.ts').ShardInfo;
  /** An exchange-mode shard (`exchange` option): its run, traffic, how it ended and its fingerprint digest. */
  exchange?: import('./distributed/exchange.ts').ExchangeInfo;
  /** A shared-visited shard (`shareVisited` option): its run, the claims it sent and received, the frontier worlds it started, how it ended. */
  shareVisited?: import('./distributed/claims.ts').ShareVisitedInfo;
}

/** A check in progress (`checkRun`): its result, a progress stream, and a way to stop it early. */
export interface CheckRun {
  /** Resolves with the result when the check ends (or is stopped). */
  result: Promise<CheckResult>;
  /** Progress reports while it runs; completes when it ends. */
  progress$: Observable<Progress>;
  /** Ctrl-C: resolves `result` with the stats so far, complete: false, cutBy: 'stopped'. */
  stop(): void;
}

/**
 * The JSON trace file written by `interleave check`, the vitest matchers and
 * `toTraceFile`, read by `interleave replay`/`show` and `replayTraceFile`. Its JSON
 * Schema is docs/trace.schema.json.
 */
export interface TraceFile {
  /** The trace format version (see `TRACE_SCHEMA_VERSION`). */
  schemaVersion: 1;
  /** Marks the JSON as a trace file. */
  kind: 'interleave-trace';
  /** The tool and version that wrote it. */
  tool: {
    /** Always `interleave`. */
    name: 'interleave';
    /** The package version that wrote it. */
    version: string;
  };
  /** The scenario's name and the parameters it was built with. */
  scenario: {
    /** The scenario's name. */
    name: string;
    /** The parameters it was built with. */
    params: Record<string, unknown>;
    /** Where a scenario of your own comes from (`path` relative to the trace file), so `interleave replay` can rebuild it. */
    module?: {
      /** The module's path, relative to the trace file. */
      path: string;
      /** The export's name. */
      export: string;
    };
  };
  /** The check options in effect. */
  options: Record<string, unknown>;
  /** The seed of the search (or of the failing run). */
  seed: number;
  /** The violated property, or null for a trace that violates nothing. */
  property: PropertyRef | null;
  /** The step ids, in order. */
  schedule: string[];
  /** The schedule's length before shrinking. */
  originalLength: number;
  /** The payloads of `input:` steps by schedule position (live recordings). */
  inputs?: {
    /** The `input:` step's position in `schedule`. */
    index: number;
    /** The sender. */
    from: string;
    /** The receiver. */
    to: string;
    /** The message. */
    msg: unknown;
  }[];
  /** The trace events, serialized (see `toPlain`). */
  trace: unknown[];
  /** A nearby passing schedule, its trace and how it differs. */
  passing?: {
    /** Its step ids. */
    schedule: string[];
    /** Its trace events, serialized. */
    trace: unknown[];
    /** How it differs from the counterexample and how it was searched. */
    note?: string;
  };
  /** A liveness lasso: the schedule from this index on is a cycle back to the same world. */
  cycleStart?: number;
  /** Found around a recording (`check --from`): the recording, and where each step of `schedule` comes from. */
  recorded?: {
    /** Where the recording was read from, as given. */
    from?: string;
    /** Its length (steps in its file). */
    length: number;
    /** Per step of `schedule`: its position in the recording (1-based), or how it deviates. */
    steps: StepOrigin[];
    /** The recorded steps the counterexample covers (from the first to the last it matched), for showing beside it. */
    window: {
      /** The 1-based position of `ids[0]` in the recording. */
      start: number;
      /** The recorded step ids. */
      ids: string[];
    };
  };
}
