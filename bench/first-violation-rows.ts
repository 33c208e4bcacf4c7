// What reporting the unreduced first violation costs (src/check/search/first-violation.ts): each
// violating model checked with the reduction off and on (the default), same run. With it
// on, the reduced search runs to its first violation and, when it left the unreduced
// order before it, the unreduced search runs again to its own. Counts are exact; CPU
// (process.cpuUsage) is for the whole check (one run: the machine is shared).
//
//   npm run bench -- checker --first
import { check, type CheckResult } from '../src/check/index.ts';
import { seededBugs } from '../test/fixtures/check/seeded-bugs.ts';
import type { Cell } from './table.ts';

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface First {
  search: 'reduced' | 'unreduced';
  reduced: string;
  reducedDistinctStates: number;
  reducedTransitions: number;
  rerunDistinctStates?: number;
  rerunTransitions?: number;
}

export const FIRST_HEADER = ['model', 'strategy', 'por', 'first violation', 'reduced search: distinct / transitions', 'unreduced (re-)run: distinct / transitions', 'transitions in all', 'CPU ms', 'CPU on/off'];

export const FIRST_NOTE =
  'off = por: false; on = the default: the reduced search to its first violation, then (when it had left the unreduced order) the unreduced search again\n' +
  'to its first, which is the one reported (identical to off; DIFFERS would flag a mismatch). The reduced-search column alone is what POR cost to its own first\n' +
  'violation before the re-run existed; "transitions in all" and CPU are the whole check. CPU is from one run on a shared machine: small rows are JIT noise.';

const name = (r: CheckResult): string => (r.violation ? r.violation.property.name.split(':')[0]!.slice(0, 40) : r.complete ? 'none (complete)' : `none (cut by ${r.cutBy})`);

export async function firstViolationRows(): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const bug of seededBugs) {
    const sc = bug.build();
    for (const strategy of ['dfs', 'bfs'] as const) {
      const opts = { strategy, shrink: false, maxStates: 300_000 } as const;
      let c = cpuMs();
      const off = await check(sc, { ...opts, por: false });
      const offCpu = cpuMs() - c;
      c = cpuMs();
      const on = await check(sc, opts);
      const onCpu = cpuMs() - c;
      const fv = on.options.firstViolation as First | undefined;
      const same = (off.violation?.property.name === on.violation?.property.name && JSON.stringify(off.violation?.schedule) === JSON.stringify(on.violation?.schedule)) ? '' : ' (DIFFERS)';
      rows.push([bug.name, strategy, 'off', name(off), '', `${off.stats.distinctStates} / ${off.stats.transitions}`, off.stats.transitions, Math.round(offCpu), '']);
      rows.push([
        bug.name,
        strategy,
        on.options.por ? 'on' : 'on (POR off for this model)',
        name(on) + same,
        fv ? `${fv.reducedDistinctStates} / ${fv.reducedTransitions}${fv.reduced.split(':')[1] !== on.violation?.property.name ? ` (met ${fv.reduced.split(':').slice(1).join(':').slice(0, 24)})` : ''}` : '',
        fv?.rerunDistinctStates !== undefined ? `${fv.rerunDistinctStates} / ${fv.rerunTransitions}` : fv ? 'no re-run: nothing pruned before it' : '',
        on.stats.transitions,
        Math.round(onCpu),
        Number((onCpu / Math.max(1, offCpu)).toFixed(2)),
      ]);
    }
  }
  return rows;
}
