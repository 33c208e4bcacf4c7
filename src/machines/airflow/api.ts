// The supervisor (parent process) with the API server behind it: one synchronous
// API call per request frame (O2), one response frame back. The call lands in the
// task state store of src/storage (its `taskStateStore` reducer, wrapped here) or
// in the XCom table, inside the same step, so a request is two deliveries (frame
// in, frame out). The supervisor outlives a killed child: a request it already
// received completes (O6), and its response finds no one, or a later try, which
// ignores it by try number.
//
// The wrap: Airflow frames become `ts.*` requests (values serialised as JSON, the
// byte sizes the store checks). For long simulations (`storeShards` > 1) the rows
// are kept in shards by key, each a `TaskStateState` of the storage reducer, so a
// write copies one shard's rows instead of all of them (16,194 per-index keys would
// otherwise make the simulation quadratic). Keys are independent, so sharding
// changes no answer; with one shard (the default) `ts` is the store's own state.
import type { Message, ReducerLogic } from '../../actors/index.ts';
import type { TaskStateState } from '../../storage/task-state.ts';
import { tsGet, tsSet, type TaskScope } from '../../storage/messages.ts';
import type { AirflowConfig, Entry } from './config.ts';
import { mset, pmap, type PMap } from './pstore.ts';
import { NO_LEASE, fenced, onLease, type LeaseState } from './lease.ts';

/** The task instance's scope in the task state store: the parent TI (checkpoint keys are unsuffixed). */
export const SCOPE: Readonly<TaskScope> = { dagId: 'dag', runId: 'run', taskId: 'iterable', mapIndex: -1 };

/** The shard of `count` holding a key. */
export function shardOf(key: string, count: number): number {
  if (count <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % count;
}

/**
 * The XCom table (return_value_<i> per index, with the try that pushed it). The
 * runner deletes a TI's XComs before each try; here the first frame of a newer try
 * drops the older ones: before that try pushes or ends, as the runner's deletion,
 * and without an extra step. (Deleting them only at its first push kept a dead try's
 * XComs through the retry's reads: one more state per subset of them.)
 */
export interface XComState {
  readonly a: number;
  readonly keys: PMap<number>;
}

export interface ApiState {
  /** The task state store (the only shard when unsharded). */
  readonly ts: TaskStateState;
  /** All shards when sharded, else null. */
  readonly shards: readonly TaskStateState[] | null;
  readonly xcom: XComState;
  /** The task's lease (lease.ts), or null when the model has none. */
  readonly lease: LeaseState | null;
}

/** Every shard of the store. */
export function shardsOf(s: ApiState): readonly TaskStateState[] {
  return s.shards ?? [s.ts];
}

function withShard(s: ApiState, k: number, st: TaskStateState): ApiState {
  if (s.shards === null) return { ...s, ts: st };
  const shards = s.shards.slice();
  shards[k] = st;
  return { ...s, shards };
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
  const count = Math.max(1, cfg.storeShards);
  return {
    kind: 'reducer',
    init: () => {
      const empty = store.init(undefined);
      let s: ApiState = { ts: empty, shards: count > 1 ? Array.from({ length: count }, () => empty) : null, xcom: { a: 0, keys: pmap<number>() }, lease: cfg.lease ? NO_LEASE : null };
      // A resumed run: the rows it found, written through the store itself (same ids, sizes, format).
      for (const [key, value] of Object.entries(cfg.resumeRows)) {
        const k = shardOf(key, count);
        const r = store.receive(shardsOf(s)[k]!, tsSet(SCOPE, key, serialize(value), null), { self: 'supervisor', from: 'supervisor', outcome: undefined, now: 0 });
        s = withShard(s, k, r.state);
      }
      return s;
    },
    faultOutcomes(state, msg, from) {
      const m = toStore(msg);
      if (m === undefined || typeof m.key !== 'string') return [];
      return store.faultOutcomes?.(shardsOf(state)[shardOf(m.key, count)]!, m, from) ?? [];
    },
    receive(state, msg, ctx) {
      if (state.lease !== null) {
        const l = onLease(state.lease, msg, ctx.from, ctx.self);
        if (l) return { state: l.lease === state.lease ? state : { ...state, lease: l.lease }, send: l.send, events: l.events };
        // Fencing: the write of a process whose lease was taken over changes nothing.
        if (cfg.fencing && fenced(state.lease, msg)) {
          return {
            state,
            send: [{ to: ctx.from, msg: { type: 'ErrorResponse', a: msg.a, rid: msg.rid, error: 'LeaseLost' } }],
            events: [{ kind: 'io', actor: ctx.self, op: 'lease.fenced', key: msg.key as string, outcome: 'refused', detail: { token: msg.token, current: state.lease.token } }],
          };
        }
      }
      // A newer try's first frame: its XComs were deleted before it started (XComState).
      if (typeof msg.a === 'number' && msg.a > state.xcom.a && (msg.type === 'SetXCom' || toStore(msg) !== undefined)) {
        state = { ...state, xcom: { a: msg.a, keys: pmap<number>() } };
      }
      if (msg.type === 'SetXCom') {
        const a = msg.a as number;
        return {
          state: { ...state, xcom: { a: state.xcom.a, keys: mset(state.xcom.keys, msg.key as string, a) } },
          send: [{ to: ctx.from, msg: { type: 'OKResponse', a, rid: msg.rid } }],
          events: [{ kind: 'io', actor: ctx.self, op: 'xcom.set', key: msg.key as string, outcome: 'ok' }],
        };
      }
      const m = toStore(msg);
      if (m === undefined) return { state, unhandled: true };
      if (typeof m.key !== 'string') {
        // clear / cleanup: every shard, one reply with the total removed.
        let deleted = 0;
        let next = state;
        shardsOf(state).forEach((sh, k) => {
          const r = store.receive(sh, m, ctx);
          deleted += Number(r.send?.[0]?.msg.deleted ?? 0);
          if (r.state !== sh) next = withShard(next, k, r.state);
        });
        const reply = { type: `${m.type}.ok`, deleted, ...(m.req === undefined ? {} : { req: m.req }) };
        return { state: next, send: [{ to: ctx.from, msg: reply }], events: [{ kind: 'io', actor: ctx.self, op: m.type, outcome: 'ok' }] };
      }
      const k = shardOf(m.key, count);
      const shard = shardsOf(state)[k]!;
      const r = store.receive(shard, m, ctx);
      if (r.unhandled) return { state, unhandled: true };
      const reply = r.send?.[0]?.msg;
      const fromTask = !msg.type.startsWith('ts.');
      const send = reply === undefined ? [] : [{ to: ctx.from, msg: fromTask ? toFrame(reply, msg.a as number, msg.rid as number) : reply }];
      return { state: r.state === shard ? state : withShard(state, k, r.state), send, events: r.events ?? [] };
    },
  };
}
