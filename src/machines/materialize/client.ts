// The client and the controller-side aggregator (PartitionedComputeState) as a
// statechart (docs/materialize.md, "The client chart"): sends each peek to every
// worker, merges one response per worker, and answers once all workers have
// (Canceled beats Error beats rows; rows concatenate). Peeks come from a list
// issued at start, an open-loop schedule of arrivals (an `after` timer while
// arrivals are due), and an optional closed loop (E1's concurrent scans: the next
// one goes out when the previous one is answered).
import { and, not, setup } from 'xstate';
import { act, type Fx } from './effects.ts';
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

type Out = { ctx: ClientCtx; fx: Fx[] };

function start(c: ClientCtx): Out {
  const fx: Fx[] = [];
  let n = c;
  for (const p of c.input.peeks ?? []) n = issue(n, p, fx);
  const cl = c.input.closed;
  if (cl) for (let k = 0; k < cl.concurrency; k++) n = issueClosed(n, fx);
  return { ctx: n, fx };
}

/** The next open-loop arrival is due: its peek goes out, and the clock is its time. */
function arrive(c: ClientCtx): Out {
  const fx: Fx[] = [];
  const cur = c.input.arrivals![c.next]!;
  return { ctx: issue({ ...c, clock: cur.at, next: c.next + 1 }, cur.peek, fx), fx };
}

function issueOne(c: ClientCtx, ev: Message): Out {
  const fx: Fx[] = [];
  return { ctx: issue(c, ev.peek as PeekSpec, fx), fx };
}

function cancelOpen(c: ClientCtx, ev: Message): Out {
  const uuid = String(ev.uuid);
  const fx: Fx[] = [];
  for (let i = 0; i < c.input.workers; i++) fx.push({ kind: 'send', to: workerId(i), msg: { type: 'CancelPeekCmd', uuid } });
  return { ctx: c, fx };
}

function record(c: ClientCtx, ev: Message): Out {
  const uuid = String(ev.uuid);
  const o = c.open[uuid]!;
  const resp = o.resp.slice();
  resp[Number(ev.w)] = ev.response as PeekResponse;
  return { ctx: { ...c, open: { ...c.open, [uuid]: { ...o, got: o.got + 1, resp } } }, fx: [] };
}

/** The last worker answered: the merged response goes out, and a closed loop issues its next peek. */
function merge(c: ClientCtx, ev: Message): Out {
  const uuid = String(ev.uuid);
  const o = c.open[uuid]!;
  const resp = o.resp.slice();
  resp[Number(ev.w)] = ev.response as PeekResponse;
  const merged = mergeResponses(resp as PeekResponse[]);
  const open = { ...c.open };
  delete open[uuid];
  const fx: Fx[] = [
    { kind: 'emit', msg: { type: 'Merged', uuid, cls: o.cls, kind: merged.kind } },
    { kind: 'send', to: 'env', msg: { type: 'MergedResponse', uuid, cls: o.cls, response: merged } },
  ];
  let n: ClientCtx = { ...c, open, mergedCount: c.mergedCount + 1, merged: c.input.keep ? { ...c.merged, [uuid]: merged } : c.merged };
  if (closedPeek(c, uuid)) n = issueClosed(n, fx);
  return { ctx: n, fx };
}

function closedPeek(c: ClientCtx, uuid: string): boolean {
  return c.input.closed?.peeks.some((p) => p.uuid === uuid) === true;
}

function closedCanIssue(c: ClientCtx): boolean {
  const cl = c.input.closed;
  return cl !== undefined && c.closedNext < cl.peeks.length && c.clock < cl.horizon;
}

type Args = { readonly context: ClientCtx; readonly event: Message };
const openOf = ({ context, event }: Args) => context.open[String(event.uuid)];

/** Peeks open (waiting for workers) or none (answered), with the same transitions whether arrivals are still due or not. */
function peeks(): any {
  const issue = { Issue: { target: '.waiting', actions: 'issue' } };
  return {
    initial: 'answered',
    on: {
      ...issue,
      Cancel: [{ guard: 'peekOpen', actions: 'cancel' }, {}],
    },
    states: {
      /** At least one peek is open: some worker has not answered it. */
      waiting: {
        on: {
          WorkerResponse: [
            { guard: not('peekOpen'), actions: 'countStray' },
            { guard: 'repeatFromWorker', actions: 'countDuplicate' },
            { guard: not('lastWorker'), actions: 'record' },
            { guard: and(['lastOpenPeek', not('closedLoopGoesOn')]), target: 'answered', actions: 'merge' },
            { actions: 'merge' },
          ],
        },
      },
      /** Every issued peek is merged and answered. */
      answered: { on: { WorkerResponse: { actions: 'countStray' } } },
    },
  };
}

export const clientMachine = setup({
  types: {} as { context: ClientCtx; input: ClientInput; events: { type: string; [k: string]: unknown } },
  guards: {
    arrivalsDue: ({ context }: Args) => context.next < (context.input.arrivals?.length ?? 0),
    moreArrivals: ({ context }: Args) => context.next + 1 < (context.input.arrivals?.length ?? 0),
    /** Start issues at least one peek (the list, or the closed loop's first). */
    startIssues: ({ context }: Args) => (context.input.peeks?.length ?? 0) > 0 || ((context.input.closed?.concurrency ?? 0) > 0 && closedCanIssue(context)),
    peekOpen: (a: Args) => openOf(a) !== undefined,
    repeatFromWorker: (a: Args) => openOf(a)!.resp[Number(a.event.w)] !== null,
    lastWorker: (a: Args) => openOf(a)!.got + 1 === a.context.input.workers,
    lastOpenPeek: ({ context }: Args) => Object.keys(context.open).length === 1,
    /** Merging this peek sends the closed loop's next one. */
    closedLoopGoesOn: ({ context, event }: Args) => closedPeek(context, String(event.uuid)) && closedCanIssue(context),
  },
  actions: {
    start: act(start),
    arrive: act(arrive),
    issue: act(issueOne),
    cancel: act(cancelOpen),
    record: act(record),
    merge: act(merge),
    countStray: act((c: ClientCtx) => ({ ctx: { ...c, strays: c.strays + 1 }, fx: [] })),
    countDuplicate: act((c: ClientCtx) => ({ ctx: { ...c, duplicates: c.duplicates + 1 }, fx: [] })),
  },
  delays: {
    /** Virtual ms from now (the last arrival's time) to the next arrival. */
    nextArrival: ({ context }: { context: ClientCtx }) => context.input.arrivals![context.next]!.at - context.clock,
  },
}).createMachine({
  id: 'client',
  context: ({ input }) => initClient(input),
  initial: 'ready',
  states: {
    /** Before the run starts. */
    ready: {
      on: {
        Start: [
          { guard: and(['arrivalsDue', 'startIssues']), target: 'arrivalsDue.waiting', actions: 'start' },
          { guard: 'arrivalsDue', target: 'arrivalsDue.answered', actions: 'start' },
          { guard: 'startIssues', target: 'arrivalsOver.waiting', actions: 'start' },
          { target: 'arrivalsOver.answered', actions: 'start' },
        ],
      },
    },
    /** Open-loop arrivals still to come: the next one fires after `nextArrival`. */
    arrivalsDue: {
      ...peeks(),
      after: {
        nextArrival: [
          { guard: 'moreArrivals', target: 'arrivalsDue.waiting', reenter: true, actions: 'arrive' },
          { target: 'arrivalsOver.waiting', actions: 'arrive' },
        ],
      },
    },
    /** Every open-loop arrival has gone out. */
    arrivalsOver: peeks(),
  },
});
