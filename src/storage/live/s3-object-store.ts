// The live object store on the S3 API (AWS SDK v3), for any S3-compatible endpoint:
// the same s3.* requests and replies as the simulated and filesystem stores.
// - Keys are validated by keys.ts before anything is sent, and live under `prefix`.
// - ETags are the model's (etagOf, a digest of the bytes), not the server's: a
//   recording then replays on the model, whose store computes the same ones. Each
//   put stores it as object metadata; a get computes it from the bytes.
// - Conditional puts: `If-None-Match: *` is sent as is; `If-Match: <model etag>` is a
//   HEAD (the server's ETag and ours) then a PUT with `If-Match: <server ETag>`, so the
//   server still decides atomically. A server that ignores these headers would
//   overwrite: `conditionalWrites: 'process'` checks them in this process instead.
// - @aws-sdk/client-s3 is an optional peer dependency, loaded when a store is made.
import { createRequire } from 'node:module';
import type { ExternalHandler } from '../../actors/index.ts';
import type { Message } from '../../actors/types.ts';
import { etagOf, putConditionShapeProblem, putPreconditionProblem } from '../common.ts';
import { keyProblem, prefixProblem } from '../keys.ts';
import { KeyLocks } from './key-locks.ts';
import { answerS3Request } from './s3-requests.ts';
import { ErrorCode, errorReply, type ByteRange, type MissingKeyAnswer, type PutCondition, type S3Reply } from '../messages.ts';
import type { FsReply, FsSnapshot } from './fs-object-store.ts';

/** An S3 client as this store uses it: `send(command)` (an `S3Client` of @aws-sdk/client-s3 v3). */
export interface S3ClientLike {
  /** Sends one command; rejects with the service's error. */
  send(command: unknown): Promise<unknown>;
}

/** Options of `S3ObjectStore`. */
export interface S3ObjectStoreOptions {
  /** The bucket (it must exist). */
  readonly bucket: string;
  /** The endpoint URL of an S3-compatible server (`http://127.0.0.1:9000`); default: AWS for `region`. */
  readonly endpoint?: string;
  /** The region (default `AWS_REGION`, else `us-east-1`). */
  readonly region?: string;
  /** Every key is stored under this prefix (`''`, or a key prefix ending in `/`). Default `''`. */
  readonly prefix?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which local servers need. Default: true when `endpoint` is given. */
  readonly forcePathStyle?: boolean;
  /** Static credentials; default: the SDK's provider chain (environment, shared files, instance roles). */
  readonly credentials?: {
    /** The access key id. */
    readonly accessKeyId: string;
    /** The secret access key. */
    readonly secretAccessKey: string;
    /** A session token, for temporary credentials. */
    readonly sessionToken?: string;
  };
  /** Attempts per request, the SDK's own retries of throttling and network errors included (default 3). */
  readonly maxAttempts?: number;
  /** What a GET or HEAD of a missing key answers: `404` NoSuchKey (S3's answer, the default) or `403` AccessDenied (MinIO's without list rights). */
  readonly missingKey?: MissingKeyAnswer;
  /**
   * Who checks a conditional put: `'server'` (default) sends `If-None-Match` / `If-Match`
   * and the server decides atomically, across hosts; `'process'` checks the condition
   * here then writes, atomic only among the puts of this store object (for servers
   * that ignore the headers). `probeConditionalWrites()` says which a server needs.
   */
  readonly conditionalWrites?: 'server' | 'process';
  /** A client to use instead of building one from the options above. */
  readonly client?: S3ClientLike;
  /** Called once per operation, like the simulated store's `io` trace events. */
  readonly onIo?: (e: { op: string; key: string; outcome: string; bytes?: number }) => void;
}

type Sdk = typeof import('@aws-sdk/client-s3');

type Reply<T extends S3Reply['type']> = FsReply<T>;

const ETAG_META = 'interleave-etag';

const require = createRequire(import.meta.url);
let sdk: Sdk | undefined;

