// One contract, written once, run against every backend that speaks the protocol:
// the simulated object store (driven reducer-direct) and the filesystem store, each
// with both missing-key answers; the simulated stores also behind the kernel
// (input step, delivery, reply as output); the simulated task state store (both backends),
// SQLite and the object-storage backend over the filesystem store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apply, enabled, initialWorld, inputStep } from 'interleave/kernel';
import { defineScenario, type ReducerLogic, type World, type Message } from 'interleave';
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
  s3Delete,
  s3Get,
  s3Head,
  s3List,
  s3Put,
  simClient,
  taskStateStore,
  tsCleanup,
  tsClear,
  tsDelete,
  tsGet,
  tsSet,
  type MissingKeyAnswer,
  type TaskScope,
} from 'interleave/storage';
import { FsDocumentStore, FsObjectStore, ObjectTaskStateStore, SqliteTaskStateStore } from 'interleave/live';

type Call = (msg: Message) => Promise<Message>;
interface Backend {
  readonly call: Call;
  close(): void;
}

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

const bytes = (...xs: number[]) => new Uint8Array(xs);
const text = (s: string) => new TextEncoder().encode(s);

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

describe.each(Object.keys(objectBackends))('object store contract: %s', (name) => {
  describe.each([403, 404] as const)('missing key answers %i', (missingKey) => {
    const missingCode = missingKey === 403 ? ErrorCode.AccessDenied : ErrorCode.NoSuchKey;
    const open = () => objectBackends[name]!(missingKey);

    it('put then get returns the bytes; put reports the size; req is echoed', async () => {
      const { call } = open();
      expect(await call(s3Put('a/b.bin', bytes(1, 2, 3), 7))).toEqual({ type: 's3.put.ok', key: 'a/b.bin', bytes: 3, req: 7 });
      const g = await call(s3Get('a/b.bin', undefined, 'r1'));
      expect(g.type).toBe('s3.get.ok');
      expect(Array.from(g.body as Uint8Array)).toEqual([1, 2, 3]);
      expect(g.size).toBe(3);
      expect(g.req).toBe('r1');
    });

    it('a put overwrites', async () => {
      const { call } = open();
      await call(s3Put('k', text('one')));
      await call(s3Put('k', text('second')));
      const g = await call(s3Get('k'));
      expect(new TextDecoder().decode(g.body as Uint8Array)).toBe('second');
      expect((await call(s3Head('k'))).size).toBe(6);
    });

    it('get of a byte range: inclusive, end clamped, start past the end rejected', async () => {
      const { call } = open();
      await call(s3Put('r', text('0123456789')));
      const dec = (m: Message) => new TextDecoder().decode(m.body as Uint8Array);
      const a = await call(s3Get('r', { start: 2, end: 4 }));
      expect([dec(a), a.size]).toEqual(['234', 10]);
      expect(dec(await call(s3Get('r', { start: 7 })))).toBe('789');
      expect(dec(await call(s3Get('r', { start: 8, end: 100 })))).toBe('89');
      const bad = await call(s3Get('r', { start: 10 }));
      expect([bad.type, bad.code, bad.status]).toEqual(['s3.get.error', ErrorCode.InvalidRange, 416]);
      expect((await call(s3Get('r', { start: 5, end: 3 }))).code).toBe(ErrorCode.InvalidRange);
    });

    it(`get and head of a missing key answer ${missingKey}`, async () => {
      const { call } = open();
      for (const m of [s3Get('nope'), s3Head('nope'), s3Get('dir/nope', { start: 0 })]) {
        const r = await call(m);
        expect(r.type).toBe(`${m.type}.error`);
        expect([r.code, r.status, r.key]).toEqual([missingCode, missingKey, m.key]);
      }
    });

    it('delete removes; deleting a missing key succeeds', async () => {
      const { call } = open();
      await call(s3Put('x/y', bytes(9)));
      expect(await call(s3Delete('x/y'))).toEqual({ type: 's3.delete.ok', key: 'x/y' });
      expect((await call(s3Get('x/y'))).code).toBe(missingCode);
      expect(await call(s3Delete('x/y'))).toEqual({ type: 's3.delete.ok', key: 'x/y' });
      expect(await call(s3Delete('never/was'))).toEqual({ type: 's3.delete.ok', key: 'never/was' });
      expect((await call(s3List(''))).keys).toEqual([]);
    });

    it('list by prefix is sorted and exact', async () => {
      const { call } = open();
      for (const k of ['b/2', 'a/1', 'a/10/x', 'b/1', 'ab', 'c']) await call(s3Put(k, bytes(1)));
      expect((await call(s3List(''))).keys).toEqual(['a/1', 'a/10/x', 'ab', 'b/1', 'b/2', 'c']);
      expect((await call(s3List('a/'))).keys).toEqual(['a/1', 'a/10/x']);
      expect((await call(s3List('a'))).keys).toEqual(['a/1', 'a/10/x', 'ab']);
      expect((await call(s3List('a/1'))).keys).toEqual(['a/1', 'a/10/x']);
      expect((await call(s3List('zz'))).keys).toEqual([]);
      const l = await call(s3List('b/', 3));
      expect(l).toEqual({ type: 's3.list.ok', prefix: 'b/', keys: ['b/1', 'b/2'], req: 3 });
    });

    it('keys that try to escape are rejected with InvalidKey (400), on every operation', async () => {
      const { call } = open();
      const bad = ['../x', 'a/../../x', '/abs', 'a//b', 'a/', '', './a', 'a/./b', 'a\\b', 'C:/x'];
      for (const key of bad) {
        for (const m of [s3Put(key, bytes(1)), s3Get(key), s3Head(key), s3Delete(key)]) {
          const r = await call(m);
          expect([r.type, r.code, r.status], `${m.type} '${key}'`).toEqual([`${m.type}.error`, ErrorCode.InvalidKey, 400]);
          expect(String(r.message).length).toBeGreaterThan(10);
        }
      }
      expect((await call(s3List('../'))).code).toBe(ErrorCode.InvalidKey);
      expect((await call(s3List(''))).keys).toEqual([]);
    });

    it('a put without bytes is an InvalidRequest', async () => {
      const { call } = open();
      const r = await call({ type: 's3.put', key: 'k', body: 'not bytes' });
      expect([r.type, r.code]).toEqual(['s3.put.error', ErrorCode.InvalidRequest]);
    });
  });
});

