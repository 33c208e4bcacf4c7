// Phase A, the checkpoint reader: on a retry, read the completion marker, then the
// checkpoints (batches in order up to the first missing one, the one overwritten key,
// or every index upfront), fold them into the entries the loop trusts, and find
// where the writer appends. Sync calls: the loop has not started yet. The reader
// says when it is done (`readDone`) or failed (`readFailed`); the chart
// (task-process.ts) then starts the loop or concludes.
import { ALL_KEY, MARKER_KEY, batchKey, indexKey, type AirflowConfig, type Entry, type Marker } from './config.ts';
import type { Req } from './channel.ts';
import { newWriter } from './round-writer.ts';
import { pset, pvec } from './pstore.ts';
import { runTimer } from './task-loop.ts';
import { Step, initialTask, type Out, type Resp, type TaskCtx } from './task-ctx.ts';

/** A try begins: the first reads nothing, a retry reads the marker first. */
export function beginTry(c0: TaskCtx, cfg: AirflowConfig, a: number, afterClear = false): { c: TaskCtx; out: Out[] } {
  const s = new Step({ ...initialTask(), a, lease: c0.lease, afterClear }, cfg);
  // A Start over a try still running abandons it: its operators are cancelled (their ends would
  // only be ignored, by try number).
  for (const x of c0.co) if (x.stage === 'run') s.out.push({ to: 'self', msg: { type: 'Cancel' }, cancel: runTimer(c0.a, x.i) });
  s.emit({ type: 'Begin', a });
  if (a === 1) startLoop(s);
  else if (!s.sync(s.req('get', MARKER_KEY, 'marker-read', true))) fail(s);
  return s.done();
}

const startLoop = (s: Step): void => s.set({ readDone: true });
const fail = (s: Step): void => s.set({ readFailed: true });

function readNext(s: Step): void {
  const { cfg } = s;
  if (cfg.design === 'per-round') s.sync(s.req('get', batchKey(s.c.readN), 'batch-read', true, { n: s.c.readN }));
  else if (cfg.design === 'overwrite-one-key') s.sync(s.req('get', ALL_KEY, 'all-read', true));
  else if (cfg.oldReads === 'upfront' && s.c.readN < cfg.items) s.sync(s.req('get', indexKey(s.c.readN), 'index-read', true, { i: s.c.readN }));
  else startLoop(s);
}

function fold(s: Step, entries: readonly Entry[]): void {
  let earlier = s.c.earlier ?? pvec<Entry | null>(s.cfg.items, null);
  let maxT = s.c.maxT;
  const t = entries.reduce((m, e) => Math.max(m, e.t), 0);
  if (s.cfg.staleGuard && t < s.c.maxT) {
    s.log('stale batch ignored', { n: s.c.readN, t, maxT: s.c.maxT });
    return;
  }
  for (const e of entries) if (e.i < s.cfg.items) earlier = pset(earlier, e.i, e);
  maxT = Math.max(maxT, t);
  s.set({ earlier, maxT });
}

export function onReadResp(s: Step, r: Req, resp: Resp): void {
  const { cfg } = s;
  if (resp.error !== undefined) {
    s.log('startup read failed', { key: r.key, error: resp.error });
    fail(s);
    return;
  }
  switch (r.role) {
    case 'marker-read': {
      const m = resp.value as Marker | undefined;
      if (m?.completed === true && cfg.markerGuard && !s.c.afterClear) {
        // H6 guard: no clear happened, so the previous try was killed after its marker.
        s.log('completed marker without a clear: checkpoints trusted', { try_number: m.try_number });
        s.set({ trusted: true, since: m.since ?? 0, readN: 0 });
        readNext(s);
        return;
      }
      if (m?.completed === true) {
        // A rerun after a clear that kept the state: ignore the checkpoints.
        s.set({ trusted: false, since: s.c.a });
        if (!s.sync(s.req('set', MARKER_KEY, 'since-set', true, { value: { completed: false, since: s.c.a }, bytes: 32 }))) fail(s);
        return;
      }
      s.set({ trusted: true, since: m?.completed === false ? m.since : 0, readN: 0 });
      readNext(s);
      return;
    }
    case 'since-set':
      if (cfg.design === 'per-round' && cfg.rerunNumbering === 'appendAfterExisting') s.sync(s.req('get', batchKey(0), 'probe-read', true, { n: 0 }));
      else startLoop(s);
      return;
    case 'probe-read':
      if (resp.value === undefined) {
        s.set({ w: newWriter(r.n!) });
        startLoop(s);
      } else s.sync(s.req('get', batchKey(r.n! + 1), 'probe-read', true, { n: r.n! + 1 }));
      return;
    case 'batch-read':
      if (resp.value === undefined) {
        s.set({ w: newWriter(r.n!) });
        startLoop(s);
        return;
      }
      fold(s, resp.value as Entry[]);
      s.set({ readN: r.n! + 1 });
      readNext(s);
      return;
    case 'all-read': {
      const all = (resp.value as Entry[] | undefined) ?? [];
      fold(s, all);
      s.set({ w: newWriter(0, all) });
      startLoop(s);
      return;
    }
    case 'index-read':
      if (resp.value !== undefined) fold(s, resp.value as Entry[]);
      s.set({ readN: r.i! + 1 });
      readNext(s);
      return;
    default:
      return;
  }
}
