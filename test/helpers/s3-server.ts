// A local S3-compatible server for the tests: s3rver (an npm dev dependency) on a
// loopback port of its own, in a temporary directory, with one bucket. One per test
// file; `close()` stops it and removes its files.
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import type { S3ObjectStoreOptions } from 'interleave/live';

const require = createRequire(import.meta.url);

export interface LocalS3 {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly bucket: string;
  /** The store options for this server (endpoint, bucket, path style, s3rver's fixed credentials). */
  readonly options: S3ObjectStoreOptions;
  /** `s3://bucket/?endpoint=…` (credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY: `env`). */
  url(prefix?: string): string;
  /** The environment a child process needs to reach it with the SDK's default provider chain. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

// The SDK warns once per process that its 2027 releases need Node 22; the tests run on 20.
const QUIET = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } as const;

interface S3rverObject {
  bucket: string;
  key: string;
  content: Buffer | NodeJS.ReadableStream;
  metadata: unknown;
}
interface S3rverStore {
  getResourcePath(bucket: string, key: string, kind: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
}

/**
 * s3rver 3.7 answers a PUT before its file is written (it resolves when the body has been
 * read, not when the write stream closes), so a GET right after an acknowledged PUT may read
 * an empty file: real S3 is read-after-write consistent. Its store's `putObject` is replaced
 * by the same steps that wait for the file to be closed.
 */
function makeS3rverPutsDurable(): void {
  const Store = require('s3rver/lib/stores/filesystem') as { prototype: S3rverStore & { putObject(o: S3rverObject): Promise<{ size: number; md5: string }>; durablePuts?: true } };
  if (Store.prototype.durablePuts) return;
  Store.prototype.durablePuts = true;
  Store.prototype.putObject = async function putObject(this: S3rverStore, object: S3rverObject) {
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    mkdirSync(dirname(objectPath), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    await new Promise<void>((resolve, reject) => {
      const file = createWriteStream(objectPath);
      file.on('error', reject).on('close', () => resolve());
      if (Buffer.isBuffer(object.content)) {
        md5.update(object.content);
        size = object.content.length;
        file.end(object.content);
        return;
      }
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          md5.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      object.content.on('error', reject);
      object.content.pipe(count).on('error', reject).pipe(file);
    });
    const hex = md5.digest('hex');
    await this.putMetadata(object.bucket, object.key, object.metadata, hex);
    return { size, md5: hex };
  };
}

export async function startS3(bucket = 'interleave'): Promise<LocalS3> {
  Object.assign(process.env, QUIET);
  makeS3rverPutsDurable();
  const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };
  const dir = mkdtempSync(join(tmpdir(), 'interleave-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    options: { bucket, endpoint, forcePathStyle: true, region: 'us-east-1', credentials: S3RVER_CREDENTIALS },
    url: (prefix = '') => `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}`,
    env: { ...QUIET, AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey, AWS_REGION: 'us-east-1' },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
