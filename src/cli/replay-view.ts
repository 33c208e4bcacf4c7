// Helpers shared by replay and check for printing a live (unserialized) trace.
import { toPlain } from '../actors/index.ts';

export { formatSteps, traceView } from '../report/index.ts';

export function toPlainTrace(trace: readonly unknown[]): unknown[] {
  return toPlain(trace) as unknown[];
}
