// The model checker: explores a scenario's interleavings through the kernel's
// `initialWorld` / `enabled` / `apply` only, and reports the first violated property
// as a shrunk, replayable counterexample.
//
//   check(sc, { strategy: 'bfs' })            exhaustive, shortest counterexample
//   check(sc, { strategy: 'dfs' })            exhaustive, less memory
//   check(sc, { strategy: 'random', runs })   seeded random walks
//   check(sc, { strategy: 'pct', depth })     probabilistic concurrency testing
//   check(sc, { strategy: 'swarm', workers }) pct/random runs over worker threads
//   replaySchedule(sc, schedule)              exact replay, Divergence on mismatch
import { Subject } from 'rxjs';
import { assertScenario, type Scenario } from '../actors/index.ts';
import { Bfs, Dfs, Search } from './search/explore.ts';
import { CompactBfs } from './search/bfs-compact.ts';
import { OLD_GROWTH, leanHeap } from './search/heap.ts';
import { replayLasso } from './liveness/lasso.ts';
import { hasLiveness } from './liveness/scc.ts';
import { GraphSearch } from './liveness/state-graph.ts';
import { porContext, type PorContext } from './por/sleep-sets.ts';
import { unreducedFirst } from './search/first-violation.ts';
import { sameProperty } from './properties.ts';
import { runSchedule } from './trace/replay.ts';
import { Sampler, estimateK, type SampleConfig } from './search/sample.ts';
import { SLICE_MS, Session, yieldToLoop, type Explorer } from './search/session.ts';
import { nearestPassing, shrinkSchedule } from './trace/shrink.ts';
import { DEFAULT_SHARD_PREFIX, assertShard, fingerprintDigest, runPrefix, shardFingerprints, type ShardInfo } from './distributed/shard.ts';
import { runSwarm, type SwarmHandle } from './distributed/swarm.ts';
import { exchangeInfo, openExchange } from './distributed/exchange.ts';
import type { ExchangeSearch } from './distributed/exchange-search.ts';
import { SharedVisited, joinShared, type ClaimsLink } from './distributed/claims.ts';
import type { CheckOptions, CheckResult, CheckRun, Progress, Violation } from './types.ts';

export type * from './types.ts';
export { replaySchedule, runSchedule, type ScheduleInput } from './trace/replay.ts';
export { toTraceFile, saveTraceFile, TOOL_VERSION } from './trace/trace-file.ts';
export { expectHolds, formatViolation, type ExpectHoldsOptions } from './expect.ts';
export { shrinkSchedule, nearestPassing, contextSwitches, actorOfStep, NEAREST_PASSING_TRIES, type NearPassing, type ShrinkOptions } from './trace/shrink.ts';
export { WorldHasher, Hasher, fpHex, type Fp } from './fingerprint/fingerprint.ts';
export { VisitedSet } from './search/visited.ts';
export { runOne, estimateK, type SampleConfig, type PctConfig } from './search/sample.ts';
export { resolveSource } from './distributed/swarm.ts';
export { replayLasso, type LassoReplay } from './liveness/lasso.ts';
export { hasLiveness } from './liveness/scc.ts';
export { DEFAULT_SHARD_PREFIX, fingerprintDigest, type ShardInfo } from './distributed/shard.ts';
export { EXCHANGE_DEFAULTS, ExchangeError, type ExchangeInfo, type ExchangeOptions } from './distributed/exchange.ts';
export type { ExchangeCounts } from './distributed/exchange-search.ts';
export { SHARE_VISITED_DEFAULTS, type ShareVisitedInfo, type ShareVisitedOptions } from './distributed/claims.ts';
export type { LivenessStats } from './liveness/state-graph.ts';
export { NondeterminismError, DETERMINISM_DEFAULTS } from './purity.ts';
export { replayTraceFile, scenarioForTrace, externalsOf, modelSchedule, modelledExternals, type ModelSchedule } from './trace/recorded.ts';
export { fromTrace, fromTraceRun, fromTraceSearch, type FromTraceOptions, type FromTraceResult, type FromTraceSearch } from './trace/from-trace.ts';

const DEFAULT_RUNS = 1000;
const DEFAULT_SWARM_RUNS = 10_000;
const DEFAULT_SAMPLE_DEPTH = 10_000;

