// Live adapters beyond the shared contract: crash safety of the fs put, confinement
// against symlink escapes, SQLite WAL and persistence, and a live run where a
// machine talks to the fs store through the same messages as in simulation.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defineScenario, type Message } from 'interleave';
import { runLive, FsDocumentStore, FsObjectStore, SqliteTaskStateStore } from 'interleave/live';
import { HANDLE_RELATIVE } from '../../../src/storage/live/confined-dir.ts';
import { ErrorCode, TEMP_PREFIX, docCommit, docCreate, docReadNext, docReadOpen, s3Get, s3List, s3Put, scriptClient, staleReaders, tsGet, tsSet, type TaskScope } from 'interleave/storage';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'interleave-live-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
const text = (s: string) => new TextEncoder().encode(s);
const str = (m: Message) => new TextDecoder().decode(m.body as Uint8Array);

describe('filesystem object store', () => {
  it('survives a crash between the temp write and the rename: no partial object is visible, the temp file is swept', async () => {
    const root = tempDir();
    const s = new FsObjectStore(root);
    await s.put('docs/a', text('version 1'));
    // The crash: a put wrote its temp file (a partial one) and died before renaming it.
    writeFileSync(join(root, 'docs', `${TEMP_PREFIX}999-1`), 'version 2, half writ');
    mkdirSync(join(root, 'fresh'));
    writeFileSync(join(root, 'fresh', `${TEMP_PREFIX}999-2`), 'never renamed');
    expect((await s.list('')).keys).toEqual(['docs/a']);
    // Reopen (the restarted process).
    const again = new FsObjectStore(root);
    expect(again.sweptTempFiles).toBe(2);
    expect(str(await again.get('docs/a'))).toBe('version 1');
    expect((await again.list('')).keys).toEqual(['docs/a']);
    expect((await again.get('fresh')).code).toBe(ErrorCode.AccessDenied);
    expect(readdirSync(join(root, 'docs'))).toEqual(['a']);
    // A later put of the same key completes normally.
    await again.put('docs/a', text('version 2'));
    expect(str(await again.get('docs/a'))).toBe('version 2');
  });

  it('rejects keys that resolve outside the root through a symlink, on every operation', async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'secret'), 'top secret');
    symlinkSync(outside, join(root, 'link'));
    symlinkSync(join(outside, 'secret'), join(root, 'file-link'));
    symlinkSync(join(outside, 'not-yet'), join(root, 'dangling'));
    const s = new FsObjectStore(root);
    for (const r of [await s.get('link/secret'), await s.get('file-link'), await s.head('link/secret'), await s.put('link/new', text('x')), await s.delete('link/secret'), await s.get('dangling'), await s.delete('file-link')]) {
      expect([r.code, r.status]).toEqual([ErrorCode.InvalidKey, 400]);
      expect(r.message).toMatch(/goes through the symbolic link '(link|file-link|dangling)'/);
    }
    expect(existsSync(join(outside, 'new'))).toBe(false);
    expect(existsSync(join(outside, 'secret'))).toBe(true);
    // A put onto a symlink replaces the link itself (rename never follows it): nothing is written outside.
    expect((await s.put('dangling', text('x'))).type).toBe('s3.put.ok');
    expect(existsSync(join(outside, 'not-yet'))).toBe(false);
    expect(str(await s.get('dangling'))).toBe('x');
    await s.delete('dangling');
    expect((await s.list('link/')).code).toBe(ErrorCode.InvalidKey);
    expect((await s.list('')).keys).toEqual([]); // symlinks are never listed
  });

  it('a symlink is refused even when it stays inside the root (another process could flip it outside)', async () => {
    const root = tempDir();
    const s = new FsObjectStore(root);
    await s.put('real/x', text('inside'));
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    symlinkSync(join(root, 'real', 'x'), join(root, 'x-alias'));
    for (const r of [await s.get('alias/x'), await s.get('x-alias'), await s.put('alias/y', text('y')), await s.list('alias/')]) expect([r.code, /symbolic link/.test(String(r.message))]).toEqual([ErrorCode.InvalidKey, true]);
    expect((await s.list('')).keys).toEqual(['real/x']);
    expect(str(await s.get('real/x'))).toBe('inside');
  });

  it('refuses to read or head a file with another hard link (it may name a file outside the root)', async () => {
    const root = tempDir();
    const outside = join(root, '..', `${root.split('/').pop()}-outside`);
    dirs.push(outside);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret'), 'top secret');
    linkSync(join(outside, 'secret'), join(root, 'planted'));
    const s = new FsObjectStore(root);
    for (const r of [await s.get('planted'), await s.get('planted', { start: 0, end: 3 }), await s.head('planted')]) {
      expect([r.code, r.status, /2 hard links/.test(String(r.message))]).toEqual([ErrorCode.InvalidKey, 400, true]);
      expect(JSON.stringify(r)).not.toMatch(/top secret/);
    }
    await expect(s.getBytes('planted')).rejects.toThrow(/hard links/);
    // A put replaces the planted name with the store's own file; the outside file is untouched.
    await s.put('planted', text('mine'));
    expect(str(await s.get('planted'))).toBe('mine');
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('top secret');
  });

  it.runIf(HANDLE_RELATIVE)('serves only files it wrote: a file placed by hand lacks the mark and is refused until marked; another user\'s file is refused', async () => {
    const root = tempDir();
    const s = new FsObjectStore(root);
    await s.put('mine', text('mine'));
    expect(statSync(join(root, 'mine')).mode & 0o1000).toBe(0o1000); // the store's mark: the sticky bit
    writeFileSync(join(root, 'by-hand'), 'by hand');
    for (const r of [await s.get('by-hand'), await s.get('by-hand', { start: 0, end: 1 }), await s.head('by-hand')]) {
      expect([r.code, r.status, /lacks the mark .*chmod \+t/.test(String(r.message))]).toEqual([ErrorCode.InvalidKey, 400, true]);
    }
    chmodSync(join(root, 'by-hand'), 0o1644);
    expect(str(await s.get('by-hand'))).toBe('by hand');
    expect((await s.list('')).keys).toEqual(['by-hand', 'mine']);
    if (process.geteuid?.() === 0) {
      // Only a privileged process can give a file to another user; that user's file is refused even with the mark.
      writeFileSync(join(root, 'theirs'), 'theirs');
      chmodSync(join(root, 'theirs'), 0o1644);
      chownSync(join(root, 'theirs'), 65534, 65534);
      const r = await s.get('theirs');
      expect([r.code, /owned by uid 65534, not by this store's uid 0/.test(String(r.message))]).toEqual([ErrorCode.InvalidKey, true]);
    }
  });

  it('rejects keys with lone surrogates, which a file system would alias to U+FFFD and to each other', async () => {
    const s = new FsObjectStore(tempDir());
    for (const key of ['a\ud800', '\udfff', 'x/\udc00y', 'z\udbff\ud800']) {
      for (const r of [await s.put(key, text('x')), await s.get(key), await s.head(key), await s.delete(key)]) expect([r.code, /lone UTF-16 surrogate/.test(String(r.message))]).toEqual([ErrorCode.InvalidKey, true]);
      expect((await s.list(key)).code).toBe(ErrorCode.InvalidKey);
    }
    // Well-formed astral characters (a surrogate pair) are fine and do not alias U+FFFD.
    expect((await s.put('emoji-\u{1F600}', text('pair'))).type).toBe('s3.put.ok');
    expect((await s.get('emoji-\ufffd')).code).toBe(ErrorCode.AccessDenied);
    expect(str(await s.get('emoji-\u{1F600}'))).toBe('pair');
  });

  it('does not hang on a FIFO planted under a key', async () => {
    const root = tempDir();
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const s = new FsObjectStore(root);
    expect((await s.get('pipe')).code).toBe(ErrorCode.AccessDenied);
    expect((await s.list('')).keys).toEqual([]);
  });

  it('a key and a key under it cannot both exist (InvalidKey naming the conflict); delete prunes empty directories', async () => {
    const s = new FsObjectStore(tempDir());
    await s.put('a', text('1'));
    const r = await s.put('a/b', text('2'));
    expect([r.code, /conflicts/.test(String(r.message))]).toEqual([ErrorCode.InvalidKey, true]);
    await s.put('d/e/f', text('3'));
    expect((await s.put('d/e', text('4'))).code).toBe(ErrorCode.InvalidKey);
    await s.delete('d/e/f');
    expect(existsSync(join(s.root, 'd'))).toBe(false);
    expect((await s.put('d/e', text('4'))).type).toBe('s3.put.ok');
  });

  it('reports one io record per operation', async () => {
    const io: string[] = [];
    const s = new FsObjectStore(tempDir(), { missingKey: 404, onIo: (e) => io.push(`${e.op} ${e.key} ${e.outcome}${e.bytes === undefined ? '' : ` ${e.bytes}`}`) });
    await s.put('k', text('abc'));
    await s.get('k');
    await s.get('missing');
    await s.list('');
    expect(io).toEqual(['s3.put k ok 3', 's3.get k ok 3', 's3.get missing 404', 's3.list  ok']);
  });

  it('serves a live run: a scripted actor puts, gets and lists through the same messages as in simulation', async () => {
    const store = new FsObjectStore(tempDir());
    const sc = defineScenario({
      name: 'live-fs',
      actors: { client: scriptClient('store', [s3Put('x/1', text('one')), s3Get('x/1'), s3List('x/'), s3Get('nope')]), store: { kind: 'external' } },
    });
    const sys = runLive(sc, { externals: { store: store.handler }, timeScale: 0 });
    sys.send('client', { type: 'go' });
    const w = await sys.whenQuiescent();
    sys.stop();
    expect(sys.errors).toEqual([]);
    const replies = w.snaps[sc.index.get('client')!] as { replies: Message[] };
    expect(replies.replies.map((m) => m.type)).toEqual(['s3.put.ok', 's3.get.ok', 's3.list.ok', 's3.get.error']);
    expect(str(replies.replies[1]!)).toBe('one');
    expect(replies.replies[2]!.keys).toEqual(['x/1']);
  });
});

