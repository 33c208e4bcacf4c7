// The simulated Airflow task state store (docs/airflow.md):
// key/value rows scoped by (dag id, run id, task id, map index). Two backends:
// - `database`: rows with `expiresAt`; a value over `maxValueStorageBytes` logs a
//   warning and is written; one over `rowCapBytes` (MySQL MEDIUMTEXT) fails;
//   `ts.cleanup { before }` removes expired rows;
// - `object-storage`: each value is an object at `<base>/<dag>/<run>/<task>/<mapIndex>/<key>`;
//   `expiresAt` is carried but not applied (bucket lifecycle rules decide); no size
//   warning (the database holds only a reference); a missing object reads as none.
import type { ReducerContext, ReducerLogic, ReducerResult } from '../actors/scenario.ts';
import type { Message, TraceEvent } from '../actors/types.ts';
import { NONE, ioEvent, offered, without } from './common.ts';
import { keyProblem } from './keys.ts';
import {
  DEFAULT_MAX_VALUE_STORAGE_BYTES,
  ErrorCode,
  MYSQL_MEDIUMTEXT_BYTES,
  errorReply,
  type TaskScope,
  type TaskStateBackend,
  type TaskStateFault,
  type TaskStateOptions,
  type TsRequest,
} from './messages.ts';

/** One stored task state value. */
export interface TaskStateRow {
  /** The value, as stored. */
  readonly value: string;
  /** Database backend: when the row may be cleaned up (`null`: never). Object backend: always null. */
  readonly expiresAt: number | null;
  /** Its size in bytes (UTF-8). */
  readonly bytes: number;
}

/** The task state store's rows. */
export interface TaskStateState {
  /** By row id: `scopeRowId(scope, key)` (database) or the object path (object storage). */
  readonly rows: Readonly<Record<string, TaskStateRow>>;
}

/** The task state store's options with defaults filled in (`taskStateConfig`). */
export interface TaskStateConfig {
  /** `database` or `object-storage`. */
  readonly backend: TaskStateBackend;
  /** Database: a value larger than this logs a warning (and is written), bytes. */
  readonly maxValueStorageBytes: number;
  /** Database: a value larger than this fails with `ValueTooLarge`, bytes. */
  readonly rowCapBytes: number;
  /** Object storage: the key prefix of the values. */
  readonly base: string;
}

/** The options with defaults: database backend, a warning over 65,535 bytes, MySQL MEDIUMTEXT's row cap (16 MiB − 1), base `state`. */
export function taskStateConfig(opts: TaskStateOptions = {}): TaskStateConfig {
  const cfg = {
    backend: opts.backend ?? 'database',
    maxValueStorageBytes: opts.maxValueStorageBytes ?? DEFAULT_MAX_VALUE_STORAGE_BYTES,
    rowCapBytes: opts.rowCapBytes ?? MYSQL_MEDIUMTEXT_BYTES,
    base: opts.base ?? 'state',
  };
  if (cfg.backend !== 'database' && cfg.backend !== 'object-storage') throw new Error(`task state store: backend must be 'database' or 'object-storage', got '${String(cfg.backend)}'`);
  const bp = keyProblem(cfg.base);
  if (bp !== undefined) throw new Error(`task state store: base: ${bp}`);
  return cfg;
}

/** Why `scope` is not a valid task scope, or `undefined`. */
export function scopeProblem(scope: unknown): string | undefined {
  if (typeof scope !== 'object' || scope === null) return 'a request needs `scope: { dagId, runId, taskId, mapIndex }`';
  const s = scope as Record<string, unknown>;
  for (const f of ['dagId', 'runId', 'taskId'] as const) {
    if (typeof s[f] !== 'string' || (s[f] as string).length === 0) return `scope.${f} must be a non-empty string`;
  }
  if (!Number.isInteger(s.mapIndex) || (s.mapIndex as number) < -1) return 'scope.mapIndex must be a whole number >= -1 (-1 for an unmapped task)';
  return undefined;
}

/** The object key of a value in the object-storage backend: `<base>/<dag>/<run>/<task>/<mapIndex>/<key>`. */
export function taskStateObjectKey(base: string, scope: TaskScope, key: string): string {
  return `${base}/${scope.dagId}/${scope.runId}/${scope.taskId}/${scope.mapIndex}/${key}`;
}

/** The prefix of every object of a scope (object-storage backend). */
export function taskStateObjectPrefix(base: string, scope: TaskScope): string {
  return `${base}/${scope.dagId}/${scope.runId}/${scope.taskId}/${scope.mapIndex}/`;
}

/** A database row id: exact (no separator can collide), readable in traces. */
export function scopeRowId(scope: TaskScope, key: string): string {
  return JSON.stringify([scope.dagId, scope.runId, scope.taskId, scope.mapIndex, key]);
}

function scopeRowPrefix(scope: TaskScope): string {
  const id = JSON.stringify([scope.dagId, scope.runId, scope.taskId, scope.mapIndex]);
  return `${id.slice(0, -1)},`;
}