function defaultSeed(): number {
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

/** Starts a check; `result` resolves when it ends, `progress$` emits about every 50 ms. */
export function checkRun(sc: Scenario, opts: CheckOptions = {}): CheckRun {
  assertScenario(sc);
  const progress = new Subject<Progress>();
  let session: Session | undefined;
  let swarm: SwarmHandle | undefined;
  let stopRequested = false;
  let releaseHeap: (() => void) | undefined;
  const result = run(sc, opts, progress, {
    onSession: (s) => {
      session = s;
      if (stopRequested) s.stopped = true;
    },
    onSwarm: (h) => {
      swarm = h;
      if (stopRequested) h.stop();
    },
    onHeap: (release) => (releaseHeap = release),
  }).finally(() => {
    releaseHeap?.();
    progress.complete();
  });
  return {
    result,
    progress$: progress.asObservable(),
    stop() {
      stopRequested = true;
      if (session) session.stopped = true;
      swarm?.stop();
    },
  };
}

/**
 * Explores the schedules of a scenario and checks its properties. Resolves when the
 * search ends: `ok` false with a shrunk, replayable `violation` at the first
 * violation; `ok` true otherwise, with `complete` saying whether every reachable state
 * was explored (dfs/bfs with no budget cut) or only a sample (`cutBy` says what
 * stopped it). A result that is `ok` but not `complete` is not a proof.
 *
 * @example
 * ```ts
 * const result = await check(scenario, { strategy: 'bfs' });
 * if (!result.ok) console.log(formatViolation(result.violation!));
 * ```
 */
export function check(sc: Scenario, opts: CheckOptions = {}): Promise<CheckResult> {
  return checkRun(sc, opts).result;
}

async function run(
  sc: Scenario,
  opts: CheckOptions,
  progress: Subject<Progress>,
  hooks: { onSession(s: Session): void; onSwarm(h: SwarmHandle): void; onHeap(release: () => void): void },
): Promise<CheckResult> {
  const strategy = opts.strategy ?? 'bfs';
  if (!['dfs', 'bfs', 'random', 'pct', 'swarm'].includes(strategy)) {
    throw new Error(`unknown strategy '${String(strategy)}'; use one of dfs, bfs, random, pct, swarm`);
  }
  const exhaustive = strategy === 'dfs' || strategy === 'bfs';
  const seed = (opts.seed ?? (exhaustive ? 0 : defaultSeed())) >>> 0;
  // Liveness keeps the whole state graph: no sleep sets, no symmetry (liveness/state-graph.ts).
  const live = exhaustive && opts.liveness !== false && hasLiveness(sc);
  // Exchange mode: the cycle proviso of the reduction cannot see cycles through other shards.
  const exchange = exhaustive && opts.exchange !== undefined;
  // Shared-visited mode: claims carry sleep-set marks, so sleep sets stay on (distributed/claims.ts).
  const shared = exhaustive && opts.shareVisited !== undefined;
  const por = porContext(sc, exhaustive && opts.por !== false && !live && !exchange);
  const symmetry = !live && (opts.symmetry ?? (sc.symmetry?.length ?? 0) > 0);
  const options: Record<string, unknown> = { strategy, seed, por: por.enabled, symmetry, shrink: opts.shrink !== false };
  if (por.reason && opts.por !== false) options.porNote = `POR off: ${por.reason}`;
  if (live && opts.por !== false) options.porNote = 'POR off: liveness properties are decided on the full state graph';
  if (exchange && opts.por !== false) options.porNote = 'POR off: exchange mode (the reduction\'s cycle proviso does not hold across shards)';
  if (hasLiveness(sc) && !live) options.livenessNote = exhaustive ? 'liveness properties not checked (liveness: false)' : `liveness properties are checked by dfs and bfs only; ${strategy} checked the other properties`;
  if (exhaustive) options.determinism = opts.determinism ?? true;
  // A sharded bfs starts from many roots (its frontier worlds): the compact frontier keeps each root's world and prefix.
  const frontier = opts.frontier ?? 'compact';
  if (frontier !== 'compact' && frontier !== 'worlds') throw new Error(`unknown frontier '${String(frontier)}'; use compact or worlds`);
  // Shared-visited mode starts from frontier worlds one at a time: the compact frontier takes its roots at once.
  if (strategy === 'bfs' && !live && !exchange) options.frontier = shared ? 'worlds' : frontier;
  for (const k of ['maxStates', 'maxDepth', 'timeLimitMs'] as const) if (opts[k] !== undefined) options[k] = opts[k];

  const shard = exhaustive ? opts.shard : undefined;
  if (shard) {
    assertShard(shard);
    const la = opts.shardLookahead;
    if (la !== undefined && !(Number.isInteger(la) && la >= 0)) throw new Error(`shardLookahead must be a whole number of levels >= 0, got ${String(la)}`);
    if (live) throw new Error(`scenario '${sc.name}' declares liveness properties, which a sharded search cannot decide (a cycle may cross shards); check it in one process, or pass liveness: false to check the other properties sharded`);
    options.shard = `${shard.index}/${shard.count}`;
    if (exchange && shared) throw new Error('exchange and shareVisited are two sharded modes: pass one of them');
    if (exchange) options.exchange = opts.exchange!.dir;
    else options.shardPrefix = opts.shardPrefix ?? DEFAULT_SHARD_PREFIX;
    if (shared) options.shareVisited = opts.shareVisited!.dir;
  } else if (exchange) throw new Error('exchange mode needs a shard: pass shard: { index, count } with exchange');
  else if (shared) throw new Error('shared-visited mode needs a shard: pass shard: { index, count } with shareVisited');

  // Let the caller subscribe to progress$ before any work.
  await yieldToLoop();
  if (exhaustive && opts.leanHeap !== false) hooks.onHeap(leanHeap(live ? undefined : strategy === 'dfs' ? OLD_GROWTH.dfs : frontier === 'compact' ? OLD_GROWTH.compactBfs : undefined));
  const s = new Session(sc, { ...opts, symmetry }, por.enabled, live);
  hooks.onSession(s);
  let graph: GraphSearch | undefined;
  let xs: ExchangeSearch | undefined;
  let sv: SharedVisited | undefined;
  const link: ClaimsLink | undefined = shared ? joinShared(s, opts) : undefined;
  const shardPrefix = shard && !exchange ? () => void (s.shard = runPrefix(s, shard.index, shard.count, opts.shardPrefix ?? DEFAULT_SHARD_PREFIX, opts.shardLookahead)) : undefined;
  shardPrefix?.();

  if (strategy === 'swarm') {
    const cfg = sampleConfig(sc, opts, 'swarm', seed, options);
    const runs = opts.runs ?? DEFAULT_SWARM_RUNS;
    options.runs = runs;
    const h = runSwarm(sc, s, cfg, runs, opts, progress);
    hooks.onSwarm(h);
    const info = await h.done;
    Object.assign(options, info.options);
  } else {
    let explorer: Explorer;
    const search = (p: PorContext): Search => (strategy === 'dfs' ? new Dfs(s, p) : frontier === 'compact' && !shared ? new CompactBfs(s, p) : new Bfs(s, p));
    if (live) {
      explorer = graph = new GraphSearch(s);
      options.liveness = { algorithm: 'scc', order: 'bfs', fairness: graph.classes.describe(), properties: graph.specs.map((x) => x.name) };
    } else if (exchange) {
      explorer = xs = await openExchange(s, opts);
    } else if (exhaustive) {
      const x = search(por);
      if (link) x.hook = sv = new SharedVisited(s, link);
      explorer = x;
    }
    else {
      const cfg = sampleConfig(sc, opts, strategy, seed, options);
      const runs = opts.runs ?? DEFAULT_RUNS;
      options.runs = runs;
      explorer = new Sampler(s, cfg, runs);
    }
    // A shard whose prefix found a violation or hit a bound has nothing left to explore.
    const drive = async (e: Explorer): Promise<void> => {
      for (;;) {
        if (s.shard && (s.found || s.cutBy)) break;
        const done = e.step(performance.now() + SLICE_MS);
        s.memory.sample();
        progress.next(s.progress());
        if (done) break;
        await (e.pause?.() ?? yieldToLoop());
      }
    };
    const prefixFound = s.found !== undefined;
    try {
      await drive(explorer);
    } catch (e) {
      sv?.end(e);
      throw e;
    }
    sv?.end();
    if (explorer instanceof Search) {
      Object.assign(options, explorer.reductionInfo());
      // The reported violation is the one the unreduced search meets first (search/first-violation.ts).
      // Not across shared-visited shards: which shard meets a violation first is timing.
      if (por.enabled && s.found && !prefixFound && shared) {
        options.firstViolationNote = 'shared-visited mode reports the violation its shard met (with sleep sets; which shard meets one first depends on timing)';
      } else if (por.enabled && s.found && !prefixFound) {
        const first = await unreducedFirst(s, explorer.diverged, {
          explorer: () => search(porContext(sc, false)),
          drive,
          ...(shardPrefix ? { prefix: shardPrefix } : {}),
        });
        options.firstViolation = first.info;
        if (first.note) options.firstViolationNote = first.note;
      }
    }
  }
  s.exploreMs = s.ms();
  s.memory.sample();
  const result = finish(sc, s, opts, strategy, seed, options, exhaustive);
  if (graph) result.stats.liveness = graph.stats;
  if (exhaustive && !live && (s.shard || xs || opts.inspect?.fingerprints)) {
    const fps = shardFingerprints(s, s.shard?.foreign);
    opts.inspect?.fingerprints?.(fps);
    if (s.shard) result.shard = shardInfo(s, opts, fps);
    if (xs) result.exchange = exchangeInfo(xs, s, opts, fingerprintDigest(fps));
    if (sv) result.shareVisited = sv.info(opts.shareVisited!.dir);
  }
  return result;
}

function shardInfo(s: Session, opts: CheckOptions, fps: BigUint64Array): ShardInfo {
  const p = s.shard!;
  return { index: p.index, count: p.count, prefix: opts.shardPrefix ?? DEFAULT_SHARD_PREFIX, prefixDepth: p.prefixDepth, prefixStates: p.prefixStates, frontier: p.frontier, roots: p.roots.length, ...(p.partitionDepth === undefined ? {} : { partitionDepth: p.partitionDepth }), digest: fingerprintDigest(fps) };
}

/**
 * TLC's optimistic estimate of the chance that some state was omitted because its
 * fingerprint equalled an earlier one's: each of the m - n generated states that
 * were found "seen" could have been a new state colliding with one of n keys.
 */
export function collisionProbability(distinct: number, generated: number): number {
  return Math.min(1, (distinct * Math.max(0, generated - distinct)) / 2 ** 64);
}

function sampleConfig(sc: Scenario, opts: CheckOptions, strategy: 'random' | 'pct' | 'swarm', seed: number, options: Record<string, unknown>): SampleConfig {
  const per = strategy === 'swarm' ? (opts.swarmStrategy ?? 'pct') : strategy;
  const maxDepth = opts.maxDepth ?? DEFAULT_SAMPLE_DEPTH;
  const faultRate = opts.faultRate ?? 0.1;
  if (per === 'random') return { strategy: 'random', root: seed, maxDepth, faultRate };
  const depth = opts.depth ?? 3;
  if (!Number.isInteger(depth) || depth < 1) throw new Error(`pct depth must be a whole number >= 1, got ${String(opts.depth)}`);
  const k = estimateK(sc, maxDepth, faultRate);
  options.pct = { depth, k };
  if (strategy === 'swarm') options.swarmStrategy = per;
  return { strategy: 'pct', root: seed, maxDepth, faultRate, pct: { depth, k } };
}

function finish(sc: Scenario, s: Session, opts: CheckOptions, strategy: string, seed: number, options: Record<string, unknown>, exhaustive: boolean): CheckResult {
  let violation: Violation | undefined;
  if (s.found?.property.kind === 'liveness') {
    // A lasso: no shrinking (the prefix is a shortest one, the cycle is built inside one component).
    const f = s.found;
    // With an inspector that went on past safety violations, the lasso may pass through one.
    const out = replayLasso(sc, f.schedule, f.cycleStart, f.property.name, opts.inspect?.violation !== undefined);
    if (!out.property || out.property.kind !== 'liveness') throw new Error(`internal: the liveness counterexample for '${f.property.name}' does not replay (${out.note ?? out.property?.message ?? '?'})`);
    violation = { property: f.property, schedule: out.schedule, originalLength: f.schedule.length, trace: out.trace, world: out.world };
    if (f.cycleStart !== undefined) violation.cycleStart = f.cycleStart;
  } else if (s.found) {
    const f = s.found;
    let schedule = f.schedule;
    if (opts.shrink !== false && schedule.length > 0) schedule = shrinkSchedule(sc, f.property, schedule);
    // The final trace: replay with detail on.
    let out = runSchedule(sc, schedule, { detail: true, lenient: false });
    if (!out.property || !sameProperty(out.property, f.property)) {
      schedule = f.schedule;
      out = runSchedule(sc, schedule, { detail: true, lenient: false });
    }
    violation = {
      property: out.property ?? f.property,
      schedule: out.schedule,
      originalLength: f.schedule.length,
      trace: out.trace,
      world: out.world,
    };
    if (f.seed !== undefined) violation.seed = f.seed;
    const passing = nearestPassing(sc, out.schedule);
    if (passing) {
      violation.passing = passing.schedule;
      violation.passingNote = passing.note;
    }
  }
  // Exploration time only (shrinking and the final replay are not part of the rate).
  const ms = s.exploreMs ?? s.ms();
  const distinct = s.distinct;
  const complete = exhaustive && !s.found && s.cutBy === undefined;
  const result: CheckResult = {
    ok: !s.found,
    complete,
    stats: {
      states: s.states,
      distinctStates: distinct,
      transitions: s.transitions,
      maxDepth: s.maxDepth,
      ms,
      statesPerSecond: ms > 0 ? (distinct * 1000) / ms : 0,
      bytesPerState: s.visited.size > 0 ? s.visited.bytes / s.visited.size : 0,
    },
    unreached: s.found ? [] : s.reach.unreached(),
    strategy,
    seed,
    options,
  };
  const memory = s.memory.stats(distinct);
  if (memory) result.stats.memory = memory;
  if (s.runs > 0) result.stats.runs = s.runs;
  if (exhaustive) result.collisionProbability = collisionProbability(distinct, s.states);
  if (!complete && !s.found && s.cutBy) result.cutBy = s.cutBy;
  if (violation) result.violation = violation;
  return result;
}
