// A vitest-friendly assertion: throws an Error whose message shows the shrunk
// counterexample readably (property, schedule, and the trace step by step).
import { canonicalJson, type RecordedEvent } from '../actors/index.ts';
import type { CheckResult, Violation } from './types.ts';

function eventLine(e: RecordedEvent): string {
  switch (e.kind) {
    case 'deliver':
      return `${e.from} -> ${e.to}: ${e.msg.type}${e.outcome ? ` (fault: ${e.outcome})` : ''} ${payload(e.msg)}`;
    case 'send':
      return `  ${e.from} sends ${e.msg.type} to ${e.to} ${payload(e.msg)}`;
    case 'output':
      return `  ${e.from} outputs ${e.msg.type} ${payload(e.msg)}`;
    case 'state':
      return `  ${e.actor}: ${e.from} -> ${e.to}${e.changed ? ` ${canonicalJson(e.changed)}` : ''}`;
    case 'context':
      return `  ${e.actor}: ${canonicalJson(e.changed)}`;
    case 'timer-fire':
      return `timer ${e.actor}:${e.id} fires at ${e.at}`;
    case 'fault':
      return `FAULT ${e.fault} at ${e.actor}${e.detail ? ` (${e.detail})` : ''}`;
    case 'unhandled':
      return `  UNHANDLED: ${e.actor} in '${e.state}' got ${e.msg.type} from ${e.from}`;
    case 'error':
      return `  ERROR in ${e.actor}: ${e.message}`;
    case 'monitor-fail':
      return `  MONITOR ${e.monitor} FAILED: ${e.message}`;
    case 'dropped':
      return `  dropped ${e.msg.type} ${e.from} -> ${e.to} (${e.reason})`;
    default:
      return `  ${e.kind} ${canonicalJson(e)}`;
  }
}

function payload(msg: object): string {
  const rest = Object.fromEntries(Object.entries(msg).filter(([k]) => k !== 'type'));
  return Object.keys(rest).length ? canonicalJson(rest) : '';
}

/**
 * A counterexample as text: the property and its message, the number of steps (and
 * how many the run had before shrinking), then each step id numbered from 1 with the
 * trace events it caused, and the nearest passing schedule when one was found. The
 * CLI prints a richer table; this is for tests and logs.
 *
 * @example
 * ```ts
 * const result = await check(scenario);
 * if (result.violation) console.log(formatViolation(result.violation));
 * ```
 */
export function formatViolation(v: Violation): string {
  const lines = [
    `${v.property.kind} '${v.property.name}' violated: ${v.property.message}`,
    `counterexample: ${v.schedule.length} step${v.schedule.length === 1 ? '' : 's'}${v.originalLength !== v.schedule.length ? ` (shrunk from ${v.originalLength})` : ''}${v.seed !== undefined ? `, run seed ${v.seed}` : ''}`,
  ];
  const byStep = new Map<number, RecordedEvent[]>();
  for (const e of v.trace) {
    const l = byStep.get(e.step) ?? [];
    l.push(e);
    byStep.set(e.step, l);
  }
  for (let i = 0; i <= v.schedule.length; i++) {
    const evs = byStep.get(i) ?? [];
    lines.push(i === 0 ? '  0. (start)' : `  ${i}. ${v.schedule[i - 1]}`);
    for (const e of evs) if (e.kind !== 'timer-set' && e.kind !== 'log') lines.push(`       ${eventLine(e).trimEnd()}`);
  }
  if (v.passing) lines.push(`a nearby passing schedule${v.passingNote ? ` (${v.passingNote})` : ''}: ${v.passing.join(', ')}`);
  return lines.join('\n');
}

/** Options of `expectHolds`. */
export interface ExpectHoldsOptions {
  /**
   * Accept a search that did not visit every reachable state (a budget cut, a stop,
   * or a sampling strategy, which never proves absence). Default false.
   */
  allowIncomplete?: boolean;
}

/**
 * Throws unless the check found no violation and, unless `allowIncomplete`, explored
 * every reachable state: "no violation in the part explored" is not "holds".
 */
export function expectHolds(result: CheckResult, opts: ExpectHoldsOptions = {}): void {
  if (result.ok) {
    if (result.complete || opts.allowIncomplete) return;
    const why = result.cutBy === 'runs' ? `${result.strategy} sampled ${result.stats.runs ?? 'some'} runs (sampling never proves absence)` : `the search was cut by ${result.cutBy ?? 'a budget'}`;
    const seen = result.stats.distinctStates === undefined ? `${result.stats.states} states` : `${result.stats.distinctStates} distinct states`;
    throw new Error(`no violation found, but the exploration is not complete: ${why} (${seen}). Raise the budget, use dfs/bfs, or pass { allowIncomplete: true } to accept a partial search.`);
  }
  const v = result.violation;
  if (!v && result.finding) throw new Error(`unreached: ${result.finding.message}`);
  throw new Error(v ? `\n${formatViolation(v)}` : 'check failed without a counterexample');
}