/** Loads @aws-sdk/client-s3 (its CommonJS build, which needs no bundler), or says what to install when it is missing. */
function loadSdk(): Sdk {
  if (sdk !== undefined) return sdk;
  try {
    sdk = require('@aws-sdk/client-s3') as Sdk;
    return sdk;
  } catch (e) {
    if ((e as { code?: string }).code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes("'@aws-sdk/client-s3'")) {
      throw new Error('S3ObjectStore needs the optional peer dependency @aws-sdk/client-s3 (v3), which is not installed: run `npm install @aws-sdk/client-s3` in your project (or use FsObjectStore, which needs none)');
    }
    throw e;
  }
}

/** An error reply whose code says the store's answer; thrown inside an operation, turned into its reply. */
class Answer extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The live object store on the S3 API: the s3.* requests of the simulated store,
 * answered by an S3-compatible server. S3's answers map to the replies the machines
 * handle: AccessDenied → 403, NoSuchKey → the missing-key answer, SlowDown / 503 and
 * network errors of reads → SlowDown (503, no effect), a network error or 5xx of a
 * write → InternalError (500, it may have taken effect).
 */
export class S3ObjectStore {
  /** The bucket. */
  readonly bucket: string;
  /** The key prefix every object is stored under. */
  readonly prefix: string;
  /** The missing-key answer in effect. */
  readonly missingKey: MissingKeyAnswer;
  /** Who checks conditional puts. */
  readonly conditionalWrites: 'server' | 'process';
  private readonly opts: S3ObjectStoreOptions;
  private readonly onIo: S3ObjectStoreOptions['onIo'];
  private clientP: Promise<S3ClientLike> | undefined;
  private readonly locks = new KeyLocks();

  constructor(opts: S3ObjectStoreOptions) {
    if (typeof opts?.bucket !== 'string' || opts.bucket === '') throw new Error('S3ObjectStore: give the bucket name (`bucket`); the bucket must exist');
    this.bucket = opts.bucket;
    this.prefix = opts.prefix ?? '';
    if (this.prefix !== '' && (!this.prefix.endsWith('/') || prefixProblem(this.prefix) !== undefined || keyProblem(this.prefix.slice(0, -1)) !== undefined)) {
      throw new Error(`S3ObjectStore: prefix must be '' or a key prefix ending in '/' (like 'jobs/a/'), got ${JSON.stringify(this.prefix)}`);
    }
    this.missingKey = opts.missingKey ?? 404;
    if (this.missingKey !== 403 && this.missingKey !== 404) throw new Error(`S3ObjectStore: missingKey must be 403 or 404, got ${String(this.missingKey)}`);
    this.conditionalWrites = opts.conditionalWrites ?? 'server';
    if (this.conditionalWrites !== 'server' && this.conditionalWrites !== 'process') throw new Error(`S3ObjectStore: conditionalWrites must be 'server' or 'process', got ${String(opts.conditionalWrites)}`);
    if (opts.maxAttempts !== undefined && !(Number.isInteger(opts.maxAttempts) && opts.maxAttempts >= 1)) throw new Error(`S3ObjectStore: maxAttempts must be a whole number >= 1, got ${String(opts.maxAttempts)}`);
    this.opts = opts;
    this.onIo = opts.onIo;
    // Loaded here, so a missing package is an error at construction, not a failed request.
    loadSdk();
    if (opts.client) this.clientP = Promise.resolve(opts.client);
  }

