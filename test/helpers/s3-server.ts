// A local S3-compatible server for the tests: s3rver (an npm dev dependency) on a
// loopback port of its own, in a temporary directory, with one bucket. One per test
// file; `close()` stops it and removes its files.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export async function startS3(bucket = 'interleave'): Promise<LocalS3> {
  Object.assign(process.env, QUIET);
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
