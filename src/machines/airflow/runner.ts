// The runner (scheduler): starts tries, retries UP_FOR_RETRY while tries remain,
// reruns after a clear, and lets retention cleanup remove keys between tries.
import { enqueueActions, setup } from 'xstate';
import { send } from '../../actors/index.ts';
import { tsCleanup, tsClear } from '../../storage/messages.ts';
import { SCOPE } from './api.ts';
import { batchKey, type AirflowConfig } from './config.ts';

export interface RunnerCtx {
  /** The try last started (0 before the first). */
  readonly a: number;
  readonly final: string | null;
  readonly cleared: boolean;
  /** End state of each try, '' while unknown, 'killed' after a hard kill. */
  readonly history: readonly string[];
  /** The process running the last try ('task', or 'task2' with two processes): its retries go there too. */
  readonly proc: string;
  /** With the lease: the newest token a Hello carried. A Hello with an older one comes from a process whose lease was taken over since: the try count is fenced like a write. */
  readonly token: number;
  /**
   * With the lease: a retry (or a rerun after a clear) asked of the last try's process.
   * Like any process it takes the lease and says Hello first, and the try is counted
   * then, for whichever process holds the lease by that time.
   */
  readonly relaunch: { readonly afterClear: boolean } | null;
}

/** The runner/scheduler: starts tries, retries UP_FOR_RETRY while tries remain, clears XComs before each try. */
export function runnerMachine(cfg: AirflowConfig) {
  const housekeeping = (n: number): readonly number[] | null => (cfg.deleteKeys.length > 0 && n === cfg.deleteBeforeTry ? cfg.deleteKeys : null);
  // With the lease, a Start names the token of the Hello it answers: a process runs it only under that lease.
  const launch = (enqueue: any, to: string, n: number, afterClear: boolean, token: number): void => {
    enqueue(send(to, { type: 'Start', a: n, ...(afterClear ? { afterClear } : {}), ...(cfg.lease ? { token } : {}) }));
    if (cfg.softKill !== 'none' && n === cfg.softKillTry) enqueue(send(to, { type: 'SigTerm', a: n, kind: cfg.softKill }));
  };
  /** Starts try n in process `to` (the one that said Hello, or the last try's for a retry). */
  const startTry = (enqueue: any, context: RunnerCtx, to: string, n: number, last: string | null, extra: Partial<RunnerCtx> = {}, token = context.token): void => {
    const history = last === null ? [...context.history, ''] : [...context.history.slice(0, -1), last, ''];
    enqueue.assign({ ...extra, a: n, history, ...(to === context.proc ? {} : { proc: to }) });
    const keys = housekeeping(n);
    // Retention cleanup from outside (F10), between tries.
    if (keys !== null) enqueue(send('supervisor', tsCleanup({ scope: SCOPE, keys: keys.map(batchKey) })));
    else launch(enqueue, to, n, extra.cleared === true, token);
  };
  const finish = (enqueue: any, context: RunnerCtx, last: string, final: string): void => {
    enqueue.assign({ history: [...context.history.slice(0, -1), last], final });
  };
  /** After try a ended `last`: the next try, at once, or with the lease once a process holds it and says Hello. */
  const retry = (enqueue: any, context: RunnerCtx, last: string, cleared: boolean): void => {
    const extra = cleared ? { cleared: true } : {};
    if (!cfg.lease) return startTry(enqueue, context, context.proc, context.a + 1, last, extra);
    enqueue.assign({ ...extra, history: [...context.history.slice(0, -1), last], relaunch: { afterClear: cleared } });
    enqueue(send(context.proc, { type: 'Relaunch' }));
  };
  return setup({
    types: {} as { context: RunnerCtx; events: { type: 'Hello'; p?: string; token?: number } | { type: 'End'; a: number; state: string } | { type: 'ts.cleanup.ok' } | { type: 'ts.clear.ok' } },
  }).createMachine({
    id: 'runner',
    // A resumed run starts after the tries already past (their ends unknown: '').
    context: { a: cfg.resumeTry - 1, final: null, cleared: false, history: Array.from({ length: cfg.resumeTry - 1 }, () => ''), proc: 'task', token: 0, relaunch: null },
    initial: 'running',
    states: {
      running: {
        always: { guard: ({ context }) => context.final !== null, target: 'done' },
        on: {
          Hello: {
            actions: enqueueActions(({ context, event, enqueue }) => {
              // A second process names itself in its Hello.
              const to = event.p ?? 'task';
              const token = event.token ?? 0;
              if (token < context.token) return;
              if (token > context.token) enqueue.assign({ token });
              if (context.a === 0) return startTry(enqueue, context, to, 1, null, {}, token);
              if (context.relaunch !== null) return startTry(enqueue, context, to, context.a + 1, null, { relaunch: null, ...(context.relaunch.afterClear ? { cleared: true } : {}) }, token);
              // The previous process died without an End (a hard kill), or, to the scheduler, is a zombie a second process replaces.
              if (context.a < cfg.tries) return startTry(enqueue, context, to, context.a + 1, 'killed', {}, token);
              finish(enqueue, context, 'killed', 'failed');
            }),
          },
          End: {
            actions: enqueueActions(({ context, event, enqueue }) => {
              if (event.a !== context.a) return;
              const ok = event.state === 'success' || event.state === 'skipped';
              if (ok && cfg.clear !== 'none' && !context.cleared) {
                if (cfg.clear === 'discard') enqueue(send('supervisor', tsClear(SCOPE)));
                return retry(enqueue, context, event.state, true);
              }
              if (event.state === 'up_for_retry' && context.a < cfg.tries) return retry(enqueue, context, event.state, false);
              finish(enqueue, context, event.state, event.state === 'up_for_retry' ? 'failed' : event.state);
            }),
          },
          'ts.cleanup.ok': { actions: enqueueActions(({ context, enqueue }) => launch(enqueue, context.proc, context.a, false, context.token)) },
          'ts.clear.ok': {},
        },
      },
      // The task instance reached its final state; a late Hello (a kill after the end) changes nothing.
      done: { on: { Hello: {}, End: {}, 'ts.clear.ok': {} } },
    },
  });
}
