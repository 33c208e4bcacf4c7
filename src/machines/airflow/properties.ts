// The protocol's properties (docs/airflow.md) over the trace vocabulary: the task process's
// outputs (Begin, Phase, Run, RunEnd, Record, Report, Replay, Skip, Pushed, End),
// its request frames to the supervisor, the responses delivered back, faults, and
// the task state store's contents. Monitors keep only what later checks need.
//
// The monitors live by group (monitors-writes.ts, monitors-reads.ts,
// monitors-outcomes.ts) over trace-view.ts and store-view.ts; this file assembles
// them with the invariant, the liveness properties and the reachability goal.
import { eventually as eventuallyRun, leadsTo, type LivenessProperty, type Predicate, type ScenarioDef } from '../../actors/index.ts';
import type { AirflowConfig } from './config.ts';
import type { Co } from './task-ctx.ts';
import { optional, reads } from '../../actors/index.ts';
import { batchKeys } from './store-view.ts';
import { writeMonitors } from './monitors-writes.ts';
import { readMonitors } from './monitors-reads.ts';
import { outcomeMonitors } from './monitors-outcomes.ts';
import { leaseMonitors } from './monitors-lease.ts';

export { batchKeys, prefixLength, storedEntries } from './store-view.ts';

export function airflowProperties(cfg: AirflowConfig): Partial<ScenarioDef> {
  if (cfg.processes === 2) return twoProcesses(cfg);
  const perRound = cfg.design === 'per-round';
  const deletions = cfg.externalDelete || cfg.deleteKeys.length > 0;

  const monitors = { ...writeMonitors(cfg), ...readMonitors(cfg), ...outcomeMonitors(cfg), ...(cfg.lease ? leaseMonitors() : {}) };

  const invariants: Record<string, Predicate> = {};
  if (perRound && !deletions) {
    // INV-4: without external deletion the durable batch keys are always {0..k-1}.
    invariants['INV-4'] = reads(['supervisor'], (q) => {
      const ns = batchKeys(q);
      return ns.every((n, k) => n === k) || `INV-4: batch keys ${ns.join(',')} are not a contiguous prefix`;
    });
  }

  const live = liveness(cfg);
  const atEnd: Record<string, Predicate> = {
    // LIV-1: with transient faults and enough tries the task succeeds.
    'LIV-1': (q) => {
      if (q.status('task') === 'crashed' || q.context('runner').final === null) return true;
      return !live || ['success', 'skipped'].includes(q.context('runner').final) || `LIV-1: the task ended ${q.context('runner').final} although every fault was transient and tries sufficed`;
    },
    // LIV-3: the startup read terminates.
    'LIV-3': (q) => q.status('task') === 'crashed' || !q.matches('task', 'reading') || 'LIV-3: the task process is stuck in its startup reads',
  };
  // Some run must succeed where the outcomes allow it (every failure transient, tries enough).
  const succeeded = reads(['runner'], (q: Parameters<Predicate>[0]) => q.context('runner').final === 'success');
  const reachable: Record<string, Predicate> = { 'task succeeded': live ? succeeded : optional(succeeded) };
  // The same two as properties of whole runs (liveness.md): LIV-1 only where its premise holds.
  const livenessProps: Record<string, LivenessProperty> = {};
  if (cfg.liveness) {
    if (live) livenessProps['LIV-1 eventually succeeds'] = eventuallyRun((q) => ['success', 'skipped'].includes(q.context('runner').final));
    livenessProps['LIV-3 startup read ends'] = leadsTo((q) => q.status('task') === 'up' && q.matches('task', 'reading'), (q) => q.status('task') !== 'up' || !q.matches('task', 'reading'));
  }
  const runProps = cfg.liveness ? { liveness: livenessProps } : {};
  if (cfg.only === null) return { monitors, invariants, atEnd, reachable, ...runProps };
  const pick = <T>(r: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(r).filter(([k]) => cfg.only!.some((n) => k === n)));
  return { monitors: pick(monitors), invariants: pick(invariants), atEnd: pick(atEnd), reachable };
}

/** True when the scripted outcomes and fault switches let every run end in success (LIV-1's premise). */
function liveness(cfg: AirflowConfig): boolean {
  if (cfg.softKill === 'sigterm' || cfg.clear !== 'none') return false;
  let need = 1;
  for (let i = 0; i < cfg.items; i++) {
    let a = 1;
    for (;;) {
      const o = cfg.script[a - 1]?.[i] ?? 's';
      if (o === 's' || o === 'k') break;
      if (o !== 'f') return false;
      a++;
    }
    need = Math.max(need, a);
  }
  const wasted = cfg.faultBudget + (cfg.softKill === 'timeout' ? 1 : 0);
  return need + wasted <= cfg.tries;
}

/**
 * Two processes on one task (a double dispatch, or a zombie and its successor): the
 * lease's properties. The other monitors follow the one task process's tries and the
 * store as that process alone writes it, so they are not checked here.
 */
function twoProcesses(cfg: AirflowConfig): Partial<ScenarioDef> {
  const atEnd: Record<string, Predicate> = {
    // LEASE-3: waiting for the lease never hangs the task: every run ends with the task instance final
    // (or with the task process killed: its restart, the next try, is the run's next step).
    'LEASE-3': (q) => q.context('runner').final !== null || q.status('task') === 'crashed' || 'LEASE-3: the run stopped before the task instance reached a final state (a process waits for a lease nobody gives up?)',
  };
  const reachable: Record<string, Predicate> = {
    'task succeeded': (q) => q.context('runner').final === 'success',
  };
  // With the lease the check must also see what LEASE-1 allows, or it would hold vacuously:
  // after an expiry, the zombie and its successor running one index at once.
  if (cfg.lease) {
    reachable['an index runs in both processes'] = (q) => {
      const running = (id: string): number[] => (q.context(id).co as readonly Co[]).filter((x) => x.stage === 'run' && !x.replay).map((x) => x.i);
      const other = running('task2');
      return running('task').some((i) => other.includes(i));
    };
  }
  const all = { monitors: leaseMonitors(), atEnd, reachable };
  if (cfg.only === null) return all;
  const pick = <T>(r: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(r).filter(([k]) => cfg.only!.includes(k)));
  return { monitors: pick(all.monitors), atEnd: pick(atEnd), reachable };
}
