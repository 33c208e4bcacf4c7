// The airflow monitors of what a try leaves behind (docs/airflow.md): durable
// outcomes never rerun, callbacks repeat only after a non-durable end and all
// announce one fate, XComs and write counts at the end, the closing order, and
// LIV-2 (an unfaulted try ends with everything it recorded durable).
import type { MonitorDef, WorldQuery } from '../../actors/index.ts';
import { batchKey, type AirflowConfig, type Entry } from './config.ts';
import { prefixLength, stillStored, storedEntries } from './store-view.ts';
import { addSorted, faults, isWrite, killed, monitor, tryMonitor, taskEvents, openAfter, opened, out, req, resp, type Open } from './trace-view.ts';

/** `slack` with index i's allowance set to v; the default, 1, is kept as an absent entry (one form per allowance). */
function withSlack(slack: Readonly<Record<number, number>>, i: number, v: number): Readonly<Record<number, number>> {
  if (v !== 1) return { ...slack, [i]: v };
  if (!(i in slack)) return slack;
  const { [i]: _default, ...rest } = slack;
  return rest;
}

/** INV-12's state. */
interface Durable {
  readonly a: number;
  readonly since: number;
  readonly trusted: boolean;
  readonly batches: number;
  readonly open: Open;
  readonly confirmed: Readonly<Record<number, string>>;
  readonly slack: Readonly<Record<number, number>>;
  readonly mine: readonly number[];
  readonly live: boolean;
}

/** INV-12 at the end of a try: each index it reported success for that is not durable may call back once more. */
function endDurable(st: Durable, q: WorldQuery, cfg: AirflowConfig): Durable {
  let slack = st.slack;
  for (const i of st.mine) {
    const c = st.confirmed[i];
    const durable = c !== undefined && Number(c.split('|')[1]) === st.a && stillStored(q, cfg, c.split('|')[0]!, i, st.a);
    if (!durable) slack = withSlack(slack, i, (slack[i] ?? 1) + 1);
  }
  return { ...st, slack, mine: [], open: {}, live: false };
}

export function outcomeMonitors(cfg: AirflowConfig): Record<string, MonitorDef> {
  const perRound = cfg.design === 'per-round';
  const batched = cfg.design !== 'per-index';
  return {
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
      } as Durable, { watches: taskEvents, reads: ['runner', 'supervisor'] },
      (s, e, q) => {
        if (killed(e)) return endDurable(s, q, cfg);
        const o = out(e);
        if (o?.type === 'End') return endDurable(s, q, cfg);
        // A Begin while a try is live: that process was replaced (killed) by the next try.
        if (o?.type === 'Begin') {
          const st = s.live ? endDurable(s, q, cfg) : s;
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
            slack = withSlack(slack, Number(k), (slack[Number(k)] ?? 1) + 1);
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
          return { ...s, slack: withSlack(s.slack, o.i, left - 1), mine: addSorted(s.mine, o.i) };
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
    'INV-15': tryMonitor({ a: 0, fate: '' }, { watches: taskEvents, reads: [] }, (s, e) => {
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
    'INV-16': tryMonitor({ a: 0, skipped: [] as readonly number[] }, { watches: taskEvents, reads: ['supervisor'] }, (s, e, q) => {
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
    'INV-17': tryMonitor({ a: 0, clean: true, records: 0, writes: 0, open: {} as Open }, { watches: (e) => taskEvents(e) || faults(e), reads: [] }, (s, e) => {
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
    'INV-18': tryMonitor({ a: 0, closed: false, rest: 0, marker: false }, { watches: taskEvents, reads: [] }, (s, e) => {
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
    'LIV-2': tryMonitor({ a: 0, faulted: false, recorded: [] as readonly number[] }, { watches: (e) => taskEvents(e) || faults(e), reads: ['supervisor'] }, (s, e, q) => {
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
}
