// The checker's surface as the CLI uses it, loaded on demand so `list`, `show`
// and `simulate` start without loading the checker.
export type { CheckOptions, CheckResult, CheckRun, ExchangeInfo, ShareVisitedInfo, TraceFile, Violation, Progress, PropertyRef, Strategy } from '../check/index.ts';

export type CheckerApi = typeof import('../check/index.ts');

export function loadChecker(): Promise<CheckerApi> {
  return import('../check/index.ts');
}
