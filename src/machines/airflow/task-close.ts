// Phases C and D: once the loop is drained, write the rest with a sync call, then
// the completion marker (only for a success or skip), then conclude: the held
// failure callbacks fire and the runner learns the try's fate. The chart
// (task-process.ts) moves between them: `closing.rest`, `closing.marker`, `exited`.
import { ALL_KEY, MARKER_KEY, batchKey, type AirflowConfig, type Entry, type Marker } from './config.ts';
import { isIdle, type Req, type Role } from './channel.ts';
import { restOf } from './round-writer.ts';
import { Step, entryBytesOf, type Fate, type Out, type Resp, type TaskCtx } from './task-ctx.ts';

/** The loop is drained: nothing in flight, nothing left to pull (or stopped), the writer and the channel idle. */
export function drained(c: TaskCtx, cfg: AirflowConfig): boolean {
  if (c.co.length > 0 || (c.stop === 'none' && c.next < cfg.items)) return false;
  return c.w.inflight === null && c.w.waiting.length === 0 && isIdle(c.ch);
}

/** The sync write of `role` is still unanswered. */
export function awaiting(c: TaskCtx, role: Role): boolean {
  return c.ch.holder?.role === role;
}

/** Phase C begins: the rest goes out with a sync call (if there is one). */
export function writeRest(c: TaskCtx, cfg: AirflowConfig): { c: TaskCtx; out: Out[] } {
  const s = new Step(c, cfg);
  s.emit({ type: 'Phase', a: c.a, phase: 'closed' });
  const rest = cfg.design === 'per-index' ? [] : restOf(c.w);
  if (rest.length > 0) {
    const key = cfg.design === 'overwrite-one-key' ? ALL_KEY : batchKey(c.w.nextN);
    s.sync(s.req('set', key, 'rest', true, { n: c.w.nextN, value: rest, bytes: entryBytesOf(cfg, rest) }));
  }
  return s.done();
}

function fateOf(c: TaskCtx, cfg: AirflowConfig): Fate {
  if (c.stop === 'sigterm') return 'terminated';
  if (c.stop === 'timeout') return 'up_for_retry';
  if (c.stop === 'failfast') return 'failed';
  if (c.readFailed || c.markerFailed) return 'up_for_retry';
  if (c.failed.length > 0) return c.noRetry ? 'failed' : 'up_for_retry';
  if (cfg.items === 0 || c.skipped === cfg.items) return 'skipped';
  return 'success';
}

function completedMarker(s: Step): Marker {
  return s.cfg.markerGuard ? { completed: true, try_number: s.c.a, since: s.c.since } : { completed: true, try_number: s.c.a };
}

/** Then the completion marker, for a success or a skip only. */
export function writeMarker(c: TaskCtx, cfg: AirflowConfig): { c: TaskCtx; out: Out[] } {
  const s = new Step(c, cfg);
  const fate = fateOf(c, cfg);
  if (fate !== 'success' && fate !== 'skipped') return s.done();
  if (!s.sync(s.req('set', MARKER_KEY, 'marker-set', true, { value: completedMarker(s), bytes: 32 }))) {
    if (cfg.markerFailureFails) s.set({ markerFailed: true });
  }
  return s.done();
}

/** Phase D: the try's fate; the held callbacks fire and the runner learns it; the lease is given up. */
export function conclude(c: TaskCtx, cfg: AirflowConfig): { c: TaskCtx; out: Out[] } {
  const s = new Step(c, cfg);
  const fate = fateOf(s.c, s.cfg);
  // Held failure and retry callbacks fire now, all announcing the same fate.
  for (const i of s.c.failed) s.emit({ type: 'Report', a: s.c.a, i, cb: fate === 'up_for_retry' ? 'retry' : 'failure' });
  s.set({ fate });
  s.emit({ type: 'End', a: s.c.a, state: fate });
  s.out.push({ to: 'runner', msg: { type: 'End', a: s.c.a, state: fate } });
  if (s.c.lease !== 0) {
    // The process ends with its try and gives the lease up (a retry asks for it again).
    s.out.push({ to: 'supervisor', msg: { type: 'ReleaseLease', token: s.c.lease } });
    s.set({ lease: 0 });
  }
  return s.done();
}

/** A response to the rest write or the marker write. */
export function onCloseResp(s: Step, r: Req, resp: Resp): void {
  const { cfg } = s;
  switch (r.role) {
    case 'rest':
      if (resp.error === undefined) s.set({ w: { ...s.c.w, nextN: s.c.w.nextN + 1, carried: [], pending: [] } });
      else s.log('rest write failed: these indexed tasks run again on a retry', { n: r.n, entries: (r.value as Entry[]).length });
      break;
    case 'marker-set':
      if (resp.error !== undefined) {
        s.log('marker write failed', { error: resp.error });
        if (cfg.markerFailureFails) s.set({ markerFailed: true });
      }
      break;
    default:
      return;
  }
}
