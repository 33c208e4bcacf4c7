// Which shard this process is: `--shard i/n` (1-based), or the environment a batch
// engine sets, so a job template needs no wrapper script (docs/sharding.md):
//   INTERLEAVE_SHARD=i/n                               1-based, like --shard
//   JOB_COMPLETION_INDEX (+ --shard-count n)           Kubernetes Indexed Job, 0-based
//   SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT        Slurm job array, 0-based from SLURM_ARRAY_TASK_MIN
// The first that is set wins, in that order. The result is 0-based, as the checker's.
import { UsageError } from './errors.ts';

export interface ShardChoice {
  index: number;
  count: number;
  /** Where it came from, for the message that says which shard runs. */
  from: string;
}

const whole = (v: string | undefined): number | undefined => (v !== undefined && /^\s*\d+\s*$/.test(v) ? Number(v) : undefined);

function parseSlash(v: string, what: string): { index: number; count: number } {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(v);
  const i = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || n < 1 || i < 1 || i > n) throw new UsageError(`${what} takes i/n with 1 ≤ i ≤ n (this process runs slice i of n), e.g. 1/4; got '${v}'.`);
  return { index: i - 1, count: n };
}

/**
 * The shard to run, or undefined for the whole check. `flag`: --shard, already 0-based;
 * `countFlag`: --shard-count (the count for JOB_COMPLETION_INDEX or a Slurm array).
 */
export function resolveShard(flag: { index: number; count: number } | undefined, countFlag: number | undefined, env: NodeJS.ProcessEnv = process.env): ShardChoice | undefined {
  if (flag) {
    if (countFlag !== undefined && countFlag !== flag.count) throw new UsageError(`--shard ${flag.index + 1}/${flag.count} and --shard-count ${countFlag} disagree; give one of them.`);
    return { ...flag, from: '--shard' };
  }
  const own = env.INTERLEAVE_SHARD;
  if (own !== undefined && own !== '') {
    const s = parseSlash(own, 'INTERLEAVE_SHARD');
    if (countFlag !== undefined && countFlag !== s.count) throw new UsageError(`INTERLEAVE_SHARD=${own} and --shard-count ${countFlag} disagree; give one of them.`);
    return { ...s, from: 'INTERLEAVE_SHARD' };
  }
  const k8s = env.JOB_COMPLETION_INDEX;
  if (k8s !== undefined && k8s !== '') {
    const i = whole(k8s);
    if (i === undefined) throw new UsageError(`JOB_COMPLETION_INDEX must be a whole number ≥ 0 (Kubernetes sets it in an Indexed Job); got '${k8s}'.`);
    if (countFlag === undefined) throw new UsageError('JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but the shard count is not: pass --shard-count with the Job\'s completions, e.g. --shard-count 4.');
    if (i >= countFlag) throw new UsageError(`JOB_COMPLETION_INDEX=${i} is not below --shard-count ${countFlag} (indices run 0..${countFlag - 1}); set completions and --shard-count to the same n.`);
    return { index: i, count: countFlag, from: `JOB_COMPLETION_INDEX=${i}` };
  }
  const slurm = env.SLURM_ARRAY_TASK_ID;
  if (slurm !== undefined && slurm !== '') {
    const id = whole(slurm);
    const min = env.SLURM_ARRAY_TASK_MIN === undefined || env.SLURM_ARRAY_TASK_MIN === '' ? 0 : whole(env.SLURM_ARRAY_TASK_MIN);
    const given = env.SLURM_ARRAY_TASK_COUNT;
    const envCount = given === undefined || given === '' ? undefined : whole(given);
    if (id === undefined || min === undefined) throw new UsageError(`SLURM_ARRAY_TASK_ID (and SLURM_ARRAY_TASK_MIN) must be whole numbers; got '${slurm}'${env.SLURM_ARRAY_TASK_MIN ? ` and '${env.SLURM_ARRAY_TASK_MIN}'` : ''}.`);
    if (given !== undefined && given !== '' && (envCount === undefined || envCount < 1)) throw new UsageError(`SLURM_ARRAY_TASK_COUNT must be a whole number ≥ 1; got '${given}'.`);
    if (envCount !== undefined && countFlag !== undefined && envCount !== countFlag) throw new UsageError(`SLURM_ARRAY_TASK_COUNT=${envCount} and --shard-count ${countFlag} disagree; give one of them.`);
    const count = envCount ?? countFlag;
    if (count === undefined) throw new UsageError('SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: pass --shard-count n.');
    const index = id - min;
    if (index < 0 || index >= count) throw new UsageError(`SLURM_ARRAY_TASK_ID=${id} (minus SLURM_ARRAY_TASK_MIN=${min}) is not in 0..${count - 1}: submit a contiguous array, e.g. sbatch --array=0-${count - 1}.`);
    return { index, count, from: `SLURM_ARRAY_TASK_ID=${id}` };
  }
  if (countFlag !== undefined) throw new UsageError('--shard-count needs the shard index from the environment (JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID), which is not set; on one machine use --shard i/n.');
  return undefined;
}
