// The first violation a check reports does not depend on the partial-order reduction.
//
// A reduced dfs/bfs meets the violations of the full graph in another order (it skips
// interleavings, and with them the violation the full search would have met on one of
// them first). So when the reduced search meets a violation after it has left the
// unreduced order (`Search.diverged`), the unreduced search runs again from the start,
// in its own order, and its first violation is the one reported: the same property and
// the same schedule as `por: false`. It ends with a violation (one is reachable: the
// reduced search found it) unless a budget cuts it first: then the reduced search's
// violation is reported and `options.firstViolationNote` says so. The argument and what
// the re-run costs: search/README.md, "First-found violation".
import type { CutBy } from '../types.ts';
import type { Found, Session } from './session.ts';
import type { Explorer } from './session.ts';

/** `result.options.firstViolation`: which search's violation is reported, and what the reduced one did. */
export interface FirstViolationInfo {
  /**
   * `reduced`: the reduced search's (it had pruned nothing before it, so the unreduced
   * search meets the same one; or the re-run was cut). `unreduced`: the re-run's.
   */
  search: 'reduced' | 'unreduced';
  /** The reduced search's first violation, `kind:name`. */
  reduced: string;
  /** Distinct states the reduced search visited up to it. */
  reducedDistinctStates: number;
  /** Transitions the reduced search took up to it. */
  reducedTransitions: number;
  /** The reduced search's time up to it, milliseconds. */
  reducedMs: number;
  /** Distinct states of the unreduced re-run, when there was one. */
  rerunDistinctStates?: number;
  /** Transitions of the re-run. */
  rerunTransitions?: number;
  /** The re-run's time, milliseconds. */
  rerunMs?: number;
}

export interface Rerun {
  /** The unreduced explorer of the same strategy and frontier, on the session. */
  explorer(): Explorer;
  /** Runs an explorer until it ends (budgets, stop() and progress as the first search). */
  drive(e: Explorer): Promise<void>;
  /** A sharded search: the shared prefix again, on the fresh visited set. */
  prefix?(): void;
}

const ref = (f: Found): string => `${f.property.kind}:${f.property.name}`;

/**
 * Called when a reduced search ended with `s.found`. Leaves in `s.found` the violation
 * the unreduced search meets first (or the reduced one, when a budget cut the re-run)
 * and returns what `result.options` records about it.
 */
export async function unreducedFirst(s: Session, diverged: boolean, rerun: Rerun): Promise<{ info: FirstViolationInfo; note?: string }> {
  const reduced = s.found!;
  const t0 = performance.now();
  const info: FirstViolationInfo = { search: 'reduced', reduced: ref(reduced), reducedDistinctStates: s.visited.size, reducedTransitions: s.transitions, reducedMs: Math.round(t0 - s.t0) };
  if (!diverged) return { info };
  const { transitions } = s;
  const cut: CutBy | undefined = s.cutBy;
  s.found = undefined;
  s.cutBy = undefined;
  s.resetVisited();
  s.phase = 'unreduced re-run';
  rerun.prefix?.();
  if (!s.found) await rerun.drive(rerun.explorer());
  s.phase = undefined;
  info.rerunDistinctStates = s.visited.size;
  info.rerunTransitions = s.transitions - transitions;
  info.rerunMs = Math.round(performance.now() - t0);
  if (s.found) {
    info.search = 'unreduced';
    return { info };
  }
  // Cut by the time limit, stop() or maxStates (or, with maxDepth, a dfs that met the
  // reduced search's world first at a depth the bound stopped at).
  const why = s.cutBy ?? 'maxDepth';
  s.found = reduced;
  s.cutBy = cut;
  return { info, note: `the unreduced search that decides which violation is met first was cut by ${why} after ${info.rerunDistinctStates} distinct states: this is the reduced search's first violation (a real one); --no-por may report another first` };
}
