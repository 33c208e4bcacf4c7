// Child process for test/storage/live/fs-kills.test.ts (which compiles it with
// bundled-entry.ts): puts self-verifying objects into a filesystem object store forever
// (several puts in flight), printing each key once its put is acknowledged. The test
// SIGKILLs it at random moments.
import { createHash } from 'node:crypto';
import { FsObjectStore } from '../../src/storage/live/fs-object-store.ts';

const [root, seedArg] = process.argv.slice(2) as [string, string];
const store = new FsObjectStore(root);
let x = Number(seedArg) >>> 0 || 1;
const next = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0), x);

/** 8 bytes of length, 32 bytes of sha256 of the payload, then the payload. */
function object(size: number): Uint8Array {
  const payload = Buffer.alloc(size, next() & 0xff);
  for (let i = 0; i < size; i += 4096) payload[i] = next() & 0xff;
  const head = Buffer.alloc(40);
  head.writeBigUInt64BE(BigInt(size));
  createHash('sha256').update(payload).digest().copy(head, 8);
  return new Uint8Array(Buffer.concat([head, payload]));
}

let n = 0;
process.stdout.write('ready\n');
async function writer(w: number): Promise<never> {
  for (;;) {
    const key = `w${w}/obj-${n++}`;
    // Sizes from 1 KiB to 4 MiB, so kills land mid-write as well as between writes.
    const r = await store.put(key, object(1024 << (next() % 13)));
    if (r.type !== 's3.put.ok') throw new Error(`put ${key}: ${r.message}`);
    process.stdout.write(`acked ${key}\n`);
  }
}
await Promise.all([0, 1, 2, 3].map(writer));
