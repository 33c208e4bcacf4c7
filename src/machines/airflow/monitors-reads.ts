// The airflow monitors of a retry's startup (docs/airflow.md): nothing acts before the
// reads are done, batches are read in order up to the first missing one, the
// writer appends after them, and the latest entry read decides replay or rerun.
import type { MonitorDef } from '../../actors/index.ts';
import type { AirflowConfig, Entry } from './config.ts';
import { isError, isWrite, tryMonitor, taskEvents, openAfter, opened, out, req, resp, type Open } from './trace-view.ts';

/** INV-10: whether index i's latest entry read is a `status` outcome of a trusted start since its `since`. */
function fresh(s: { readonly trusted: boolean; readonly since: number; readonly eff: Readonly<Record<number, string>> }, i: number, status: string): boolean {
  const v = s.eff[i];
  return s.trusted && v !== undefined && v.startsWith(`${status}@`) && Number(v.split('@')[1]) >= s.since;
}

export function readMonitors(cfg: AirflowConfig): Record<string, MonitorDef> {
  const perRound = cfg.design === 'per-round';
  return {
    // INV-8: on a retry, nothing runs, pushes or writes before the reads are done; a read error means nothing at all.
    'INV-8': tryMonitor({ a: 0, loop: true, readErr: false, open: {} as Open }, { watches: taskEvents, reads: [] }, (s, e) => {
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
    'INV-9': tryMonitor({ a: 0, next: 0, stopped: false, reads: 0, open: {} as Open }, { watches: taskEvents, reads: ['task'] }, (s, e, q) => {
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
    'INV-10': tryMonitor({ a: 0, since: 0, trusted: false, eff: {} as Readonly<Record<number, string>>, open: {} as Open, replayed: {} as Readonly<Record<number, number>> }, { watches: taskEvents, reads: [] }, (s, e) => {
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
      if (o?.type === 'Replay' && !cfg.staleGuard && !fresh(s, o.i, 'success')) return { fail: `INV-10: try ${s.a} replayed index ${o.i} but its latest entry is ${s.eff[o.i] ?? 'none'}` };
      if (o?.type === 'Replay') return { ...s, replayed: { ...s.replayed, [o.i]: 0 } };
      if (o?.type === 'Run' && (fresh(s, o.i, 'success') || fresh(s, o.i, 'skipped')) && !cfg.staleGuard) return { fail: `INV-11: try ${s.a} ran index ${o.i} whose latest entry is ${s.eff[o.i]}` };
      if (o?.type === 'Report' && o.cb === 'success' && o.i in s.replayed) return { fail: `INV-11: success callback of replayed index ${o.i} fired in try ${s.a}` };
      if (o?.type === 'Pushed' && o.i in s.replayed) {
        if (s.replayed[o.i]! >= 1) return { fail: `INV-11: replayed index ${o.i} pushed twice in try ${s.a}` };
        return { ...s, replayed: { ...s.replayed, [o.i]: 1 } };
      }
      const open = openAfter(s.open, e);
      return open === s.open ? s : { ...s, open };
    }),
  };
}
