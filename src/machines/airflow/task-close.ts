// Phases C and D: once the loop is drained, write the rest with a sync call, then
// the completion marker (only for a success or skip), then conclude: the held
// failure callbacks fire and the runner learns the try's fate.
import { ALL_KEY, MARKER_KEY, batchKey, type AirflowConfig, type Entry, type Marker } from './config.ts';
import { isIdle, type Req } from './channel.ts';
import { restOf } from './round-writer.ts';
import { entryBytesOf, type Fate, type Resp, type Step, type TaskCtx } from './task-ctx.ts';

export function maybeClose(s: Step): void {
  const c = s.c;
  if (c.phase !== 'looping') return;
  if (c.co.length > 0 || (c.stop === 'none' && c.next < s.cfg.items)) return;
  if (c.w.inflight !== null || c.w.waiting.length > 0 || !isIdle(c.ch)) return;
  s.set({ phase: 'closing' });
  s.emit({ type: 'Phase', a: c.a, phase: 'closed' });
  const rest = s.cfg.design === 'per-index' ? [] : restOf(c.w);
  if (rest.length === 0) return marker(s);
  const key = s.cfg.design === 'overwrite-one-key' ? ALL_KEY : batchKey(c.w.nextN);
  if (!s.sync(s.req('set', key, 'rest', true, { n: c.w.nextN, value: rest, bytes: entryBytesOf(s.cfg, rest) }))) marker(s);
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

function marker(s: Step): void {
  const fate = fateOf(s.c, s.cfg);
  if (fate !== 'success' && fate !== 'skipped') return conclude(s);
  if (!s.sync(s.req('set', MARKER_KEY, 'marker-set', true, { value: completedMarker(s), bytes: 32 }))) {
    if (s.cfg.markerFailureFails) s.set({ markerFailed: true });
    conclude(s);
  }
}

/** Read failure before anything ran: straight to the conclusion. */
export function fail(s: Step): void {
  s.set({ readFailed: true, phase: 'closing' });
  conclude(s);
}

function conclude(s: Step): void {
  const fate = fateOf(s.c, s.cfg);
  // Held failure and retry callbacks fire now, all announcing the same fate.
  for (const i of s.c.failed) s.emit({ type: 'Report', a: s.c.a, i, cb: fate === 'up_for_retry' ? 'retry' : 'failure' });
  s.set({ phase: 'exited', fate });
  s.emit({ type: 'End', a: s.c.a, state: fate });
  s.out.push({ to: 'runner', msg: { type: 'End', a: s.c.a, state: fate } });
  if (s.c.lease !== 0) {
    // The process ends with its try and gives the lease up (a retry asks for it again).
    s.out.push({ to: 'supervisor', msg: { type: 'ReleaseLease', token: s.c.lease } });
    s.set({ lease: 0 });
  }
}

/** A response to the rest write or the marker write. */
export function onCloseResp(s: Step, r: Req, resp: Resp): void {
  const { cfg } = s;
  switch (r.role) {
    case 'rest':
      if (resp.error === undefined) s.set({ w: { ...s.c.w, nextN: s.c.w.nextN + 1, carried: [], pending: [] } });
      else s.log('rest write failed: these indexed tasks run again on a retry', { n: r.n, entries: (r.value as Entry[]).length });
      marker(s);
      break;
    case 'marker-set':
      if (resp.error !== undefined) {
        s.log('marker write failed', { error: resp.error });
        if (cfg.markerFailureFails) s.set({ markerFailed: true });
      }
      conclude(s);
      break;
    default:
      return;
  }
}
