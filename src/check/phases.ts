// Where a check's time goes: wall and CPU per phase (search, the nondeterminism sample,
// shrinking, the nearby passing schedule; the CLI adds module load, scenario build and
// writing the trace and the viewer). CPU is the whole process's (process.cpuUsage), so
// it includes worker threads and the garbage collector's helper threads.

/** Wall and CPU time of one phase, milliseconds. */
export interface PhaseTime {
  /** Elapsed (wall-clock) milliseconds. */
  wallMs: number;
  /** CPU milliseconds of the whole process (user + system, every thread) over the phase. */
  cpuMs: number;
}

/**
 * The phases of a check (`CheckStats.phases`), in the order they run. `search` is the
 * exploration without the re-step sample (`determinism`) and without the unreduced re-run
 * that decides the first violation (`firstViolation`); `check --json` adds the command
 * line's own phases (`moduleLoad`, `scenarioBuild`, `traceWrite`, `htmlWrite`).
 */
export type PhaseName = 'moduleLoad' | 'scenarioBuild' | 'search' | 'determinism' | 'firstViolation' | 'shrink' | 'nearbyPassing' | 'traceWrite' | 'htmlWrite';

/** The phases in the order they run. */
export const PHASE_ORDER: readonly PhaseName[] = ['moduleLoad', 'scenarioBuild', 'search', 'determinism', 'firstViolation', 'shrink', 'nearbyPassing', 'traceWrite', 'htmlWrite'];

/** Wall and CPU time per phase; a phase that did not run is absent. */
export type Phases = Partial<Record<PhaseName, PhaseTime>>;

/** Whole-process CPU milliseconds so far. */
export function cpuNowMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Accumulates wall and CPU time per phase. */
export class PhaseClock {
  readonly phases: Phases = {};

  /** Adds time to a phase (phases met twice add up). */
  add(name: PhaseName, wallMs: number, cpuMs: number): void {
    const p = (this.phases[name] ??= { wallMs: 0, cpuMs: 0 });
    p.wallMs += wallMs;
    p.cpuMs += cpuMs;
  }

  /** Starts timing; the returned function ends the phase and adds it under `name`. */
  start(): (name: PhaseName) => void {
    const w0 = performance.now();
    const c0 = cpuNowMs();
    return (name) => this.add(name, performance.now() - w0, cpuNowMs() - c0);
  }

  /** Runs `fn` as phase `name`. */
  time<T>(name: PhaseName, fn: () => T): T {
    const end = this.start();
    try {
      return fn();
    } finally {
      end(name);
    }
  }

  /** Takes `part` out of phase `from` (a sub-phase measured inside it) and records it as its own. */
  carve(from: PhaseName, name: PhaseName, part: PhaseTime): void {
    if (part.wallMs === 0 && part.cpuMs === 0) return;
    const p = this.phases[from];
    if (p) {
      p.wallMs = Math.max(0, p.wallMs - part.wallMs);
      p.cpuMs = Math.max(0, p.cpuMs - part.cpuMs);
    }
    this.add(name, part.wallMs, part.cpuMs);
  }
}

/** The phases in running order, rounded to 0.1 ms, for output. */
export function roundPhases(p: Phases): Phases {
  const out: Phases = {};
  const r = (x: number) => Math.round(x * 10) / 10;
  for (const k of PHASE_ORDER) {
    const v = p[k];
    if (v) out[k] = { wallMs: r(v.wallMs), cpuMs: r(v.cpuMs) };
  }
  return out;
}
