// The task process's side of the lease (lease.ts has the store's): a process asks
// for the lease before it says Hello, waits while another process holds it (a timer,
// then a poll naming the lease it waited out, which may then be taken over), runs
// its try with the token it was granted (Step.wire puts it on every write), gives
// the lease up at its end (task-close.ts), and stops at once when a write comes back
// LeaseLost: another process took its lease over, as the live example exits 75.
import type { AirflowConfig } from './config.ts';
import { IDLE } from './channel.ts';
import { runTimer } from './task-loop.ts';
import { onStart } from './checkpoint-reader.ts';
import { Step, type Out, type TaskCtx } from './task-ctx.ts';

/** The timer of a process waiting for the lease: it polls again when it ends. */
export const LEASE_WAIT = 'lease-wait';

/** A (re)started process's first message: Hello to the runner (which names a second process), or with the lease, its request. */
export function firstMessage(cfg: AirflowConfig, id: string): Out {
  if (cfg.lease) return { to: 'supervisor', msg: { type: 'AcquireLease' } };
  return { to: 'runner', msg: hello(id, 0) };
}

/** Hello, naming a second process, and with the lease the token (the runner ignores a Hello whose lease was taken over since). */
const hello = (id: string, token: number) => ({ type: 'Hello', ...(id === 'task' ? {} : { p: id }), ...(token === 0 ? {} : { token }) });

/**
 * The runner started a try. With the lease, only under the lease whose Hello it
 * answers: a Start for a dead predecessor's Hello (same actor, restarted) is not run.
 */
export function onStartTry(c: TaskCtx, cfg: AirflowConfig, e: { a: number; afterClear?: boolean; token?: number }): { c: TaskCtx; out: Out[] } {
  if (cfg.lease && (c.lease === 0 || e.token !== c.lease)) return { c, out: [] };
  return onStart(c, cfg, e.a, e.afterClear === true);
}

/** The runner asks for a retry (with the lease, each try is a new process): take the lease again first. */
export function onRelaunch(c: TaskCtx): { c: TaskCtx; out: Out[] } {
  if (c.lease !== 0) return { c, out: [] };
  return { c, out: [{ to: 'supervisor', msg: { type: 'AcquireLease' } }] };
}

/** The lease is this process's: it says Hello and the runner counts its try. A second grant (one its dead predecessor asked for) changes nothing. */
export function onGranted(c: TaskCtx, id: string, token: number): { c: TaskCtx; out: Out[] } {
  if (c.lease !== 0) return { c, out: [] };
  return { c: { ...c, lease: token }, out: [{ to: 'runner', msg: hello(id, token) }] };
}

/** Another process holds the lease: wait (a timer), then poll naming the lease waited out. */
export function onHeld(c: TaskCtx, token: number): { c: TaskCtx; out: Out[] } {
  if (c.lease !== 0) return { c, out: [] };
  return { c, out: [{ to: 'self', msg: { type: 'LeaseWaitOver', token }, delay: 0, id: LEASE_WAIT }] };
}

export function onWaitOver(c: TaskCtx, token: number): { c: TaskCtx; out: Out[] } {
  if (c.lease !== 0) return { c, out: [] };
  return { c, out: [{ to: 'supervisor', msg: { type: 'AcquireLease', after: token } }] };
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
  s.set({ phase: 'exited', co: [], ch: IDLE, lease: 0 });
  return { c: s.c, out: s.out };
}
