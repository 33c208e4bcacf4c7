// The actors around the task process: the supervisor relaying requests to the
// API (task state store, XCom table), and the runner (scheduler) deciding retries.
import { enqueueActions, setup } from 'xstate';
import { send } from '../../actors/index.ts';
import type { Message, ReducerLogic } from '../../actors/index.ts';
import type { TaskStateState } from '../../storage/task-state.ts';
import { tsCleanup, tsClear, tsGet, tsSet } from '../../storage/messages.ts';
import { batchKey, type AirflowConfig, type Entry } from './config.ts';
import { mset, pmap, type PMap } from './pstore.ts';

/**
 * The supervisor (parent process) with the API server behind it: one synchronous
 * API call per request frame (O2), one response frame back. The call lands in the
 * task state store of src/storage (its `taskStateStore` reducer, wrapped here:
 * `ts.*` requests, values serialised as JSON) or in the XCom table, inside the
 * same step, so each request is two deliveries (frame in, frame out). The
 * supervisor outlives a killed child: a request it already received completes
 * (O6) and its response finds no one, or a later try, which ignores it.
 */
export interface ApiState {
  readonly ts: TaskStateState;
  readonly xcom: XComState;
}

export function supervisorApi(cfg: AirflowConfig, store: ReducerLogic<TaskStateState>): ReducerLogic<ApiState> {
  const pad = 'x'.repeat(Math.max(0, cfg.entryBytes - 40));
  const serialize = (v: unknown): string => JSON.stringify(Array.isArray(v) ? v.map((e: Entry) => ({ i: e.i, s: e.s, t: e.t, r: pad })) : v);
  const parse = (text: string): unknown => {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.map((e: any): Entry => ({ i: e.i, s: e.s, t: e.t })) : v;
  };
  /** The storage request a frame becomes. */
  const toStore = (m: Message): Message | undefined =>
    m.type === 'GetTaskStateStore' ? tsGet(SCOPE, m.key as string, `${m.a}:${m.rid}`)
    : m.type === 'SetTaskStateStore' ? tsSet(SCOPE, m.key as string, serialize(m.value), null, `${m.a}:${m.rid}`)
    : m.type.startsWith('ts.') ? m
    : undefined;
  /** The response frame a storage reply becomes. */
  const toFrame = (m: Message, a: number, rid: number): Message => {
    if (m.type === 'ts.get.ok') return m.found ? { type: 'TaskStateStoreResult', a, rid, value: parse(m.value as string) } : { type: 'ErrorResponse', a, rid, error: 'TASK_STORE_NOT_FOUND' };
    if (m.type.endsWith('.error')) return { type: 'ErrorResponse', a, rid, error: String(m.code) };
    return { type: 'OKResponse', a, rid };
  };
  return {
    kind: 'reducer',
    init: () => ({ ts: store.init(undefined), xcom: { a: 0, keys: pmap<number>() } }),
    faultOutcomes(state, msg, from) {
      const m = toStore(msg);
      return m === undefined ? [] : (store.faultOutcomes?.(state.ts, m, from) ?? []);
    },
    receive(state, msg, ctx) {
      if (msg.type === 'SetXCom') {
        const a = msg.a as number;
        const keys = a > state.xcom.a ? pmap<number>() : state.xcom.keys;
        return {
          state: { ts: state.ts, xcom: { a: Math.max(a, state.xcom.a), keys: mset(keys, msg.key as string, a) } },
          send: [{ to: ctx.from, msg: { type: 'OKResponse', a, rid: msg.rid } }],
          events: [{ kind: 'io', actor: ctx.self, op: 'xcom.set', key: msg.key as string, outcome: 'ok' }],
        };
      }
      const m = toStore(msg);
      if (m === undefined) return { state, unhandled: true };
      const r = store.receive(state.ts, m, ctx);
      if (r.unhandled) return { state, unhandled: true };
      const reply = r.send?.[0]?.msg;
      const fromTask = !msg.type.startsWith('ts.');
      const send = reply === undefined ? [] : [{ to: ctx.from, msg: fromTask ? toFrame(reply, msg.a as number, msg.rid as number) : reply }];
      return { state: r.state === state.ts ? state : { ts: r.state, xcom: state.xcom }, send, events: r.events ?? [] };
    },
  };
}

/** The task instance's scope in the task state store: the parent TI (checkpoint keys are unsuffixed). */
export const SCOPE = { dagId: 'dag', runId: 'run', taskId: 'iterable', mapIndex: -1 } as const;

/**
 * The XCom table (return_value_<i> per index, with the try that pushed it). The
 * runner deletes a TI's XComs before each try; here a push of a newer try drops
 * the older ones, which is the same for every reader and costs no extra step.
 */
export interface XComState {
  readonly a: number;
  readonly keys: PMap<number>;
}

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
