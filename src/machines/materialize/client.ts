// The client and the controller-side aggregator (PartitionedComputeState): sends
// each peek to every worker, merges one response per worker, and answers once all
// workers have (Canceled beats Error beats rows; rows concatenate). Peeks come
// from a list issued at start, an open-loop schedule of arrival timers, and an
// optional closed loop (E1's concurrent scans: the next one goes out when the
// previous one is answered).
import { coreMachine, type Fx } from './effects.ts';
import { workerId, type PeekResponse, type PeekSpec, type Row } from './types.ts';
import type { Message } from '../../actors/types.ts';

export interface Arrival {
  readonly at: number;
  readonly peek: PeekSpec;
}

export interface ClientInput {
  readonly workers: number;
  /** Issued at once when the run starts. */
  readonly peeks?: readonly PeekSpec[];
  /** Open-loop arrivals, sorted by `at` (virtual ms). */
  readonly arrivals?: readonly Arrival[];
  /** Closed loop: `concurrency` peeks of this list in flight at a time, until the clock passes `horizon`. */
  readonly closed?: { readonly peeks: readonly PeekSpec[]; readonly concurrency: number; readonly horizon: number };
  /** Keep every merged response in the context (checker); off for long simulations. */
  readonly keep?: boolean;
}

interface Open {
  readonly cls: string;
  readonly got: number;
  readonly resp: readonly (PeekResponse | null)[];
}

export interface ClientCtx {
  readonly input: ClientInput;
  readonly open: Readonly<Record<string, Open>>;
  readonly merged: Readonly<Record<string, PeekResponse>>;
  readonly issued: number;
  readonly mergedCount: number;
  /** A second response from one worker for one peek (a protocol violation). */
  readonly duplicates: number;
  /** Responses for a peek that was never issued or is already merged. */
  readonly strays: number;
  readonly next: number;
  readonly closedNext: number;
  readonly clock: number;
}

export function initClient(input: ClientInput): ClientCtx {
  return { input, open: {}, merged: {}, issued: 0, mergedCount: 0, duplicates: 0, strays: 0, next: 0, closedNext: 0, clock: 0 };
}

function issue(c: ClientCtx, peek: PeekSpec, fx: Fx[]): ClientCtx {
  const w = c.input.workers;
  fx.push({ kind: 'emit', msg: { type: 'Issue', uuid: peek.uuid, cls: peek.cls } });
  for (let i = 0; i < w; i++) fx.push({ kind: 'send', to: workerId(i), msg: { type: 'PeekCmd', peek } });
  return { ...c, issued: c.issued + 1, open: { ...c.open, [peek.uuid]: { cls: peek.cls, got: 0, resp: new Array(w).fill(null) } } };
}

function issueClosed(c: ClientCtx, fx: Fx[]): ClientCtx {
  const cl = c.input.closed;
  if (!cl || c.closedNext >= cl.peeks.length || c.clock >= cl.horizon) return c;
  return { ...issue(c, cl.peeks[c.closedNext]!, fx), closedNext: c.closedNext + 1 };
}

/** Canceled > Error > Stashed > Rows; rows and stashed contents concatenate in worker order. */
export function mergeResponses(rs: readonly PeekResponse[]): PeekResponse {
  if (rs.some((r) => r.kind === 'canceled')) return { kind: 'canceled' };
  const err = rs.find((r) => r.kind === 'error');
  if (err) return err;
  const rows: Row[] = [];
  let stashed = false;
  let bytes = 0;
  for (const r of rs) {
    if (r.kind === 'rows') rows.push(...r.rows);
    if (r.kind === 'stashed') {
      stashed = true;
      rows.push(...r.content);
      bytes += r.bytes;
    }
  }
  return stashed ? { kind: 'stashed', shard: 'merged', rows: rows.length, bytes, content: rows } : { kind: 'rows', rows };
}

export function clientReact(c: ClientCtx, ev: Message): { ctx: ClientCtx; fx: Fx[] } {
  const fx: Fx[] = [];
  switch (ev.type) {
    case 'Start': {
      let n = c;
      for (const p of c.input.peeks ?? []) n = issue(n, p, fx);
      const cl = c.input.closed;
      if (cl) for (let k = 0; k < cl.concurrency; k++) n = issueClosed(n, fx);
      const a = c.input.arrivals ?? [];
      if (a.length > 0) fx.push({ kind: 'after', msg: { type: 'Arrival' }, delay: a[0]!.at, id: 'arrival' });
      return { ctx: n, fx };
    }
    case 'Arrival': {
      const a = c.input.arrivals!;
      const cur = a[c.next]!;
      const n = issue({ ...c, clock: cur.at, next: c.next + 1 }, cur.peek, fx);
      if (n.next < a.length) fx.push({ kind: 'after', msg: { type: 'Arrival' }, delay: a[n.next]!.at - cur.at, id: 'arrival' });
      return { ctx: n, fx };
    }
    case 'Issue':
      return { ctx: issue(c, ev.peek as PeekSpec, fx), fx };
    case 'Cancel': {
      const uuid = String(ev.uuid);
      if (c.open[uuid]) for (let i = 0; i < c.input.workers; i++) fx.push({ kind: 'send', to: workerId(i), msg: { type: 'CancelPeekCmd', uuid } });
      return { ctx: c, fx };
    }
    case 'WorkerResponse': {
      const uuid = String(ev.uuid);
      const w = Number(ev.w);
      const o = c.open[uuid];
      if (!o) return { ctx: { ...c, strays: c.strays + 1 }, fx };
      if (o.resp[w] !== null) return { ctx: { ...c, duplicates: c.duplicates + 1 }, fx };
      const resp = o.resp.slice();
      resp[w] = ev.response as PeekResponse;
      if (o.got + 1 < c.input.workers) return { ctx: { ...c, open: { ...c.open, [uuid]: { ...o, got: o.got + 1, resp } } }, fx };
      const merged = mergeResponses(resp as PeekResponse[]);
      const open = { ...c.open };
      delete open[uuid];
      fx.push({ kind: 'emit', msg: { type: 'Merged', uuid, cls: o.cls, kind: merged.kind } });
      fx.push({ kind: 'send', to: 'env', msg: { type: 'MergedResponse', uuid, cls: o.cls, response: merged } });
      let n: ClientCtx = { ...c, open, mergedCount: c.mergedCount + 1, merged: c.input.keep ? { ...c.merged, [uuid]: merged } : c.merged };
      if (c.input.closed && c.input.closed.peeks.some((p) => p.uuid === uuid)) n = issueClosed(n, fx);
      return { ctx: n, fx };
    }
    default:
      throw new Error(`the client has no case for '${ev.type}'`);
  }
}

export const clientMachine = coreMachine('client', clientReact, initClient, ['Start', 'Arrival', 'Issue', 'Cancel', 'WorkerResponse']);