/** The UTF-8 size of a value: what the size checks measure. */
export function valueBytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** The row id of (scope, key) under this backend, or a problem. */
export function rowIdOf(cfg: TaskStateConfig, scope: TaskScope, key: string): { id: string } | { problem: string } {
  if (cfg.backend === 'database') return { id: scopeRowId(scope, key) };
  const path = taskStateObjectKey(cfg.base, scope, key);
  const p = keyProblem(path);
  return p === undefined ? { id: path } : { problem: `object path for this scope and key: ${p}` };
}

function prefixOf(cfg: TaskStateConfig, scope: TaskScope): string {
  return cfg.backend === 'database' ? scopeRowPrefix(scope) : taskStateObjectPrefix(cfg.base, scope);
}

const WRITES = new Set(['ts.set', 'ts.delete', 'ts.clear']);
const WRITE_FAULTS: readonly TaskStateFault[] = ['fail', 'ambiguous'];
const READ_FAULTS: readonly TaskStateFault[] = ['fail', 'vanished'];
const DEFAULT_FAULTS: readonly TaskStateFault[] = ['fail', 'ambiguous', 'vanished'];

/** A size warning as a `log` trace event (the write proceeds). */
export function sizeWarning(actor: string, key: string, bytes: number, limit: number): TraceEvent {
  return {
    kind: 'log',
    actor,
    data: { level: 'warning', key, bytes, limit, message: `task state value for key '${key}' is ${bytes} bytes, over max_value_storage_bytes (${limit}); writing it anyway` },
  };
}

/** Handles one `ts.*` request (with its fault outcome). Pure. */
export function handleTaskState(cfg: TaskStateConfig, s: TaskStateState, msg: Message, ctx: ReducerContext): ReducerResult<TaskStateState> {
  const type = msg.type;
  const req = msg.req as string | number | undefined;
  const err = `${type}.error`;
  const reply = (state: TaskStateState, m: Message, key: string | undefined, outcome: string, bytes?: number, extra: readonly TraceEvent[] = []): ReducerResult<TaskStateState> => ({
    state,
    send: [{ to: ctx.from, msg: m }],
    events: [ioEvent(ctx, type, key, outcome, bytes, { backend: cfg.backend }), ...extra],
  });
  const bad = (code: ErrorCode, message: string, key?: string) => reply(s, errorReply(err, code, message, req, key === undefined ? {} : { key }), key, 'invalid');

  if (type === 'ts.cleanup') {
    let drop: string[] = [];
    const before = msg.before;
    if (before !== undefined && cfg.backend === 'database') {
      if (typeof before !== 'number') return bad(ErrorCode.InvalidRequest, 'ts.cleanup `before` must be a number (virtual ms)');
      drop = Object.keys(s.rows).filter((k) => s.rows[k]!.expiresAt !== null && s.rows[k]!.expiresAt! <= before);
    }
    if (msg.keys !== undefined) {
      const sp = scopeProblem(msg.scope);
      if (sp !== undefined) return bad(ErrorCode.InvalidRequest, `ts.cleanup with keys: ${sp}`);
      for (const k of msg.keys as unknown[]) {
        if (typeof k !== 'string') return bad(ErrorCode.InvalidRequest, 'ts.cleanup `keys` must be strings');
        const r = rowIdOf(cfg, msg.scope as TaskScope, k);
        if ('id' in r && r.id in s.rows) drop.push(r.id);
      }
    }
    let rows = s.rows;
    for (const k of drop) rows = without(rows, k);
    return reply(rows === s.rows ? s : { rows }, { type: 'ts.cleanup.ok', deleted: drop.length, ...(req === undefined ? {} : { req }) }, undefined, 'ok');
  }

  const sp = scopeProblem(msg.scope);
  if (sp !== undefined) return bad(ErrorCode.InvalidRequest, sp);
  const scope = msg.scope as TaskScope;
  const outcome = ctx.outcome;

  if (type === 'ts.clear') {
    if (outcome === 'fail') return reply(s, errorReply(err, ErrorCode.WriteFailed, 'clearing task state failed (injected fault)', req), undefined, 'fail');
    const prefix = prefixOf(cfg, scope);
    const drop = Object.keys(s.rows).filter((k) => k.startsWith(prefix));
    let rows = s.rows;
    for (const k of drop) rows = without(rows, k);
    const next = rows === s.rows ? s : { rows };
    if (outcome === 'ambiguous') return reply(next, errorReply(err, ErrorCode.WriteFailed, 'clearing task state failed (injected fault)', req), undefined, 'ambiguous');
    return reply(next, { type: 'ts.clear.ok', deleted: drop.length, ...(req === undefined ? {} : { req }) }, undefined, 'ok');
  }

  const key = msg.key;
  if (typeof key !== 'string' || key.length === 0) return bad(ErrorCode.InvalidRequest, `${type} needs a non-empty string \`key\``);
  const rid = rowIdOf(cfg, scope, key);
  if ('problem' in rid) return bad(ErrorCode.InvalidKey, rid.problem, key);
  const id = rid.id;
  const withR = (m: Record<string, unknown>) => (req === undefined ? m : { ...m, req }) as Message;

  switch (type) {
    case 'ts.get': {
      if (outcome === 'fail') return reply(s, errorReply(err, ErrorCode.ReadFailed, `reading task state key '${key}' failed (injected fault)`, req, { key }), key, 'fail');
      const state = outcome === 'vanished' ? { rows: without(s.rows, id) } : s;
      const row = state.rows[id];
      const m = withR({ type: 'ts.get.ok', key, found: row !== undefined, value: row?.value ?? null, expiresAt: row?.expiresAt ?? null });
      return reply(state, m, key, outcome === 'vanished' ? 'vanished' : row ? 'ok' : 'none', row?.bytes);
    }
    case 'ts.set': {
      const value = msg.value;
      if (typeof value !== 'string') return bad(ErrorCode.InvalidRequest, `ts.set of '${key}' needs \`value\` as a string (serialized JSON); the value must not be None`, key);
      const expiresAt = msg.expiresAt ?? null;
      if (expiresAt !== null && typeof expiresAt !== 'number') return bad(ErrorCode.InvalidRequest, 'ts.set `expiresAt` must be a number or null', key);
      const bytes = valueBytes(value);
      const db = cfg.backend === 'database';
      if (db && bytes > cfg.rowCapBytes) {
        return reply(s, errorReply(err, ErrorCode.ValueTooLarge, `task state value for key '${key}' is ${bytes} bytes, over the row cap of ${cfg.rowCapBytes} bytes (MySQL MEDIUMTEXT)`, req, { key }), key, '413', bytes);
      }
      if (outcome === 'fail') return reply(s, errorReply(err, ErrorCode.WriteFailed, `writing task state key '${key}' failed (injected fault)`, req, { key }), key, 'fail', bytes);
      const warned = db && bytes > cfg.maxValueStorageBytes;
      const extra = warned ? [sizeWarning(ctx.self, key, bytes, cfg.maxValueStorageBytes)] : [];
      const row: TaskStateRow = { value, expiresAt: db ? (expiresAt as number | null) : null, bytes };
      const state = { rows: { ...s.rows, [id]: row } };
      if (outcome === 'ambiguous') return reply(state, errorReply(err, ErrorCode.WriteFailed, `writing task state key '${key}' failed (injected fault)`, req, { key }), key, 'ambiguous', bytes, extra);
      return reply(state, withR({ type: 'ts.set.ok', key, bytes, warned }), key, 'ok', bytes, extra);
    }
    case 'ts.delete': {
      if (outcome === 'fail') return reply(s, errorReply(err, ErrorCode.WriteFailed, `deleting task state key '${key}' failed (injected fault)`, req, { key }), key, 'fail');
      const state = id in s.rows ? { rows: without(s.rows, id) } : s;
      if (outcome === 'ambiguous') return reply(state, errorReply(err, ErrorCode.WriteFailed, `deleting task state key '${key}' failed (injected fault)`, req, { key }), key, 'ambiguous');
      return reply(state, withR({ type: 'ts.delete.ok', key }), key, 'ok');
    }
  }
  return { state: s, unhandled: true };
}

