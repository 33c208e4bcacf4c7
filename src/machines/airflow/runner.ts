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
}

/** The runner/scheduler: starts tries, retries UP_FOR_RETRY while tries remain, clears XComs before each try. */
export function runnerMachine(cfg: AirflowConfig) {
  const housekeeping = (n: number): readonly number[] | null => (cfg.deleteKeys.length > 0 && n === cfg.deleteBeforeTry ? cfg.deleteKeys : null);
  const launch = (enqueue: any, n: number, afterClear: boolean): void => {
    enqueue(send('task', afterClear ? { type: 'Start', a: n, afterClear } : { type: 'Start', a: n }));
    if (cfg.softKill !== 'none' && n === cfg.softKillTry) enqueue(send('task', { type: 'SigTerm', a: n, kind: cfg.softKill }));
  };
  const startTry = (enqueue: any, context: RunnerCtx, n: number, last: string | null, extra: Partial<RunnerCtx> = {}): void => {
    const history = last === null ? [...context.history, ''] : [...context.history.slice(0, -1), last, ''];
    enqueue.assign({ ...extra, a: n, history });
    const keys = housekeeping(n);
    // Retention cleanup from outside (F10), between tries.
    if (keys !== null) enqueue(send('supervisor', tsCleanup({ scope: SCOPE, keys: keys.map(batchKey) })));
    else launch(enqueue, n, extra.cleared === true);
  };
  const finish = (enqueue: any, context: RunnerCtx, last: string, final: string): void => {
    enqueue.assign({ history: [...context.history.slice(0, -1), last], final });
  };
  return setup({
    types: {} as { context: RunnerCtx; events: { type: 'Hello' } | { type: 'End'; a: number; state: string } | { type: 'ts.cleanup.ok' } | { type: 'ts.clear.ok' } },
  }).createMachine({
    id: 'runner',
    // A resumed run starts after the tries already past (their ends unknown: '').
    context: { a: cfg.resumeTry - 1, final: null, cleared: false, history: Array.from({ length: cfg.resumeTry - 1 }, () => '') },
    initial: 'running',
    states: {
      running: {
        always: { guard: ({ context }) => context.final !== null, target: 'done' },
        on: {
          Hello: {
            actions: enqueueActions(({ context, enqueue }) => {
              if (context.a === 0) return startTry(enqueue, context, 1, null);
              // The previous process died without an End: a hard kill of that try.
              if (context.a < cfg.tries) return startTry(enqueue, context, context.a + 1, 'killed');
              finish(enqueue, context, 'killed', 'failed');
            }),
          },
          End: {
            actions: enqueueActions(({ context, event, enqueue }) => {
              if (event.a !== context.a) return;
              const ok = event.state === 'success' || event.state === 'skipped';
              if (ok && cfg.clear !== 'none' && !context.cleared) {
                if (cfg.clear === 'discard') enqueue(send('supervisor', tsClear(SCOPE)));
                return startTry(enqueue, context, context.a + 1, event.state, { cleared: true });
              }
              if (event.state === 'up_for_retry' && context.a < cfg.tries) return startTry(enqueue, context, context.a + 1, event.state);
              finish(enqueue, context, event.state, event.state === 'up_for_retry' ? 'failed' : event.state);
            }),
          },
          'ts.cleanup.ok': { actions: enqueueActions(({ context, enqueue }) => launch(enqueue, context.a, false)) },
          'ts.clear.ok': {},
        },
      },
      // The task instance reached its final state; a late Hello (a kill after the end) changes nothing.
      done: { on: { Hello: {}, End: {}, 'ts.clear.ok': {} } },
    },
  });
}
