// The storage protocols as messages. Every storage actor (simulated reducer or live
// adapter) speaks exactly these: a request is a message to the store, the reply is
// one message back to the sender (`ctx.from`). Four families, one prefix each:
//
//   s3.*     object store (S3 semantics: put, get with range, head, delete, list)
//   doc.*    Iceberg-style documents (one table = one doc), served by the SAME actor
//            as s3.* because a drop deletes data-file objects in the same step
//   ts.*     Airflow task state store, scoped by (dag, run, task, map index)
//   stash.*  Materialize peek response stash (a multi-step blob upload)
//
// Every message type is an object type alias (not an interface) so it is
// assignable to the kernel's `Message` and to xstate event unions.
//
// Naming rule: request `<family>.<op>`, replies `<family>.<op>.ok` and
// `<family>.<op>.error` (readers also get `doc.read.next.done`). So an xstate
// machine can match one op with the wildcard `'s3.get.*'`. Every request may carry
// `req` (any string or number), echoed unchanged on its reply, to correlate
// several outstanding requests.
import type { Message } from '../actors/types.ts';

/** Correlation id, echoed on the reply. */
export type ReqId = string | number;

// ---------------------------------------------------------------------------
// Error codes (S3-like names) and HTTP-ish statuses
// ---------------------------------------------------------------------------

/** The error codes replies carry (S3-like names), each with its HTTP-ish status in `STATUS`. */
export const ErrorCode = {
  /** 403: forbidden. MinIO also answers a missing key with this (the default missing-key answer). */
  AccessDenied: 'AccessDenied',
  /** 404: the key does not exist (when the store's `missingKey` is 404). */
  NoSuchKey: 'NoSuchKey',
  /** 503: throttled; the request did not take effect. */
  SlowDown: 'SlowDown',
  /** 500: failed; the request may or may not have taken effect (ambiguous). */
  InternalError: 'InternalError',
  /** 400: the key or URI is malformed or tries to escape (`..`, absolute, empty segment). */
  InvalidKey: 'InvalidKey',
  /** 416: the byte range does not fit the object. */
  InvalidRange: 'InvalidRange',
  /** 400: the request is missing a field or has one of the wrong type. */
  InvalidRequest: 'InvalidRequest',
  /** 404: `doc.open`/`doc.read.open`/`doc.commit` on a uri with no table ("no storage is found for the given URI"). */
  NoSuchTable: 'NoSuchTable',
  /** 409: a commit for a generation that was dropped or recreated since the writer opened it. */
  CommitFailed: 'CommitFailed',
  /** 404: `doc.read.next`/`doc.read.close` for a reader this sender never opened (or that already ended). */
  NoSuchReader: 'NoSuchReader',
  /** 413: a task state value over the row cap (MySQL MEDIUMTEXT: 16 MiB). Deterministic. */
  ValueTooLarge: 'ValueTooLarge',
  /** 500: a task state write failed (it may have persisted: the ambiguous outcome looks the same). */
  WriteFailed: 'WriteFailed',
  /** 409: a write fenced off: another process took over the task's lease (src/storage/live/sqlite-lease.ts). Nothing was written. */
  LeaseLost: 'LeaseLost',
  /** 500: a task state read failed (not "missing": missing reads as `value: null`). */
  ReadFailed: 'ReadFailed',
  /** 500: the stash upload failed part-way (parts already written leak). */
  UploadFailed: 'UploadFailed',
  /** 404: `stash.cancel` for an upload that is not running. */
  NoSuchUpload: 'NoSuchUpload',
} as const;
/** One of the `ErrorCode` names. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The HTTP-ish status of each error code (carried as `status` on error replies). */
export const STATUS: Readonly<Record<ErrorCode, number>> = {
  AccessDenied: 403,
  NoSuchKey: 404,
  SlowDown: 503,
  InternalError: 500,
  InvalidKey: 400,
  InvalidRange: 416,
  InvalidRequest: 400,
  NoSuchTable: 404,
  CommitFailed: 409,
  NoSuchReader: 404,
  ValueTooLarge: 413,
  WriteFailed: 500,
  LeaseLost: 409,
  ReadFailed: 500,
  UploadFailed: 500,
  NoSuchUpload: 404,
};

/** The message of `NoSuchTable`, word for word as Amber's `open_document` raises it. */
export const NO_STORAGE_FOUND = 'no storage is found for the given URI';

