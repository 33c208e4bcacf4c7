// The filesystem object store against a concurrent attacker: a child process
// (test/helpers/fs-flipper.child.mjs) flips a directory inside the root between a real
// directory and symlinks to outside, and objects between files, symlinks and hard
// links to secrets outside, while the store runs 10,000 puts, gets, heads, lists
// and deletes through the flipping paths. Nothing may be written, created or
// removed outside the root, and no outside byte or name may be returned.
import type { ChildProcess } from 'node:child_process';
import { startAttacker } from '../../helpers/attacker.ts';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from 'interleave';
import { HANDLE_RELATIVE } from '../../../src/storage/live/confined-dir.ts';
// From its module: interleave/live also loads the document store and apache-arrow.
import { FsObjectStore } from '../../../src/storage/live/fs-object-store.ts';

const CHILD = join(import.meta.dirname, '..', '..', 'helpers', 'fs-flipper.child.mjs');
const OPS = 10_000;
let base: string | undefined;
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  if (base) rmSync(base, { recursive: true, force: true });
});

/** Every entry under `dir` with its content (directories as `dir/`). */
function snapshot(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const p = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) out.push(`${p}/`, ...snapshot(dir, p));
    else out.push(`${p}=${readFileSync(join(dir, p), 'utf8')}`);
  }
  return out.sort();
}

/** A small seeded generator (the op mix is reproducible; the race timing is not, by nature). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0), x >>> 8); // the low bits of an LCG cycle quickly
}

describe.runIf(HANDLE_RELATIVE)('filesystem object store under a symlink-flipping attacker', () => {
  it(`${OPS} operations through flipping paths: zero bytes outside the root, zero outside bytes or names returned`, async () => {
    base = mkdtempSync(join(tmpdir(), 'interleave-race-'));
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    mkdirSync(root);
    mkdirSync(outside);
    for (let i = 0; i < 4; i++) writeFileSync(join(outside, `secret-${i}`), `OUTSIDE SECRET ${i}`);
    writeFileSync(join(outside, 'f1'), 'OUTSIDE SECRET f1'); // a name the store also uses under d/
    const before = snapshot(outside);
    const store = new FsObjectStore(root);

    const attacker = await startAttacker(CHILD, [root, outside]);
    child = attacker.proc;

    const next = rng(18);
    const keys = [...['f0', 'h0', 'f1', 'f2', 'f3'].map((k) => `d/${k}`), ...[0, 1, 2].flatMap((s) => [0, 1].map((g) => `d/sub${s}/g${g}`)), 'real/f2', 'real/sub0/g0'];
    const tally: Record<string, number> = {};
    const leaks: string[] = [];
    const check = (op: string, r: Message) => {
      tally[`${op} ${r.type.endsWith('.error') ? String(r.code) : 'ok'}`] = (tally[`${op} ${r.type.endsWith('.error') ? String(r.code) : 'ok'}`] ?? 0) + 1;
      const body = r.body instanceof Uint8Array ? Buffer.from(r.body).toString('latin1') : '';
      const names = Array.isArray(r.keys) ? (r.keys as string[]).join(' ') : '';
      if (/OUTSIDE|SECRET/.test(body) || /secret/.test(names) || (r.type === 's3.get.ok' && !/^inside/.test(body))) leaks.push(`${op}: ${body.slice(0, 40)} ${names.slice(0, 80)}`);
      if (r.type.endsWith('.error') && r.code === 'InternalError') leaks.push(`${op}: internal error ${String(r.message)}`);
    };
    let done = 0;
    const worker = async () => {
      while (done < OPS) {
        const i = done++;
        const key = keys[next() % keys.length]!;
        switch (next() % 8) {
          case 0:
          case 1:
          case 2:
            check('put', await store.put(key, new TextEncoder().encode(`inside ${i}`)));
            break;
          case 3:
          case 4:
            check('get', await store.get(key));
            break;
          case 5:
            check('get-range', await store.get(key, { start: 0, end: 5 }));
            break;
          case 6:
            if (next() % 2) check('list', await store.list(next() % 2 ? 'd/' : ''));
            else check('head', await store.head(key));
            break;
          default:
            check('delete', await store.delete(key));
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    await attacker.stop();
    const { out, err } = attacker.output();

    const flips = Math.max(0, ...[...out.matchAll(/flips (\d+)/g)].map((m) => Number(m[1])));
    console.log(`race: ${OPS} ops against ${flips}+ flips:`, JSON.stringify(tally));
    expect(err).toBe('');
    expect(leaks).toEqual([]);
    // Nothing was created, written, removed or left (temp files) outside the root.
    expect(snapshot(outside)).toEqual(before);
    // The race was real: the attacker flipped hundreds to thousands of times, and the store both
    // succeeded (through `d` while it was a real directory) and refused (through a symlink or a hard link).
    expect(flips).toBeGreaterThanOrEqual(500); // 2,000 to 14,000 seen on a loaded 2-core machine
    expect(tally['put ok'] ?? 0).toBeGreaterThan(100);
    expect(tally['get ok'] ?? 0).toBeGreaterThan(50);
    expect(tally['list ok'] ?? 0).toBeGreaterThan(50);
    expect((tally['put InvalidKey'] ?? 0) + (tally['get InvalidKey'] ?? 0) + (tally['head InvalidKey'] ?? 0)).toBeGreaterThan(100);
  }, 60_000);
});
