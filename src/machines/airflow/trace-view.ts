// The trace vocabulary the airflow monitors read: the task process's outputs, its
// request frames to the supervisor, the responses delivered back, kills, and the
// requests still open. Monitors keep only what later checks need.
import type { MonitorDef, TraceEvent, WorldQuery } from '../../actors/index.ts';

type Fail = { readonly fail: string };
type Obs<S> = (s: S, e: TraceEvent, q: WorldQuery) => S | Fail;

export const out = (e: TraceEvent): any => (e.kind === 'output' && e.from === 'task' ? e.msg : undefined);
/** A request frame on the task's channel (it has a request id; the lease's messages have none). */
export const req = (e: TraceEvent): any => (e.kind === 'send' && e.from === 'task' && e.to === 'supervisor' && e.msg.rid !== undefined ? e.msg : undefined);
export const resp = (e: TraceEvent): any => (e.kind === 'deliver' && e.from === 'supervisor' && e.to === 'task' ? e.msg : undefined);
export const killed = (e: TraceEvent): boolean => e.kind === 'fault' && e.fault === 'crash' && e.actor === 'task';
export const isWrite = (m: any): boolean => m?.type === 'SetTaskStateStore' && (m.role === 'round' || m.role === 'rest' || m.role === 'ckpt');
export const isError = (m: any): boolean => m?.type === 'ErrorResponse' && m.error !== 'TASK_STORE_NOT_FOUND';

/** `xs` with `x` added, kept sorted: monitor sets must not depend on the order events came in. */
export function addSorted(xs: readonly number[], x: number): readonly number[] {
  if (xs.includes(x)) return xs;
  return [...xs, x].sort((p, q) => p - q);
}

/** Events of the task process's own steps: its outputs and frames, responses delivered to it, its kill and restart. */
export const taskEvents = (e: TraceEvent): boolean =>
  (e.kind === 'output' && e.from === 'task') || (e.kind === 'send' && e.from === 'task') || (e.kind === 'deliver' && e.to === 'task') || (e.kind === 'fault' && e.actor === 'task');
/** Writes landing in the task state store (the supervisor's steps). */
export const storeWrites = (e: TraceEvent): boolean => e.kind === 'io' && e.actor === 'supervisor' && e.op === 'ts.set';
/** Injected faults, of any actor. */
export const faults = (e: TraceEvent): boolean => e.kind === 'fault';

/**
 * What a monitor reacts to and reads, for the checker's partial-order reduction: the
 * events it watches (all others must leave its state unchanged and never fail it) and
 * the actors whose state it reads through the query (`[]`: none). A monitor that
 * watches and reads only the task process's steps is treated as part of the task.
 */
export interface MonitorScope {
  readonly watches: (e: TraceEvent) => boolean;
  readonly reads: readonly string[];
}

export function monitor<S>(init: S, scope: MonitorScope, observe: Obs<S>): MonitorDef<S> {
  return { init, observe, watches: scope.watches, ...(scope.reads.length === 0 ? { eventsOnly: true } : { reads: scope.reads }) };
}

/**
 * A monitor of one try: a kill ends the try, and the state goes back to `init`. The
 * next try's Begin resets it anyway; until then only stale answers of the dead try
 * arrive, which no check reads. Without this the dead try's leftovers would tell
 * otherwise equal worlds apart (after the last try nothing resets them).
 */
export function tryMonitor<S>(init: S, scope: MonitorScope, observe: Obs<S>): MonitorDef<S> {
  return monitor(init, scope, (s, e, q) => (killed(e) ? init : observe(s, e, q)));
}

// Requests of the live attempt whose response has not been consumed: rid -> request.
export type Open = Readonly<Record<number, any>>;

/** The open requests after one event: a request opens, the response that answers it closes. */
export function openAfter(open: Open, e: TraceEvent): Open {
  const m = req(e);
  if (m) return { ...open, [m.rid]: m };
  const r = resp(e);
  if (r && opened(open, r) !== undefined) {
    const { [r.rid]: _done, ...rest } = open;
    return rest;
  }
  return open;
}

/** The open request a response answers (same try: request ids restart with each try). */
export function opened(open: Open, r: any): any {
  return open[r.rid]?.a === r.a ? open[r.rid] : undefined;
}
