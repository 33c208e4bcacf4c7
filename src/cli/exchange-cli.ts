// `interleave check --shard i/n --exchange DIR` (exchange mode, docs/sharding.md): which
// flags it takes, its part of the result file, and the lines it prints.
import type { CheckResult, ExchangeInfo } from './check-api.ts';
import { UsageError } from './errors.ts';
import type { ShardResultFile } from './shard-result.ts';
import type { ShardChoice } from './shard-env.ts';
import type { Style } from '../report/style.ts';

/** Refuses exchange mode where it does not apply. */
export function exchangeChecks(flags: { exchange?: string; shardPrefix?: number; shardLookahead?: number; frontier?: string; from?: string }, chosen: ShardChoice | undefined, exhaustive: boolean, strategy: string): void {
  const from = process.env.INTERLEAVE_EXCHANGE && flags.exchange === process.env.INTERLEAVE_EXCHANGE ? ' (from INTERLEAVE_EXCHANGE)' : '';
  if (!chosen) throw new UsageError(`--exchange${from} splits one search over shards: give the shard too (--shard i/n, INTERLEAVE_SHARD, or JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID with --shard-count)`);
  if (!exhaustive) throw new UsageError(`--exchange${from} splits a dfs or bfs search, not ${strategy}; use --strategy dfs|bfs`);
  if (flags.shardPrefix !== undefined) throw new UsageError('--shard-prefix sizes the shared prefix of the no-communication mode; exchange mode has no prefix: drop one of --shard-prefix and --exchange');
  if (flags.shardLookahead !== undefined) throw new UsageError('--shard-lookahead shapes the deal of the shared prefix; exchange mode has no prefix: drop one of --shard-lookahead and --exchange');
  if (flags.frontier !== undefined) throw new UsageError('--frontier does not apply to exchange mode (each shard queues the worlds it owns); drop it');
}

/** The result file's `shard` of an exchange-mode shard (`cpuMs`: this process's CPU so far). */
export function exchangeShard(x: ExchangeInfo, cpuMs: number): ShardResultFile['shard'] {
  return {
    i: x.index + 1,
    n: x.count,
    mode: 'exchange',
    runId: x.runId,
    exchange: {
      worldsSent: x.worldsSent,
      bytesSent: x.bytesSent,
      batchesSent: x.batchesSent,
      worldsReceived: x.worldsReceived,
      worldsReceivedNew: x.worldsReceivedNew,
      worldsReceivedDuplicate: x.worldsReceived - x.worldsReceivedNew,
      owner: x.owner.key,
      ...(x.owner.sampledBy === undefined ? {} : { ownerSampledBy: x.owner.sampledBy + 1 }),
      ...(x.startup ? { startup: x.startup } : {}),
      statesPerCpuSecond: Math.round(x.owned / Math.max(0.001, cpuMs / 1000)),
      ...(x.stoppedBy ? { stoppedBy: `${x.stoppedBy.shard + 1}/${x.count}: ${x.stoppedBy.message}` } : {}),
    },
  };
}

/** Why this shard ended early when another shard stopped the run (exchange or shared-visited mode; replaces "cut by Ctrl-C"). */
export function stoppedByOther(r: CheckResult): string | undefined {
  const x = r.exchange ?? r.shareVisited;
  return x?.stoppedBy && x.stoppedBy.shard !== x.index ? `stopped by shard ${x.stoppedBy.shard + 1}/${x.count}: ${x.stoppedBy.message}` : undefined;
}

/** What this shard did: its run, its traffic, and that POR was off. */
export function exchangeLines(r: CheckResult, o: Style): string[] {
  const x = r.exchange;
  if (!x) return [];
  const n = (v: number) => Math.round(v).toLocaleString('en-US');
  const mb = (v: number) => `${(v / 1048576).toFixed(1)} MB`;
  const out = [o.dim(`exchange  shard ${x.index + 1}/${x.count} of run ${x.runId} in ${x.dir}: owns ${n(x.owned)} worlds; sent ${n(x.worldsSent)} worlds (${mb(x.bytesSent)} in ${n(x.batchesSent)} batches), received ${n(x.worldsReceived)} (${n(x.worldsReceivedNew)} new)`)];
  const by = x.owner.sampledBy === undefined ? '' : x.owner.sampledBy === x.index ? ' (sampled by this shard)' : ` (sampled by shard ${x.owner.sampledBy + 1}/${x.count})`;
  out.push(o.dim(`owner     worlds owned by ${x.owner.why}${by}`));
  if (x.startup) out.push(o.dim(`start-up  ${(x.startup.ms / 1000).toFixed(2)} s from process start to the first owned world (${(x.startup.cpuMs / 1000).toFixed(2)} s of CPU: module load, scenario build, joining the run)`));
  if (typeof r.options.porNote === 'string') out.push(o.dim(`por       ${r.options.porNote}`));
  if (x.stoppedBy?.reason === 'silent') out.push(o.yellow(x.stoppedBy.message));
  out.push(o.dim(`merge     the verdict of the whole run: npx interleave merge <the ${x.count} --result files>`));
  return out;
}
