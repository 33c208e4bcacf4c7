// The spec's properties (§4.2, §4.3) over the trace vocabulary: the task process's
// outputs (Begin, Phase, Run, RunEnd, Record, Report, Replay, Skip, Pushed, End),
// its request frames to the supervisor, the responses delivered back, faults, and
// the task state store's contents. Monitors keep only what later checks need.
import type { MonitorDef, Predicate, ScenarioDef, TraceEvent, WorldQuery } from '../../actors/index.ts';
import { scopeRowId, taskStateObjectKey, taskStateValue, type TaskStateState } from '../../storage/task-state.ts';
import { SCOPE, shardOf, shardsOf, type ApiState } from './api.ts';
import { MARKER_KEY, batchKey, batchNumber, indexKey, type AirflowConfig, type Entry } from './config.ts';

type Fail = { readonly fail: string };
type Obs<S> = (s: S, e: TraceEvent, q: WorldQuery) => S | Fail;

const out = (e: TraceEvent): any => (e.kind === 'output' && e.from === 'task' ? e.msg : undefined);
const req = (e: TraceEvent): any => (e.kind === 'send' && e.from === 'task' && e.to === 'supervisor' ? e.msg : undefined);
const resp = (e: TraceEvent): any => (e.kind === 'deliver' && e.from === 'supervisor' && e.to === 'task' ? e.msg : undefined);
const killed = (e: TraceEvent): boolean => e.kind === 'fault' && e.fault === 'crash' && e.actor === 'task';
const isWrite = (m: any): boolean => m?.type === 'SetTaskStateStore' && (m.role === 'round' || m.role === 'rest' || m.role === 'ckpt');
const isError = (m: any): boolean => m?.type === 'ErrorResponse' && m.error !== 'TASK_STORE_NOT_FOUND';

const parsed = new WeakMap<object, Entry[] | undefined>();
const batchCache = new WeakMap<object, number[]>();

function shards(q: WorldQuery): readonly TaskStateState[] {
  return shardsOf(q.context('supervisor'));
}

/** Reads the store: the entries under a key, or undefined when missing (parsed once per stored row). */
export function storedEntries(q: WorldQuery, cfg: AirflowConfig, key: string): Entry[] | undefined {
  const id = cfg.backend === 'database' ? scopeRowId(SCOPE, key) : taskStateObjectKey('state', SCOPE, key);
  const api = q.context('supervisor') as ApiState;
  const row = (api.shards === null ? api.ts : api.shards[shardOf(key, api.shards.length)]!).rows[id];
  if (row === undefined) return undefined;
  if (parsed.has(row)) return parsed.get(row);
  const v = JSON.parse(row.value);
  const out = Array.isArray(v) ? v.map((x: any): Entry => ({ i: x.i, s: x.s, t: x.t })) : undefined;
  parsed.set(row, out);
  return out;
}

/** Batch numbers present in the store, sorted (computed once per store state). */
export function batchKeys(q: WorldQuery): number[] {
  const api = q.context('supervisor') as ApiState;
  const id: object = api.shards ?? api.ts;
  const hit = batchCache.get(id);
  if (hit) return hit;
  const all = shardsOf(api);
  const ns: number[] = [];
  for (const id of all.flatMap((sh) => Object.keys(sh.rows))) {
    const key = id.startsWith('[') ? (JSON.parse(id) as unknown[])[4] : id.slice(id.lastIndexOf('/') + 1);
    const n = batchNumber(String(key));
    if (n >= 0) ns.push(n);
  }
  ns.sort((a, b) => a - b);
  batchCache.set(id, ns);
  return ns;
}

/** Length of the contiguous durable prefix {0..k-1}. */
export function prefixLength(q: WorldQuery): number {
  const ns = new Set(batchKeys(q));
  let k = 0;
  while (ns.has(k)) k++;
  return k;
}

