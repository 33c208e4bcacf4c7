// The table of explorers a check can run. `check` takes the first mode whose `applies`
// is true, gives it a session, and drives what it opens with the one search loop
// (check.ts): the same counters, budgets, progress and stop for every mode.
// A plain dfs or bfs is what most checks run: the modules only the other modes use
// (sampling, liveness's state graph, swarm's worker threads, exchange and shared-visited
// shards, the search around a recording) are imported when such a mode opens, so a plain
// check (the command line's above all) does not pay for loading them.
import type { Subject } from 'rxjs';
import type { Scenario } from '../actors/index.ts';
import { Bfs, Dfs, Search } from './search/explore.ts';
import { CompactBfs } from './search/bfs-compact.ts';
import { OLD_GROWTH } from './search/heap.ts';
import { unreducedFirst } from './search/first-violation.ts';
import type { SampleConfig } from './search/sample.ts';
import { Session, type Explorer } from './search/session.ts';
import { porContext, type PorContext } from './por/sleep-sets.ts';
import { DEFAULT_SHARD_PREFIX, fingerprintDigest, runPrefix, shardFingerprints, type ShardInfo } from './distributed/shard.ts';
import type { SwarmHandle } from './distributed/swarm.ts';
import type { replayLasso } from './liveness/lasso.ts';
import type { Plan } from './plan.ts';
import type { CheckNotes, CheckOptions, CheckResult, Progress } from './types.ts';

const DEFAULT_RUNS = 1000;
const DEFAULT_SWARM_RUNS = 10_000;
const DEFAULT_SAMPLE_DEPTH = 10_000;

/** What a mode gets to open its explorer with. */
export interface ModeContext {
  readonly sc: Scenario;
  readonly opts: CheckOptions;
  readonly plan: Plan;
  readonly s: Session;
  readonly notes: CheckNotes;
  readonly progress: Subject<Progress>;
  /** Runs an explorer until it ends, with progress, budgets and stop(). */
  drive(e: Explorer): Promise<void>;
  /** Swarm: its workers, so stop() reaches them. */
  onSwarm(h: SwarmHandle): void;
}

/** A mode once opened: an explorer for the driver, or work of its own to wait for (swarm). */
export interface Opened {
  readonly explorer?: Explorer;
  readonly wait?: Promise<void>;
  /** After the search ends (the unreduced re-run that decides the first violation). */
  after?(): Promise<void>;
  /** Fills in what the mode adds to the result. */
  finish?(r: CheckResult): void;
  /** The result itself, for a mode that reports its own (the search around a recording). */
  result?(): CheckResult;
  /** Called with the error when the search throws. */
  fail?(e: unknown): void;
  /** Replays a liveness counterexample (a lasso) for the result: set by the mode that finds them. */
  readonly lasso?: typeof replayLasso;
}

/** One way to run a check. */
export interface Mode {
  readonly name: string;
  applies(plan: Plan, opts: CheckOptions): boolean;
  /** The lean-heap setting while it runs (old-generation growth, %), `false` for none. */
  heap(plan: Plan, opts: CheckOptions): number | undefined | false;
  session(sc: Scenario, plan: Plan, opts: CheckOptions): Session | Promise<Session>;
  open(ctx: ModeContext): Opened | Promise<Opened>;
}

const exhaustiveHeap = (plan: Plan, opts: CheckOptions): number | undefined | false =>
  opts.leanHeap === false ? false : plan.liveness ? undefined : plan.strategy === 'dfs' ? OLD_GROWTH.dfs : plan.frontier === 'compact' ? OLD_GROWTH.compactBfs : undefined;

const checkSession = (sc: Scenario, plan: Plan, opts: CheckOptions): Session => new Session(sc, { ...opts, symmetry: plan.symmetry }, plan.por.enabled, plan.liveness);