/** Fields every error reply has (its `type` is `<family>.<op>.error`). */
export type ErrorFields = {
  /** The request's correlation id, echoed. */
  readonly req?: ReqId;
  /** What went wrong. */
  readonly code: ErrorCode;
  /** The code's HTTP-ish status (`STATUS[code]`). */
  readonly status: number;
  /** What went wrong, in words. */
  readonly message: string;
};

// ---------------------------------------------------------------------------
// Fault outcomes (what the checker may choose instead of the normal answer)
// ---------------------------------------------------------------------------

/**
 * Object store / document fault outcomes, offered by `faultOutcomes` and each
 * costing one unit of the scenario's fault budget:
 * - `403`: AccessDenied, no effect;
 * - `503`: SlowDown, no effect;
 * - `500`: InternalError, no effect (off by default; with `ambiguous` on, the
 *   caller cannot tell the two apart, which is the point);
 * - `ambiguous`: the effect happens, the reply is InternalError (500). Offered on
 *   mutating requests only (s3.put, s3.delete, doc.create, doc.drop, doc.commit).
 */
export type StoreFault = '403' | '503' | '500' | 'ambiguous';

/**
 * Task state store fault outcomes:
 * - `fail`: a set/delete/clear fails with WriteFailed and takes no effect (F1, F9),
 *   a get fails with ReadFailed (F3);
 * - `ambiguous`: a set/delete/clear takes effect, the reply is WriteFailed (F2);
 * - `vanished`: on a get, the row/object was removed from outside just before the
 *   read (retention cleanup or a bucket lifecycle rule, F10); the read returns none.
 */
export type TaskStateFault = 'fail' | 'ambiguous' | 'vanished';

/** Stash fault outcomes: `fail` on an upload step ends the upload with UploadFailed. */
export type StashFault = 'fail';

/** Which fault outcomes a store offers, and on which requests. Keep it narrow: each offer is a branch. */
export interface FaultOffer<F extends string> {
  /** The outcomes offered (default: all the store's outcomes except `500`). */
  readonly outcomes?: readonly F[];
  /** Only on these request types (for example `['doc.read.next']`); default: every request. */
  readonly ops?: readonly string[];
  /** Only on requests whose key/uri starts with one of these prefixes. */
  readonly prefixes?: readonly string[];
  /** Full control: the outcomes for this request (overrides the fields above). */
  readonly choose?: (msg: Message, from: string) => readonly F[];
}

// ---------------------------------------------------------------------------
// Object store (s3.*)
// ---------------------------------------------------------------------------

/** Inclusive byte range, like HTTP `Range: bytes=start-end`. `end` past the object is clamped. */
export interface ByteRange {
  /** The first byte (0-based). */
  readonly start: number;
  /** The last byte, inclusive (default: the object's last). */
  readonly end?: number;
}

/** Writes an object (`s3.put.ok`, or an error). */
export type S3Put = {
  /** The message type. */
  readonly type: 's3.put';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
  /** The object's bytes. */
  readonly body: Uint8Array;
};
/** Reads an object or a byte range of it. */
export type S3Get = {
  /** The message type. */
  readonly type: 's3.get';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
  /** Only these bytes (default: the whole object). */
  readonly range?: ByteRange;
};
/** Reads an object's size. */
export type S3Head = {
  /** The message type. */
  readonly type: 's3.head';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
};
/** Deleting a missing key succeeds (as S3 does). */
export type S3Delete = {
  /** The message type. */
  readonly type: 's3.delete';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
};
/** Keys starting with `prefix` (`''` for all), sorted. */
export type S3List = {
  /** The message type. */
  readonly type: 's3.list';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The key prefix (`''`: every key). */
  readonly prefix: string;
};
/** Every object store request. */
export type S3Request = S3Put | S3Get | S3Head | S3Delete | S3List;