describe('filesystem document store', () => {
  it('keeps data files on disk, not in memory; a file deleted on disk from outside answers 403 and ends the reader', async () => {
    const objects = new FsObjectStore(tempDir());
    const docs = new FsDocumentStore(objects);
    await docs.handle(docCreate('t', {}));
    const a = await docs.handle(docCommit('t', text('first'), 1));
    const b = await docs.handle(docCommit('t', text('second'), 1));
    expect((await objects.list('t/')).keys).toEqual([a.key, b.key]);
    expect(Object.values(docs.catalog().objects).every((v) => v.byteLength === 0)).toBe(true);
    await docs.handle(docReadOpen('t', 'r'), 'w');
    expect(str({ type: 'x', body: (await docs.handle(docReadNext('r'), 'w')).data })).toBe('first');
    rmSync(join(objects.root, ...String(b.key).split('/')));
    const r = await docs.handle(docReadNext('r'), 'w');
    expect([r.type, r.code, r.key]).toEqual(['doc.read.next.error', ErrorCode.AccessDenied, b.key]);
    expect(docs.catalog().readers).toEqual({});
  });

  it('a recreate deletes the old generation on disk, and the catalog shows the stale reader until its fetch', async () => {
    const objects = new FsObjectStore(tempDir(), { missingKey: 404 });
    const docs = new FsDocumentStore(objects);
    await docs.handle(docCreate('t', {}));
    await docs.handle(docCommit('t', text('1'), 1));
    await docs.handle(docCommit('t', text('2'), 1));
    await docs.handle(docReadOpen('t', 'r'));
    await docs.handle(docReadNext('r'));
    await docs.handle(docCreate('t', {}));
    expect((await objects.list('')).keys).toEqual([]);
    expect(staleReaders(docs.catalog()).map((x) => x.unfetched)).toEqual([1]);
    expect((await docs.handle(docReadNext('r'))).code).toBe(ErrorCode.NoSuchKey);
  });
});

