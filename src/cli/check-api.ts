// The checker's surface as the CLI uses it (src/check/index.ts), loaded on demand
// so `list`, `show` and `simulate` start without it.
import type { Scenario } from '../actors/index.ts';
import type { CheckOptions, CheckRun, TraceFile, Violation } from '../check/types.ts';

export type { CheckOptions, CheckResult, CheckRun, TraceFile, Violation, Progress, PropertyRef, Strategy } from '../check/types.ts';

export interface ScheduleInput {
  readonly index: number;
  readonly from: string;
  readonly to: string;
  readonly msg: unknown;
}

export interface CheckerApi {
  checkRun(sc: Scenario, opts?: CheckOptions): CheckRun;
  replaySchedule(sc: Scenario, schedule: readonly string[], inputs?: readonly ScheduleInput[]): { trace: unknown[]; world: unknown; violation?: Violation };
  toTraceFile(sc: Scenario, v: Violation, meta: Record<string, unknown>): TraceFile;
}

export async function loadChecker(): Promise<CheckerApi> {
  return (await import('../check/index.ts')) as unknown as CheckerApi;
}