/** The object was written (`bytes` long). */
export type S3PutOk = {
  /** The message type. */
  readonly type: 's3.put.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
  /** Bytes written. */
  readonly bytes: number;
};
/** `body` is the stored bytes (shared, never copied) or a subarray view for a range; `size` is the whole object's size. */
export type S3GetOk = {
  /** The message type. */
  readonly type: 's3.get.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
  /** The bytes read: the stored bytes, or a view of the range (shared, never copied). */
  readonly body: Uint8Array;
  /** The whole object's size, in bytes. */
  readonly size: number;
};
/** The object's size. */
export type S3HeadOk = {
  /** The message type. */
  readonly type: 's3.head.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
  /** The whole object's size, in bytes. */
  readonly size: number;
};
/** The key is gone (or never was). */
export type S3DeleteOk = {
  /** The message type. */
  readonly type: 's3.delete.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
};
/** The keys under `prefix`, sorted. */
export type S3ListOk = {
  /** The message type. */
  readonly type: 's3.list.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The key prefix (`''`: every key). */
  readonly prefix: string;
  /** The keys, sorted. */
  readonly keys: readonly string[];
};
/** The object store's operations (the middle of their message types). */
export type S3Op = 'put' | 'get' | 'head' | 'delete' | 'list';
/** An object store error reply. */
export type S3Error = ErrorFields & {
  /** `s3.<op>.error`. */
  readonly type: `s3.${S3Op}.error`;
  /** The key (or the prefix, for list). */
  readonly key: string;
};
/** Every object store reply. */
export type S3Reply = S3PutOk | S3GetOk | S3HeadOk | S3DeleteOk | S3ListOk | S3Error;

// ---------------------------------------------------------------------------
// Iceberg-style documents (doc.*), served by the object store actor
// ---------------------------------------------------------------------------

/** A doc's schema: opaque to the store (a field list, an Arrow schema's JSON...). Stored by reference. */
export type DocSchema = unknown;

/**
 * Creates the table at `uri`, OVERRIDING: if one exists it is dropped (every data
 * file of its generation is deleted from the object store) and the new empty table
 * gets generation + 1. The first generation of a uri is 1.
 */
export type DocCreate = {
  /** The message type. */
  readonly type: 'doc.create';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
  /** The table's schema (opaque to the store). */
  readonly schema: DocSchema;
};
/** Drops the table and deletes its data files (a missing table: ok, nothing happens). */
export type DocDrop = {
  /** The message type. */
  readonly type: 'doc.drop';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
};
/** Loads the table's metadata; NoSuchTable when missing. */
export type DocOpen = {
  /** The message type. */
  readonly type: 'doc.open';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
};
/**
 * A writer's `close()`: commits one snapshot adding one data file (`data`, Arrow IPC
 * bytes, shared by reference) with `rows` rows. The writer buffers its appends
 * itself (see `docWriter` in documents.ts). With `generation`, the commit fails with
 * CommitFailed if the table was recreated since (Iceberg's table-uuid requirement).
 */
export type DocCommit = {
  /** The message type. */
  readonly type: 'doc.commit';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
  /** The data file's bytes (Arrow IPC, shared by reference). */
  readonly data: Uint8Array;
  /** Rows in the data file. */
  readonly rows: number;
  /** Fence: the commit fails with CommitFailed unless the table is still at this generation. */
  readonly generation?: number;
};
/**
 * Opens a lazy reader named `reader` (unique per sender). Nothing is pinned yet;
 * NoSuchTable when the table is missing.
 */
export type DocReadOpen = {
  /** The message type. */
  readonly type: 'doc.read.open';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
  /** The reader's name (unique per sender). */
  readonly reader: string;
};
/**
 * The reader's next data file. The first `next` pins the table's current snapshot
 * (its generation and its data files, in commit order); every `next` then fetches
 * ONE file. A planned file deleted since (drop/recreate) answers the store's
 * missing-key answer (403 by default, 404 NoSuchKey) and ends the reader. After the
 * last file, `next` answers `doc.read.next.done` and ends the reader.
 */
export type DocReadNext = {
  /** The message type. */
  readonly type: 'doc.read.next';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The reader's name (unique per sender). */
  readonly reader: string;
};
/** Abandons a reader (a no-op reply for an unknown one is NoSuchReader). */
export type DocReadClose = {
  /** The message type. */
  readonly type: 'doc.read.close';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The reader's name (unique per sender). */
  readonly reader: string;
};
/** Every document request. */
export type DocRequest = DocCreate | DocDrop | DocOpen | DocCommit | DocReadOpen | DocReadNext | DocReadClose;