/** Whether (i, success or skipped, t) is still stored where it was confirmed, within the first `prefix` batches. */
function stillStored(q: WorldQuery, cfg: AirflowConfig, key: string, i: number, t: number, prefix = prefixLength(q)): boolean {
  const n = batchNumber(key);
  if (n >= 0 && n >= prefix) return false;
  return (storedEntries(q, cfg, key) ?? []).some((e) => e.i === i && e.t === t && e.s !== 'up_for_retry');
}

/** `xs` with `x` added, kept sorted: monitor sets must not depend on the order events came in. */
function addSorted(xs: readonly number[], x: number): readonly number[] {
  if (xs.includes(x)) return xs;
  return [...xs, x].sort((p, q) => p - q);
}

/**
 * The events any of these monitors reacts to (for the checker's partial-order
 * reduction): the task's outputs and frames, responses to it, kills, and writes
 * landing in the store. Reads and XCom pushes served by the supervisor are not.
 */
function watches(e: TraceEvent): boolean {
  if (e.kind === 'output' || e.kind === 'fault') return true;
  if (e.kind === 'send') return e.from === 'task';
  if (e.kind === 'deliver') return e.to === 'task';
  if (e.kind === 'io') return e.op === 'ts.set';
  return false;
}

function monitor<S>(init: S, observe: Obs<S>): MonitorDef<S> & { watches(e: TraceEvent): boolean } {
  return { init, observe, watches };
}

