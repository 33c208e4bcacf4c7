// The live object store: a directory. Same s3.* requests and replies as the
// simulated store (messages.ts), real I/O:
// - put writes a temp file (`.tmp-…` beside the target) and renames it over the
//   key: atomic, so a crash between the two leaves no partial object visible; temp
//   files are swept when the store is opened;
// - keys map to paths under the root and are confined to it: the key rules of
//   keys.ts reject `..`, absolute paths and empty segments, and every operation
//   checks that the path, with symlinks resolved, stays inside the root;
// - a missing key answers the configured missing-key answer (403 or 404);
// - one store per root at a time: opening a store sweeps temp files, including
//   those of a put still running in another process;
// - a key and a key under it (`a`, `a/b`) cannot both exist (a file cannot be a
//   directory), as in MinIO's filesystem mode: the second put fails with InvalidKey.
import { mkdirSync, readdirSync, realpathSync, unlinkSync } from 'node:fs';
import { lstat, mkdir, open, readFile, readdir, realpath, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep, isAbsolute } from 'node:path';
import type { ExternalHandler } from '../../actors/live.ts';
import type { Message } from '../../actors/types.ts';
import { TEMP_PREFIX, keyProblem, prefixProblem } from '../keys.ts';
import { ErrorCode, errorReply, type ByteRange, type MissingKeyAnswer, type S3Reply } from '../messages.ts';

export interface FsObjectStoreOptions {
  readonly bucket?: string;
  readonly missingKey?: MissingKeyAnswer;
  /** fsync each object before its rename (durable across power loss, slower). Default false. */
  readonly fsync?: boolean;
  /** Called once per operation, like the simulated store's `io` trace events. */
  readonly onIo?: (e: { op: string; key: string; outcome: string; bytes?: number }) => void;
}

/** The success reply of one op, or its error reply; also a plain `Message`, so `r.code` reads without narrowing. */
export type FsReply<T extends S3Reply['type']> = (Extract<S3Reply, { type: T }> | Extract<S3Reply, { type: `${string}.error` }>) & Message;
type Reply<T extends S3Reply['type']> = FsReply<T>;

class Denied extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

let tempCounter = 0;

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

