// The object store's messages (s3.*): put, get with a byte range, head, delete, list.
// The naming and correlation rules are in messages.ts, which re-exports these.
import type { ErrorFields, ReqId } from './messages.ts';

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
  /** Write only if the object's ETag is this one (compare-and-swap); else `PreconditionFailed` (412). */
  readonly ifMatch?: string;
  /** `'*'`: write only if the key does not exist (create once); else `PreconditionFailed` (412). */
  readonly ifNoneMatch?: '*';
};
/** The condition of a conditional put (HTTP `If-Match` / `If-None-Match`). */
export type PutCondition = {
  /** Write only if the object's ETag is this one. */
  readonly ifMatch?: string;
  /** `'*'`: write only if the key does not exist. */
  readonly ifNoneMatch?: '*';
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
  /** The new object's ETag (on a conditional put). */
  readonly etag?: string;
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
  /** The object's ETag (on a whole-object get): a digest of its bytes, for a conditional put's `ifMatch`. */
  readonly etag?: string;
};
/** The object's size and ETag. */
export type S3HeadOk = {
  /** The message type. */
  readonly type: 's3.head.ok';
  /** Correlation id, echoed on the reply. */
  readonly req?: ReqId;
  /** The object key. */
  readonly key: string;
  /** The whole object's size, in bytes. */
  readonly size: number;
  /** The object's ETag: a digest of its bytes, for a conditional put's `ifMatch`. */
  readonly etag: string;
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