export function airflowProperties(cfg: AirflowConfig): Partial<ScenarioDef> {
  const perRound = cfg.design === 'per-round';
  const batched = cfg.design !== 'per-index';
  const deletions = cfg.externalDelete || cfg.deleteKeys.length > 0;

  // Requests of the live attempt whose response has not been consumed: rid -> request.
  type Open = Readonly<Record<number, any>>;
  const openAfter = (open: Open, e: TraceEvent): Open => {
    const m = req(e);
    if (m) return { ...open, [m.rid]: m };
    const r = resp(e);
    if (r && opened(open, r) !== undefined) {
      const { [r.rid]: _done, ...rest } = open;
      return rest;
    }
    return open;
  };

  /** The open request a response answers (same try: request ids restart with each try). */
  const opened = (open: Open, r: any): any => (open[r.rid]?.a === r.a ? open[r.rid] : undefined);

  const monitors: Record<string, MonitorDef> = {
    // INV-1: one request at a time on the channel of a live attempt.
    'INV-1': monitor({ a: 0, out: 0 }, (s, e) => {
      if (killed(e)) return { a: 0, out: 0 };
      const m = req(e);
      if (m) {
        if (m.a === s.a && s.out > 0) return { fail: `INV-1: request ${m.rid} (${m.type} '${m.key}') sent while another request of try ${m.a} is outstanding` };
        return { a: m.a, out: 1 };
      }
      const r = resp(e);
      if (r && r.a === s.a && s.out > 0) return { a: s.a, out: 0 };
      return s;
    }),
    // INV-2: the marker only after every write of the attempt returned; no write after it.
    'INV-2': monitor({ a: 0, open: {} as Open, marked: false }, (s, e) => {
      if (killed(e)) return { a: 0, open: {}, marked: false };
      const m = req(e);
      const st = m && m.a !== s.a ? { a: m.a, open: {}, marked: false } : s;
      if (m?.role === 'marker-set') {
        const pending = Object.values(st.open).filter(isWrite);
        if (pending.length > 0) return { fail: `INV-2: marker of try ${m.a} requested while write of '${pending[0].key}' has not returned` };
        return { ...st, marked: true };
      }
      if (isWrite(m) && st.marked) return { fail: `INV-2: write of '${m.key}' after the marker of try ${m.a}` };
      const open = openAfter(st.open, e);
      return open === st.open && st === s ? s : { ...st, open };
    }),
    // INV-3: a persisted completed marker only for an attempt that ends SUCCESS or SKIPPED.
    'INV-3': monitor({ marked: 0 }, (s, e, q) => {
      if (e.kind === 'io' && e.actor === 'supervisor' && e.op === 'ts.set' && e.key === MARKER_KEY && (e.outcome === 'ok' || e.outcome === 'ambiguous')) {
        const text = taskStateValue(shards(q)[shardOf(MARKER_KEY, shards(q).length)]!, { backend: cfg.backend }, SCOPE, MARKER_KEY);
        const m = text === undefined ? undefined : JSON.parse(text);
        return m?.completed === true ? { marked: m.try_number as number } : s;
      }
      const o = out(e);
      if (o?.type === 'End' && s.marked === o.a && o.state !== 'success' && o.state !== 'skipped') {
        return { fail: `INV-3: the completed marker of try ${o.a} persisted but the try ended ${o.state}` };
      }
      return s;
    }),
    // INV-5: a key rewritten by the same attempt holds every entry of its earlier value.
    'INV-5': monitor({} as Readonly<Record<string, string>>, (s, e, q) => {
      if (!batched || e.kind !== 'io' || e.actor !== 'supervisor' || e.op !== 'ts.set' || (e.outcome !== 'ok' && e.outcome !== 'ambiguous')) return s;
      const key = e.key!;
      if (key === MARKER_KEY) return s;
      const now = storedEntries(q, cfg, key) ?? [];
      const t = now.reduce((x, y) => Math.max(x, y.t), 0);
      const before = s[key];
      if (before !== undefined) {
        const [bt, ids] = before.split('|');
        if (Number(bt) === t && ids !== '') {
          const have = new Set(now.map((x) => `${x.i}${x.s[0]}${x.t}`));
          const lost = ids!.split(',').find((x) => !have.has(x));
          if (lost !== undefined) return { fail: `INV-5: '${key}' rewritten by try ${t} without entry ${lost} of its earlier value` };
        }
      }
      return { ...s, [key]: `${t}|${now.map((x) => `${x.i}${x.s[0]}${x.t}`).join(',')}` };
    }),
    // INV-6: no entry in two persisted writes under different keys.
    'INV-6': monitor({} as Readonly<Record<string, number>>, (s, e, q) => {
      if (!perRound || e.kind !== 'io' || e.actor !== 'supervisor' || e.op !== 'ts.set' || (e.outcome !== 'ok' && e.outcome !== 'ambiguous')) return s;
      const n = batchNumber(e.key!);
      if (n < 0) return s;
      let next = s;
      for (const x of storedEntries(q, cfg, e.key!) ?? []) {
        const id = `${x.i}@${x.t}`;
        if (next[id] !== undefined && next[id] !== n) return { fail: `INV-6: entry of index ${x.i} (try ${x.t}) persisted under keys ${next[id]} and ${n}` };
        if (next[id] === undefined) next = { ...next, [id]: n };
      }
      return next;
    }),
    // INV-7: without write failures or cancellation, rounds carry exactly W entries and the rest fewer.
    'INV-7': monitor({ a: 0, faulted: false, open: {} as Open }, (s, e) => {
      if (!perRound) return s;
      const m = req(e);
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, faulted: false, open: {} };
      if (o?.type === 'Kill' || o?.type === 'Cancel' || (o?.type === 'RunEnd' && (o.o === 'x' || o.o === 'd'))) return s.faulted ? s : { ...s, faulted: true };
      const r = resp(e);
      if (r && isError(r) && opened(s.open, r)?.role === 'round') return { ...s, faulted: true, open: openAfter(s.open, e) };
      if (m?.role === 'round' && !s.faulted && m.value.length !== cfg.W) return { fail: `INV-7: round write of '${m.key}' carries ${m.value.length} entries, not W = ${cfg.W}, with no failed write` };
      if (m?.role === 'rest' && !s.faulted && m.value.length >= cfg.W) return { fail: `INV-7: rest write carries ${m.value.length} entries, not fewer than W = ${cfg.W}` };
      const open = openAfter(s.open, e);
      return open === s.open ? s : { ...s, open };
    }),
    // INV-8: on a retry, nothing runs, pushes or writes before the reads are done; a read error means nothing at all.
    'INV-8': monitor({ a: 0, loop: true, readErr: false, open: {} as Open }, (s, e) => {
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, loop: o.a === 1, readErr: false, open: {} };
      if (o?.type === 'Phase' && o.phase === 'loop') return { ...s, loop: true };
      const m = req(e);
      const r = resp(e);
      if (r && !s.loop && isError(r) && opened(s.open, r)?.type === 'GetTaskStateStore') return { ...s, readErr: true };
      const acts = o?.type === 'Run' || o?.type === 'Pushed' || isWrite(m) || m?.role === 'marker-set' || m?.type === 'SetXCom';
      if (acts && (s.readErr || !s.loop)) return { fail: `INV-8: try ${s.a} ${o?.type ?? m.role} ${s.readErr ? 'after a startup read failed' : 'before its startup reads finished'}` };
      const open = openAfter(s.open, e);
      return open === s.open ? s : { ...s, open };
    }),
    // INV-9: batches read in order 0, 1, 2.. stopping at the first missing; B + 2 reads when trusted.
    'INV-9': monitor({ a: 0, next: 0, stopped: false, reads: 0, open: {} as Open }, (s, e, q) => {
      if (!perRound) return s;
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, next: 0, stopped: false, reads: 0, open: {} };
      const m = req(e);
      if (m?.role === 'batch-read') {
        if (s.stopped) return { fail: `INV-9: read of '${m.key}' after the first missing batch` };
        if (m.n !== s.next) return { fail: `INV-9: read of '${m.key}' out of order (expected batch ${s.next})` };
      }
      if (m?.type === 'GetTaskStateStore') return { ...s, reads: s.reads + 1, open: openAfter(s.open, e) };
      const r = resp(e);
      if (r && opened(s.open, r)?.role === 'batch-read') {
        const n = opened(s.open, r).n as number;
        const open = openAfter(s.open, e);
        if (r.type === 'ErrorResponse' && r.error === 'TASK_STORE_NOT_FOUND') return { ...s, stopped: true, open };
        return { ...s, next: n + 1, open };
      }
      if (o?.type === 'Phase' && o.phase === 'loop' && o.trusted && s.reads !== s.next + 2) {
        return { fail: `INV-9: try ${s.a} made ${s.reads} startup reads for ${s.next} batches (expected ${s.next + 2})` };
      }
      // INV-4's second half: after the startup read the writer appends at the first missing key.
      if (o?.type === 'Phase' && o.phase === 'loop' && o.trusted && q.context('task').w.nextN !== s.next) {
        return { fail: `INV-4: try ${s.a} writes from batch ${q.context('task').w.nextN} after reading ${s.next} batches` };
      }
      const open = openAfter(s.open, e);
      return open === s.open ? s : { ...s, open };
    }),
    // INV-10 / INV-11: the latest entry read decides; a fresh success replays once and never runs.
    'INV-10': monitor({ a: 0, since: 0, trusted: false, eff: {} as Readonly<Record<number, string>>, open: {} as Open, replayed: {} as Readonly<Record<number, number>> }, (s, e) => {
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, since: 0, trusted: false, eff: {}, open: {}, replayed: {} };
      if (o?.type === 'Phase' && o.phase === 'loop') return { ...s, since: o.since, trusted: o.trusted };
      const r = resp(e);
      if (r && r.type === 'TaskStateStoreResult' && Array.isArray(r.value) && opened(s.open, r) && opened(s.open, r).role !== 'marker-read') {
        if (cfg.staleGuard) return { ...s, open: openAfter(s.open, e) };
        const eff = { ...s.eff };
        for (const x of r.value as Entry[]) eff[x.i] = `${x.s}@${x.t}`;
        return { ...s, eff, open: openAfter(s.open, e) };
      }
      const fresh = (i: number, status: string): boolean => {
        const v = s.eff[i];
        return s.trusted && v !== undefined && v.startsWith(`${status}@`) && Number(v.split('@')[1]) >= s.since;
      };
      if (o?.type === 'Replay' && !cfg.staleGuard && !fresh(o.i, 'success')) return { fail: `INV-10: try ${s.a} replayed index ${o.i} but its latest entry is ${s.eff[o.i] ?? 'none'}` };
      if (o?.type === 'Replay') return { ...s, replayed: { ...s.replayed, [o.i]: 0 } };
      if (o?.type === 'Run' && (fresh(o.i, 'success') || fresh(o.i, 'skipped')) && !cfg.staleGuard) return { fail: `INV-11: try ${s.a} ran index ${o.i} whose latest entry is ${s.eff[o.i]}` };
      if (o?.type === 'Report' && o.cb === 'success' && o.i in s.replayed) return { fail: `INV-11: success callback of replayed index ${o.i} fired in try ${s.a}` };
      if (o?.type === 'Pushed' && o.i in s.replayed) {
        if (s.replayed[o.i]! >= 1) return { fail: `INV-11: replayed index ${o.i} pushed twice in try ${s.a}` };
        return { ...s, replayed: { ...s.replayed, [o.i]: 1 } };
      }
      const open = openAfter(s.open, e);
      return open === s.open ? s : { ...s, open };
    }),
    // INV-12 / INV-13 / INV-14: what was confirmed durable never reruns; callbacks repeat only after a non-durable end.
    'INV-12': monitor(
      {
        a: 0, since: 0, trusted: false, batches: 0, open: {} as Open,
        confirmed: {} as Readonly<Record<number, string>>, // i -> "key|t" of its confirmed success/skip
        // Success callbacks still allowed per index: 1 + tries that ended non-durable - callbacks so far
        // (absent = 1). One number, not two counts, so equal allowances are equal states.
        slack: {} as Readonly<Record<number, number>>,
        mine: [] as readonly number[], // indices reported success in this attempt
        live: false,
      },
      (s, e, q) => {
        const endAttempt = (st: typeof s): typeof s => {
          let slack = st.slack;
          for (const i of st.mine) {
            const c = st.confirmed[i];
            const durable = c !== undefined && Number(c.split('|')[1]) === st.a && stillStored(q, cfg, c.split('|')[0]!, i, st.a);
            if (!durable) slack = { ...slack, [i]: (slack[i] ?? 1) + 1 };
          }
          return { ...st, slack, mine: [], open: {}, live: false };
        };
        if (killed(e)) return endAttempt(s);
        const o = out(e);
        if (o?.type === 'End') return endAttempt(s);
        // A Begin while a try is live: that process was replaced (killed) by the next try.
        if (o?.type === 'Begin') {
          const st = s.live ? endAttempt(s) : s;
          // A clear of a successful run starts afresh: its callbacks may fire again.
          const prev = q.context('runner').history[o.a - 2];
          const fresh = prev === 'success' || prev === 'skipped' ? { confirmed: {}, slack: {} } : {};
          return { ...st, ...fresh, a: o.a, since: 0, trusted: false, open: {}, mine: [], live: true };
        }
        if (o?.type === 'Phase' && o.phase === 'loop') {
          // Outcomes confirmed earlier but outside what this try read (deleted, or beyond a gap) are lost: their callbacks may fire again.
          // (An untrusted start after a real clear was reset at Begin; one after a kill past the marker is H6 and grants nothing.)
          let confirmed: Readonly<Record<number, string>> = s.confirmed;
          let slack = s.slack;
          for (const [k, c] of Object.entries(s.confirmed)) {
            const [key, t] = c.split('|');
            if (!o.trusted || stillStored(q, cfg, key!, Number(k), Number(t), perRound ? o.batches : Infinity)) continue;
            const { [Number(k)]: _lost, ...rest } = confirmed;
            confirmed = rest;
            slack = { ...slack, [k]: (slack[Number(k)] ?? 1) + 1 };
          }
          return { ...s, since: o.since, trusted: o.trusted, batches: o.batches, confirmed, slack };
        }
        if (o?.type === 'Run' && s.trusted) {
          const c = s.confirmed[o.i];
          if (c !== undefined) {
            const [key, t] = c.split('|');
            // Durable = confirmed, still stored, and inside the prefix this try read (a gap ends it).
            if (Number(t) >= s.since && Number(t) < s.a && stillStored(q, cfg, key!, o.i, Number(t), perRound ? s.batches : Infinity)) {
              const inv = Number(t) === s.a - 1 ? 'INV-13' : 'INV-12';
              return { fail: `${inv}: try ${s.a} reran index ${o.i}, whose outcome of try ${t} is durable in '${key}' inside the prefix it read` };
            }
          }
        }
        if (o?.type === 'Report' && o.cb === 'success') {
          const left = s.slack[o.i] ?? 1;
          if (left < 1) return { fail: `INV-14: success callback of index ${o.i} fired more often than 1 + the tries in which it ended non-durable` };
          return { ...s, slack: { ...s.slack, [o.i]: left - 1 }, mine: addSorted(s.mine, o.i) };
        }
        const r = resp(e);
        if (r && r.type === 'OKResponse' && isWrite(opened(s.open, r))) {
          const w = opened(s.open, r);
          let confirmed = s.confirmed;
          for (const x of w.value as Entry[]) if (x.s !== 'up_for_retry' && x.t === s.a) confirmed = { ...confirmed, [x.i]: `${w.key}|${x.t}` };
          return { ...s, confirmed, open: openAfter(s.open, e) };
        }
        const open = openAfter(s.open, e);
        return open === s.open ? s : { ...s, open };
      },
    ),
    // INV-15: failure and retry callbacks come after every RunEnd, all announcing the same fate.
    'INV-15': monitor({ a: 0, fate: '' }, (s, e) => {
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, fate: '' };
      if (o?.type === 'Report' && (o.cb === 'retry' || o.cb === 'failure')) {
        if (s.fate !== '' && s.fate !== o.cb) return { fail: `INV-15: try ${s.a} announced both ${s.fate} and ${o.cb}` };
        return s.fate === o.cb ? s : { ...s, fate: o.cb };
      }
      if (o?.type === 'RunEnd' && s.fate !== '') return { fail: `INV-15: index ${o.i} ended after the failure callbacks of try ${s.a} fired` };
      if (o?.type === 'End' && s.fate !== '' && (s.fate === 'retry') !== (o.state === 'up_for_retry')) return { fail: `INV-15: callbacks announced ${s.fate} but try ${s.a} ended ${o.state}` };
      return s;
    }),
    // INV-16: a successful try leaves return_value_<i> for every index that was not skipped.
    'INV-16': monitor({ a: 0, skipped: [] as readonly number[] }, (s, e, q) => {
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, skipped: [] };
      if (o?.type === 'Skip' || (o?.type === 'Report' && o.cb === 'skip')) return { ...s, skipped: addSorted(s.skipped, o.i) };
      if (o?.type === 'End' && o.state === 'success') {
        const x = q.context('supervisor').xcom;
        for (let i = 0; i < cfg.items; i++) {
          if (s.skipped.includes(i)) continue;
          const b = x.keys.buckets.find((bk: any) => `return_value_${i}` in bk);
          if (b === undefined || b[`return_value_${i}`] !== o.a) return { fail: `INV-16: try ${o.a} succeeded without return_value_${i}` };
        }
      }
      return s;
    }),
    // INV-17: with no fault, confirmed writes per try are ceil(R/W) (per index: R).
    'INV-17': monitor({ a: 0, clean: true, records: 0, writes: 0, open: {} as Open }, (s, e) => {
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, clean: true, records: 0, writes: 0, open: {} };
      if (e.kind === 'fault' || o?.type === 'Kill' || o?.type === 'Cancel') return s.clean ? { ...s, clean: false } : s;
      if (o?.type === 'Record') return { ...s, records: s.records + 1 };
      const r = resp(e);
      if (r && isWrite(opened(s.open, r))) return { ...s, writes: s.writes + (r.type === 'OKResponse' ? 1 : 0), clean: s.clean && r.type === 'OKResponse', open: openAfter(s.open, e) };
      if (o?.type === 'End' && s.clean && o.state !== 'failed') {
        const want = batched ? Math.ceil(s.records / cfg.W) : s.records;
        if (s.writes !== want) return { fail: `INV-17: try ${s.a} made ${s.writes} confirmed checkpoint writes for ${s.records} records (expected ${want})` };
      }
      const open = openAfter(s.open, e);
      return open === s.open ? s : { ...s, open };
    }),
    // INV-18: no empty write; after the loop closes only the rest, then the marker.
    'INV-18': monitor({ a: 0, closed: false, rest: 0, marker: false }, (s, e) => {
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, closed: false, rest: 0, marker: false };
      if (o?.type === 'Phase' && o.phase === 'closed') return { ...s, closed: true };
      const m = req(e);
      if (!m || m.type === 'GetTaskStateStore') return s;
      if ((m.role === 'round' || m.role === 'rest') && m.value.length === 0) return { fail: `INV-18: empty write of '${m.key}'` };
      if (!s.closed) return s;
      if (m.role === 'rest') return s.rest > 0 || s.marker ? { fail: `INV-18: second rest write or rest after the marker in try ${s.a}` } : { ...s, rest: 1 };
      if (m.role === 'marker-set') return { ...s, marker: true };
      return { fail: `INV-18: ${m.type} '${m.key}' after the loop closed in try ${s.a}` };
    }),
    // LIV-2: an attempt with no injected fault ends with all it recorded durable (fails under H1).
    'LIV-2': monitor({ a: 0, faulted: false, recorded: [] as readonly number[] }, (s, e, q) => {
      if (!batched) return s;
      const o = out(e);
      if (o?.type === 'Begin') return { a: o.a, faulted: false, recorded: [] };
      if (e.kind === 'fault' || o?.type === 'Kill') return s.faulted ? s : { ...s, faulted: true };
      if (o?.type === 'Record') return { ...s, recorded: addSorted(s.recorded, o.i) };
      if (o?.type === 'End' && !s.faulted) {
        const k = prefixLength(q);
        const keys = cfg.design === 'overwrite-one-key' ? ['_iterable_all'] : Array.from({ length: k }, (_, n) => batchKey(n));
        const durable = new Set<number>();
        for (const key of keys) for (const x of storedEntries(q, cfg, key) ?? []) if (x.t === s.a) durable.add(x.i);
        const lost = s.recorded.filter((i) => !durable.has(i));
        if (lost.length > 0) return { fail: `LIV-2: try ${s.a} ended with ${lost.length} recorded outcome(s) not durable (index ${lost[0]}) although no fault was injected: the durable prefix stopped growing (H1 poison carry)` };
      }
      return s;
    }),
  };

  const invariants: Record<string, Predicate> = {};
  if (perRound && !deletions) {
    // INV-4: without external deletion the durable batch keys are always {0..k-1}.
    invariants['INV-4'] = (q) => {
      const ns = batchKeys(q);
      return ns.every((n, k) => n === k) || `INV-4: batch keys ${ns.join(',')} are not a contiguous prefix`;
    };
  }
  void indexKey;

  const live = liveness(cfg);
  const eventually: Record<string, Predicate> = {
    // LIV-1: with transient faults and enough tries the task succeeds.
    'LIV-1': (q) => {
      if (q.status('task') === 'crashed' || q.context('runner').final === null) return true;
      return !live || ['success', 'skipped'].includes(q.context('runner').final) || `LIV-1: the task ended ${q.context('runner').final} although every fault was transient and tries sufficed`;
    },
    // LIV-3: the startup read terminates.
    'LIV-3': (q) => q.status('task') === 'crashed' || !q.matches('task', 'reading') || 'LIV-3: the task process is stuck in its startup reads',
  };
  const reachable: Record<string, Predicate> = {
    'task succeeded': (q) => q.context('runner').final === 'success',
  };
  if (cfg.only === null) return { monitors, invariants, eventually, reachable };
  const pick = <T>(r: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(r).filter(([k]) => cfg.only!.some((n) => k === n)));
  return { monitors: pick(monitors), invariants: pick(invariants), eventually: pick(eventually), reachable };
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