function view(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export class FsObjectStore {
  readonly root: string;
  readonly bucket: string;
  readonly missingKey: MissingKeyAnswer;
  /** Temp files removed when the store was opened (left by a crash between write and rename). */
  readonly sweptTempFiles: number;
  private readonly fsync: boolean;
  private readonly onIo: FsObjectStoreOptions['onIo'];

  constructor(root: string, opts: FsObjectStoreOptions = {}) {
    mkdirSync(root, { recursive: true });
    this.root = realpathSync(root);
    this.bucket = opts.bucket ?? 'bucket';
    this.missingKey = opts.missingKey ?? 403;
    if (this.missingKey !== 403 && this.missingKey !== 404) throw new Error(`FsObjectStore: missingKey must be 403 or 404, got ${String(this.missingKey)}`);
    this.fsync = opts.fsync ?? false;
    this.onIo = opts.onIo;
    this.sweptTempFiles = sweepTemp(this.root);
  }

  /** The live adapter for `runLive`: each request gets its one reply, sent back to the requester. */
  readonly handler: ExternalHandler = async (msg, from) => [{ to: from, msg: await this.handle(msg) }];

  /** Answers one `s3.*` request (an unknown type gets an InvalidRequest error reply). */
  async handle(msg: Message): Promise<Message> {
    const req = msg.req;
    let r: Message;
    switch (msg.type) {
      case 's3.put':
        r = await this.put(msg.key as string, msg.body as Uint8Array);
        break;
      case 's3.get':
        r = await this.get(msg.key as string, msg.range as ByteRange | undefined);
        break;
      case 's3.head':
        r = await this.head(msg.key as string);
        break;
      case 's3.delete':
        r = await this.delete(msg.key as string);
        break;
      case 's3.list':
        r = await this.list(msg.prefix as string);
        break;
      default:
        r = errorReply(`${msg.type}.error`, ErrorCode.InvalidRequest, `the filesystem object store does not answer '${msg.type}'; it answers s3.put, s3.get, s3.head, s3.delete, s3.list`, undefined, {});
    }
    return req === undefined ? r : { ...r, req };
  }

  async put(key: string, body: Uint8Array): Promise<Reply<'s3.put.ok'>> {
    return this.run('put', key, async (path) => {
      if (!(body instanceof Uint8Array)) throw new Denied(ErrorCode.InvalidRequest, 's3.put needs `body` as a Uint8Array');
      const dir = dirname(path);
      try {
        await mkdir(dir, { recursive: true });
      } catch (e) {
        if (errno(e) === 'EEXIST' || errno(e) === 'ENOTDIR') throw this.conflict(key);
        throw e;
      }
      await this.confine(key, path); // the directories exist now: check them again
      const tmp = join(dir, `${TEMP_PREFIX}${process.pid}-${++tempCounter}`);
      try {
        if (this.fsync) {
          const fh = await open(tmp, 'w');
          try {
            await fh.writeFile(body);
            await fh.sync();
          } finally {
            await fh.close();
          }
        } else await writeFile(tmp, body);
        await rename(tmp, path);
      } catch (e) {
        await unlink(tmp).catch(() => undefined);
        if (errno(e) === 'EISDIR' || errno(e) === 'ENOTEMPTY' || errno(e) === 'EEXIST' || errno(e) === 'ENOTDIR') throw this.conflict(key);
        // Not a missing key: the temp file itself vanished (a second store opened on this root swept it).
        if (errno(e) === 'ENOENT') throw new Denied(ErrorCode.InternalError, `put of '${key}' lost its temp file before the rename; open one FsObjectStore per root`);
        throw e;
      }
      return { reply: { type: 's3.put.ok', key, bytes: body.byteLength }, bytes: body.byteLength };
    });
  }

  async get(key: string, range?: ByteRange): Promise<Reply<'s3.get.ok'>> {
    return this.run('get', key, async (path) => {
      if (range === undefined) {
        const body = view(await readFile(path));
        return { reply: { type: 's3.get.ok', key, body, size: body.byteLength }, bytes: body.byteLength };
      }
      const fh = await open(path, 'r');
      try {
        const size = (await fh.stat()).size;
        const start = range.start;
        const end = range.end === undefined ? size - 1 : range.end;
        if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || start >= size) {
          throw new Denied(ErrorCode.InvalidRange, `range ${String(start)}-${String(range.end ?? '')} does not fit object '${key}' of ${size} bytes`);
        }
        const n = Math.min(end, size - 1) - start + 1;
        const buf = Buffer.alloc(n);
        const { bytesRead } = await fh.read(buf, 0, n, start);
        const body = view(buf.subarray(0, bytesRead));
        return { reply: { type: 's3.get.ok', key, body, size }, bytes: body.byteLength };
      } finally {
        await fh.close();
      }
    });
  }

  async head(key: string): Promise<Reply<'s3.head.ok'>> {
    return this.run('head', key, async (path) => {
      const st = await stat(path);
      if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
      return { reply: { type: 's3.head.ok', key, size: st.size } };
    });
  }

  /** Deleting a missing key succeeds. Empty parent directories are removed. */
  async delete(key: string): Promise<Reply<'s3.delete.ok'>> {
    return this.run('delete', key, async (path) => {
      try {
        const st = await lstat(path);
        if (!st.isDirectory()) {
          await unlink(path);
          await this.prune(dirname(path));
        }
      } catch (e) {
        if (errno(e) !== 'ENOENT' && errno(e) !== 'ENOTDIR') throw e;
      }
      return { reply: { type: 's3.delete.ok', key } };
    });
  }

  /** Keys starting with `prefix`, sorted. Temp files and symlinks are not listed. */
  async list(prefix: string): Promise<Reply<'s3.list.ok'>> {
    const t0 = prefix;
    try {
      if (typeof prefix !== 'string') throw new Denied(ErrorCode.InvalidRequest, "s3.list needs a string `prefix` (use '' for every key)");
      const pp = prefixProblem(prefix);
      if (pp !== undefined) throw new Denied(ErrorCode.InvalidKey, pp);
      const lastSlash = prefix.lastIndexOf('/');
      const startRel = lastSlash < 0 ? '' : prefix.slice(0, lastSlash);
      const start = startRel === '' ? this.root : join(this.root, ...startRel.split('/'));
      if (startRel !== '') await this.confine(startRel, start);
      const keys: string[] = [];
      await walk(start, startRel, keys);
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
    try {
      return (await stat(join(this.root, ...key.split('/')))).isFile();
    } catch {
      return false;
    }
  }

  /** Runs one keyed operation: validates and confines the key, maps errors to replies, reports io. */
  private async run<T extends S3Reply>(op: string, key: string, body: (path: string) => Promise<{ reply: T; bytes?: number }>): Promise<(T | Extract<S3Reply, { type: `${string}.error` }>) & Message> {
    const type = `s3.${op}`;
    try {
      const problem = keyProblem(key);
      if (problem !== undefined) throw new Denied(ErrorCode.InvalidKey, problem);
      const path = join(this.root, ...key.split('/'));
      await this.confine(key, path);
      const r = await body(path);
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

  private inside(real: string): boolean {
    const rel = relative(this.root, real);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
  }

  /** Throws unless `path`, with every symlink resolved, stays inside the root. */
  private async confine(key: string, path: string): Promise<void> {
    let p = path;
    for (;;) {
      try {
        const real = await realpath(p);
        if (!this.inside(real)) throw new Denied(ErrorCode.InvalidKey, `key '${key}' resolves outside the store root (through a symbolic link); keys must stay inside '${this.root}'`);
        break;
      } catch (e) {
        if (e instanceof Denied) throw e;
        if (errno(e) !== 'ENOENT' && errno(e) !== 'ENOTDIR') throw e;
        // A dangling symlink as the last component could point anywhere later: refuse it.
        if (p === path) {
          const st = await lstat(p).catch(() => undefined);
          if (st?.isSymbolicLink()) throw new Denied(ErrorCode.InvalidKey, `key '${key}' is a dangling symbolic link; keys must stay inside '${this.root}'`);
        }
        const up = dirname(p);
        if (up === p || !this.inside(up)) break;
        p = up;
      }
    }
  }

  private async prune(dir: string): Promise<void> {
    let d = dir;
    while (d !== this.root && this.inside(d)) {
      try {
        await rmdir(d);
      } catch {
        return;
      }
      d = dirname(d);
    }
  }
}

async function walk(dir: string, rel: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return;
    throw e;
  }
  for (const ent of entries) {
    if (ent.name.startsWith(TEMP_PREFIX)) continue;
    const k = rel === '' ? ent.name : `${rel}/${ent.name}`;
    if (ent.isDirectory()) await walk(join(dir, ent.name), k, out);
    else if (ent.isFile()) out.push(k);
  }
}

/** Removes temp files left by a crash between write and rename; returns how many. */
function sweepTemp(dir: string): number {
  let n = 0;
  for (const ent of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, ent.name);
    if (ent.name.startsWith(TEMP_PREFIX) && ent.isFile()) {
      unlinkSync(p);
      n++;
    } else if (ent.isDirectory()) n += sweepTemp(p);
  }
  return n;
}