/** The table was (re)created at `generation`; `dropped` data files of the old one were deleted. */
export type DocCreateOk = {
  /** The message type. */
  readonly type: 'doc.create.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
  /** The table's generation. */
  readonly generation: number;
  /** Data files deleted. */
  readonly dropped: number;
};
/** The table is gone; `dropped` data files were deleted. */
export type DocDropOk = {
  /** The message type. */
  readonly type: 'doc.drop.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
  /** Data files deleted. */
  readonly dropped: number;
};
/** The table's metadata: generation, schema, data files and rows. */
export type DocOpenOk = {
  /** The message type. */
  readonly type: 'doc.open.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
  /** The table's generation. */
  readonly generation: number;
  /** The schema given at create. */
  readonly schema: DocSchema;
  /** Data files in the current snapshot. */
  readonly files: number;
  /** Rows in the current snapshot. */
  readonly rows: number;
};
/** The commit landed: the new snapshot number and the data file's key. */
export type DocCommitOk = {
  /** The message type. */
  readonly type: 'doc.commit.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
  /** The table's generation. */
  readonly generation: number;
  /** The new snapshot's number. */
  readonly snapshot: number;
  /** The new data file's object key. */
  readonly key: string;
};
/** The reader is open (nothing pinned yet). */
export type DocReadOpenOk = {
  /** The message type. */
  readonly type: 'doc.read.open.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The document's URI. */
  readonly uri: string;
  /** The reader's name (unique per sender). */
  readonly reader: string;
};
/** One data file: `index` among the pinned `files`, `data` as committed (Arrow IPC). */
export type DocReadNextOk = {
  /** The message type. */
  readonly type: 'doc.read.next.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The reader's name (unique per sender). */
  readonly reader: string;
  /** The document's URI. */
  readonly uri: string;
  /** The pinned snapshot's generation. */
  readonly generation: number;
  /** This file's index among the pinned files. */
  readonly index: number;
  /** Data files in the pinned snapshot. */
  readonly files: number;
  /** This data file's object key. */
  readonly key: string;
  /** The data file's bytes, as committed (Arrow IPC). */
  readonly data: Uint8Array;
  /** Rows in this data file. */
  readonly rows: number;
};
/** The pinned snapshot is exhausted (Python's StopIteration); the reader is gone. */
export type DocReadNextDone = {
  /** The message type. */
  readonly type: 'doc.read.next.done';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The reader's name (unique per sender). */
  readonly reader: string;
  /** The document's URI. */
  readonly uri: string;
  /** The table's generation. */
  readonly generation: number;
  /** Data files in the pinned snapshot. */
  readonly files: number;
};
/** The reader is gone. */
export type DocReadCloseOk = {
  /** The message type. */
  readonly type: 'doc.read.close.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The reader's name (unique per sender). */
  readonly reader: string;
};
/** The document operations (the middle of their message types). */
export type DocOp = 'create' | 'drop' | 'open' | 'commit' | 'read.open' | 'read.next' | 'read.close';
/** A document error reply. */
export type DocError = ErrorFields & {
  /** `doc.<op>.error`. */
  readonly type: `doc.${DocOp}.error`;
  /** The document, when the request named one. */
  readonly uri?: string;
  /** The reader, when the request named one. */
  readonly reader?: string;
  /** For a failed fetch: the data file key that was missing or denied. */
  readonly key?: string;
};
/** Every document reply. */
export type DocReply = DocCreateOk | DocDropOk | DocOpenOk | DocCommitOk | DocReadOpenOk | DocReadNextOk | DocReadNextDone | DocReadCloseOk | DocError;

// ---------------------------------------------------------------------------
// Task state store (ts.*), Airflow
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Peek response stash (stash.*), Materialize
// ---------------------------------------------------------------------------

/**
 * Uploads a peek's response (`bytes`, `rows`) to the stash shard `s<uuid>`. The
 * upload takes `ceil(bytes / partBytes)` steps (at least 1, at most `maxParts`),
 * each a self-message `stash.pump` the checker interleaves with everything else;
 * the last step replies `stash.upload.ok`. A `fail` outcome on a step ends it with
 * `stash.upload.error` (UploadFailed); the parts written so far leak.
 */
export type StashUpload = {
  /** The message type. */
  readonly type: 'stash.upload';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The peek's id (its shard is `s<uuid>`). */
  readonly uuid: string;
  /** The response's size, in bytes. */
  readonly bytes: number;
  /** The response's rows. */
  readonly rows: number;
};
/** Cancels a running upload (its written parts leak, as in Materialize's TODO). */
export type StashCancel = {
  /** The message type. */
  readonly type: 'stash.cancel';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The peek's id (its shard is `s<uuid>`). */
  readonly uuid: string;
};
/** Internal: one upload step, sent by the stash to itself. */
export type StashPump = {
  /** The message type. */
  readonly type: 'stash.pump';
  /** The peek's id (its shard is `s<uuid>`). */
  readonly uuid: string;
};
/** Every stash request (the pump is the stash's own). */
export type StashRequest = StashUpload | StashCancel | StashPump;