describe('SQLite task state store', () => {
  const scope: TaskScope = { dagId: 'd', runId: 'r', taskId: 't', mapIndex: -1 };

  it('runs in WAL mode and keeps rows across reopening', async () => {
    const file = join(tempDir(), 'state.db');
    const a = new SqliteTaskStateStore(file);
    expect(a.db.pragma('journal_mode', { simple: true })).toBe('wal');
    await a.handle(tsSet(scope, '_iterable_completed', '{"completed":true,"try_number":1}', 42));
    a.close();
    const b = new SqliteTaskStateStore(file);
    expect(await b.handle(tsGet(scope, '_iterable_completed'))).toEqual({ type: 'ts.get.ok', key: '_iterable_completed', found: true, value: '{"completed":true,"try_number":1}', expiresAt: 42 });
    b.close();
  });

  it('calls onWarning for a value over maxValueStorageBytes and still writes it', async () => {
    const warnings: number[] = [];
    const s = new SqliteTaskStateStore(':memory:', { maxValueStorageBytes: 4, onWarning: (w) => warnings.push(w.bytes) });
    expect((await s.handle(tsSet(scope, 'k', '12345'))).warned).toBe(true);
    expect((await s.handle(tsGet(scope, 'k'))).value).toBe('12345');
    expect(warnings).toEqual([5]);
    s.close();
  });

  it('a failing database answers WriteFailed / ReadFailed, not a crash', async () => {
    const s = new SqliteTaskStateStore(':memory:');
    s.db.exec('DROP TABLE task_state');
    expect((await s.handle(tsGet(scope, 'k'))).code).toBe(ErrorCode.ReadFailed);
    s.close();
  });
});
