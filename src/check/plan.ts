// What a check will run, decided from its options before any work: the strategy, which
// sharded mode, whether liveness, POR and symmetry are on, and the notes that say why
// something asked for is off. Bad combinations are refused here, with what to do.
import type { Scenario } from '../actors/index.ts';
import { porContext, type PorContext } from './por/sleep-sets.ts';
import { hasLiveness } from './liveness/scc.ts';
import { DEFAULT_SHARD_PREFIX, assertShard } from './distributed/shard.ts';
import type { CheckNotes, CheckOptions, Strategy } from './types.ts';

const STRATEGIES: readonly Strategy[] = ['dfs', 'bfs', 'random', 'pct', 'pos', 'swarm'];
const SWARM_STRATEGIES = ['random', 'pct', 'pos'] as const;

/** A check's plan: what runs, and the notes it starts its result with. */
export interface Plan {
  readonly strategy: Strategy;
  /** dfs or bfs. */
  readonly exhaustive: boolean;
  readonly seed: number;
  /** The scenario's liveness properties are decided (the state graph is kept). */
  readonly liveness: boolean;
  /** Exchange mode: each world explored by its owner shard. */
  readonly exchange: boolean;
  /** Shared-visited mode: shards tell each other the worlds they visit. */
  readonly shared: boolean;
  readonly por: PorContext;
  readonly symmetry: boolean;
  readonly frontier: 'compact' | 'worlds';
  /** A sharded dfs or bfs. */
  readonly shard: { readonly index: number; readonly count: number } | undefined;
  readonly notes: CheckNotes;
}

function defaultSeed(): number {
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

/** Validates a check's options and decides what runs; throws on a combination that cannot run. */
export function planCheck(sc: Scenario, opts: CheckOptions): Plan {
  const strategy = opts.strategy ?? 'bfs';
  if (!STRATEGIES.includes(strategy)) throw new Error(`unknown strategy '${String(strategy)}'; use one of ${STRATEGIES.join(', ')}`);
  const exhaustive = strategy === 'dfs' || strategy === 'bfs';
  if (opts.swarmStrategy !== undefined && !SWARM_STRATEGIES.includes(opts.swarmStrategy)) throw new Error(`unknown swarmStrategy '${String(opts.swarmStrategy)}'; use one of ${SWARM_STRATEGIES.join(', ')}`);
  // PCT's bug depth means nothing to the other strategies: refuse it rather than ignore it.
  const perRun = strategy === 'swarm' ? (opts.swarmStrategy ?? 'pct') : strategy;
  if (opts.depth !== undefined && perRun === 'pos') throw new Error(`depth is PCT's bug depth; pos has no parameters: drop depth, or use strategy 'pct'`);
  // Workers are the swarm's: a random or PCT check given workers would silently run in one thread.
  if (opts.workers !== undefined && opts.workers > 1 && strategy !== 'swarm') {
    throw new Error(`workers (${opts.workers}) run the swarm strategy's threads; ${strategy} runs in one thread: ${exhaustive ? 'split a dfs/bfs over processes with shard (docs/sharding.md)' : `use strategy 'swarm' (it spreads ${strategy === 'pct' ? 'PCT' : strategy === 'pos' ? 'POS' : 'random'} runs over the workers)`}, or drop workers`);
  }
  if (opts.countDistinct === false && exhaustive) throw new Error(`countDistinct: false applies to sampled strategies; ${strategy} always counts distinct states (its visited set is the search): drop countDistinct`);
  const seed = (opts.seed ?? (exhaustive ? 0 : defaultSeed())) >>> 0;
  // Liveness keeps the whole state graph: no sleep sets, no symmetry (liveness/state-graph.ts).
  const liveness = exhaustive && opts.liveness !== false && hasLiveness(sc);
  // Exchange mode: the cycle proviso of the reduction cannot see cycles through other shards.
  const exchange = exhaustive && opts.exchange !== undefined;
  // Shared-visited mode: claims carry sleep-set marks, so sleep sets stay on (distributed/claims.ts).
  const shared = exhaustive && opts.shareVisited !== undefined;
  const por = porContext(sc, exhaustive && opts.por !== false && !liveness && !exchange);
  const symmetry = !liveness && (opts.symmetry ?? (sc.symmetry?.length ?? 0) > 0);
  const notes: CheckNotes = { strategy, seed, por: por.enabled, symmetry, shrink: opts.shrink !== false };
  if (por.reason && opts.por !== false) notes.porNote = `POR off: ${por.reason}`;
  if (liveness && opts.por !== false) notes.porNote = 'POR off: liveness properties are decided on the full state graph';
  if (exchange && opts.por !== false) notes.porNote = "POR off: exchange mode (the reduction's cycle proviso does not hold across shards, and a world's sleep set would depend on which shard's step reached it first)";
  if (hasLiveness(sc) && !liveness) notes.livenessNote = exhaustive ? 'liveness properties not checked (liveness: false)' : `liveness properties are checked by dfs and bfs only; ${strategy} checked the other properties`;
  if (exhaustive) notes.determinism = opts.determinism ?? true;
  // A sharded bfs starts from many roots (its frontier worlds): the compact frontier keeps each root's world and prefix.
  const frontier = opts.frontier ?? 'compact';
  if (frontier !== 'compact' && frontier !== 'worlds') throw new Error(`unknown frontier '${String(frontier)}'; use compact or worlds`);
  // Shared-visited mode starts from frontier worlds one at a time: the compact frontier takes its roots at once.
  if (strategy === 'bfs' && !liveness && !exchange) notes.frontier = shared ? 'worlds' : frontier;
  for (const k of ['maxStates', 'maxDepth', 'timeLimitMs'] as const) if (opts[k] !== undefined) notes[k] = opts[k];

  const shard = exhaustive ? opts.shard : undefined;
  if (shard) {
    assertShard(shard);
    const la = opts.shardLookahead;
    if (la !== undefined && !(Number.isInteger(la) && la >= 0)) throw new Error(`shardLookahead must be a whole number of levels >= 0, got ${String(la)}`);
    if (liveness) throw new Error(`scenario '${sc.name}' declares liveness properties, which a sharded search cannot decide (a cycle may cross shards); check it in one process, or pass liveness: false to check the other properties sharded`);
    notes.shard = `${shard.index}/${shard.count}`;
    if (exchange && shared) throw new Error('exchange and shareVisited are two sharded modes: pass one of them');
    if (exchange) notes.exchange = opts.exchange!.dir;
    else notes.shardPrefix = opts.shardPrefix ?? DEFAULT_SHARD_PREFIX;
    if (shared) notes.shareVisited = opts.shareVisited!.dir;
  } else if (exchange) throw new Error('exchange mode needs a shard: pass shard: { index, count } with exchange');
  else if (shared) throw new Error('shared-visited mode needs a shard: pass shard: { index, count } with shareVisited');
  return { strategy, exhaustive, seed, liveness, exchange, shared, por, symmetry, frontier, shard, notes };
}