const TS_TYPES = new Set(['ts.get', 'ts.set', 'ts.delete', 'ts.clear', 'ts.cleanup']);

/**
 * The simulated task state store. Answers `ts.*` requests (messages.ts). Fault
 * outcomes: `fail` and `ambiguous` on writes (set, delete, clear), `fail` and
 * `vanished` on reads (vanished only when the key exists), per `opts.faults`.
 */
export function taskStateStore(opts: TaskStateOptions = {}): ReducerLogic<TaskStateState, TsRequest> {
  const cfg = taskStateConfig(opts);
  const offer = opts.faults;
  // Typed with any message inside (it answers unknown ones as unhandled); the return type says what it accepts.
  const logic: ReducerLogic<TaskStateState> = {
    kind: 'reducer',
    init: () => ({ rows: {} }),
    faultOutcomes(state, msg, from) {
      const t = msg.type;
      if (!TS_TYPES.has(t) || t === 'ts.cleanup') return NONE;
      let applicable = WRITES.has(t) ? WRITE_FAULTS : READ_FAULTS;
      if (t === 'ts.get') {
        const r = scopeProblem(msg.scope) === undefined && typeof msg.key === 'string' ? rowIdOf(cfg, msg.scope as TaskScope, msg.key) : undefined;
        if (!r || !('id' in r) || !(r.id in state.rows)) applicable = ['fail'];
      }
      return offered(offer, DEFAULT_FAULTS, msg, from, applicable, () => (typeof msg.key === 'string' ? msg.key : undefined));
    },
    receive(state, msg, ctx) {
      if (!TS_TYPES.has(msg.type)) return { state, unhandled: true };
      return handleTaskState(cfg, state, msg, ctx);
    },
  };
  return logic;
}

/** The value stored for (scope, key), from a store's state (for properties). */
export function taskStateValue(s: TaskStateState, cfg: TaskStateOptions, scope: TaskScope, key: string): string | undefined {
  const r = rowIdOf(taskStateConfig(cfg), scope, key);
  return 'id' in r ? s.rows[r.id]?.value : undefined;
}
