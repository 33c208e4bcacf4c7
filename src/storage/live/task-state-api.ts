// The shared front of the live task state stores: validates a ts.* request the
// same way the simulated store does, calls the backend, and builds the reply.
import type { ExternalHandler } from '../../actors/index.ts';
import type { Message } from '../../actors/types.ts';
import { ErrorCode, errorReply, type TaskScope, type TsReply } from '../messages.ts';
import { scopeProblem, valueBytes } from '../task-state.ts';
import { LeaseLostError } from './sqlite-lease.ts';

type Ok<T extends TsReply['type']> = Omit<Extract<TsReply, { type: T }>, 'type' | 'req'>;

/** What a live backend implements. Throwing an `Error` becomes WriteFailed/ReadFailed. */
export interface TaskStateBackendApi {
  /** Stores `value` under (scope, key), expiring at `expiresAt` (ms since the epoch; null: never); `{ tooLarge }` when over the row cap. */
  set(
    scope: TaskScope,
    key: string,
    value: string,
    expiresAt: number | null,
  ): Promise<
    | Ok<'ts.set.ok'>
    | {
        /** Why the value was refused (over the row cap); nothing was written. */
        tooLarge: string;
      }
  >;
  /** Reads (scope, key): its value, or null when missing. */
  get(scope: TaskScope, key: string): Promise<Ok<'ts.get.ok'>>;
  /** Removes (scope, key); a missing key is no error. */
  delete(scope: TaskScope, key: string): Promise<void>;
  /** Removes every key of the scope; resolves with how many were removed. */
  clear(scope: TaskScope): Promise<number>;
  /** Removes expired rows (`before`: ms since the epoch), optionally within one scope or among some keys; resolves with how many were removed. */
  cleanup(opts: { before?: number; scope?: TaskScope; keys?: readonly string[] }): Promise<number>;
  /** Why this (scope, key) cannot be stored here (an object path that escapes), or undefined. */
  keyProblem(scope: TaskScope, key: string): string | undefined;
}

/** Answers one ts.* request against a live backend. */
export async function answerTaskState(api: TaskStateBackendApi, msg: Message): Promise<Message> {
  const type = msg.type;
  const req = msg.req as string | number | undefined;
  const err = `${type}.error`;
  const withR = (m: Record<string, unknown>) => (req === undefined ? m : { ...m, req }) as Message;
  const bad = (code: ErrorCode, message: string, key?: string) => errorReply(err, code, message, req, key === undefined ? {} : { key });
  const write = type === 'ts.set' || type === 'ts.delete' || type === 'ts.clear' || type === 'ts.cleanup';
  const failed = (e: unknown, key?: string) =>
    e instanceof LeaseLostError ? errorReply(err, ErrorCode.LeaseLost, e.message, req, key === undefined ? {} : { key }) :
    errorReply(err, write ? ErrorCode.WriteFailed : ErrorCode.ReadFailed, `${write ? 'writing' : 'reading'} task state${key ? ` key '${key}'` : ''} failed: ${(e as Error)?.message ?? String(e)}`, req, key === undefined ? {} : { key });

  if (type === 'ts.cleanup') {
    if (msg.before !== undefined && typeof msg.before !== 'number') return bad(ErrorCode.InvalidRequest, 'ts.cleanup `before` must be a number (virtual ms)');
    if (msg.keys !== undefined) {
      const sp = scopeProblem(msg.scope);
      if (sp !== undefined) return bad(ErrorCode.InvalidRequest, `ts.cleanup with keys: ${sp}`);
      if (!(msg.keys as unknown[]).every((k) => typeof k === 'string')) return bad(ErrorCode.InvalidRequest, 'ts.cleanup `keys` must be strings');
    }
    try {
      const opts: { before?: number; scope?: TaskScope; keys?: readonly string[] } = {};
      if (msg.before !== undefined) opts.before = msg.before as number;
      if (msg.scope !== undefined) opts.scope = msg.scope as TaskScope;
      if (msg.keys !== undefined) opts.keys = msg.keys as string[];
      return withR({ type: 'ts.cleanup.ok', deleted: await api.cleanup(opts) });
    } catch (e) {
      return failed(e);
    }
  }
  if (type !== 'ts.get' && type !== 'ts.set' && type !== 'ts.delete' && type !== 'ts.clear') {
    return errorReply(err, ErrorCode.InvalidRequest, `the task state store does not answer '${type}'; it answers ts.get, ts.set, ts.delete, ts.clear, ts.cleanup`, req);
  }
  const sp = scopeProblem(msg.scope);
  if (sp !== undefined) return bad(ErrorCode.InvalidRequest, sp);
  const scope = msg.scope as TaskScope;
  if (type === 'ts.clear') {
    try {
      return withR({ type: 'ts.clear.ok', deleted: await api.clear(scope) });
    } catch (e) {
      return failed(e);
    }
  }
  const key = msg.key;
  if (typeof key !== 'string' || key.length === 0) return bad(ErrorCode.InvalidRequest, `${type} needs a non-empty string \`key\``);
  const kp = api.keyProblem(scope, key);
  if (kp !== undefined) return bad(ErrorCode.InvalidKey, kp, key);
  try {
    switch (type) {
      case 'ts.get':
        return withR({ type: 'ts.get.ok', ...(await api.get(scope, key)) });
      case 'ts.delete':
        await api.delete(scope, key);
        return withR({ type: 'ts.delete.ok', key });
      case 'ts.set': {
        const value = msg.value;
        if (typeof value !== 'string') return bad(ErrorCode.InvalidRequest, `ts.set of '${key}' needs \`value\` as a string (serialized JSON); the value must not be None`, key);
        const expiresAt = msg.expiresAt ?? null;
        if (expiresAt !== null && typeof expiresAt !== 'number') return bad(ErrorCode.InvalidRequest, 'ts.set `expiresAt` must be a number or null', key);
        const r = await api.set(scope, key, value, expiresAt as number | null);
        if ('tooLarge' in r) return bad(ErrorCode.ValueTooLarge, r.tooLarge, key);
        return withR({ type: 'ts.set.ok', ...r });
      }
    }
  } catch (e) {
    return failed(e, key);
  }
}

/** An `ExternalHandler` for `runLive` over a live backend. */
export function taskStateHandler(api: TaskStateBackendApi): ExternalHandler {
  return async (msg, from) => [{ to: from, msg: await answerTaskState(api, msg) }];
}

/** The database backends' size limits, as the simulated database backend applies them. */
export interface ValueLimits {
  readonly rowCapBytes: number;
  readonly maxValueStorageBytes: number;
}

/**
 * A value's size against the limits: over the row cap, why it is refused; else its size and
 * whether it is over `maxValueStorageBytes` (then `warn` hears of it and the write proceeds).
 */
export function valueSizeCheck(limits: ValueLimits, key: string, value: string, warn: ((w: { key: string; bytes: number; limit: number; message: string }) => void) | undefined): { tooLarge: string } | { bytes: number; warned: boolean } {
  const bytes = valueBytes(value);
  if (bytes > limits.rowCapBytes) return { tooLarge: `task state value for key '${key}' is ${bytes} bytes, over the row cap of ${limits.rowCapBytes} bytes (MySQL MEDIUMTEXT)` };
  const warned = bytes > limits.maxValueStorageBytes;
  if (warned) warn?.({ key, bytes, limit: limits.maxValueStorageBytes, message: `task state value for key '${key}' is ${bytes} bytes, over max_value_storage_bytes (${limits.maxValueStorageBytes}); writing it anyway` });
  return { bytes, warned };
}