/** The upload finished: its shard, size, rows and parts. */
export type StashUploadOk = {
  /** The message type. */
  readonly type: 'stash.upload.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The peek's id (its shard is `s<uuid>`). */
  readonly uuid: string;
  /** The shard's name. */
  readonly shard: string;
  /** The shard's size, in bytes. */
  readonly bytes: number;
  /** The shard's rows. */
  readonly rows: number;
  /** Parts uploaded. */
  readonly parts: number;
};
/** The upload was cancelled; `leakedParts` parts stay written. */
export type StashCancelOk = {
  /** The message type. */
  readonly type: 'stash.cancel.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The peek's id (its shard is `s<uuid>`). */
  readonly uuid: string;
  /** Parts written before the cancel (they stay, leaked). */
  readonly leakedParts: number;
};
/** A stash error reply. */
export type StashError = ErrorFields & {
  /** `stash.upload.error` or `stash.cancel.error`. */
  readonly type: 'stash.upload.error' | 'stash.cancel.error';
  /** The peek's id. */
  readonly uuid: string;
};
/** Every stash reply. */
export type StashReply = StashUploadOk | StashCancelOk | StashError;

// ---------------------------------------------------------------------------
// Options of the simulated actors (constructors live in their modules, re-exported by index.ts)
// ---------------------------------------------------------------------------

/** What a GET/HEAD of a missing key answers: 403 AccessDenied (MinIO, the default) or 404 NoSuchKey. */
export type MissingKeyAnswer = 403 | 404;

/** Options of the simulated object and document store (`objectStore`). */
export interface ObjectStoreOptions {
  /** Bucket name (reported in traces). Default `'bucket'`. */
  readonly bucket?: string;
  /** What a GET/HEAD of a missing key answers (default 403, as MinIO). */
  readonly missingKey?: MissingKeyAnswer;
  /** Objects present at the start (key -> bytes). */
  readonly objects?: Readonly<Record<string, Uint8Array>>;
  /** Documents present at the start (uri -> schema and committed data files), at generation 1. */
  readonly docs?: Readonly<
    Record<
      string,
      {
        /** The table's schema. */
        readonly schema?: DocSchema;
        /** Its committed data files, in order. */
        readonly files?: readonly {
          /** The file's bytes (Arrow IPC). */
          readonly data: Uint8Array;
          /** Rows in it. */
          readonly rows: number;
        }[];
      }
    >
  >;
  /** Fault outcomes offered (default: 403, 503, ambiguous on every request). */
  readonly faults?: FaultOffer<StoreFault>;
}

/** Options of the task state store (`taskStateStore`), simulated or live. */
export interface TaskStateOptions {
  /** Database rows (default) or object storage. */
  readonly backend?: TaskStateBackend;
  /** Warn (but write) above this many bytes. Default 65,535. Database backend only. */
  readonly maxValueStorageBytes?: number;
  /** Fail above this many bytes (MySQL MEDIUMTEXT: 16 MiB - 1). `Infinity` for Postgres. Database backend only. */
  readonly rowCapBytes?: number;
  /** Object-storage backend: the base path of the objects. Default `'state'`. */
  readonly base?: string;
  /** Fault outcomes offered (default: fail, ambiguous, vanished). */
  readonly faults?: FaultOffer<TaskStateFault>;
}

/** Options of the peek response stash (`peekStash`). */
export interface StashOptions {
  /** Bytes uploaded per step. Default 1 MiB. */
  readonly partBytes?: number;
  /** Upper bound on steps per upload (keeps models small). Default 4. */
  readonly maxParts?: number;
  /** Fault outcomes offered (default: fail on every step). */
  readonly faults?: FaultOffer<StashFault>;
}

// ---------------------------------------------------------------------------
// Defaults and request constructors (for machines: `send('store', s3Put(key, body))`)
// ---------------------------------------------------------------------------

/** The default size above which a task state write logs a warning (and proceeds), in bytes. */
export const DEFAULT_MAX_VALUE_STORAGE_BYTES = 65_535;
/** MySQL MEDIUMTEXT: 2^24 - 1 bytes. */
export const MYSQL_MEDIUMTEXT_BYTES = 16 * 1024 * 1024 - 1;
/** Materialize's `compute_peek_response_stash_threshold_bytes`. */
export const DEFAULT_STASH_THRESHOLD_BYTES = 10 * 1024;

