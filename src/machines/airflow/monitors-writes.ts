// The airflow monitors of the request channel and the writes (docs/airflow.md): one
// request at a time, the marker after every write and only for a good end, keys
// rewritten without losing entries, no entry under two keys, full rounds.
import type { MonitorDef, WorldQuery } from '../../actors/index.ts';
import { taskStateValue, type TaskStateState } from '../../storage/task-state.ts';
import { SCOPE, shardOf, shardsOf } from './api.ts';
import { MARKER_KEY, batchNumber, type AirflowConfig } from './config.ts';
import { storedEntries } from './store-view.ts';
import { isError, isWrite, killed, monitor, tryMonitor, storeWrites, taskEvents, openAfter, opened, out, req, resp, type Open } from './trace-view.ts';

function shards(q: WorldQuery): readonly TaskStateState[] {
  return shardsOf(q.context('supervisor'));
}

export function writeMonitors(cfg: AirflowConfig): Record<string, MonitorDef> {
  const perRound = cfg.design === 'per-round';
  const batched = cfg.design !== 'per-index';
  return {
    // INV-1: one request at a time on the channel of a live attempt.
    'INV-1': monitor({ a: 0, out: 0 }, { watches: taskEvents, reads: [] }, (s, e) => {
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
    'INV-2': monitor({ a: 0, open: {} as Open, marked: false }, { watches: taskEvents, reads: [] }, (s, e) => {
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
    'INV-3': monitor({ marked: 0 }, { watches: (e) => storeWrites(e) || taskEvents(e), reads: ['supervisor'] }, (s, e, q) => {
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
    'INV-5': monitor({} as Readonly<Record<string, string>>, { watches: storeWrites, reads: ['supervisor'] }, (s, e, q) => {
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
    'INV-6': monitor({} as Readonly<Record<string, number>>, { watches: storeWrites, reads: ['supervisor'] }, (s, e, q) => {
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
    'INV-7': tryMonitor({ a: 0, faulted: false, open: {} as Open }, { watches: taskEvents, reads: [] }, (s, e) => {
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
  };
}