async function sampleConfig(ctx: ModeContext, strategy: 'random' | 'pct' | 'pos' | 'swarm'): Promise<SampleConfig> {
  const { sc, opts, notes } = ctx;
  const per = strategy === 'swarm' ? (opts.swarmStrategy ?? 'pct') : strategy;
  const maxDepth = opts.maxDepth ?? DEFAULT_SAMPLE_DEPTH;
  const faultRate = opts.faultRate ?? 0.1;
  const root = ctx.plan.seed;
  if (strategy === 'swarm') notes.swarmStrategy = per;
  // A budget of distinct states needs them counted.
  const countDistinct = opts.countDistinct === true || opts.maxStates !== undefined;
  ctx.s.countDistinct = countDistinct;
  if (!countDistinct) notes.distinctStatesNote = 'distinct states not counted (a sampled verdict needs no fingerprints): pass countDistinct: true to count them';
  if (per === 'random' || per === 'pos') return { strategy: per, root, maxDepth, faultRate, countDistinct };
  const depth = opts.depth ?? 3;
  if (!Number.isInteger(depth) || depth < 1) throw new Error(`pct depth must be a whole number >= 1, got ${String(opts.depth)}`);
  const { estimateK } = await import('./search/sample.ts');
  const k = estimateK(sc, maxDepth, faultRate);
  notes.pct = { depth, k };
  return { strategy: 'pct', root, maxDepth, faultRate, pct: { depth, k }, countDistinct };
}

/** The fingerprints of an exhaustive search, when a shard, an exchange or an inspector needs them. */
function fingerprints(ctx: ModeContext, needed: boolean): BigUint64Array | undefined {
  const { s, opts } = ctx;
  if (!needed && !opts.inspect?.fingerprints) return undefined;
  const fps = shardFingerprints(s, s.shard?.foreign);
  opts.inspect?.fingerprints?.(fps);
  return fps;
}

function shardInfo(s: Session, opts: CheckOptions, fps: BigUint64Array): ShardInfo {
  const p = s.shard!;
  return { index: p.index, count: p.count, prefix: opts.shardPrefix ?? DEFAULT_SHARD_PREFIX, prefixDepth: p.prefixDepth, prefixStates: p.prefixStates, frontier: p.frontier, roots: p.roots.length, ...(p.partitionDepth === undefined ? {} : { partitionDepth: p.partitionDepth }), digest: fingerprintDigest(fps) };
}

/** `from`: every schedule within k deviations of a recorded run (trace/from-trace.ts). */
const aroundRecording: Mode = {
  name: 'from-trace',
  applies: (_plan, opts) => opts.from !== undefined,
  heap: () => false,
  // A live recording starts the modelled stores from the contents it recorded.
  async session(sc, _plan, opts) {
    const [{ traceSessionOptions }, { modelScenario }] = await Promise.all([import('./trace/from-trace.ts'), import('./trace/recorded.ts')]);
    return new Session(modelScenario(sc, opts.from!.trace), traceSessionOptions(opts, opts.from!.trace.schedule.length), false);
  },
  async open(ctx) {
    const { TraceSearch, traceCheckResult } = await import('./trace/from-trace.ts');
    const seed = ctx.opts.from!;
    const x = new TraceSearch(ctx.s, seed.trace, { ...ctx.opts, ...(seed.within === undefined ? {} : { within: seed.within }), ...(seed.ignoreData === undefined ? {} : { ignoreData: seed.ignoreData }) });
    return { explorer: x, result: () => traceCheckResult(x, ctx.s, seed) };
  },
};

/** swarm: pct, pos or random runs over worker threads (distributed/swarm.ts). */
const swarm: Mode = {
  name: 'swarm',
  applies: (plan) => plan.strategy === 'swarm',
  heap: () => false,
  session: checkSession,
  async open(ctx) {
    const { runSwarm } = await import('./distributed/swarm.ts');
    const cfg = await sampleConfig(ctx, 'swarm');
    const runs = ctx.opts.runs ?? DEFAULT_SWARM_RUNS;
    ctx.notes.runs = runs;
    const h = runSwarm(ctx.sc, ctx.s, cfg, runs, ctx.opts, ctx.progress);
    ctx.onSwarm(h);
    return { wait: h.done.then((info) => void Object.assign(ctx.notes, info.options)) };
  },
};

