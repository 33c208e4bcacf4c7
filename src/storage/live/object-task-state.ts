// The live object-storage backend of the task state store: each value is an object
// at `<base>/<dag>/<run>/<task>/<mapIndex>/<key>` in a live object store (the
// filesystem store). As in Airflow: `expiresAt` is not applied to the object (bucket
// lifecycle rules decide), no size warning (the database would hold only a
// reference), and a missing object reads as none.
import type { ExternalHandler } from '../../actors/index.ts';
import type { Message } from '../../actors/types.ts';
import { keyProblem } from '../keys.ts';
import type { TaskScope } from '../messages.ts';
import { taskStateObjectKey, taskStateObjectPrefix, valueBytes } from '../task-state.ts';
import type { FsObjectStore } from './fs-object-store.ts';
import type { S3ObjectStore } from './s3-object-store.ts';
import { answerTaskState, taskStateHandler, type TaskStateBackendApi } from './task-state-api.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();

export class ObjectTaskStateStore implements TaskStateBackendApi {
  constructor(
    /** The object store holding the values (a directory, or an S3 endpoint). */
    readonly objects: FsObjectStore | S3ObjectStore,
    /** The key prefix of the values. */
    readonly base = 'state',
  ) {
    const p = keyProblem(base);
    if (p !== undefined) throw new Error(`ObjectTaskStateStore: base: ${p}`);
  }

  /** The live adapter for `runLive`: answers `ts.*` requests. */
  readonly handler: ExternalHandler = taskStateHandler(this);

  /** Answers one `ts.*` request (validated as the simulated store does). */
  handle(msg: Message): Promise<Message> {
    return answerTaskState(this, msg);
  }

  keyProblem(scope: TaskScope, key: string): string | undefined {
    const p = keyProblem(taskStateObjectKey(this.base, scope, key));
    return p === undefined ? undefined : `object path for this scope and key: ${p}`;
  }

  async set(scope: TaskScope, key: string, value: string): ReturnType<TaskStateBackendApi['set']> {
    const r = await this.objects.put(taskStateObjectKey(this.base, scope, key), enc.encode(value));
    if (r.type !== 's3.put.ok') throw new Error(r.message);
    return { key, bytes: valueBytes(value), warned: false };
  }

  async get(scope: TaskScope, key: string): ReturnType<TaskStateBackendApi['get']> {
    const body = await this.objects.getBytes(taskStateObjectKey(this.base, scope, key));
    return { key, found: body !== undefined, value: body === undefined ? null : dec.decode(body), expiresAt: null };
  }

  async delete(scope: TaskScope, key: string) {
    const r = await this.objects.delete(taskStateObjectKey(this.base, scope, key));
    if (r.type !== 's3.delete.ok') throw new Error(r.message);
  }

  async clear(scope: TaskScope) {
    const l = await this.objects.list(taskStateObjectPrefix(this.base, scope));
    if (l.type !== 's3.list.ok') throw new Error(l.message);
    for (const k of l.keys) {
      const r = await this.objects.delete(k);
      if (r.type !== 's3.delete.ok') throw new Error(r.message);
    }
    return l.keys.length;
  }

  /** `before` is ignored (expiresAt is not applied to objects); `keys` of `scope` are deleted (a lifecycle rule). */
  async cleanup(opts: { before?: number; scope?: TaskScope; keys?: readonly string[] }) {
    let n = 0;
    if (opts.keys && opts.scope) {
      for (const k of opts.keys) {
        const key = taskStateObjectKey(this.base, opts.scope, k);
        if ((await this.objects.getBytes(key)) !== undefined) {
          await this.objects.delete(key);
          n++;
        }
      }
    }
    return n;
  }
}
