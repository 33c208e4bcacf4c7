// Iceberg-style document messages (doc.*), served by the object store actor: one
// table a document, generations, commits and lazy readers. Re-exported by messages.ts.
import type { ErrorFields, ReqId } from './messages.ts';

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
