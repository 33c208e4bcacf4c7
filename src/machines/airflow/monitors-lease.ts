// The lease's properties, over the trace alone: the store's lease events (who was
// granted which token, which lease expired: lease.ts), the task processes' outputs
// (Run, RunEnd, Cancel, End, LeaseLost), their kills, and the writes landing in the
// store. Neither monitor asks the store whether a write was fenced: LEASE-2 judges a
// landing write by the grants it saw, so a store that fences wrongly is caught.
import type { MonitorDef, TraceEvent } from '../../actors/index.ts';
import { addSorted } from './trace-view.ts';

type Proc = 'task' | 'task2';
const procOf = (id: string | undefined): Proc | undefined => (id === 'task' || id === 'task2' ? id : undefined);

interface LeaseView {
  /** The token each process was last granted (0: none). */
  readonly tok: Readonly<Record<Proc, number>>;
  /** Tokens whose lease expired (taken over by a waiter). */
  readonly expired: readonly number[];
}

const VIEW: LeaseView = { tok: { task: 0, task2: 0 }, expired: [] };

/** The lease view after one of the store's lease events; the same object for any other event. */
function leaseAfter(v: LeaseView, e: TraceEvent): LeaseView {
  if (e.kind !== 'io' || e.actor !== 'supervisor') return v;
  const token = Number(e.detail?.token);
  const p = procOf(e.key);
  if (e.op === 'lease.grant' && p) return { ...v, tok: { ...v.tok, [p]: token } };
  if (e.op === 'lease.expire') return { ...v, expired: addSorted(v.expired, token) };
  return v;
}

const isLeaseEvent = (e: TraceEvent): boolean => e.kind === 'io' && e.op.startsWith('lease.');
const outOf = (e: TraceEvent): { p: Proc; msg: any } | undefined => {
  if (e.kind !== 'output') return undefined;
  const p = procOf(e.from);
  return p && { p, msg: e.msg };
};

/** LEASE-1's events: lease events, the processes' outputs and kills. */
function watchesRuns(e: TraceEvent): boolean {
  return isLeaseEvent(e) || (e.kind === 'output' && procOf(e.from) !== undefined) || (e.kind === 'fault' && procOf(e.actor) !== undefined);
}

/** LEASE-2's events: lease events, writes delivered to the store, and the store's landing writes. */
function watchesWrites(e: TraceEvent): boolean {
  if (isLeaseEvent(e)) return true;
  if (e.kind === 'deliver') return e.to === 'supervisor' && (e.msg.type === 'SetTaskStateStore' || e.msg.type === 'SetXCom');
  return e.kind === 'io' && e.actor === 'supervisor' && (e.op === 'ts.set' || e.op === 'xcom.set');
}

type Fail = { readonly fail: string };

interface RunsState extends LeaseView {
  /** The indexes each process's operators are running. */
  readonly running: Readonly<Record<Proc, readonly number[]>>;
}

/**
 * LEASE-1: no index runs in two processes at once unless one of the two lost its
 * lease to an expiry the model allows (a holder that missed its heartbeats; its
 * successor may start before the zombie learns it, at its next write).
 */
function lease1(): MonitorDef<RunsState> & { watches(e: TraceEvent): boolean } {
  const init: RunsState = { ...VIEW, running: { task: [], task2: [] } };
  const observe = (s: RunsState, e: TraceEvent): RunsState | Fail => {
    const v = leaseAfter(s, e);
    if (v !== s) return { ...s, ...v };
    if (e.kind === 'fault' && e.fault === 'crash') {
      const p = procOf(e.actor);
      return p && s.running[p].length > 0 ? { ...s, running: { ...s.running, [p]: [] } } : s;
    }
    const o = outOf(e);
    if (o === undefined) return s;
    const { p, msg } = o;
    const q: Proc = p === 'task' ? 'task2' : 'task';
    if (msg.type === 'Run') {
      const i = msg.i as number;
      const lost = (x: Proc) => s.tok[x] > 0 && s.expired.includes(s.tok[x]);
      if (s.running[q].includes(i) && !lost(p) && !lost(q)) {
        return { fail: `LEASE-1: index ${i} runs in '${p}' and in '${q}' at once, and neither lost its lease to an expiry (tokens ${s.tok[p]} and ${s.tok[q]})` };
      }
      return { ...s, running: { ...s.running, [p]: addSorted(s.running[p], i) } };
    }
    if (msg.type === 'RunEnd' || msg.type === 'Cancel') return { ...s, running: { ...s.running, [p]: s.running[p].filter((x) => x !== msg.i) } };
    if (msg.type === 'End' || msg.type === 'LeaseLost') return s.running[p].length === 0 ? s : { ...s, running: { ...s.running, [p]: [] } };
    return s;
  };
  return { init, observe, watches: watchesRuns };
}

interface WritesState extends LeaseView {
  /** The newest token granted. */
  readonly newest: number;
  /** The write being delivered to the store in this step: its sender's token. */
  readonly writing: number | null;
}

/**
 * LEASE-2: once a lease was granted, no write carrying an older token lands: a
 * process whose lease was taken over writes nothing more (fencing).
 */
function lease2(): MonitorDef<WritesState> & { watches(e: TraceEvent): boolean } {
  const init: WritesState = { ...VIEW, newest: 0, writing: null };
  const observe = (s: WritesState, e: TraceEvent): WritesState | Fail => {
    const v = leaseAfter(s, e);
    if (v !== s) return { ...s, ...v, newest: Math.max(s.newest, v.tok.task, v.tok.task2) };
    if (e.kind === 'io' && e.op === 'lease.fenced') return s.writing === null ? s : { ...s, writing: null };
    if (e.kind === 'deliver' && e.to === 'supervisor' && (e.msg.type === 'SetTaskStateStore' || e.msg.type === 'SetXCom')) {
      return { ...s, writing: typeof e.msg.token === 'number' ? e.msg.token : null };
    }
    if (e.kind === 'io' && (e.op === 'ts.set' || e.op === 'xcom.set')) {
      const landed = e.outcome === 'ok' || e.outcome === 'ambiguous';
      if (landed && s.writing !== null && s.writing < s.newest) {
        return { fail: `LEASE-2: a write of '${e.key}' with token ${s.writing} landed after token ${s.newest} was granted (a zombie's write was not fenced)` };
      }
      return s.writing === null ? s : { ...s, writing: null };
    }
    return s;
  };
  return { init, observe, watches: watchesWrites };
}

export function leaseMonitors(): Record<string, MonitorDef> {
  return { 'LEASE-1': lease1(), 'LEASE-2': lease2() } as Record<string, MonitorDef>;
}
