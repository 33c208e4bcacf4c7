// `check --verbose`: where the time went, as a small table after the verdict.
import { PHASE_ORDER, cpuNowMs, type PhaseName, type Phases } from '../check/phases.ts';
import type { Style } from '../report/style.ts';
import { countText } from '../report/count-text.ts';

const LABEL: Record<PhaseName, string> = {
  moduleLoad: 'module load',
  scenarioBuild: 'scenario build',
  search: 'search',
  determinism: 're-step sample',
  firstViolation: 'first violation (unreduced re-run)',
  shrink: 'shrink and final replay',
  nearbyPassing: 'nearby passing schedule',
  traceWrite: 'trace write',
  htmlWrite: 'viewer (HTML) write',
};

/** The phases as aligned lines: label, wall ms, CPU ms; then the process so far. */
export function phaseLines(phases: Phases | undefined, o: Style): string[] {
  const rows: [string, number, number][] = [];
  for (const k of PHASE_ORDER) {
    const p = phases?.[k];
    if (p) rows.push([LABEL[k], p.wallMs, p.cpuMs]);
  }
  rows.push(['process so far', performance.now(), cpuNowMs()]);
  const w = Math.max(...rows.map((r) => r[0].length));
  const n = (x: number) => countText(Math.round(x)).padStart(8);
  return ['', o.dim(`${'phase'.padEnd(w)}  ${'wall ms'.padStart(8)}  ${'CPU ms'.padStart(8)}`), ...rows.map(([l, a, b]) => `${l.padEnd(w)}  ${n(a)}  ${n(b)}`), o.dim('CPU is the whole process (all threads); the process so far includes start-up and printing.')];
}
