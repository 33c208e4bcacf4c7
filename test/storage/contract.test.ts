// One contract, written once (test/helpers/storage-contract.ts), run against every backend that speaks the protocol:
// the simulated object store (driven reducer-direct) and the filesystem store, each
// with both missing-key answers; the simulated stores also behind the kernel
// (input step, delivery, reply as output); the simulated task state store (both backends),
// SQLite and the object-storage backend over the filesystem store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apply, enabled, initialWorld, inputStep } from 'interleave/kernel';
import { defineScenario, type ReducerLogic, type World } from 'interleave';
import {
  ErrorCode,
  NO_STORAGE_FOUND,
  decodeRows,
  docCommit,
  docCreate,
  docDrop,
  docOpen,
  docReadNext,
  docReadOpen,
  encodeRows,
  objectStore,
  simClient,
  taskStateStore,
  type MissingKeyAnswer,
} from 'interleave/storage';
import { FsDocumentStore, FsObjectStore, ObjectTaskStateStore, SqliteTaskStateStore } from 'interleave/live';
import { CAP, objectStoreContract, taskStateContract, type Backend, type Call, type TsBackend } from '../helpers/storage-contract.ts';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'interleave-storage-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A store behind the kernel: each call is an input step from env and the delivery; the reply is the `output` event. */
function viaKernel(store: ReducerLogic): Backend {
  const sc = defineScenario({ name: 'contract', actors: { store } });
  let w: World = initialWorld(sc).world;
  return {
    call: async (msg) => {
      w = apply(sc, w, inputStep(sc, 'env', 'store', msg)).world;
      const step = enabled(sc, w).find((s) => s.kind === 'deliver' && s.outcome === undefined)!;
      const r = apply(sc, w, step);
      w = r.world;
      const out = r.events.filter((e) => e.kind === 'output');
      if (out.length !== 1 || out[0]!.kind !== 'output') throw new Error(`expected one reply to '${msg.type}', got ${out.length}`);
      return out[0]!.msg;
    },
    close: () => undefined,
  };
}


// ---------------------------------------------------------------------------
// Object store
// ---------------------------------------------------------------------------

const objectBackends: Record<string, (missingKey: MissingKeyAnswer) => Backend> = {
  sim: (missingKey) => {
    const c = simClient(objectStore({ missingKey }));
    return { call: async (m) => c.request(m), close: () => undefined };
  },
  'sim under the kernel': (missingKey) => viaKernel(objectStore({ missingKey })),
  fs: (missingKey) => {
    const s = new FsObjectStore(tempDir(), { missingKey });
    return { call: (m) => s.handle(m), close: () => undefined };
  },
};

objectStoreContract(objectBackends);

// ---------------------------------------------------------------------------
// Task state store
// ---------------------------------------------------------------------------

const tsBackends: Record<string, () => TsBackend> = {
  'sim database': () => {
    const c = simClient(taskStateStore({ rowCapBytes: CAP }));
    return { db: true, call: async (m) => c.request(m), close: () => undefined };
  },
  'sim object-storage': () => {
    const c = simClient(taskStateStore({ backend: 'object-storage', base: 'state' }));
    return { db: false, call: async (m) => c.request(m), close: () => undefined };
  },
  'sim database under the kernel': () => ({ db: true, ...viaKernel(taskStateStore({ rowCapBytes: CAP })) }),
  sqlite: () => {
    const s = new SqliteTaskStateStore(join(tempDir(), 'state.db'), { rowCapBytes: CAP });
    return { db: true, call: (m) => s.handle(m), close: () => s.close() };
  },
  'fs object-storage': () => {
    const s = new ObjectTaskStateStore(new FsObjectStore(tempDir()), 'state');
    return { db: false, call: (m) => s.handle(m), close: () => undefined };
  },
};

taskStateContract(tsBackends);

// ---------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------

const docBackends: Record<string, (missingKey: MissingKeyAnswer) => Backend> = {
  sim: objectBackends.sim!,
  'sim under the kernel': objectBackends['sim under the kernel']!,
  'fs (catalog in memory, data files on disk)': (missingKey) => {
    const s = new FsDocumentStore(new FsObjectStore(tempDir(), { missingKey }));
    return { call: (m) => s.handle(m, 'env'), close: () => undefined };
  },
};

describe.each(Object.keys(docBackends))('document contract: %s', (name) => {
  const uri = 'vfs:///wid/1/eid/1/globalportid/(logicalOpId=src,layerName=main,portId=0,isInternal=false,isInput=false)/result';
  const rows = (n: number) => encodeRows([{ n }]);
  const first = async (call: Call, reader: string) => decodeRows((await call(docReadNext(reader))).data as Uint8Array)[0]?.n;

  it('open of a missing uri fails with the exact message; create, commit and open report the snapshot', async () => {
    const { call } = docBackends[name]!(403);
    const miss = await call(docOpen(uri));
    expect([miss.type, miss.code, miss.message]).toEqual(['doc.open.error', ErrorCode.NoSuchTable, NO_STORAGE_FOUND]);
    expect(await call(docCreate(uri, { f: 1 }))).toEqual({ type: 'doc.create.ok', uri, generation: 1, dropped: 0 });
    expect((await call(docCommit(uri, rows(1), 1))).type).toBe('doc.commit.ok');
    expect((await call(docCommit(uri, rows(2), 1))).snapshot).toBe(2);
    expect(await call(docOpen(uri))).toEqual({ type: 'doc.open.ok', uri, generation: 1, schema: { f: 1 }, files: 2, rows: 2 });
  });

  it('a reader fetches one file per next, in commit order, and never sees commits after its pin', async () => {
    const { call } = docBackends[name]!(403);
    await call(docCreate(uri, {}));
    await call(docCommit(uri, rows(1), 1));
    await call(docReadOpen(uri, 'r'));
    await call(docCommit(uri, rows(2), 1)); // before the pin: seen
    expect(await first(call, 'r')).toBe(1);
    await call(docCommit(uri, rows(3), 1)); // after the pin: not seen
    expect(await first(call, 'r')).toBe(2);
    expect((await call(docReadNext('r'))).type).toBe('doc.read.next.done');
  });

  it.each([403, 404] as const)('create overrides; a reader mid-stream then gets %i on its next fetch', async (missingKey) => {
    const { call } = docBackends[name]!(missingKey);
    await call(docCreate(uri, {}));
    for (const n of [1, 2, 3]) await call(docCommit(uri, rows(n), 1));
    await call(docReadOpen(uri, 'r'));
    expect(await first(call, 'r')).toBe(1);
    expect(await call(docCreate(uri, {}))).toEqual({ type: 'doc.create.ok', uri, generation: 2, dropped: 3 });
    const r = await call(docReadNext('r'));
    expect([r.type, r.status, r.code]).toEqual(['doc.read.next.error', missingKey, missingKey === 403 ? ErrorCode.AccessDenied : ErrorCode.NoSuchKey]);
    expect((await call(docReadNext('r'))).code).toBe(ErrorCode.NoSuchReader);
    expect((await call(docOpen(uri))).files).toBe(0);
  });

  it('a commit to a recreated generation fails; a drop makes the uri missing', async () => {
    const { call } = docBackends[name]!(403);
    await call(docCreate(uri, {}));
    await call(docCreate(uri, {}));
    expect((await call(docCommit(uri, rows(1), 1, { generation: 1 }))).code).toBe(ErrorCode.CommitFailed);
    expect((await call(docDrop(uri))).type).toBe('doc.drop.ok');
    expect((await call(docReadOpen(uri, 'r'))).code).toBe(ErrorCode.NoSuchTable);
  });
});
