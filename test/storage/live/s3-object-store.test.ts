// S3ObjectStore against a real S3-compatible server (s3rver on a loopback port, one per
// file): the object store contract the simulated and filesystem stores pass, conditional
// puts, and S3's error answers mapped to the store's replies (through a client that
// fails as S3 does, since a local server cannot be made to throttle).
import { WriteStream } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from 'interleave';
import { FsDocumentStore, ObjectTaskStateStore, S3ObjectStore, type S3ClientLike } from 'interleave/live';
import { ErrorCode, decodeRows, docCommit, docCreate, docReadNext, docReadOpen, encodeRows, objectStore, s3Get, s3Head, s3List, s3Put, simClient } from 'interleave/storage';
import { etagOf } from '../../../src/storage/common.ts';
import { objectStoreContract, taskStateContract } from '../../helpers/storage-contract.ts';
import { startS3, type LocalS3 } from '../../helpers/s3-server.ts';

let s3: LocalS3;
const stores: S3ObjectStore[] = [];
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await s3.close();
});

let n = 0;
/** A store on its own prefix, so each test starts from an empty bucket. */
function open(o: Partial<ConstructorParameters<typeof S3ObjectStore>[0]> = {}): S3ObjectStore {
  const s = new S3ObjectStore({ ...s3.options, prefix: `t${++n}/`, conditionalWrites: 'process', ...o });
  stores.push(s);
  return s;
}
const bytes = (s: string) => new TextEncoder().encode(s);

objectStoreContract({
  's3 (s3rver)': (missingKey) => {
    const s = open({ missingKey });
    return { call: (m) => s.handle(m), close: () => undefined };
  },
});

// The Airflow object-storage backend of the task state store, on the S3 endpoint.
taskStateContract({
  's3 object-storage (s3rver)': () => {
    const s = new ObjectTaskStateStore(open(), 'state');
    return { db: false, call: (m) => s.handle(m), close: () => undefined };
  },
});

describe('S3ObjectStore on s3rver', () => {
  it('holds the data files of the document store: a reader fetches them back from the bucket', async () => {
    const objects = open({ missingKey: 403 });
    const docs = new FsDocumentStore(objects);
    const uri = 'vfs:///wid/1/eid/1/globalportid/(logicalOpId=src,layerName=main,portId=0,isInternal=false,isInput=false)/result';
    expect((await docs.handle(docCreate(uri, {}), 'env')).type).toBe('doc.create.ok');
    for (const n of [1, 2]) expect((await docs.handle(docCommit(uri, encodeRows([{ n }]), 1), 'env')).type).toBe('doc.commit.ok');
    expect((await objects.list('')).keys).toHaveLength(2);
    await docs.handle(docReadOpen(uri, 'r'), 'env');
    const got = [];
    for (const _ of [1, 2]) got.push(decodeRows((await docs.handle(docReadNext('r'), 'env')).data as Uint8Array)[0]?.n);
    expect(got).toEqual([1, 2]);
  });

  it('answers a script of conditional puts as the simulated store does (conditionalWrites: process)', async () => {
    const sim = simClient(objectStore({ missingKey: 404 }));
    const s = open();
    const a = bytes('{"n":1}');
    const b = bytes('{"n":2}');
    const script: Message[] = [
      s3Put('k', a, 1, { ifNoneMatch: '*' }),
      s3Put('k', b, 2, { ifNoneMatch: '*' }),
      s3Get('k', undefined, 3),
      s3Put('k', b, 4, { ifMatch: 'ffffffff-7' }),
      s3Put('k', b, 5, { ifMatch: etagOf(a) }),
      s3Head('k', 6),
      s3Put('missing', a, 7, { ifMatch: etagOf(a) }),
      s3Put('k', a, 8, { ifNoneMatch: 'x' as '*' }),
      s3List('', 9),
    ];
    const codes: string[] = [];
    for (const m of script) {
      const want = sim.request(m);
      const got = await s.handle(m);
      expect({ ...got, message: undefined }, `${m.type} ${String(m.req)}`).toEqual({ ...want, message: undefined });
      codes.push(got.type.endsWith('.error') ? String(got.code) : got.type);
    }
    expect(codes).toEqual(['s3.put.ok', 'PreconditionFailed', 's3.get.ok', 'PreconditionFailed', 's3.put.ok', 's3.head.ok', 'PreconditionFailed', 'InvalidRequest', 's3.list.ok']);
  });

  it('of concurrent puts with the same If-Match on one store, exactly one writes (process mode)', async () => {
    const s = open();
    await s.put('c', bytes('0'));
    for (let round = 0; round < 5; round++) {
      const now = await s.get('c');
      const tag = now.type === 's3.get.ok' ? now.etag! : '';
      const rs = await Promise.all(['a', 'b', 'c'].map((x) => s.put('c', bytes(`${round}${x}`), { ifMatch: tag })));
      expect(rs.map((r) => (r.type === 's3.put.ok' ? 'ok' : r.code)).sort()).toEqual(['PreconditionFailed', 'PreconditionFailed', 'ok']);
    }
  });

  it('s3rver ignores If-None-Match on a PUT: the probe says so, and server mode would overwrite there', async () => {
    const s = open({ conditionalWrites: 'server' });
    expect(await s.probeConditionalWrites()).toBe(false);
    await s.put('k', bytes('first'));
    // The documented gap: on a server without conditional writes, 'server' mode cannot refuse.
    expect((await s.put('k', bytes('second'), { ifNoneMatch: '*' })).type).toBe('s3.put.ok');
    expect(new TextDecoder().decode(await s.getBytes('k'))).toBe('second');
  });

  it('a GET right after an acknowledged PUT reads its bytes, even when the disk is slow (the helper waits for s3rver\'s file)', async () => {
    const s = open();
    type Write = (this: WriteStream, ...a: unknown[]) => void;
    const proto = WriteStream.prototype as unknown as { _write: Write; _writev: Write };
    const { _write, _writev } = proto;
    // Every file write of this process lands 30 ms late, as on a slow disk.
    proto._write = function (...a) {
      setTimeout(() => _write.apply(this, a), 30);
    };
    proto._writev = function (...a) {
      setTimeout(() => _writev.apply(this, a), 30);
    };
    try {
      expect((await s.put('slow', bytes('written late'))).type).toBe('s3.put.ok');
      expect(new TextDecoder().decode(await s.getBytes('slow'))).toBe('written late');
    } finally {
      proto._write = _write;
      proto._writev = _writev;
    }
  });

  it('an object written by another client gets the model ETag of its bytes; a prefix keeps stores apart', async () => {
    const raw = open({ prefix: 'shared/' });
    const inner = open({ prefix: 'shared/in/' });
    await inner.put('x', bytes('abc'));
    expect((await raw.list('')).keys).toEqual(['in/x']);
    expect((await inner.head('x')).etag).toBe(etagOf(bytes('abc')));
    expect(await inner.getBytes('gone')).toBeUndefined();
    expect(await inner.snapshot()).toEqual({ objects: { x: bytes('abc') }, exact: true });
  });

  it('a missing bucket, or no server at all, is an error reply that says so', async () => {
    const nob = open({ bucket: 'no-such-bucket' });
    const r = await nob.put('k', bytes('x'));
    expect([r.type, r.code]).toEqual(['s3.put.error', ErrorCode.InternalError]);
    expect(String(r.message)).toContain("no bucket 'no-such-bucket'");
    const down = open({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
    const g = await down.get('k');
    expect([g.code, g.status]).toEqual([ErrorCode.SlowDown, 503]);
    const p = await down.put('k', bytes('x'));
    expect([p.code, p.status]).toEqual([ErrorCode.InternalError, 500]);
  });
});

/** A client that answers every command with `fail` (an S3 service error shape). */
function failing(name: string, status: number | undefined): S3ClientLike {
  return {
    send: async () => {
      throw Object.assign(new Error(`${name} from the fake`), { name, ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }) });
    },
  };
}

