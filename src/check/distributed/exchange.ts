// Exchange mode's options, its part of the result, and how a shard joins its run: the
// glue between `check` (index.ts) and the search loop (distributed/exchange-search.ts).
import { initialWorld, type Scenario } from '../../actors/index.ts';
import { ExchangeError, fsDirIo, joinRun, type DirIo, type RunKey } from './exchange-dir.ts';
import { ExchangeSearch, type ExchangeCounts, type WorldCodecLike } from './exchange-search.ts';
import { fpHex } from '../fingerprint/fingerprint.ts';
import type { Session } from '../search/session.ts';
import { TOOL_VERSION } from '../trace/trace-file.ts';
import type { CheckOptions } from '../types.ts';
import { createWorldCodec } from '../codec/world-codec.ts';
import { EXCHANGE_DEFAULTS } from './exchange-defaults.ts';
import { LINK_DEFAULT_LIMIT } from '../codec/segment-link.ts';
import { ownerKeyText } from './exchange-owner.ts';
import { shareOwner, type SharedOwner } from './exchange-owner-share.ts';

export { ExchangeError };

/** Exchange mode (`CheckOptions.exchange`): where shards meet and how long they wait. */
export interface ExchangeOptions {
  /** The run directory, shared by every shard of the run and empty at its start (one directory per run). */
  dir: string;
  /**
   * A shard whose status file has not changed for this long (or that has not started)
   * stops the run, incomplete, naming it (default 120,000 ms). Raise it when a batch
   * engine may start shards far apart.
   */
  timeoutMs?: number;
  /**
   * Pause between the two waves of termination detection (default 500 ms): at least how
   * long the shared file system may show a reader an older version of a file.
   */
  waveGapMs?: number;
  /** Write a batch of worlds to a shard once it holds this many bytes (default 1 MiB; every 50 ms anyway). */
  batchBytes?: number;
  /**
   * How worlds get their owner shard: `auto` (default) samples seeded random walks and owns
   * them by one actor's snapshot when that keeps most steps on their shard and still
   * spreads the worlds evenly, else by the fingerprint; `fingerprint` always hashes the
   * fingerprint (docs/sharding.md).
   */
  owner?: 'auto' | 'fingerprint';
}

/** What an exchange-mode shard did (`CheckResult.exchange`). */
export interface ExchangeInfo extends ExchangeCounts {
  /** 0-based, as in `CheckOptions.shard`. */
  index: number;
  /** How many shards in all. */
  count: number;
  /** The run directory. */
  dir: string;
  /** The run's id (the same in every shard's result; `interleave merge` compares them). */
  runId: string;
  /** Distinct worlds this shard owns and explored (its `stats.distinctStates`). */
  owned: number;
  /** Why the run ended early, when a shard stopped it: which (0-based), why, and in words. */
  stoppedBy?: {
    /** The shard that stopped the run, 0-based. */
    shard: number;
    /** `violation`, `stopped` (Ctrl-C), `timeLimit`, `maxStates`, `silent` (a shard stopped answering) or `error` (a shard failed). */
    reason: string;
    /** What happened, in words. */
    message: string;
  };
  /** sha256 of this shard's owned fingerprints (sorted 64-bit, little-endian). */
  digest: string;
  /** How worlds got their owner, and what the sample predicted (the same in every shard). */
  owner: {
    /** `fingerprint`, or `actor:<id>` (that actor's snapshot hash). */
    key: string;
    /** Why, in words. */
    why: string;
    /** Distinct worlds the sampled walks met (0 when nothing was sampled). */
    sampled: number;
    /** Share of the sample's steps whose successor has another owner, under this key. */
    cross: number;
    /** The sample's largest shard against an even share, under this key. */
    balance: number;
    /** The 0-based shard that ran the sample (one per run; the others read its choice from the run directory); absent when nothing was sampled. */
    sampledBy?: number;
  };
}

/** What makes shards one run: they refuse a directory whose run differs in any of these (`mode` and `extra` say which sharded mode and its own settings). */
export function runKey(sc: Scenario, s: Session, opts: CheckOptions, count: number, mode: string, extra: RunKey = {}): RunKey {
  const src = opts.source;
  s.hasher.world(initialWorld(sc, { detail: false }).world);
  return {
    interleave: TOOL_VERSION,
    scenario: sc.name,
    // The module's file name without folder or extension: the CLI loads a bundled scenario from its sources or its compiled cache.
    ...(src && 'module' in src ? { module: `${moduleName(src.module)}#${src.export}` } : {}),
    params: JSON.stringify(src?.params ?? {}),
    initialWorld: fpHex({ a: s.hasher.ha, b: s.hasher.hb }),
    shards: count,
    symmetry: s.hasher.symmetric,
    maxDepth: opts.maxDepth ?? 'none',
    mode,
    ...extra,
  };
}

