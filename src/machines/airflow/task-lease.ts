// The task process's side of the lease (lease.ts has the store's): a process asks
// for the lease before it says Hello, waits while another process holds it (the
// chart's `idle.waiting`, an after-timer, then a poll naming the lease it waited
// out, which may then be taken over), runs
// its try with the token it was granted (Step.wire puts it on every write), gives
// the lease up at its end (task-close.ts), and stops at once when a write comes back
// LeaseLost: another process took its lease over, as the live example exits 75.
import type { AirflowConfig } from './config.ts';
import { IDLE } from './channel.ts';
import { runTimer } from './task-loop.ts';
import { Step, type Out, type Resp, type TaskCtx } from './task-ctx.ts';

/** A (re)started process's first message: Hello to the runner (which names a second process), or with the lease, its request. */
export function firstMessage(cfg: AirflowConfig, id: string): Out {
  if (cfg.lease) return { to: 'supervisor', msg: { type: 'AcquireLease' } };
  return { to: 'runner', msg: hello(id, 0) };
}

/** Hello, naming a second process, and with the lease the token (the runner ignores a Hello whose lease was taken over since). */
const hello = (id: string, token: number) => ({ type: 'Hello', ...(id === 'task' ? {} : { p: id }), ...(token === 0 ? {} : { token }) });

/** A Start is run only under the lease whose Hello it answers (with the lease): one for a dead predecessor's Hello (same actor, restarted) is not. */
export function startsHere(c: TaskCtx, cfg: AirflowConfig, e: { token?: number }): boolean {
  return !cfg.lease || (c.lease !== 0 && e.token === c.lease);
}

/** The lease is this process's: it says Hello and the runner counts its try. */
export function onGranted(c: TaskCtx, id: string, token: number): { c: TaskCtx; out: Out[] } {
  return { c: { ...c, lease: token }, out: [{ to: 'runner', msg: hello(id, token) }] };
}

/** The wait is over: poll again, naming the lease waited out (the store lets the poll take it over if it is still that one). */
export function poll(c: TaskCtx): Out {
  return { to: 'supervisor', msg: { type: 'AcquireLease', after: c.waitedOn } };
}

/**
 * A write came back LeaseLost: another process took the lease over. The process
 * stops at once (its operators are cancelled, nothing more is written) and reports
 * no end to the runner: the try is the new holder's now.
 */
export function onLeaseLost(c: TaskCtx, cfg: AirflowConfig): { c: TaskCtx; out: Out[] } {
  const s = new Step(c, cfg);
  for (const x of c.co) if (x.stage === 'run') s.out.push({ to: 'self', msg: { type: 'Cancel' }, cancel: runTimer(c.a, x.i) });
  s.emit({ type: 'LeaseLost', a: c.a, token: c.lease });
  s.set({ co: [], ch: IDLE, lease: 0 });
  return s.done();
}

/** The response is the store refusing this try's write: its lease was taken over. */
export function isLeaseLost(c: TaskCtx, resp: Resp): boolean {
  return resp.error === 'LeaseLost' && resp.a === c.a && c.ch.holder !== null;
}
