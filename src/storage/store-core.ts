// The simulated store's state and the replies its handlers share (object-store.ts
// handles s3.*, documents.ts handles doc.*; both over this one state).
import type { Message, TraceEvent } from '../actors/types.ts';
import { ErrorCode, errorReply, type MissingKeyAnswer, type ReqId } from './messages.ts';

/** One committed data file of a document. */
export interface DataFile {
  /** Its object key. */
  readonly key: string;
  /** Rows in it. */
  readonly rows: number;
  /** Its size, in bytes. */
  readonly bytes: number;
}

/** A document (one Iceberg table) in the catalog. A dropped doc stays as a tombstone so its generation keeps counting. */
export interface DocEntry {
  /** The document's URI. */
  readonly uri: string;
  /** Object key prefix of its data files. */
  readonly prefix: string;
  /** Bumped by every create (a recreate makes a new generation). */
  readonly generation: number;
  /** False once dropped (a tombstone). */
  readonly exists: boolean;
  /** The schema given at create. */
  readonly schema: unknown;
  /** The current snapshot's data files, in commit order (shared by readers that pinned it). */
  readonly files: readonly DataFile[];
}

/** A lazy reader's cursor. `pinned` is null until the first `next`. */
export interface ReaderEntry {
  /** The actor that opened it. */
  readonly owner: string;
  /** The reader's name (unique per owner). */
  readonly reader: string;
  /** The document it reads. */
  readonly uri: string;
  /** The generation it reads (the one its first `next` pinned). */
  readonly generation: number;
  /** The files of the snapshot pinned at the first `next` (null before). */
  readonly pinned: readonly DataFile[] | null;
  /** Index of the next file to fetch. */
  readonly next: number;
}

/** The simulated object and document store's state. */
export interface StoreState {
  /** Objects by key. */
  readonly objects: Readonly<Record<string, Uint8Array>>;
  /** Documents by URI (dropped ones stay as tombstones). */
  readonly docs: Readonly<Record<string, DocEntry>>;
  /** By `<owner>/<reader>`. */
  readonly readers: Readonly<Record<string, ReaderEntry>>;
}

/** Resolved options, shared by the S3 and document handlers. */
export interface StoreConfig {
  /** The bucket name (in `s3://` URIs and messages). */
  readonly bucket: string;
  /** What a GET of a missing key answers: 403 AccessDenied (MinIO) or 404 NoSuchKey. */
  readonly missingKey: MissingKeyAnswer;
}

export interface Handled {
  readonly state: StoreState;
  readonly reply: Message;
  readonly events: readonly TraceEvent[];
}

/** A store holding `objects` and no documents or readers. */
export function emptyStore(objects: Readonly<Record<string, Uint8Array>> = {}): StoreState {
  return { objects, docs: {}, readers: {} };
}

/** The missing-key error of this store (403 AccessDenied or 404 NoSuchKey). */
export function missingKeyError(cfg: StoreConfig, type: string, key: string, req: ReqId | undefined, extra: Readonly<Record<string, unknown>> = {}): Message {
  return cfg.missingKey === 404
    ? errorReply(type, ErrorCode.NoSuchKey, `no object '${key}' in bucket '${cfg.bucket}'`, req, { key, ...extra })
    : errorReply(type, ErrorCode.AccessDenied, `access denied to '${key}' in bucket '${cfg.bucket}' (the key may not exist)`, req, { key, ...extra });
}

/** The error reply a fault outcome gives instead of the normal answer. */
export function faultReply(type: string, outcome: string, r: ReqId | undefined, extra: Readonly<Record<string, unknown>>): Message {
  switch (outcome) {
    case '403':
      return errorReply(type, ErrorCode.AccessDenied, 'access denied (injected fault)', r, extra);
    case '503':
      return errorReply(type, ErrorCode.SlowDown, 'please reduce your request rate (injected fault)', r, extra);
    default:
      return errorReply(type, ErrorCode.InternalError, 'we encountered an internal error, please try again (injected fault)', r, extra);
  }
}

export function withReq<T extends object>(m: T, req: unknown): T {
  return req === undefined ? m : { ...m, req };
}