/** Liveness: bfs that keeps the state graph, then the SCC pass (liveness/). */
const liveness: Mode = {
  name: 'liveness',
  applies: (plan) => plan.liveness,
  heap: exhaustiveHeap,
  session: checkSession,
  async open(ctx) {
    const [{ GraphSearch }, { replayLasso }] = await Promise.all([import('./liveness/state-graph.ts'), import('./liveness/lasso.ts')]);
    const graph = new GraphSearch(ctx.s);
    ctx.notes.liveness = { algorithm: 'scc', order: 'bfs', fairness: graph.classes.describe(), properties: graph.specs.map((x) => x.name) };
    return { explorer: graph, finish: (r) => void (r.stats.liveness = graph.stats), lasso: replayLasso };
  },
};

/** Exchange mode: each world explored by its owner shard (distributed/exchange.ts). */
const exchange: Mode = {
  name: 'exchange',
  applies: (plan) => plan.exchange,
  heap: exhaustiveHeap,
  session: checkSession,
  async open(ctx) {
    const { exchangeInfo, openExchange } = await import('./distributed/exchange.ts');
    const xs = await openExchange(ctx.s, ctx.opts);
    return {
      explorer: xs,
      finish(r) {
        const fps = fingerprints(ctx, true)!;
        if (ctx.s.shard) r.shard = shardInfo(ctx.s, ctx.opts, fps);
        r.exchange = exchangeInfo(xs, ctx.s, ctx.opts, fingerprintDigest(fps));
      },
    };
  },
};

/** dfs and bfs, with the reduction, in one process or as a shard (search/, por/). */
const search: Mode = {
  name: 'search',
  applies: (plan) => plan.exhaustive,
  heap: exhaustiveHeap,
  session: checkSession,
  async open(ctx) {
    const { sc, opts, plan, s, notes } = ctx;
    const shared = plan.shared ? await import('./distributed/claims.ts') : undefined;
    const link = shared?.joinShared(s, opts);
    const shard = plan.shard;
    const prefix = shard ? () => void (s.shard = runPrefix(s, shard.index, shard.count, opts.shardPrefix ?? DEFAULT_SHARD_PREFIX, opts.shardLookahead)) : undefined;
    prefix?.();
    const prefixFound = s.found !== undefined;
    const make = (p: PorContext): Search => (plan.strategy === 'dfs' ? new Dfs(s, p) : plan.frontier === 'compact' && !plan.shared ? new CompactBfs(s, p) : new Bfs(s, p));
    const x = make(plan.por);
    const sv = shared && link ? new shared.SharedVisited(s, link) : undefined;
    if (sv) x.hook = sv;
    return {
      explorer: x,
      fail: (e) => sv?.end(e),
      async after() {
        sv?.end();
        Object.assign(notes, x.reductionInfo());
        if (!plan.por.enabled || !s.found || prefixFound) return;
        // The reported violation is the one the unreduced search meets first (search/first-violation.ts).
        // Not across shared-visited shards: which shard meets a violation first is timing.
        if (plan.shared) {
          notes.firstViolationNote = 'shared-visited mode reports the violation its shard met (with sleep sets; which shard meets one first depends on timing)';
          return;
        }
        const first = await unreducedFirst(s, x.diverged, { explorer: () => make(porContext(sc, false)), drive: ctx.drive, ...(prefix ? { prefix } : {}) });
        notes.firstViolation = first.info;
        if (first.note) notes.firstViolationNote = first.note;
      },
      finish(r) {
        const fps = fingerprints(ctx, s.shard !== undefined);
        if (!fps) return;
        if (s.shard) r.shard = shardInfo(s, opts, fps);
        if (sv) r.shareVisited = sv.info(opts.shareVisited!.dir);
      },
    };
  },
};

/** random, pct and pos: seeded runs in this thread (search/sample.ts). */
const sample: Mode = {
  name: 'sample',
  applies: () => true,
  heap: () => false,
  session: checkSession,
  async open(ctx) {
    const strategy = ctx.plan.strategy as 'random' | 'pct' | 'pos';
    const [cfg, { Sampler }] = await Promise.all([sampleConfig(ctx, strategy), import('./search/sample.ts')]);
    const runs = ctx.opts.runs ?? DEFAULT_RUNS;
    ctx.notes.runs = runs;
    return { explorer: new Sampler(ctx.s, cfg, runs) };
  },
};

/** The modes in the order they are tried. */
export const MODES: readonly Mode[] = [aroundRecording, swarm, liveness, exchange, search, sample];
