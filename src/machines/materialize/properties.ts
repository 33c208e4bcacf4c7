// Invariants 1-11 (docs/materialize.md) as world predicates, event monitors and
// end-of-run checks. Each names the invariant it checks.
import type { MonitorDef, Predicate, WorldQuery } from '../../actors/scenario.ts';
import type { Message, TraceEvent } from '../../actors/types.ts';
import type { ClientCtx } from './client.ts';
import type { WorkerCtx } from './worker-ctx.ts';
import type { PoolCtx } from './pool.ts';
import { referenceAnswer, sameResponse } from './walk.ts';
import { reads, readsEach, readsView } from '../../actors/index.ts';
import { CLIENT, POOL, workerId, type PeekResponse, type PeekSpec, type Snapshot, type StashConfig } from './types.ts';

// The checker evaluates these on every new world: the per-worker checks are
// module-level functions and `workersOf` a plain loop, so an evaluation creates no
// closures (under tsx each one created also pays for its name being set).
function workersOf(q: WorldQuery, n: number): WorkerCtx[] {
  const out: WorkerCtx[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = q.context(workerId(i)) as WorkerCtx;
  return out;
}

function firstBad(ws: readonly WorkerCtx[], f: (c: WorkerCtx) => string | undefined): true | string {
  for (const c of ws) {
    const m = f(c);
    if (m) return `w${c.w}: ${m}`;
  }
  return true;
}

// 2: the substrate counters partition the walks, under the chosen counting point.
function countersPartitionWalks(c: WorkerCtx): string | undefined {
  const sum = c.counters.inline + c.counters.offloaded + c.counters.capped;
  const want = c.cfg.countAt === 'dispatch' ? c.walks.started : c.walks.outcomes;
  return sum === want ? undefined : `inline ${c.counters.inline} + offloaded ${c.counters.offloaded} + capped ${c.counters.capped} = ${sum}, but ${want} walks ${c.cfg.countAt === 'dispatch' ? 'were dispatched' : 'reached an outcome'}`;
}

// 3: in-flight never exceeds the cap in force at the last claim; the ledger agrees.
function inFlightWithinCap(c: WorkerCtx): string | undefined {
  return c.inFlight > c.capAtLastClaim ? `in_flight ${c.inFlight} > cap at last claim ${c.capAtLastClaim}` : c.inFlight !== c.held.length || c.inFlight < 0 ? `in_flight ${c.inFlight} but ${c.held.length} slots held` : undefined;
}

// 5: every claim is released exactly once (a second drop is a ledger fault).
function slotReleasedOnce(c: WorkerCtx): string | undefined {
  return c.slotFaults > 0 ? `${c.slotFaults} release(s) of a slot that was not held` : undefined;
}

const ascending = (a: number, b: number): number => a - b;

// 10: a pending peek that is not offloaded holds since <= t; no orphaned holds.
function holdsMatchPending(c: WorkerCtx): string | undefined {
  const want: number[] = [];
  for (const p of c.pending) if (p.kind !== 'offload') want.push(p.peek.t);
  want.sort(ascending);
  const have = c.trace.holds;
  let differ = want.length !== have.length;
  for (let i = 0; !differ && i < want.length; i++) differ = want[i] !== have[i];
  if (differ) return `holds [${have.join(',')}] but pending peeks need [${want.join(',')}]`;
  const since = Math.max(c.trace.oksSince, c.trace.errsSince);
  const low = want[0];
  return low !== undefined && since > low ? `since ${since} passed the hold of a pending peek at ${low}` : undefined;
}

/**
 * Invariants over the world, checked after every step. Each declares the actors it
 * reads (partial-order reduction needs it): the per-worker checks read each worker
 * alone, invariant 8 the client alone, the resource form the pool and the workers.
 */
export function invariants(workers: number, opts: { resourceForm: boolean }): Record<string, Predicate> {
  const ws = Array.from({ length: workers }, (_, i) => workerId(i));
  const inv: Record<string, Predicate> = {
    'counters-partition-walks': readsEach(ws, (q) => firstBad(workersOf(q, workers), countersPartitionWalks)),
    'in-flight-within-cap': readsEach(ws, (q) => firstBad(workersOf(q, workers), inFlightWithinCap)),
    'slot-released-once': readsEach(ws, (q) => firstBad(workersOf(q, workers), slotReleasedOnce)),
    'holds-match-pending': readsEach(ws, (q) => firstBad(workersOf(q, workers), holdsMatchPending)),
    // 8: exactly one response per (worker, peek); nothing for unknown peeks.
    'one-response-per-worker': reads([CLIENT], (q) => {
      const c = q.context(CLIENT) as ClientCtx;
      return c.duplicates > 0 ? `${c.duplicates} duplicate worker response(s)` : c.strays > 0 ? `${c.strays} response(s) for a peek not open` : true;
    }),
  };
  if (opts.resourceForm) {
    // 3, resource form: blocking walks running per worker within the cap (expected to fail under retire + cancel).
    // Written as a view (running counts, caps) and a check of it: only steps that change
    // a running count or a cap are visible to the reduction, not every pool and worker step.
    inv['running-blocking-within-cap'] = readsView(
      [POOL, ...ws],
      (q) => ({ running: (q.context(POOL) as PoolCtx).running, caps: workersOf(q, workers).map((c) => c.capAtLastClaim) }),
      ({ running, caps }) => {
        for (let w = 0; w < caps.length; w++) if (running[w]! > caps[w]!) return `w${w}: ${running[w]} blocking walks running, cap ${caps[w]}`;
        return true;
      },
    );
  }
  return inv;
}

interface MonState {
  /** Offloaded or inline walks that diverted and whose upload has not ended: key -> canceled? */
  readonly uploading: Readonly<Record<string, boolean>>;
  /** Diverted walks whose response has not gone out yet. */
  readonly diverted: Readonly<Record<string, true>>;
}

const key = (m: Message): string => `${String(m.w)}/${String(m.uuid)}`;

function emitted(ev: TraceEvent): Message | undefined {
  return ev.kind === 'emit' ? ev.msg : undefined;
}

/** Monitors over the trace events. */
export function monitors(): Record<string, MonitorDef> {
  return {
    // 1: the offloaded (or inline) walk answers exactly what the inline walk answers over the same batches.
    'offloaded-equals-inline': {
      init: null,
      // Declared so partial-order reduction can run: every other event returns `s` unchanged below.
      eventsOnly: true,
      watches: (ev) => emitted(ev)?.type === 'WalkAnswer',
      observe(s, ev) {
        const m = emitted(ev);
        if (!m || m.type !== 'WalkAnswer') return s;
        const ref = referenceAnswer(m.snap as Snapshot, m.peek as PeekSpec, m.stash as StashConfig);
        const got = m.response as PeekResponse;
        if (sameResponse(got, ref)) return s;
        if (ref.kind === 'stashed' && got.kind === 'error' && got.message.startsWith('peek response stash upload failed')) return s;
        return { fail: `${m.substrate} walk of ${String(m.uuid)} on w${String(m.w)} answered ${describe(got)}, the inline walk over the same batches answers ${describe(ref)}` };
      },
    },
    // 4 and 2: gates passed at the instant the cursors were taken; placement matches its reason.
    // 11: only between steps: `inStep` is the worker's step count against the steps that returned.
    'dispatch-gates-and-placement': {
      init: null,
      eventsOnly: true,
      watches: (ev) => {
        const t = emitted(ev)?.type;
        return t === 'Dispatch' || t === 'Retire' || t === 'Rejected';
      },
      observe(s, ev) {
        const m = emitted(ev);
        if (!m) return s;
        if ((m.type === 'Dispatch' || m.type === 'Retire' || m.type === 'Rejected') && m.inStep !== false) {
          return { fail: `${m.type} of ${String(m.uuid)} on w${String(m.w)} inside step_or_park (only steps 3 and 4 may dispatch or retire)` };
        }
        if (m.type !== 'Dispatch') return s;
        const t = m.t as number;
        if (!((m.frontier as number) <= t)) return { fail: `dispatch of ${String(m.uuid)} at t=${t} with compaction frontier ${String(m.frontier)}` };
        if ((m.oksUpper as number) <= t || (m.errsUpper as number) <= t) return { fail: `dispatch of ${String(m.uuid)} at t=${t} before the upper passed it (oks ${String(m.oksUpper)}, errs ${String(m.errsUpper)})` };
        const inF = m.inFlight as number;
        const cap = m.cap as number;
        const ok = m.placement === 'inline' ? !m.flag : m.placement === 'offloaded' ? m.flag && inF < cap : m.flag && inF >= cap;
        return ok ? s : { fail: `placement ${String(m.placement)} with flag ${String(m.flag)}, in_flight ${inF}, cap ${cap}` };
      },
    },
    // 6: a diverting walk's slot is held until its upload ends. 7: a diversion ends in Stashed, Error or Canceled.
    'stash-slot-and-answer': {
      init: { uploading: {}, diverted: {} } as MonState,
      eventsOnly: true,
      watches: (ev) => {
        if (ev.kind === 'send') return ev.msg.type === 'WorkerResponse';
        const t = emitted(ev)?.type;
        return t === 'StashUploadStart' || t === 'StashUploadEnd' || t === 'Canceled' || t === 'SlotRelease';
      },
      observe(s: MonState, ev) {
        if (ev.kind === 'send' && ev.msg.type === 'WorkerResponse') {
          const k = key(ev.msg);
          if (!s.diverted[k]) return s;
          const r = ev.msg.response as PeekResponse;
          if (r.kind === 'rows') return { fail: `w${String(ev.msg.w)} answered ${String(ev.msg.uuid)} with rows after diverting to the stash` };
          const diverted = { ...s.diverted };
          delete diverted[k];
          return { ...s, diverted };
        }
        const m = emitted(ev);
        if (!m) return s;
        const k = key(m);
        switch (m.type) {
          case 'StashUploadStart':
            return { uploading: { ...s.uploading, [k]: false }, diverted: { ...s.diverted, [k]: true } };
          case 'StashUploadEnd': {
            const uploading = { ...s.uploading };
            delete uploading[k];
            return { ...s, uploading };
          }
          case 'Canceled':
            return k in s.uploading ? { ...s, uploading: { ...s.uploading, [k]: true } } : s;
          case 'SlotRelease':
            return s.uploading[k] === false ? { fail: `slot of ${String(m.uuid)} on w${String(m.w)} released before its stash upload ended` } : s;
        }
        return s;
      },
    },
  };
}

function describe(r: PeekResponse): string {
  switch (r.kind) {
    case 'rows':
      return `${r.rows.length} row(s) [${r.rows.slice(0, 3).map(([x, n]) => `${x}x${n}`).join(', ')}${r.rows.length > 3 ? ', ...' : ''}]`;
    case 'error':
      return `Error(${r.message})`;
    case 'stashed':
      return `Stashed(${r.content.length} rows)`;
    case 'canceled':
      return 'Canceled';
  }
}

/** Checked when nothing is enabled: 8/9 every peek answered once; 5 every slot back; 10 no holds left. */
export function atEnd(workers: number): Record<string, Predicate> {
  return {
    'every-peek-answered': (q) => {
      const c = q.context(CLIENT) as ClientCtx;
      const open = Object.keys(c.open);
      return open.length === 0 && c.mergedCount === c.issued ? true : `${open.length} peek(s) never answered: ${open.join(', ')}`;
    },
    'slots-returned': (q) => firstBad(workersOf(q, workers), (c) => (c.inFlight === 0 ? undefined : `in_flight ${c.inFlight} at quiescence (held: ${c.held.join(', ')})`)),
    'no-orphaned-holds': (q) => firstBad(workersOf(q, workers), (c) => (c.trace.holds.length === 0 && c.pending.length === 0 ? undefined : `${c.pending.length} pending, holds [${c.trace.holds.join(',')}] at quiescence`)),
    'pool-idle': (q) => {
      const p = q.context(POOL) as PoolCtx;
      return p.running.every((n) => n === 0) ? true : `blocking walks still running: ${p.running.join(',')}`;
    },
  };
}