  /**
   * A store from a URL: `s3://bucket[/prefix/]?endpoint=http://127.0.0.1:9000&region=…&pathStyle=1&missingKey=403&conditional=process`.
   * Credentials come from the SDK's provider chain (`AWS_ACCESS_KEY_ID`, … ).
   */
  static fromUrl(url: string, extra: Partial<S3ObjectStoreOptions> = {}): S3ObjectStore {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error(`S3ObjectStore: not a URL: ${JSON.stringify(url)}; write s3://bucket/prefix/?endpoint=http://host:port`);
    }
    if (u.protocol !== 's3:' || u.hostname === '') throw new Error(`S3ObjectStore: the URL must be s3://bucket[/prefix/][?endpoint=…], got ${JSON.stringify(url)}`);
    const q = u.searchParams;
    const known = new Set(['endpoint', 'region', 'pathStyle', 'missingKey', 'conditional']);
    for (const k of q.keys()) if (!known.has(k)) throw new Error(`S3ObjectStore: unknown URL parameter '${k}' in ${JSON.stringify(url)}; known: ${[...known].join(', ')}`);
    let prefix = decodeURIComponent(u.pathname.replace(/^\//, ''));
    if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
    const mk = q.get('missingKey');
    const cond = q.get('conditional');
    const ps = q.get('pathStyle');
    return new S3ObjectStore({
      bucket: u.hostname,
      prefix,
      ...(q.get('endpoint') ? { endpoint: q.get('endpoint')! } : {}),
      ...(q.get('region') ? { region: q.get('region')! } : {}),
      ...(ps !== null ? { forcePathStyle: ps === '1' || ps === 'true' } : {}),
      ...(mk !== null ? { missingKey: Number(mk) as MissingKeyAnswer } : {}),
      ...(cond !== null ? { conditionalWrites: cond as 'server' | 'process' } : {}),
      ...extra,
    });
  }

  /** The live adapter for `runLive`: each request gets its one reply, sent back to the requester. */
  readonly handler: ExternalHandler = async (msg, from) => [{ to: from, msg: await this.handle(msg) }];

  /** Answers one `s3.*` request (an unknown type gets an InvalidRequest error reply). */
  handle(msg: Message): Promise<Message> {
    return answerS3Request(this, 'the S3 object store', msg);
  }

  /**
   * Writes the object. With `cond`, only if its ETag is `ifMatch`, or (`ifNoneMatch: '*'`)
   * only if the key is missing; else `PreconditionFailed` (412) and nothing is written.
   */
  async put(key: string, body: Uint8Array, cond?: PutCondition): Promise<Reply<'s3.put.ok'>> {
    const conditional = cond !== undefined && (cond.ifMatch !== undefined || cond.ifNoneMatch !== undefined);
    return this.run<Reply<'s3.put.ok'>>('put', key, async () => {
      if (!(body instanceof Uint8Array)) throw new Answer(ErrorCode.InvalidRequest, 's3.put needs `body` as a Uint8Array');
      if (!conditional) {
        await this.putObject(key, body, {});
        return { reply: { type: 's3.put.ok', key, bytes: body.byteLength }, bytes: body.byteLength };
      }
      const shape = putConditionShapeProblem(cond);
      if (shape !== undefined) throw new Answer(ErrorCode.InvalidRequest, shape);
      if (this.conditionalWrites === 'process') await this.locked(key, () => this.putChecked(key, body, cond));
      else await this.putConditional(key, body, cond);
      return { reply: { type: 's3.put.ok', key, bytes: body.byteLength, etag: etagOf(body) }, bytes: body.byteLength };
    });
  }

  /** The server decides: If-None-Match as sent, If-Match translated to the server's ETag of the object whose model ETag matches. */
  private async putConditional(key: string, body: Uint8Array, cond: PutCondition): Promise<void> {
    if (cond.ifMatch === undefined) return this.putObject(key, body, { IfNoneMatch: '*' });
    const cur = await this.headRaw(key);
    const failed = cur === undefined || cur.etag !== cond.ifMatch ? putPreconditionProblemOf(key, cond.ifMatch, cur?.etag) : undefined;
    if (failed !== undefined) throw new Answer(ErrorCode.PreconditionFailed, failed);
    return this.putObject(key, body, { IfMatch: cur!.serverEtag });
  }

  /** This process decides (under the key's lock): read, check, write. */
  private async putChecked(key: string, body: Uint8Array, cond: PutCondition): Promise<void> {
    const cur = await this.getRaw(key, undefined);
    const failed = putPreconditionProblem(key, cond, cur?.body);
    if (failed !== undefined) throw new Answer(ErrorCode.PreconditionFailed, failed);
    await this.putObject(key, body, {});
  }

  /** Reads the object, or the byte `range` of it (`InvalidRange` when it does not fit); a missing key answers `missingKey`. */
  async get(key: string, range?: ByteRange): Promise<Reply<'s3.get.ok'>> {
    return this.run<Reply<'s3.get.ok'>>('get', key, async () => {
      if (range !== undefined) {
        const { start, end } = range;
        if (!Number.isInteger(start) || start < 0 || (end !== undefined && (!Number.isInteger(end) || end < start))) {
          throw new Answer(ErrorCode.InvalidRange, `range ${String(start)}-${String(end ?? '')} is not a byte range (0 <= start <= end)`);
        }
      }
      const got = await this.getRaw(key, range);
      if (got === undefined) throw this.missing(key);
      const reply = { type: 's3.get.ok' as const, key, body: got.body, size: got.size, ...(range === undefined ? { etag: etagOf(got.body) } : {}) };
      return { reply, bytes: got.body.byteLength };
    });
  }

  /** The object's size and ETag; a missing key answers `missingKey`. */
  async head(key: string): Promise<Reply<'s3.head.ok'>> {
    return this.run<Reply<'s3.head.ok'>>('head', key, async () => {
      const h = await this.headRaw(key);
      if (h === undefined) throw this.missing(key);
      return { reply: { type: 's3.head.ok', key, size: h.size, etag: h.etag } };
    });
  }

  /** Deleting a missing key succeeds. */
  async delete(key: string): Promise<Reply<'s3.delete.ok'>> {
    return this.run<Reply<'s3.delete.ok'>>('delete', key, async () => {
      const sdk = loadSdk();
      await this.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      return { reply: { type: 's3.delete.ok', key } };
    });
  }

  /** Keys starting with `prefix` (under the store's prefix), sorted as the simulated store sorts them. */
  async list(prefix: string): Promise<Reply<'s3.list.ok'>> {
    const op = 's3.list';
    try {
      if (typeof prefix !== 'string') throw new Answer(ErrorCode.InvalidRequest, "s3.list needs a string `prefix` (use '' for every key)");
      const pp = prefixProblem(prefix);
      if (pp !== undefined) throw new Answer(ErrorCode.InvalidKey, pp);
      const sdk = loadSdk();
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const out = (await this.send(new sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ...(token ? { ContinuationToken: token } : {}) }))) as { Contents?: { Key?: string }[]; IsTruncated?: boolean; NextContinuationToken?: string };
        for (const c of out.Contents ?? []) if (c.Key !== undefined) keys.push(c.Key.slice(this.prefix.length));
        token = out.IsTruncated ? out.NextContinuationToken : undefined;
      } while (token !== undefined);
      this.onIo?.({ op, key: prefix, outcome: 'ok' });
      return { type: 's3.list.ok', prefix, keys: keys.sort() };
    } catch (e) {
      const r = this.fail(`${op}.error`, String(prefix), e, false);
      this.onIo?.({ op, key: String(prefix), outcome: String(r.status) });
      return r as Reply<'s3.list.ok'>;
    }
  }

  /** Plain API: the object's bytes, or `undefined` when it does not exist. */
  async getBytes(key: string): Promise<Uint8Array | undefined> {
    const r = await this.get(key);
    if (r.type === 's3.get.ok') return r.body;
    if (r.code === ErrorCode.NoSuchKey || (r.code === ErrorCode.AccessDenied && this.missingKey === 403 && (await this.headRaw(key).catch(() => 'unknown' as const)) === undefined)) return undefined;
    throw new Error(String(r.message));
  }

  /** Every object with its bytes, as the simulated store's input (see `FsObjectStore.snapshot`). Throws when an object cannot be read. */
  async snapshot(): Promise<FsSnapshot> {
    const l = await this.list('');
    if (l.type !== 's3.list.ok') throw new Error(`S3ObjectStore.snapshot: cannot list bucket '${this.bucket}': ${String((l as Message).message)}`);
    const objects: Record<string, Uint8Array> = {};
    for (const k of l.keys) {
      const g = await this.get(k);
      if (g.type !== 's3.get.ok') throw new Error(`S3ObjectStore.snapshot: cannot read '${k}': ${String((g as Message).message)}`);
      objects[k] = g.body;
    }
    return { objects, exact: true };
  }

  /**
   * Whether the server refuses a conditional put that must fail (`If-None-Match: *` on a key
   * that exists): true when it does, so `conditionalWrites: 'server'` is safe there. Writes
   * and deletes one object under the store's prefix.
   */
  async probeConditionalWrites(): Promise<boolean> {
    const sdk = loadSdk();
    const key = `${this.prefix}.interleave-probe-${process.pid}-${Date.now().toString(36)}`;
    const body = new Uint8Array([1]);
    try {
      await this.send(new sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body }));
      try {
        await this.send(new sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, IfNoneMatch: '*' }));
        return false;
      } catch (e) {
        if (statusOf(e) === 412) return true;
        throw e;
      }
    } finally {
      await this.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key })).catch(() => undefined);
    }
  }

  /** Closes the client's connections. */
  async close(): Promise<void> {
    if (this.opts.client || this.clientP === undefined) return;
    const c = (await this.clientP.catch(() => undefined)) as { destroy?: () => void } | undefined;
    c?.destroy?.();
  }

  private client(): Promise<S3ClientLike> {
    this.clientP ??= Promise.resolve(loadSdk()).then((sdk) => {
      const o = this.opts;
      return new sdk.S3Client({
        region: o.region ?? process.env.AWS_REGION ?? 'us-east-1',
        ...(o.endpoint !== undefined ? { endpoint: o.endpoint } : {}),
        forcePathStyle: o.forcePathStyle ?? o.endpoint !== undefined,
        ...(o.credentials ? { credentials: o.credentials } : {}),
        maxAttempts: o.maxAttempts ?? 3,
      });
    });
    return this.clientP;
  }

  private async send(command: unknown): Promise<unknown> {
    return (await this.client()).send(command);
  }

  private async putObject(key: string, body: Uint8Array, cond: { IfNoneMatch?: string; IfMatch?: string }): Promise<void> {
    const sdk = loadSdk();
    await this.send(new sdk.PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: body, ContentLength: body.byteLength, Metadata: { [ETAG_META]: etagOf(body) }, ...cond }));
  }

  /** The object's bytes (or range) and whole size; undefined when missing. */
  private async getRaw(key: string, range: ByteRange | undefined): Promise<{ body: Uint8Array; size: number } | undefined> {
    const sdk = loadSdk();
    try {
      const out = (await this.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, ...(range ? { Range: `bytes=${range.start}-${range.end ?? ''}` } : {}) }))) as {
        Body?: { transformToByteArray(): Promise<Uint8Array> };
        ContentRange?: string;
      };
      const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
      const total = /\/(\d+)$/.exec(out.ContentRange ?? '')?.[1];
      return { body, size: total !== undefined ? Number(total) : body.byteLength };
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  /** The object's size, model ETag and server ETag; undefined when missing. */
  private async headRaw(key: string): Promise<{ size: number; etag: string; serverEtag: string } | undefined> {
    const sdk = loadSdk();
    let out: { ContentLength?: number; ETag?: string; Metadata?: Record<string, string> };
    try {
      out = (await this.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }))) as typeof out;
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
    let etag = out.Metadata?.[ETAG_META];
    // Written by another client: the model's ETag is a digest of the bytes.
    if (etag === undefined) {
      const got = await this.getRaw(key, undefined);
      if (got === undefined) return undefined;
      etag = etagOf(got.body);
    }
    return { size: out.ContentLength ?? 0, etag, serverEtag: out.ETag ?? '' };
  }

  private missing(key: string): Answer {
    return this.missingKey === 404
      ? new Answer(ErrorCode.NoSuchKey, `no object '${key}' in bucket '${this.bucket}'`)
      : new Answer(ErrorCode.AccessDenied, `access denied to '${key}' in bucket '${this.bucket}' (the key may not exist)`);
  }

  /** Runs one keyed operation: validates the key, maps errors to replies, reports io. */
  private async run<T extends Message>(op: 'put' | 'get' | 'head' | 'delete', key: string, body: () => Promise<{ reply: T; bytes?: number }>): Promise<T> {
    const type = `s3.${op}`;
    try {
      const problem = keyProblem(key);
      if (problem !== undefined) throw new Answer(ErrorCode.InvalidKey, problem);
      const r = await body();
      this.onIo?.(r.bytes === undefined ? { op: type, key, outcome: 'ok' } : { op: type, key, outcome: 'ok', bytes: r.bytes });
      return r.reply;
    } catch (e) {
      const r = this.fail(`${type}.error`, String(key), e, op === 'put' || op === 'delete');
      this.onIo?.({ op: type, key: String(key), outcome: String(r.status) });
      return r as unknown as T;
    }
  }

  /** The reply for an error: ours (`Answer`), or the server's / the network's mapped to the store's codes. */
  private fail(type: string, key: string, e: unknown, write: boolean): Message {
    if (e instanceof Answer) return errorReply(type, e.code, e.message, undefined, { key });
    const status = statusOf(e);
    const name = (e as { name?: string; Code?: string })?.Code ?? (e as { name?: string })?.name ?? 'Error';
    const said = `${name}${status !== undefined ? ` (HTTP ${status})` : ''}: ${(e as Error)?.message ?? String(e)}`;
    const at = `'${key}' in bucket '${this.bucket}'`;
    if (name === 'NoSuchBucket') return errorReply(type, ErrorCode.InternalError, `no bucket '${this.bucket}' on this endpoint; create it first (${said})`, undefined, { key });
    if (isMissing(e)) return this.missing(key).code === ErrorCode.NoSuchKey ? errorReply(type, ErrorCode.NoSuchKey, `no object ${at}`, undefined, { key }) : errorReply(type, ErrorCode.AccessDenied, `access denied to ${at} (the key may not exist)`, undefined, { key });
    if (status === 403 || name === 'AccessDenied') return errorReply(type, ErrorCode.AccessDenied, `access denied to ${at}: ${said}`, undefined, { key });
    if (status === 412 || name === 'PreconditionFailed') return errorReply(type, ErrorCode.PreconditionFailed, `the condition on ${at} does not hold; nothing was written (${said})`, undefined, { key });
    if (status === 416 || name === 'InvalidRange') return errorReply(type, ErrorCode.InvalidRange, `the range does not fit the object ${at} (${said})`, undefined, { key });
    // Throttled, or a concurrent conditional write on the key (409): nothing happened, try again.
    if (status === 503 || name === 'SlowDown' || name === 'ServiceUnavailable' || (status === 409 && name === 'ConditionalRequestConflict')) {
      return errorReply(type, ErrorCode.SlowDown, `the server asked to slow down on ${at} (${said}); nothing was done, try again`, undefined, { key });
    }
    // No answer (connection refused, reset, timeout) or a server failure: a read had no effect;
    // a write may have taken effect, which is the ambiguous InternalError.
    if (status === undefined || status >= 500) {
      if (!write && status === undefined) return errorReply(type, ErrorCode.SlowDown, `no answer from the S3 endpoint for ${at} (${said}); nothing was done, try again`, undefined, { key });
      return errorReply(type, ErrorCode.InternalError, `${write ? 'the write of' : 'reading'} ${at} failed${write ? '; it may or may not have taken effect' : ''} (${said})`, undefined, { key });
    }
    return errorReply(type, ErrorCode.InvalidRequest, `the server refused the request on ${at}: ${said}`, undefined, { key });
  }

  /** Runs `f` after every earlier locked call on `key` has settled. */
  private locked<T>(key: string, f: () => Promise<T>): Promise<T> {
    return this.locks.run(key, f);
  }
}

function putPreconditionProblemOf(key: string, ifMatch: string, now: string | undefined): string {
  return now === undefined ? `If-Match: ${ifMatch} on '${key}', which does not exist; nothing was written` : `If-Match: ${ifMatch} on '${key}', whose ETag is ${now}; nothing was written`;
}

function statusOf(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function isMissing(e: unknown): boolean {
  const name = (e as { name?: string })?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(e) === 404 && name !== 'NoSuchBucket');
}
