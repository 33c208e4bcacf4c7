// The actors around the task process: operator slots, the supervisor relaying
// requests to the API, and the runner (scheduler) deciding retries.
import { enqueueActions, setup } from 'xstate';
import { send } from '../../actors/index.ts';
import type { ReducerLogic } from '../../actors/index.ts';
import { tsCleanup, tsClear, tsGet, tsSet } from '../../storage/messages.ts';
import { batchKey, type AirflowConfig, type Entry } from './config.ts';
import { mset, pmap, type PMap } from './pstore.ts';

/** One worker slot of the pool: runs an index's operator and reports its scripted outcome. */
export const operatorMachine = setup({
  types: {} as { events: { type: 'Run'; a: number; i: number; o: string } },
}).createMachine({
  id: 'operator',
  on: { Run: { actions: send('task', ({ event }: any) => ({ type: 'RunEnd', a: event.a, i: event.i, o: event.o })) } },
});

/**
 * The supervisor (parent process): one synchronous API call per request frame,
 * one response frame back. It relays the Airflow request frames to the task
 * state store of src/storage (`ts.*`, values serialised as JSON) and to the XCom
 * table. It outlives a killed child, so a request it already received completes
 * (O6) and its response finds no one (or a later try, which ignores it).
 */
export function supervisorMachine(cfg: AirflowConfig) {
  const pad = 'x'.repeat(Math.max(0, cfg.entryBytes - 40));
  const serialize = (v: unknown): string => JSON.stringify(Array.isArray(v) ? v.map((e: Entry) => ({ i: e.i, s: e.s, t: e.t, r: pad })) : v);
  const parse = (text: string): unknown => {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.map((e: any): Entry => ({ i: e.i, s: e.s, t: e.t })) : v;
  };
  const corr = (req: unknown): { a: number; rid: number } => {
    const [a, rid] = String(req).split(':').map(Number);
    return { a: a!, rid: rid! };
  };
  return setup({ types: {} as { events: { type: string; [k: string]: any } } }).createMachine({
    id: 'supervisor',
    on: {
      GetTaskStateStore: { actions: send('store', ({ event }: any) => tsGet(SCOPE, event.key, `${event.a}:${event.rid}`)) },
      SetTaskStateStore: { actions: send('store', ({ event }: any) => tsSet(SCOPE, event.key, serialize(event.value), null, `${event.a}:${event.rid}`)) },
      SetXCom: { actions: send('xcom', ({ event }: any) => ({ type: 'xcom.set', req: `${event.a}:${event.rid}`, key: event.key, a: event.a })) },
      'ts.get.ok': {
        actions: send('task', ({ event }: any) =>
          event.found ? { type: 'TaskStateStoreResult', ...corr(event.req), value: parse(event.value) } : { type: 'ErrorResponse', ...corr(event.req), error: 'TASK_STORE_NOT_FOUND' },
        ),
      },
      'ts.set.ok': { actions: send('task', ({ event }: any) => ({ type: 'OKResponse', ...corr(event.req) })) },
      'xcom.set.ok': { actions: send('task', ({ event }: any) => ({ type: 'OKResponse', ...corr(event.req) })) },
      'ts.get.error': { actions: send('task', ({ event }: any) => ({ type: 'ErrorResponse', ...corr(event.req), error: String(event.code) })) },
      'ts.set.error': { actions: send('task', ({ event }: any) => ({ type: 'ErrorResponse', ...corr(event.req), error: String(event.code) })) },
    },
  });
}

/** The task instance's scope in the task state store: the parent TI (checkpoint keys are unsuffixed). */
export const SCOPE = { dagId: 'dag', runId: 'run', taskId: 'iterable', mapIndex: -1 } as const;

export interface XComState {
  readonly a: number;
  readonly keys: PMap<number>;
}

/** The XCom table (return_value_<i> per index), cleared by the runner before each try. */
export const xcomTable: ReducerLogic<XComState> = {
  kind: 'reducer',
  init: () => ({ a: 0, keys: pmap<number>() }),
  receive(state, msg, ctx) {
    if (msg.type === 'ClearXComs') return { state: { a: msg.a as number, keys: pmap<number>() } };
    if (msg.type !== 'xcom.set') return { state, unhandled: true };
    return {
      state: { a: state.a, keys: mset(state.keys, msg.key as string, msg.a as number) },
      send: [{ to: ctx.from, msg: { type: 'xcom.set.ok', req: msg.req } }],
      events: [{ kind: 'io', actor: ctx.self, op: 'xcom.set', key: msg.key as string, outcome: 'ok' }],
    };
  },
};

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
  const launch = (enqueue: any, n: number): void => {
    enqueue(send('task', { type: 'Start', a: n }));
    if (cfg.softKill !== 'none' && n === cfg.softKillTry) enqueue(send('task', { type: 'SigTerm', a: n, kind: cfg.softKill }));
  };
  const startTry = (enqueue: any, context: RunnerCtx, n: number, last: string | null, extra: Partial<RunnerCtx> = {}): void => {
    const history = last === null ? [...context.history, ''] : [...context.history.slice(0, -1), last, ''];
    enqueue.assign({ ...extra, a: n, history });
    enqueue(send('xcom', { type: 'ClearXComs', a: n }));
    const keys = housekeeping(n);
    // Retention cleanup from outside (F10), between tries.
    if (keys !== null) enqueue(send('store', tsCleanup({ scope: SCOPE, keys: keys.map(batchKey) })));
    else launch(enqueue, n);
  };
  const finish = (enqueue: any, context: RunnerCtx, last: string, final: string): void => {
    enqueue.assign({ history: [...context.history.slice(0, -1), last], final });
  };
  return setup({
    types: {} as { context: RunnerCtx; events: { type: 'Hello' } | { type: 'End'; a: number; state: string } | { type: 'ts.cleanup.ok' } | { type: 'ts.clear.ok' } },
  }).createMachine({
    id: 'runner',
    context: { a: 0, final: null, cleared: false, history: [] },
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
                if (cfg.clear === 'discard') enqueue(send('store', tsClear(SCOPE)));
                return startTry(enqueue, context, context.a + 1, event.state, { cleared: true });
              }
              if (event.state === 'up_for_retry' && context.a < cfg.tries) return startTry(enqueue, context, context.a + 1, event.state);
              finish(enqueue, context, event.state, event.state === 'up_for_retry' ? 'failed' : event.state);
            }),
          },
          'ts.cleanup.ok': { actions: enqueueActions(({ context, enqueue }) => launch(enqueue, context.a)) },
          'ts.clear.ok': {},
        },
      },
      // The task instance reached its final state; a late Hello (a kill after the end) changes nothing.
      done: { on: { Hello: {}, End: {}, 'ts.clear.ok': {} } },
    },
  });
}
