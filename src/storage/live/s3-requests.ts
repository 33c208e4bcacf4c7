// The `s3.*` request protocol the object-store actors speak, answered by any live object
// store (filesystem, S3): one switch, so every store answers the same requests the same way.
import type { Message } from '../../actors/types.ts';
import { ErrorCode, errorReply, type ByteRange, type PutCondition } from '../messages.ts';

/** What a live object store does for each `s3.*` request. */
export interface S3RequestTarget {
  put(key: string, body: Uint8Array, cond?: PutCondition): Promise<Message>;
  get(key: string, range?: ByteRange): Promise<Message>;
  head(key: string): Promise<Message>;
  delete(key: string): Promise<Message>;
  list(prefix: string): Promise<Message>;
}

/** Answers one `s3.*` request with `store` (an unknown type gets an InvalidRequest error reply naming `what`). */
export async function answerS3Request(store: S3RequestTarget, what: string, msg: Message): Promise<Message> {
  const req = msg.req;
  let r: Message;
  switch (msg.type) {
    case 's3.put':
      r = await store.put(msg.key as string, msg.body as Uint8Array, { ...(msg.ifMatch !== undefined ? { ifMatch: msg.ifMatch as string } : {}), ...(msg.ifNoneMatch !== undefined ? { ifNoneMatch: msg.ifNoneMatch as '*' } : {}) });
      break;
    case 's3.get':
      r = await store.get(msg.key as string, msg.range as ByteRange | undefined);
      break;
    case 's3.head':
      r = await store.head(msg.key as string);
      break;
    case 's3.delete':
      r = await store.delete(msg.key as string);
      break;
    case 's3.list':
      r = await store.list(msg.prefix as string);
      break;
    default:
      r = errorReply(`${msg.type}.error`, ErrorCode.InvalidRequest, `${what} does not answer '${msg.type}'; it answers s3.put, s3.get, s3.head, s3.delete, s3.list`, undefined, {});
  }
  return req === undefined ? r : { ...r, req };
}
