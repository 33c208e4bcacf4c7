// The filesystem object store against an attacker that can write inside the root and
// keeps making the store's keys name a file outside it (test/helpers/fs-swapper.child.mjs):
// hard links to the outside file renamed over the key, link + unlink bursts on the
// key's own name, and a directory holding such a link swapped in for the key's
// directory. For 3 seconds the store gets, range-gets, heads and puts the two keys
// under attack. No byte, size or ETag of the outside file may be returned: the store
// serves only files it wrote (owned by its user, with its mark), whose names and
// descriptor agree before and after the read.
import type { ChildProcess } from 'node:child_process';
import { startAttacker } from '../../helpers/attacker.ts';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from 'interleave';
import { etagOf } from '../../../src/storage/common.ts';
import { HANDLE_RELATIVE } from '../../../src/storage/live/confined-dir.ts';
// From its module: interleave/live also loads the document store and apache-arrow.
import { FsObjectStore } from '../../../src/storage/live/fs-object-store.ts';

const CHILD = join(import.meta.dirname, '..', '..', 'helpers', 'fs-swapper.child.mjs');
const ATTACK_MS = 3_000;
let base: string | undefined;
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  if (base) rmSync(base, { recursive: true, force: true });
});

describe.runIf(HANDLE_RELATIVE)('filesystem object store under a hard-link swapping attacker', () => {
  it('rename swaps, link + unlink bursts on the key and directory swaps for 3 s: no outside byte, size or ETag is returned', async () => {
    base = mkdtempSync(join(tmpdir(), 'interleave-hardlink-race-'));
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    mkdirSync(root);
    mkdirSync(outside);
    const secret = join(outside, 'secret');
    // 2,990 bytes: no object the store writes here has that size, so a head that returns it leaked.
    const secretBody = 'OUTSIDE SECRET '.repeat(200).slice(0, 2990);
    writeFileSync(secret, secretBody);
    const secretEtag = etagOf(new TextEncoder().encode(secretBody));
    const store = new FsObjectStore(root);
    const keys = ['hl/obj', 'sw/obj'];
    for (const k of keys) expect((await store.put(k, new TextEncoder().encode(`inside ${k}`))).type).toBe('s3.put.ok');

    const attacker = await startAttacker(CHILD, [root, secret]);
    child = attacker.proc;

    const tally: Record<string, number> = {};
    const leaks: string[] = [];
    const check = (op: string, r: Message) => {
      const outcome = r.type.endsWith('.error') ? String(r.code) : 'ok';
      tally[`${op} ${outcome}`] = (tally[`${op} ${outcome}`] ?? 0) + 1;
      const body = r.body instanceof Uint8Array ? Buffer.from(r.body).toString('latin1') : '';
      if (/OUTSIDE|SECRET/.test(body) || /OUTSIDE|SECRET/.test(String(r.message ?? ''))) leaks.push(`${op}: ${body.slice(0, 40)}`);
      if (r.type === 's3.get.ok' && !/^(inside|nside|side)/.test(body)) leaks.push(`${op}: not the store's bytes: ${body.slice(0, 40)}`);
      if ((r.type === 's3.get.ok' || r.type === 's3.head.ok') && (r.size === secretBody.length || r.etag === secretEtag)) leaks.push(`${op}: the outside file's size or ETag`);
      if (outcome === 'InternalError') leaks.push(`${op}: internal error ${String(r.message)}`);
    };
    const end = Date.now() + ATTACK_MS;
    let i = 0;
    const worker = async () => {
      while (Date.now() < end) {
        const n = i++;
        const key = keys[n % 2]!;
        switch ((n >> 1) % 5) {
          case 0:
          case 1:
            check('get', await store.get(key));
            break;
          case 2:
            check('get-range', await store.get(key, { start: 2, end: 2989 }));
            break;
          case 3:
            check('head', await store.head(key));
            break;
          default:
            if (n % 4 === 0) check('put', await store.put(key, new TextEncoder().encode(`inside ${key} ${n}`)));
            else check('get', await store.get(key));
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    await attacker.stop();
    const { out, err } = attacker.output();

    const swaps = Math.max(0, ...[...out.matchAll(/swaps (\d+)/g)].map((m) => Number(m[1])));
    console.log(`hard-link race: ${i} ops against ${swaps}+ swap rounds:`, JSON.stringify(tally));
    expect(err).toBe('');
    expect(leaks).toEqual([]);
    expect(readFileSync(secret, 'utf8')).toBe(secretBody); // the outside file is untouched
    // The attack was real: the attacker swapped hundreds of times, and the store both served its
    // own objects and refused swapped ones.
    expect(swaps).toBeGreaterThanOrEqual(50);
    expect((tally['get ok'] ?? 0) + (tally['get-range ok'] ?? 0) + (tally['head ok'] ?? 0)).toBeGreaterThan(20);
    expect((tally['get InvalidKey'] ?? 0) + (tally['get-range InvalidKey'] ?? 0) + (tally['head InvalidKey'] ?? 0)).toBeGreaterThan(20);
  }, 30_000);
});
