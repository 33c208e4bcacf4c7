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
import type { ByteRange, PutCondition, S3Delete, S3Get, S3Head, S3List, S3Put } from './messages-s3.ts';
import type { DocCommit, DocCreate, DocDrop, DocOpen, DocReadClose, DocReadNext, DocReadOpen, DocSchema } from './messages-doc.ts';
import type { TaskScope, TaskStateBackend, TsCleanup, TsClear, TsDelete, TsGet, TsSet } from './messages-ts.ts';
import type { StashCancel, StashUpload } from './messages-stash.ts';

export type * from './messages-s3.ts';
export type * from './messages-doc.ts';
export type * from './messages-ts.ts';
export type * from './messages-stash.ts';

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
  /** 409: a write fenced off: another process took over the task's lease (`SqliteTaskLease`). Nothing was written. */
  LeaseLost: 'LeaseLost',
  /** 500: a task state read failed (not "missing": missing reads as `value: null`). */
  ReadFailed: 'ReadFailed',
  /** 500: the stash upload failed part-way (parts already written leak). */
  UploadFailed: 'UploadFailed',
  /** 404: `stash.cancel` for an upload that is not running. */
  NoSuchUpload: 'NoSuchUpload',
  /** 412: a conditional put whose condition does not hold (`ifNoneMatch: '*'` on an existing key, `ifMatch` on another ETag or a missing key). Nothing was written. */
  PreconditionFailed: 'PreconditionFailed',
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
  PreconditionFailed: 412,
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
export const s3Put = (key: string, body: Uint8Array, req?: ReqId, cond?: PutCondition): S3Put =>
  withReq({ type: 's3.put', key, body, ...(cond?.ifMatch !== undefined ? { ifMatch: cond.ifMatch } : {}), ...(cond?.ifNoneMatch !== undefined ? { ifNoneMatch: cond.ifNoneMatch } : {}) }, req);
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
