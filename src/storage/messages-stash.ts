// Materialize's peek response stash messages (stash.*): a multi-step upload.
// Re-exported by messages.ts.
import type { ErrorFields, ReqId } from './messages.ts';

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
