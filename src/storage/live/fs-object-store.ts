// The live object store: a directory. Same s3.* requests and replies as the
// simulated store (messages.ts), real I/O:
// - put writes a temp file (`.tmp-…` beside the target) and renames it over the
//   key: atomic, so a crash between the two leaves no partial object visible; temp
//   files are swept when the store is opened;
// - keys map to paths under the root and are confined to it, also against a
//   process racing the store: the key rules of keys.ts reject `..`, absolute paths,
//   empty segments and lone surrogates, and every operation walks the key from a
//   handle on the root without following symlinks (confined-dir.ts); symlinks,
//   files with several hard links and files the store did not write (no mark) are
//   refused;
// - a missing key answers the configured missing-key answer (403 or 404);
// - one store per root at a time: opening a store sweeps temp files, including
//   those of a put still running in another process;
// - a key and a key under it (`a`, `a/b`) cannot both exist (a file cannot be a
//   directory), as in MinIO's filesystem mode: the second put fails with InvalidKey.
import { fstatSync, lstatSync, realpathSync, type Stats } from 'node:fs';
import { makeDir } from '../../actors/make-dir.ts';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import type { ExternalHandler } from '../../actors/index.ts';
import type { Message } from '../../actors/types.ts';
import { TEMP_PREFIX, keyProblem, prefixProblem } from '../keys.ts';
import { KeyLocks } from './key-locks.ts';
import { answerS3Request } from './s3-requests.ts';
import { ErrorCode, errorReply, type ByteRange, type MissingKeyAnswer, type PutCondition, type S3Reply } from '../messages.ts';
import { etagOf, putConditionShapeProblem, putPreconditionProblem } from '../common.ts';
import { CREATE_FLAGS, ConfinedRoot, Denied, OBJECT_MARK, OBJECT_MODE, READ_FLAGS, at, closeAll, entries, errno, foreignProblem, hardLinkDenied, openSub, prune, sweepSync, symlinkDenied, type Dir } from './confined-dir.ts';

/** Options of `FsObjectStore`. */
export interface FsObjectStoreOptions {
  /** The bucket name in replies and URIs (default `bucket`). */
  readonly bucket?: string;
  /** What a GET of a missing key answers: `403` AccessDenied (MinIO, the default) or `404` NoSuchKey. */
  readonly missingKey?: MissingKeyAnswer;
  /** fsync each object before its rename (durable across power loss, slower). Default false. */
  readonly fsync?: boolean;
  /** Called once per operation, like the simulated store's `io` trace events. */
  readonly onIo?: (e: { op: string; key: string; outcome: string; bytes?: number }) => void;
}

/** An `FsObjectStore`'s contents as the simulated object store's input (`objectStore`'s `init`). */
export interface FsSnapshot {
  /** Every object's bytes, by key. */
  readonly objects: Record<string, Uint8Array>;
  /** The objects are the whole contents (not added to the scenario's own). */
  readonly exact: true;
}

/** The success reply of one op, or its error reply; also a plain `Message`, so `r.code` reads without narrowing. */
export type FsReply<T extends S3Reply['type']> = (Extract<S3Reply, { type: T }> | Extract<S3Reply, { type: `${string}.error` }>) & Message;
type Reply<T extends S3Reply['type']> = FsReply<T>;

let tempCounter = 0;
/** Opens of a key whose file is swapped under the read, before the get or head is refused. */
const SWAP_ATTEMPTS = 4;

