// Live Iceberg-style documents: the same doc.* (and s3.*) messages as the simulated
// store, with data files on disk. The catalog (generations, snapshots, reader
// cursors) is the simulated store's own reducer, so its semantics are not written
// twice; the data files live in a FsObjectStore:
// - a commit writes its data file to disk (atomic put) before the reply;
// - create/drop deletes the dropped generation's files from disk;
// - a reader's fetch reads the file from disk: a file missing on disk answers the
//   store's missing-key answer (403 by default) and ends the reader, as in the model.
// The catalog is held in memory for the life of the process (not persisted).
import type { ExternalHandler } from '../../actors/index.ts';
import type { ReducerLogic } from '../../actors/scenario.ts';
import type { Message } from '../../actors/types.ts';
import { readerId } from '../documents.ts';
import { objectStore } from '../object-store.ts';
import { missingKeyError, type StoreState } from '../store-core.ts';
import type { ReqId } from '../messages.ts';
import type { FsObjectStore } from './fs-object-store.ts';
import type { S3ObjectStore } from './s3-object-store.ts';

/** Stands in for a data file's bytes in the in-memory catalog: the bytes are on disk. */
const ON_DISK = new Uint8Array(0);

/** The live document store: the `doc.*` catalog in memory (the simulated store's own handlers), data files in a live object store. */
export class FsDocumentStore {
  private state: StoreState;
  private readonly logic: ReducerLogic<StoreState>;

  constructor(
    /** The object store holding the data files (a directory, or an S3 endpoint). */
    readonly objects: FsObjectStore | S3ObjectStore,
    /** The actor id the store answers as. */
    readonly self = 'store',
  ) {
    this.logic = objectStore({ missingKey: objects.missingKey, bucket: objects.bucket });
    this.state = this.logic.init(undefined);
  }

  /** The live adapter for `runLive`. */
  readonly handler: ExternalHandler = async (msg, from) => [{ to: from, msg: await this.handle(msg, from) }];

  /** Answers one doc.* request (s3.* requests go straight to the object store). */
  async handle(msg: Message, from = 'client'): Promise<Message> {
    if (msg.type.startsWith('s3.')) return this.objects.handle(msg);
    const prev = this.state;
    const r = this.logic.receive(prev, msg, { self: this.self, from, outcome: undefined, now: 0 });
    if (r.unhandled) return { type: `${msg.type}.error`, code: 'InvalidRequest', status: 400, message: `the document store does not answer '${msg.type}'` };
    let next = r.state;
    let reply = r.send?.[0]?.msg as Message;
    // Mirror the catalog's object changes to disk: new data files written, dropped ones deleted.
    if (next.objects !== prev.objects) {
      const objs: Record<string, Uint8Array> = { ...next.objects };
      for (const [k, v] of Object.entries(next.objects)) {
        if (prev.objects[k] === v || v === ON_DISK) continue;
        const put = await this.objects.put(k, v);
        if (put.type !== 's3.put.ok') return { type: `${msg.type}.error`, code: put.code, status: put.status, message: put.message, ...(msg.req === undefined ? {} : { req: msg.req }) };
        objs[k] = ON_DISK;
      }
      for (const k of Object.keys(prev.objects)) if (!(k in next.objects)) await this.objects.delete(k);
      next = { ...next, objects: objs };
    }
    if (reply.type === 'doc.read.next.ok') {
      const key = reply.key as string;
      const data = await this.objects.getBytes(key);
      if (data === undefined) {
        // Gone on disk (deleted from outside): the model's answer for a deleted key.
        next = { ...next, readers: dropKey(next.readers, readerId(from, String(msg.reader))) };
        reply = missingKeyError({ bucket: this.objects.bucket, missingKey: this.objects.missingKey }, 'doc.read.next.error', key, msg.req as ReqId | undefined, { reader: reply.reader, uri: reply.uri });
      } else reply = { ...reply, data };
    }
    this.state = next;
    return reply;
  }

  /** The catalog (generations, snapshots, reader cursors), e.g. for `staleReaders`. */
  catalog(): StoreState {
    return this.state;
  }
}

function dropKey<V>(rec: Readonly<Record<string, V>>, key: string): Readonly<Record<string, V>> {
  const { [key]: _gone, ...rest } = rec;
  return rest;
}
