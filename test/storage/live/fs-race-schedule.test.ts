// Exact replays of attacker schedules against the filesystem object store. The
// flipping attacker of fs-race.test.ts finds races by chance; a schedule it
// once found is replayed here step by step, with the attacker's moves run at fixed
// points between the store's own filesystem calls (node:fs is wrapped so that a move
// runs just before the store's next `fstatSync` or `lstatSync`).
import { linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HANDLE_RELATIVE } from '../../../src/storage/live/confined-dir.ts';
import { FsObjectStore } from 'interleave/live';

/** Attacker moves, each run once just before the store's next call of that function. */
const moves = vi.hoisted(() => ({ fstatSync: [] as (() => void)[], lstatSync: [] as (() => void)[] }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const wrapped = {
    ...fs,
    fstatSync: ((...a: Parameters<typeof fs.fstatSync>) => (moves.fstatSync.shift()?.(), fs.fstatSync(...a))) as typeof fs.fstatSync,
    lstatSync: ((...a: Parameters<typeof fs.lstatSync>) => (moves.lstatSync.shift()?.(), fs.lstatSync(...a))) as typeof fs.lstatSync,
  };
  return { ...wrapped, default: wrapped };
});

let base: string | undefined;
afterEach(() => {
  moves.fstatSync.length = 0;
  moves.lstatSync.length = 0;
  if (base) rmSync(base, { recursive: true, force: true });
});

describe.runIf(HANDLE_RELATIVE)('filesystem object store against replayed attacker schedules', () => {
  it('a hard link to an outside file swapped out before the store checks its links, and back in before it checks the name, is refused', async () => {
    base = mkdtempSync(join(tmpdir(), 'interleave-race-schedule-'));
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    mkdirSync(join(root, 'd'), { recursive: true });
    mkdirSync(outside);
    const secret = join(outside, 'secret');
    writeFileSync(secret, 'OUTSIDE SECRET');
    const h0 = join(root, 'd', 'h0');
    const tmp = join(root, 'flip-tmp');
    /** The attacker's atomic replace of `h0` (as the flipper does it: make `flip-tmp`, rename it over). */
    const replace = (make: () => void) => () => {
      rmSync(tmp, { force: true });
      make();
      renameSync(tmp, h0);
    };
    const store = new FsObjectStore(root);
    linkSync(secret, h0); // h0: a second name of the outside file (2 links)

    // The store opens h0 (the outside file). Before it counts the links, h0 is replaced by a
    // regular file: the opened file now has one link, its name outside. Before the store looks
    // up h0's name after reading, h0 is a hard link to the outside file again.
    moves.fstatSync.push(replace(() => writeFileSync(tmp, 'inside h0')));
    moves.lstatSync.push(replace(() => linkSync(secret, tmp)));
    const r = await store.get('d/h0');

    const body = r.type === 's3.get.ok' ? Buffer.from(r.body).toString('latin1') : '';
    expect(body).not.toContain('OUTSIDE');
    expect(r).toMatchObject({ type: 's3.get.error', code: 'InvalidKey' });
    expect(String(r.message)).toMatch(/hard links/);
    expect(moves.fstatSync.length + moves.lstatSync.length).toBe(0); // both moves ran where they were meant to
  });
});
