// The Amber loop's store, live on the filesystem or an S3 endpoint. The catalog logic is the model's
// own reducer (src/machines/amber/store.ts: docs, generations, pinned readers), so
// there is no second implementation of its semantics; the data files are objects
// of src/storage/live's filesystem store (atomic put: temp file + rename) or of its
// S3 store (S3ObjectStore, `--s3`); both answer with the same replies:
// - after each request, objects the reducer added are written, removed ones deleted;
// - a Fetch reads its data file back from the store first: a file missing there
//   answers the store's missing-key reply (403 by default), as the model does.
import type { Message, ReducerLogic } from 'interleave';
import { FsObjectStore, type ExternalHandler, type S3ObjectStore } from 'interleave/live';
import type { AmberStoreState as StoreState } from 'interleave/machines';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The object store operations the example uses: FsObjectStore's and S3ObjectStore's. */
export type ObjectStoreApi = Pick<FsObjectStore, 'get' | 'put' | 'delete' | 'list'> | Pick<S3ObjectStore, 'get' | 'put' | 'delete' | 'list'>;

export interface AmberFsStore {
  readonly handle: ExternalHandler;
  readonly objects: ObjectStoreApi;
  /** Objects written and read on disk so far. */
  readonly io: { puts: number; gets: number; deletes: number; bytes: number };
}

export function amberFsStore(root: string, logic: ReducerLogic<StoreState>, input?: unknown): AmberFsStore {
  return amberStore(new FsObjectStore(root), logic, input);
}

/** The Amber store on any object store with the s3.* replies (a directory, an S3 endpoint). */
export function amberStore(objects: ObjectStoreApi, logic: ReducerLogic<StoreState>, input?: unknown): AmberFsStore {
  const io = { puts: 0, gets: 0, deletes: 0, bytes: 0 };
  let state = logic.init(input);
  const handle: ExternalHandler = async (msg: Message, from: string) => {
    if (msg.type === 'Fetch') {
      // The bytes come from the store, not from memory.
      const key = msg.key as string;
      const got = await objects.get(key);
      io.gets++;
      if (got.type === 's3.get.ok') {
        const mem = state.objects[key];
        const body = mem instanceof Uint8Array ? got.body : (JSON.parse(dec.decode(got.body)) as unknown);
        state = { ...state, objects: { ...state.objects, [key]: body as Uint8Array } };
      } else if (key in state.objects) {
        const rest = { ...state.objects };
        delete rest[key];
        state = { ...state, objects: rest };
      }
    }
    const prev = state;
    const r = logic.receive(state, msg, { self: 'store', from, outcome: undefined, now: 0 });
    if (r.unhandled) throw new Error(`the Amber store has no case for '${msg.type}' from '${from}'`);
    state = r.state;
    if (prev.objects !== state.objects) {
      for (const [k, v] of Object.entries(state.objects)) {
        if (prev.objects[k] === v) continue;
        const body = v instanceof Uint8Array ? v : enc.encode(JSON.stringify(v));
        const put = await objects.put(k, body);
        if (put.type !== 's3.put.ok') throw new Error(`writing ${k} failed: ${String((put as { message?: string }).message)}`);
        io.puts++;
        io.bytes += body.byteLength;
      }
      for (const k of Object.keys(prev.objects)) {
        if (k in state.objects) continue;
        await objects.delete(k);
        io.deletes++;
      }
    }
    return (r.send ?? []).map((s) => ({ to: s.to, msg: s.msg }));
  };
  return { handle, objects, io };
}