describe('S3 answers mapped to the store replies', () => {
  it.each([
    ['AccessDenied', 403, 'get', ErrorCode.AccessDenied],
    ['NoSuchKey', 404, 'get', ErrorCode.NoSuchKey],
    ['NotFound', 404, 'head', ErrorCode.NoSuchKey],
    ['SlowDown', 503, 'put', ErrorCode.SlowDown],
    ['ServiceUnavailable', 503, 'get', ErrorCode.SlowDown],
    ['ConditionalRequestConflict', 409, 'put', ErrorCode.SlowDown],
    ['PreconditionFailed', 412, 'put', ErrorCode.PreconditionFailed],
    ['InternalError', 500, 'put', ErrorCode.InternalError],
    ['InternalError', 500, 'get', ErrorCode.InternalError],
    ['ECONNRESET', undefined, 'get', ErrorCode.SlowDown],
    ['ECONNRESET', undefined, 'delete', ErrorCode.InternalError],
  ] as const)('%s (%s) on %s → %s', async (name, status, op, code) => {
    const s = new S3ObjectStore({ bucket: 'b', client: failing(name, status) });
    const r = await s.handle({ type: `s3.${op}`, key: 'k', body: bytes('x') });
    expect([r.type, r.code]).toEqual([`s3.${op}.error`, code]);
  });

  it('a missing key answers 403 when configured so', async () => {
    const s = new S3ObjectStore({ bucket: 'b', client: failing('NoSuchKey', 404), missingKey: 403 });
    expect((await s.get('k')).code).toBe(ErrorCode.AccessDenied);
  });

  it('bad options and URLs are refused with what to write', () => {
    expect(() => new S3ObjectStore({ bucket: '' })).toThrow(/bucket name/);
    expect(() => new S3ObjectStore({ bucket: 'b', prefix: 'no-slash' })).toThrow(/ending in '\/'/);
    expect(() => S3ObjectStore.fromUrl('http://x')).toThrow(/s3:\/\/bucket/);
    expect(() => S3ObjectStore.fromUrl('s3://b/?endpont=x')).toThrow(/unknown URL parameter 'endpont'/);
    const u = S3ObjectStore.fromUrl('s3://b/jobs/a?endpoint=http%3A%2F%2F127.0.0.1%3A9000&conditional=process');
    expect([u.bucket, u.prefix, u.conditionalWrites]).toEqual(['b', 'jobs/a/', 'process']);
  });
});