function moduleName(path: string): string {
  return path.replace(/^.*[\\/]/, '').replace(/\.[cm]?[jt]s$/, '');
}

/** Joins the run in `opts.exchange.dir` as shard `opts.shard` and returns its search. Throws ExchangeError for a directory of another run. */
export async function openExchange(s: Session, opts: CheckOptions): Promise<ExchangeSearch> {
  const x = opts.exchange!;
  const { index, count } = opts.shard!;
  if (typeof x.dir !== 'string' || x.dir === '') throw new ExchangeError('exchange.dir must name the run directory shared by every shard');
  let io: DirIo;
  let runId: string;
  if (x.owner !== undefined && x.owner !== 'auto' && x.owner !== 'fingerprint') throw new ExchangeError(`exchange.owner must be 'auto' or 'fingerprint', got ${JSON.stringify(x.owner)}`);
  // The run key holds the owner mode, not the key chosen: the choice is a deterministic function of the key's other fields, sampled once per run.
  let owner: SharedOwner;
  try {
    io = fsDirIo(x.dir);
    runId = joinRun(io, x.dir, index, count, runKey(s.sc, s, opts, count, 'exchange', { owner: x.owner ?? 'auto' }));
    owner = await shareOwner(io, runId, index, s.sc, count, { symmetric: s.hasher.symmetric, ...(x.owner ? { mode: x.owner } : {}) });
  } catch (e) {
    if (e instanceof ExchangeError) throw e;
    throw new ExchangeError(`cannot use ${x.dir} as the exchange directory: ${e instanceof Error ? e.message : String(e)}; give a directory every shard can create files in`);
  }
  let codec: WorldCodecLike;
  try {
    codec = await createWorldCodec(s.sc);
  } catch (e) {
    if (!(e instanceof Error) || e.name !== 'WorldCodecError') throw e;
    throw new ExchangeError(`exchange mode cannot carry this scenario's worlds between shards: ${e.message}${/without --exchange/.test(e.message) ? '' : '; shard it without --exchange (no communication) or run it in one process'}`);
  }
  const e = new ExchangeSearch(s, {
    io,
    where: x.dir,
    runId,
    index,
    count,
    codec,
    timing: { now: () => performance.now(), waveGapMs: x.waveGapMs ?? EXCHANGE_DEFAULTS.waveGapMs, silentMs: x.timeoutMs ?? EXCHANGE_DEFAULTS.timeoutMs, beatMs: EXCHANGE_DEFAULTS.beatMs },
    batchBytes: x.batchBytes ?? EXCHANGE_DEFAULTS.batchBytes,
    order: opts.strategy === 'dfs' ? 'dfs' : 'bfs',
    idleMs: EXCHANGE_DEFAULTS.idleMs,
    idleMaxMs: EXCHANGE_DEFAULTS.idleMaxMs,
    flushWorlds: EXCHANGE_DEFAULTS.flushWorlds,
    flushBytes: EXCHANGE_DEFAULTS.flushBytes,
    flushAgeMs: EXCHANGE_DEFAULTS.flushAgeMs,
    flushAgeWork: EXCHANGE_DEFAULTS.flushAgeWork,
    waveDelayMs: EXCHANGE_DEFAULTS.waveDelayMs,
    ...(owner.key.kind === 'actor' ? { ownerActor: owner.key.index } : {}),
    linkLimit: LINK_DEFAULT_LIMIT,
  });
  owners.set(e, owner);
  return e;
}

const owners = new WeakMap<ExchangeSearch, SharedOwner>();

function ownerInfo(o: SharedOwner | undefined): ExchangeInfo['owner'] {
  if (!o) return { key: 'fingerprint', why: 'the fingerprint', sampled: 0, cross: 0, balance: 1 };
  return { key: ownerKeyText(o.key), why: o.why, sampled: o.sampled.states, cross: Math.round(o.cross * 1000) / 1000, balance: Math.round(o.balance * 100) / 100, ...(o.sampledBy === undefined ? {} : { sampledBy: o.sampledBy }) };
}

/** The result's `exchange` part. */
export function exchangeInfo(e: ExchangeSearch, s: Session, opts: CheckOptions, digest: string): ExchangeInfo {
  const o = e.outcome;
  const stop = o?.kind === 'stopped' ? o.note : undefined;
  return {
    index: opts.shard!.index,
    count: opts.shard!.count,
    dir: opts.exchange!.dir,
    runId: e.runId,
    owned: s.visited.size,
    ...e.counts(),
    ...(stop ? { stoppedBy: { shard: stop.by, reason: stop.reason, message: stop.message } } : {}),
    digest,
    owner: ownerInfo(owners.get(e)),
  };
}