const withReq = <T extends object>(m: T, req: ReqId | undefined): T => (req === undefined ? m : { ...m, req });

/** An `s3.put` request. */
export const s3Put = (key: string, body: Uint8Array, req?: ReqId): S3Put => withReq({ type: 's3.put', key, body }, req);
/** An `s3.get` request (of the whole object, or of `range`). */
export const s3Get = (key: string, range?: ByteRange, req?: ReqId): S3Get => withReq(range ? { type: 's3.get', key, range } : { type: 's3.get', key }, req);
/** An `s3.head` request. */
export const s3Head = (key: string, req?: ReqId): S3Head => withReq({ type: 's3.head', key }, req);
/** An `s3.delete` request. */
export const s3Delete = (key: string, req?: ReqId): S3Delete => withReq({ type: 's3.delete', key }, req);
/** An `s3.list` request. */
export const s3List = (prefix: string, req?: ReqId): S3List => withReq({ type: 's3.list', prefix }, req);

/** A `doc.create` request. */
export const docCreate = (uri: string, schema: DocSchema, req?: ReqId): DocCreate => withReq({ type: 'doc.create', uri, schema }, req);
/** A `doc.drop` request. */
export const docDrop = (uri: string, req?: ReqId): DocDrop => withReq({ type: 'doc.drop', uri }, req);
/** A `doc.open` request. */
export const docOpen = (uri: string, req?: ReqId): DocOpen => withReq({ type: 'doc.open', uri }, req);
/** A `doc.commit` request (with `generation`, fenced to that generation). */
export const docCommit = (uri: string, data: Uint8Array, rows: number, opts: { generation?: number; req?: ReqId } = {}): DocCommit =>
  withReq(opts.generation === undefined ? { type: 'doc.commit', uri, data, rows } : { type: 'doc.commit', uri, data, rows, generation: opts.generation }, opts.req);
/** A `doc.read.open` request. */
export const docReadOpen = (uri: string, reader: string, req?: ReqId): DocReadOpen => withReq({ type: 'doc.read.open', uri, reader }, req);
/** A `doc.read.next` request. */
export const docReadNext = (reader: string, req?: ReqId): DocReadNext => withReq({ type: 'doc.read.next', reader }, req);
/** A `doc.read.close` request. */
export const docReadClose = (reader: string, req?: ReqId): DocReadClose => withReq({ type: 'doc.read.close', reader }, req);

/** A `ts.set` request (`expiresAt` null: never expires). */
export const tsSet = (scope: TaskScope, key: string, value: string, expiresAt: number | null = null, req?: ReqId): TsSet => withReq({ type: 'ts.set', scope, key, value, expiresAt }, req);
/** A `ts.get` request. */
export const tsGet = (scope: TaskScope, key: string, req?: ReqId): TsGet => withReq({ type: 'ts.get', scope, key }, req);
/** A `ts.delete` request. */
export const tsDelete = (scope: TaskScope, key: string, req?: ReqId): TsDelete => withReq({ type: 'ts.delete', scope, key }, req);
/** A `ts.clear` request. */
export const tsClear = (scope: TaskScope, req?: ReqId): TsClear => withReq({ type: 'ts.clear', scope }, req);
/** A `ts.cleanup` request. */
export const tsCleanup = (opts: { before?: number; scope?: TaskScope; keys?: readonly string[] }, req?: ReqId): TsCleanup => withReq({ type: 'ts.cleanup', ...opts }, req);

/** A `stash.upload` request. */
export const stashUpload = (uuid: string, bytes: number, rows: number, req?: ReqId): StashUpload => withReq({ type: 'stash.upload', uuid, bytes, rows }, req);
/** A `stash.cancel` request. */
export const stashCancel = (uuid: string, req?: ReqId): StashCancel => withReq({ type: 'stash.cancel', uuid }, req);

/** Builds an error reply. */
export function errorReply<T extends string>(type: T, code: ErrorCode, message: string, req: ReqId | undefined, extra: Readonly<Record<string, unknown>> = {}): Message &
  ErrorFields & {
    /** The reply's type (`<family>.<op>.error`). */
    type: T;
  } {
  const m = { type, ...extra, code, status: STATUS[code], message };
  return (req === undefined ? m : { ...m, req }) as Message & ErrorFields & { type: T };
}

/** True for any `<family>.<op>.error` reply. */
export function isErrorReply(m: Message): m is Message & ErrorFields {
  return m.type.endsWith('.error');
}
