// `interleave check --shard i/n --share-visited DIR` (shared-visited mode, docs/sharding.md):
// which flags it takes, its part of the result file, and the lines it prints.
import type { CheckResult } from './check-api.ts';
import { UsageError } from './errors.ts';
import type { ShardResultFile } from './shard-result.ts';
import type { ShardChoice } from './shard-env.ts';
import type { Style } from '../report/style.ts';

/** Refuses shared-visited mode where it does not apply. */
export function shareVisitedChecks(flags: { shareVisited?: string; exchange?: string }, chosen: ShardChoice | undefined, exhaustive: boolean, strategy: string): void {
  const from = process.env.INTERLEAVE_SHARE_VISITED && flags.shareVisited === process.env.INTERLEAVE_SHARE_VISITED ? ' (from INTERLEAVE_SHARE_VISITED)' : '';
  if (!chosen) throw new UsageError(`--share-visited${from} splits one search over shards: give the shard too (--shard i/n, INTERLEAVE_SHARD, or JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID with --shard-count)`);
  if (!exhaustive) throw new UsageError(`--share-visited${from} splits a dfs or bfs search, not ${strategy}; use --strategy dfs|bfs`);
  if (flags.exchange !== undefined) throw new UsageError(`--share-visited${from} and --exchange are two sharded modes (sharing visited fingerprints, or sending worlds to their owners): pass one of them`);
}

/** The result file's `shard` of a shared-visited shard: the prefix mode's partition, plus its run and claims. */
export function shareVisitedShard(r: CheckResult): ShardResultFile['shard'] {
  const sh = r.shard!;
  const x = r.shareVisited!;
  return {
    i: sh.index + 1,
    n: sh.count,
    mode: 'share-visited',
    runId: x.runId,
    prefix: sh.prefix,
    prefixDepth: sh.prefixDepth,
    prefixStates: sh.prefixStates,
    frontier: sh.frontier,
    roots: sh.roots,
    ...(sh.partitionDepth === undefined ? {} : { partitionDepth: sh.partitionDepth }),
    shareVisited: {
      claimsSent: x.claimsSent,
      claimsReceived: x.claimsReceived,
      foreign: x.foreign,
      duplicate: x.duplicate,
      rootsStarted: x.rootsStarted,
      rootsSkipped: x.rootsSkipped,
      rootsWoken: x.rootsWoken,
      claimsMarked: x.claimsMarked,
      // The shard that stopped the run says why in its own cutBy.
      ...(x.stoppedBy && x.stoppedBy.shard !== x.index ? { stoppedBy: `${x.stoppedBy.shard + 1}/${x.count}: ${x.stoppedBy.message}` } : {}),
    },
  };
}

/** What this shard did: its run, its claims, the frontier worlds it started, what POR did, and that merge gives the verdict. */
export function shareVisitedLines(r: CheckResult, o: Style): string[] {
  const x = r.shareVisited;
  if (!x) return [];
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  const out = [
    o.dim(`shared    shard ${x.index + 1}/${x.count} of run ${x.runId} in ${x.dir}: visited ${n(x.own)} worlds itself; claims sent ${n(x.claimsSent)}, received ${n(x.claimsReceived)} (${n(x.foreign)} skipped here, ${n(x.duplicate)} visited here too); frontier worlds started ${n(x.rootsStarted.own)} own + ${n(x.rootsStarted.others)} of other shards, ${n(x.rootsSkipped)} skipped${x.rootsWoken > 0 ? `, ${n(x.rootsWoken)} met again to wake asleep steps` : ''}`),
  ];
  if (typeof r.options.porNote === 'string') out.push(o.dim(`por       ${r.options.porNote}`));
  if (r.complete) out.push(o.dim(`complete  here means this shard's search ended empty: the run is complete only if every shard's is`));
  out.push(o.dim(`merge     the verdict of the whole run: npx interleave merge <the ${x.count} --result files>`));
  return out;
}