// ---------------------------------------------------------------------------
// Task state store
// ---------------------------------------------------------------------------

interface TsBackend extends Backend {
  /** Database semantics (expiresAt kept and cleaned up, size warning and cap). */
  readonly db: boolean;
}

const CAP = 100_000;
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

const scope: TaskScope = { dagId: 'dag', runId: 'manual__2026-01-01T00:00:00+00:00', taskId: 'iter', mapIndex: -1 };
const other: TaskScope = { ...scope, mapIndex: 0 };

describe.each(Object.keys(tsBackends))('task state store contract: %s', (name) => {
  const withStore = async (fn: (b: TsBackend) => Promise<void>) => {
    const b = tsBackends[name]!();
    try {
      await fn(b);
    } finally {
      b.close();
    }
  };

  it('a missing key reads as none; set then get returns the value; set overwrites', () =>
    withStore(async ({ call }) => {
      expect(await call(tsGet(scope, '_iterable_batch_0', 1))).toEqual({ type: 'ts.get.ok', key: '_iterable_batch_0', found: false, value: null, expiresAt: null, req: 1 });
      const s = await call(tsSet(scope, '_iterable_batch_0', '[{"index":0}]', null, 2));
      expect(s).toEqual({ type: 'ts.set.ok', key: '_iterable_batch_0', bytes: 13, warned: false, req: 2 });
      expect((await call(tsGet(scope, '_iterable_batch_0'))).value).toBe('[{"index":0}]');
      await call(tsSet(scope, '_iterable_batch_0', '"é"'));
      const g = await call(tsGet(scope, '_iterable_batch_0'));
      expect([g.found, g.value]).toEqual([true, '"é"']);
    }));

  it('scopes are isolated (map index included)', () =>
    withStore(async ({ call }) => {
      await call(tsSet(scope, 'k', '1'));
      await call(tsSet(other, 'k', '2'));
      expect((await call(tsGet(scope, 'k'))).value).toBe('1');
      expect((await call(tsGet(other, 'k'))).value).toBe('2');
      expect((await call(tsGet({ ...scope, runId: 'r2' }, 'k'))).found).toBe(false);
    }));

  it('delete removes one key; deleting a missing key succeeds', () =>
    withStore(async ({ call }) => {
      await call(tsSet(scope, 'a', '1'));
      await call(tsSet(scope, 'b', '2'));
      expect(await call(tsDelete(scope, 'a'))).toEqual({ type: 'ts.delete.ok', key: 'a' });
      expect((await call(tsGet(scope, 'a'))).found).toBe(false);
      expect((await call(tsGet(scope, 'b'))).value).toBe('2');
      expect((await call(tsDelete(scope, 'a'))).type).toBe('ts.delete.ok');
    }));

  it('clear deletes every key of one scope and no other', () =>
    withStore(async ({ call }) => {
      for (const k of ['x', 'y', 'z']) await call(tsSet(scope, k, '1'));
      await call(tsSet(other, 'x', '1'));
      expect(await call(tsClear(scope))).toEqual({ type: 'ts.clear.ok', deleted: 3 });
      expect((await call(tsGet(scope, 'y'))).found).toBe(false);
      expect((await call(tsGet(other, 'x'))).found).toBe(true);
    }));

  it('expiresAt: kept and enforced by cleanup on the database backend, carried but not applied on object storage', () =>
    withStore(async ({ call, db }) => {
      await call(tsSet(scope, 'old', '1', 1_000));
      await call(tsSet(scope, 'new', '2', 5_000));
      await call(tsSet(scope, 'never', '3', null));
      expect((await call(tsGet(scope, 'old'))).expiresAt).toBe(db ? 1_000 : null);
      const c = await call(tsCleanup({ before: 2_000 }));
      expect(c).toEqual({ type: 'ts.cleanup.ok', deleted: db ? 1 : 0 });
      expect((await call(tsGet(scope, 'old'))).found).toBe(!db);
      expect((await call(tsGet(scope, 'new'))).found).toBe(true);
      expect((await call(tsGet(scope, 'never'))).found).toBe(true);
    }));

  it('a key deleted from outside (cleanup of listed keys) reads as none', () =>
    withStore(async ({ call }) => {
      for (const k of ['_iterable_batch_0', '_iterable_batch_1', '_iterable_batch_2']) await call(tsSet(scope, k, '[]'));
      expect((await call(tsCleanup({ scope, keys: ['_iterable_batch_1', 'missing'] }))).deleted).toBe(1);
      const got = [];
      for (const k of ['_iterable_batch_0', '_iterable_batch_1', '_iterable_batch_2']) got.push((await call(tsGet(scope, k))).found);
      expect(got).toEqual([true, false, true]);
    }));

  it('over maxValueStorageBytes: a warning and the write proceeds (database); over the row cap: ValueTooLarge', () =>
    withStore(async ({ call, db }) => {
      const big = 'x'.repeat(65_536);
      const r = await call(tsSet(scope, 'big', big));
      expect([r.type, r.bytes, r.warned]).toEqual(['ts.set.ok', 65_536, db]);
      expect((await call(tsGet(scope, 'big'))).value).toBe(big);
      const edge = await call(tsSet(scope, 'edge', 'x'.repeat(65_535)));
      expect(edge.warned).toBe(false);
      const huge = await call(tsSet(scope, 'huge', 'x'.repeat(CAP + 1)));
      if (db) {
        expect([huge.type, huge.code, huge.status]).toEqual(['ts.set.error', ErrorCode.ValueTooLarge, 413]);
        expect((await call(tsGet(scope, 'huge'))).found).toBe(false);
        expect((await call(tsSet(scope, 'cap', 'x'.repeat(CAP)))).type).toBe('ts.set.ok');
      } else {
        expect(huge.type).toBe('ts.set.ok');
      }
    }));

  it('bad requests get InvalidRequest naming the field', () =>
    withStore(async ({ call }) => {
      const noScope = await call({ type: 'ts.get', key: 'k' });
      expect([noScope.type, noScope.code]).toEqual(['ts.get.error', ErrorCode.InvalidRequest]);
      expect(String(noScope.message)).toContain('scope');
      const badIndex = await call(tsGet({ ...scope, mapIndex: 1.5 }, 'k'));
      expect(String(badIndex.message)).toContain('mapIndex');
      const noValue = await call({ type: 'ts.set', scope, key: 'k', value: null, expiresAt: null });
      expect([noValue.code, String(noValue.message).includes('None')]).toEqual([ErrorCode.InvalidRequest, true]);
      expect((await call(tsGet(scope, ''))).code).toBe(ErrorCode.InvalidRequest);
    }));
});

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
