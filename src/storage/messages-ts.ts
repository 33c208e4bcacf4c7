// The Airflow task state store's messages (ts.*): values scoped by task instance.
// Re-exported by messages.ts.
import type { ErrorFields, ReqId } from './messages.ts';

/** One task instance's scope. `mapIndex` is -1 for an unmapped task. */
export type TaskScope = {
  /** The DAG's id. */
  readonly dagId: string;
  /** The DAG run's id. */
  readonly runId: string;
  /** The task's id. */
  readonly taskId: string;
  /** The mapped task's index (-1: unmapped). */
  readonly mapIndex: number;
};

/** `value` is the serialized value (JSON text); its UTF-8 length is what the size checks measure. */
export type TsSet = {
  /** The message type. */
  readonly type: 'ts.set';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The task instance. */
  readonly scope: TaskScope;
  /** The task state key. */
  readonly key: string;
  /** The serialized value (JSON text). */
  readonly value: string;
  /** When the row may be cleaned up, ms since the epoch (null: never). */
  readonly expiresAt: number | null;
};
/** A missing key reads as `value: null` (`found: false`), never as an error. */
export type TsGet = {
  /** The message type. */
  readonly type: 'ts.get';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The task instance. */
  readonly scope: TaskScope;
  /** The task state key. */
  readonly key: string;
};
/** Removes one key (a missing key is no error). */
export type TsDelete = {
  /** The message type. */
  readonly type: 'ts.delete';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The task instance. */
  readonly scope: TaskScope;
  /** The task state key. */
  readonly key: string;
};
/** Deletes every key of the scope. */
export type TsClear = {
  /** The message type. */
  readonly type: 'ts.clear';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The task instance. */
  readonly scope: TaskScope;
};
/**
 * Retention cleanup from outside (`airflow state-store cleanup`, F10): deletes the
 * rows whose `expiresAt <= before` (database backend; the object-storage backend
 * does not apply `expiresAt`), plus the listed `keys` of `scope` in either backend
 * (a bucket lifecycle rule). Replies `ts.cleanup.ok` with the number removed.
 */
export type TsCleanup = {
  /** The message type. */
  readonly type: 'ts.cleanup';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** Remove the rows expiring at or before this time, ms since the epoch. */
  readonly before?: number;
  /** Only within this task instance. */
  readonly scope?: TaskScope;
  /** Also remove these keys of `scope` (a bucket lifecycle rule). */
  readonly keys?: readonly string[];
};
/** Every task state request. */
export type TsRequest = TsSet | TsGet | TsDelete | TsClear | TsCleanup;

/** `warned`: the value was over `maxValueStorageBytes` (a `log` warning event was emitted; the write proceeded). */
export type TsSetOk = {
  /** The message type. */
  readonly type: 'ts.set.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The task state key. */
  readonly key: string;
  /** The value's size, in bytes (UTF-8). */
  readonly bytes: number;
  /** True when the value was over `maxValueStorageBytes` (a warning was logged; the write proceeded). */
  readonly warned: boolean;
};
/** The value (null and `found: false` when missing) and its expiry. */
export type TsGetOk = {
  /** The message type. */
  readonly type: 'ts.get.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The task state key. */
  readonly key: string;
  /** False when the key is missing. */
  readonly found: boolean;
  /** The value, or null when missing. */
  readonly value: string | null;
  /** When the row may be cleaned up, ms since the epoch (null: never). */
  readonly expiresAt: number | null;
};
/** The key is gone. */
export type TsDeleteOk = {
  /** The message type. */
  readonly type: 'ts.delete.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The task state key. */
  readonly key: string;
};
/** The scope's keys are gone (`deleted` of them). */
export type TsClearOk = {
  /** The message type. */
  readonly type: 'ts.clear.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** Rows or objects removed. */
  readonly deleted: number;
};
/** `deleted` rows were removed. */
export type TsCleanupOk = {
  /** The message type. */
  readonly type: 'ts.cleanup.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** Rows or objects removed. */
  readonly deleted: number;
};
/** The task state operations (the middle of their message types). */
export type TsOp = 'set' | 'get' | 'delete' | 'clear' | 'cleanup';
/** A task state error reply. */
export type TsError = ErrorFields & {
  /** `ts.<op>.error`. */
  readonly type: `ts.${TsOp}.error`;
  /** The task state key, when the request named one. */
  readonly key?: string;
};
/** Every task state reply. */
export type TsReply = TsSetOk | TsGetOk | TsDeleteOk | TsClearOk | TsCleanupOk | TsError;

/** Where task state lives: database rows, or one object per value. */
export type TaskStateBackend = 'database' | 'object-storage';