function view(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** The live object store: S3 semantics over a directory (atomic writes by rename, keys confined to the root). */
export class FsObjectStore {
  /** The directory holding the objects. */
  readonly root: string;
  /** The bucket name in effect. */
  readonly bucket: string;
  /** The missing-key answer in effect. */
  readonly missingKey: MissingKeyAnswer;
  /** Temp files removed when the store was opened (left by a crash between write and rename). */
  readonly sweptTempFiles: number;
  private readonly fsync: boolean;
  private readonly onIo: FsObjectStoreOptions['onIo'];
  private readonly confined: ConfinedRoot;

  constructor(root: string, opts: FsObjectStoreOptions = {}) {
    try {
      makeDir(root);
    } catch (e) {
      throw new Error(`FsObjectStore: cannot create the root directory ${root}: ${e instanceof Error ? e.message : String(e)}; give a directory this process can create and write`);
    }
    this.root = realpathSync(root);
    this.bucket = opts.bucket ?? 'bucket';
    this.missingKey = opts.missingKey ?? 403;
    if (this.missingKey !== 403 && this.missingKey !== 404) throw new Error(`FsObjectStore: missingKey must be 403 or 404, got ${String(this.missingKey)}`);
    this.fsync = opts.fsync ?? false;
    this.onIo = opts.onIo;
    this.confined = new ConfinedRoot(this.root);
    this.sweptTempFiles = sweepSync(this.root, TEMP_PREFIX);
  }

  /** The live adapter for `runLive`: each request gets its one reply, sent back to the requester. */
  readonly handler: ExternalHandler = async (msg, from) => [{ to: from, msg: await this.handle(msg) }];

  /** Answers one `s3.*` request (an unknown type gets an InvalidRequest error reply). */
  handle(msg: Message): Promise<Message> {
    return answerS3Request(this, 'the filesystem object store', msg);
  }

  /**
   * Writes the object atomically (a temp file renamed over the key). With `cond`, only if the
   * object's ETag is `ifMatch`, or (`ifNoneMatch: '*'`) only if the key is missing; else
   * `PreconditionFailed` (412) and nothing is written. The check and the write hold the key's
   * lock, which every put of this store takes: atomic within this process, as one store per
   * root is the rule.
   */
  async put(key: string, body: Uint8Array, cond?: PutCondition): Promise<Reply<'s3.put.ok'>> {
    const conditional = cond !== undefined && (cond.ifMatch !== undefined || cond.ifNoneMatch !== undefined);
    return this.locked(key, async () => {
      if (!conditional) return this.write1(key, body);
      const shape = putConditionShapeProblem(cond);
      if (shape !== undefined) return errorReply('s3.put.error', ErrorCode.InvalidRequest, shape, undefined, { key }) as Reply<'s3.put.ok'>;
      const cur = await this.get(key);
      const missing = cur.type !== 's3.get.ok' && (cur.code === ErrorCode.NoSuchKey || cur.code === ErrorCode.AccessDenied);
      if (cur.type !== 's3.get.ok' && !missing) return { ...cur, type: 's3.put.error' } as Reply<'s3.put.ok'>;
      const failed = putPreconditionProblem(key, cond, cur.type === 's3.get.ok' ? cur.body : undefined);
      if (failed !== undefined) {
        this.onIo?.({ op: 's3.put', key, outcome: ErrorCode.PreconditionFailed });
        return errorReply('s3.put.error', ErrorCode.PreconditionFailed, failed, undefined, { key }) as Reply<'s3.put.ok'>;
      }
      const r = await this.write1(key, body);
      return r.type === 's3.put.ok' ? { ...r, etag: etagOf(body) } : r;
    });
  }

  /** Runs `f` after every earlier locked call on `key` has settled. */
  private locked<T>(key: string, f: () => Promise<T>): Promise<T> {
    return this.locks.run(key, f);
  }

  private readonly locks = new KeyLocks();

  private async write1(key: string, body: Uint8Array): Promise<Reply<'s3.put.ok'>> {
    return this.run('put', key, async (dirs, name) => {
      if (!(body instanceof Uint8Array)) throw new Denied(ErrorCode.InvalidRequest, 's3.put needs `body` as a Uint8Array');
      // A concurrent delete may prune a directory just made for this put: walk again.
      for (let attempt = 0; ; attempt++) {
        const chain = this.confined.walk(key, dirs, true, () => this.conflict(key));
        try {
          await this.write(key, chain[chain.length - 1]!, name, body);
          break;
        } catch (e) {
          if (errno(e) !== 'ENOENT' || attempt >= 3) throw e;
        } finally {
          closeAll(chain);
        }
      }
      return { reply: { type: 's3.put.ok', key, bytes: body.byteLength }, bytes: body.byteLength };
    });
  }

  /** Writes a new temp file in `dir` (never an existing file or a symlink: O_EXCL) and renames it over `name`, both relative to the handle. */
  private async write(key: string, dir: Dir, name: string, body: Uint8Array): Promise<void> {
    const tmp = `${TEMP_PREFIX}${process.pid}-${++tempCounter}`;
    let fh: FileHandle | undefined = await open(at(dir, tmp), CREATE_FLAGS, OBJECT_MODE);
    try {
      this.confined.verify(fh, key);
      if ((fstatSync(fh.fd).mode & OBJECT_MARK) !== OBJECT_MARK) {
        throw new Denied(ErrorCode.InternalError, `the filesystem under '${this.root}' does not keep the sticky bit on a new file, which marks the store's objects (get and head serve only marked files); put the root on a Linux filesystem such as ext4, xfs, btrfs or tmpfs`);
      }
      await fh.writeFile(body);
      if (this.fsync) await fh.sync();
      await fh.close();
      fh = undefined;
      await rename(at(dir, tmp), at(dir, name));
    } catch (e) {
      await fh?.close().catch(() => undefined);
      await unlink(at(dir, tmp)).catch(() => undefined);
      const code = errno(e);
      if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw this.conflict(key);
      // Not a missing key: the temp file itself vanished (a second store opened on this root swept it).
      if (code === 'ENOENT' && fh === undefined) throw new Denied(ErrorCode.InternalError, `put of '${key}' lost its temp file before the rename; open one FsObjectStore per root`);
      throw e;
    }
  }

  /** Reads the object, or the byte `range` of it (`InvalidRange` when it does not fit); a missing key answers `missingKey`. */
  async get(key: string, range?: ByteRange): Promise<Reply<'s3.get.ok'>> {
    return this.run('get', key, (dirs, name) =>
      this.withObject(key, dirs, name, async (fh, size) => {
        if (range === undefined) return view(await fh.readFile());
        const start = range.start;
        const end = range.end === undefined ? size - 1 : range.end;
        if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || start >= size) {
          throw new Denied(ErrorCode.InvalidRange, `range ${String(start)}-${String(range.end ?? '')} does not fit object '${key}' of ${size} bytes`);
        }
        const n = Math.min(end, size - 1) - start + 1;
        const buf = Buffer.alloc(n);
        const { bytesRead } = await fh.read(buf, 0, n, start);
        return view(buf.subarray(0, bytesRead));
      }).then(({ value: body, size }) => ({ reply: { type: 's3.get.ok', key, body, size, ...(range === undefined ? { etag: etagOf(body) } : {}) }, bytes: body.byteLength })),
    );
  }

  /**
   * Opens the object's file without following symlinks and returns what `read`
   * makes of it only if the file is provably one this store wrote inside its root:
   * - the descriptor's file, seen by fstat (its identity cannot change under an
   *   attacker's renames), is a regular file owned by the store's user and carries
   *   the store's mark, which a file outside the root that someone links in lacks;
   * - it has one link, the key's name: before and after the read, the key's name is
   *   the same (device, inode) as the descriptor and the descriptor's path is the
   *   key's path, not one reading "(deleted)" (its name unlinked or replaced) nor one
   *   elsewhere (a directory moved).
   * A file swapped meanwhile is opened again a few times (a concurrent put replaces
   * the key), then refused.
   */
  private async withObject<T>(key: string, dirs: readonly string[], name: string, read: (fh: FileHandle, size: number) => Promise<T>): Promise<{ value: T; size: number }> {
    for (let attempt = 1; ; attempt++) {
      const chain = this.confined.walk(key, dirs, false, () => this.conflict(key));
      try {
        const dir = chain[chain.length - 1]!;
        let fh: FileHandle;
        try {
          fh = await open(at(dir, name), READ_FLAGS);
        } catch (e) {
          if (errno(e) === 'ELOOP') throw symlinkDenied(key, name, this.root);
          throw e;
        }
        try {
          const st = fstatSync(fh.fd);
          if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
          if (st.nlink > 1) throw hardLinkDenied(key, st.nlink);
          const foreign = foreignProblem(st, key);
          if (foreign !== undefined) throw new Denied(ErrorCode.InvalidKey, foreign);
          if (this.named(dir, name, st, fh.fd, key)) {
            const value = await read(fh, st.size);
            const after = fstatSync(fh.fd);
            if (after.nlink === 1 && this.named(dir, name, st, fh.fd, key)) return { value, size: st.size };
          }
          if (attempt >= SWAP_ATTEMPTS) throw new Denied(ErrorCode.InvalidKey, `object '${key}' was replaced, moved or given another name while it was read (${attempt} times); refused`);
        } finally {
          await fh.close();
        }
      } finally {
        closeAll(chain);
      }
    }
  }

  /** Whether `name` in `dir` is, right now, the file `st` open as `fd`, at the key's own path. */
  private named(dir: Dir, name: string, st: Stats, fd: number, key: string): boolean {
    const now = lstatOrUndefined(at(dir, name));
    return now !== undefined && now.ino === st.ino && now.dev === st.dev && this.confined.atKey(fd, key);
  }

  /** The object's size and ETag; a missing key answers `missingKey`. */
  async head(key: string): Promise<Reply<'s3.head.ok'>> {
    return this.run('head', key, async (dirs, name) => {
      // The ETag is a digest of the bytes, so a head reads them.
      const { value: etag, size } = await this.withObject(key, dirs, name, async (fh) => etagOf(view(await fh.readFile())));
      return { reply: { type: 's3.head.ok', key, size, etag } };
    });
  }

  /** Deleting a missing key succeeds. Empty parent directories are removed. */
  async delete(key: string): Promise<Reply<'s3.delete.ok'>> {
    return this.run('delete', key, async (dirs, name) => {
      let chain: Dir[];
      try {
        chain = this.confined.walk(key, dirs, false, () => this.conflict(key));
      } catch (e) {
        if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return { reply: { type: 's3.delete.ok', key } };
        throw e;
      }
      try {
        const path = at(chain[chain.length - 1]!, name);
        const st = lstatOrUndefined(path);
        if (st?.isSymbolicLink()) throw symlinkDenied(key, name, this.root);
        if (st !== undefined && !st.isDirectory()) {
          await unlink(path).catch((e: unknown) => {
            if (errno(e) !== 'ENOENT') throw e;
          });
          prune(chain, dirs);
        }
      } finally {
        closeAll(chain);
      }
      return { reply: { type: 's3.delete.ok', key } };
    });
  }

  /**
   * Every object with its bytes, as the simulated store's input (`objectStore`'s `init`
   * takes `{ objects, exact: true }` as exactly these contents): pass it as `runLive`'s
   * `initial` for the actor this store answers for, and the recording starts the model
   * from what the live run found. Throws when an object cannot be read.
   */
  async snapshot(): Promise<FsSnapshot> {
    const l = await this.list('');
    if (l.type !== 's3.list.ok') throw new Error(`FsObjectStore.snapshot: cannot list ${this.root}: ${String((l as Message).message)}`);
    const objects: Record<string, Uint8Array> = {};
    for (const k of l.keys) {
      const g = await this.get(k);
      if (g.type !== 's3.get.ok') throw new Error(`FsObjectStore.snapshot: cannot read '${k}': ${String((g as Message).message)}`);
      objects[k] = g.body;
    }
    return { objects, exact: true };
  }

  /** Keys starting with `prefix`, sorted. Temp files and symlinks are not listed, nor is anything under a symlink. */
  async list(prefix: string): Promise<Reply<'s3.list.ok'>> {
    const t0 = prefix;
    try {
      if (typeof prefix !== 'string') throw new Denied(ErrorCode.InvalidRequest, "s3.list needs a string `prefix` (use '' for every key)");
      const pp = prefixProblem(prefix);
      if (pp !== undefined) throw new Denied(ErrorCode.InvalidKey, pp);
      const lastSlash = prefix.lastIndexOf('/');
      const startRel = lastSlash < 0 ? '' : prefix.slice(0, lastSlash);
      const keys: string[] = [];
      let chain: Dir[] | undefined;
      try {
        chain = this.confined.walk(prefix, startRel === '' ? [] : startRel.split('/'), false, () => this.conflict(prefix));
      } catch (e) {
        if (errno(e) !== 'ENOENT' && errno(e) !== 'ENOTDIR') throw e;
      }
      if (chain !== undefined) {
        try {
          await listDir(chain[chain.length - 1]!, startRel, keys);
        } finally {
          closeAll(chain);
        }
      }
      const out = keys.filter((k) => k.startsWith(prefix)).sort();
      this.onIo?.({ op: 's3.list', key: prefix, outcome: 'ok' });
      return { type: 's3.list.ok', prefix, keys: out };
    } catch (e) {
      const r = this.fail('s3.list.error', t0, e);
      this.onIo?.({ op: 's3.list', key: String(prefix), outcome: String(r.status) });
      return r;
    }
  }

  /** Plain API: the object's bytes, or `undefined` when it does not exist (no 403/404 confusion). */
  async getBytes(key: string): Promise<Uint8Array | undefined> {
    const r = await this.get(key);
    if (r.type === 's3.get.ok') return r.body;
    if (r.code === ErrorCode.NoSuchKey || (r.code === ErrorCode.AccessDenied && !(await this.exists(key)))) return undefined;
    throw new Error(r.message);
  }

  private async exists(key: string): Promise<boolean> {
    const segs = key.split('/');
    try {
      await this.withObject(key, segs.slice(0, -1), segs[segs.length - 1]!, async () => undefined);
      return true;
    } catch {
      return false;
    }
  }

  /** Runs one keyed operation: validates the key, maps errors to replies, reports io. */
  private async run<T extends S3Reply>(op: string, key: string, body: (dirs: string[], name: string) => Promise<{ reply: T; bytes?: number }>): Promise<(T | Extract<S3Reply, { type: `${string}.error` }>) & Message> {
    const type = `s3.${op}`;
    try {
      const problem = keyProblem(key);
      if (problem !== undefined) throw new Denied(ErrorCode.InvalidKey, problem);
      const segs = key.split('/');
      const r = await body(segs.slice(0, -1), segs[segs.length - 1]!);
      this.onIo?.(r.bytes === undefined ? { op: type, key, outcome: 'ok' } : { op: type, key, outcome: 'ok', bytes: r.bytes });
      return r.reply;
    } catch (e) {
      const r = this.fail(`${type}.error`, String(key), e);
      this.onIo?.({ op: type, key: String(key), outcome: String(r.status) });
      return r;
    }
  }

  private fail(type: string, key: string, e: unknown): Extract<S3Reply, { type: `${string}.error` }> {
    if (e instanceof Denied) return errorReply(type, e.code, e.message, undefined, { key }) as never;
    const code = errno(e);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') {
      return (
        this.missingKey === 404
          ? errorReply(type, ErrorCode.NoSuchKey, `no object '${key}' in bucket '${this.bucket}'`, undefined, { key })
          : errorReply(type, ErrorCode.AccessDenied, `access denied to '${key}' in bucket '${this.bucket}' (the key may not exist)`, undefined, { key })
      ) as never;
    }
    if (code === 'EACCES' || code === 'EPERM') return errorReply(type, ErrorCode.AccessDenied, `access denied to '${key}': ${(e as Error).message}`, undefined, { key }) as never;
    return errorReply(type, ErrorCode.InternalError, `filesystem error on '${key}': ${(e as Error)?.message ?? String(e)}`, undefined, { key }) as never;
  }

  private conflict(key: string): Denied {
    return new Denied(ErrorCode.InvalidKey, `key '${key}' conflicts with an existing object or prefix: a filesystem store cannot hold both 'a' and 'a/b' (as MinIO's filesystem mode)`);
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** Collects the keys of regular files under `dir`, opening each subdirectory relative to its parent without following symlinks. */
async function listDir(dir: Dir, rel: string, out: string[]): Promise<void> {
  for (const ent of await entries(dir)) {
    if (ent.name.startsWith(TEMP_PREFIX)) continue;
    const k = rel === '' ? ent.name : `${rel}/${ent.name}`;
    if (ent.isDirectory()) {
      const sub = openSub(dir, ent.name);
      if (sub === undefined) continue; // replaced meanwhile
      try {
        await listDir(sub, k, out);
      } finally {
        closeAll([sub]);
      }
    } else if (ent.isFile()) out.push(k);
  }
}
