// The checker's surface as the CLI uses it, loaded on demand so `list`, `show`
// and `simulate` start without loading the checker. Loaded from the modules that
// define it rather than the checker's index, which re-exports every mode: a plain
// check then never loads the distributed, liveness or from-trace modules it does not run.
export type { CheckOptions, CheckResult, CheckRun, ExchangeInfo, ShareVisitedInfo, TraceFile, Violation, Progress, PropertyRef, Strategy } from '../check/index.ts';

/** What `check` calls: run a check, write its trace, and what shards need. */
export async function loadChecker() {
  const [{ checkRun }, { toTraceFile }, { replayEvents }, { hasLiveness }, { fingerprintDigest }] = await Promise.all([
    import('../check/check.ts'),
    import('../check/trace/trace-file.ts'),
    import('../check/trace/schedule-to.ts'),
    import('../check/liveness/scc.ts'),
    import('../check/distributed/shard.ts'),
  ]);
  return { checkRun, toTraceFile, replayEvents, hasLiveness, fingerprintDigest };
}

export type CheckerApi = Awaited<ReturnType<typeof loadChecker>>;
