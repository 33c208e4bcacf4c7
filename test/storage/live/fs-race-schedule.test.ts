// Exact replays of attacker schedules against the filesystem object store. The
// flipping attacker of fs-race.test.ts finds races by chance; a schedule it
// once found is replayed here step by step, with the attacker's moves run at fixed
// points between the store's own filesystem calls (node:fs is wrapped so that a move
// runs just before the store's next `fstatSync` or `lstatSync`).
import { chmodSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HANDLE_RELATIVE } from '../../../src/storage/live/confined-dir.ts';
// From its module: interleave/live also loads the document store and apache-arrow.
import { FsObjectStore } from '../../../src/storage/live/fs-object-store.ts';

/**
 * Attacker moves, each run once around the store's next call of that function: a move gets the
 * real call and returns what the store sees, so it can act before the call, or between the
 * kernel's lookup of a name and its reading of the link count (as `after` does).
 */
type Move = (call: () => Stats) => Stats;
const moves = vi.hoisted(() => ({ fstatSync: [] as Move[], lstatSync: [] as Move[] }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const around = (name: 'fstatSync' | 'lstatSync', call: () => Stats): Stats => {
    const move = moves[name].shift();
    return move ? move(call) : call();
  };
  const wrapped = {
    ...fs,
    fstatSync: ((...a: Parameters<typeof fs.fstatSync>) => around('fstatSync', () => fs.fstatSync(...a) as Stats)) as typeof fs.fstatSync,
    lstatSync: ((...a: Parameters<typeof fs.lstatSync>) => around('lstatSync', () => fs.lstatSync(...a) as Stats)) as typeof fs.lstatSync,
  };
  return { ...wrapped, default: wrapped };
});

/** A move made just before the store's call. */
const before =
  (f: () => void): Move =>
  (call) => (f(), call());

let base: string | undefined;
afterEach(() => {
  moves.fstatSync.length = 0;
  moves.lstatSync.length = 0;
  if (base) rmSync(base, { recursive: true, force: true });
});

describe.runIf(HANDLE_RELATIVE)('filesystem object store against replayed attacker schedules', () => {
  /** A root with `d/`, an outside secret and the store; `marked`: the secret carries the store's mark (as another store root's object would). */
  function setup(marked: boolean) {
    base = mkdtempSync(join(tmpdir(), 'interleave-race-schedule-'));
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    mkdirSync(join(root, 'd'), { recursive: true });
    mkdirSync(outside);
    const secret = join(outside, 'secret');
    writeFileSync(secret, 'OUTSIDE SECRET');
    if (marked) chmodSync(secret, 0o1644);
    return { root, secret, h0: join(root, 'd', 'h0'), tmp: join(root, 'flip-tmp'), store: new FsObjectStore(root) };
  }

  for (const marked of [false, true]) {
    it(`a hard link to an outside file${marked ? ' that carries the mark' : ''}, swapped out before the store counts its links and back in before it checks the name, is refused${marked ? ' (path and identity checks)' : ' (no mark)'}`, async () => {
      const { secret, h0, tmp, store } = setup(marked);
      /** The attacker's atomic replace of `h0` (as the flipper does it: make `flip-tmp`, rename it over). */
      const replace = (make: () => void) => () => {
        rmSync(tmp, { force: true });
        make();
        renameSync(tmp, h0);
      };
      linkSync(secret, h0); // h0: a second name of the outside file (2 links)

      // The store opens h0 (the outside file). Before it counts the links, h0 is replaced by a
      // regular file: the opened file now has one link, its name outside. Before the store looks
      // up h0's name after reading, h0 is a hard link to the outside file again.
      moves.fstatSync.push(before(replace(() => writeFileSync(tmp, 'inside h0'))));
      moves.lstatSync.push(before(replace(() => linkSync(secret, tmp))));
      const r = await store.get('d/h0');

      const body = r.type === 's3.get.ok' ? Buffer.from(r.body).toString('latin1') : '';
      expect(body).not.toContain('OUTSIDE');
      expect(r).toMatchObject({ type: 's3.get.error', code: 'InvalidKey' });
      // Unmarked, the descriptor's own file is refused at once; marked, the descriptor's path reads
      // "(deleted)" (h0 was replaced), the store opens h0 again and finds two links.
      expect(String(r.message)).toMatch(marked ? /has 2 hard links/ : /lacks the mark/);
      // Both moves ran where they were meant to (unmarked, the store stops before it looks the name up).
      expect([moves.fstatSync.length, moves.lstatSync.length]).toEqual([0, marked ? 0 : 1]);
    });
  }

  it('a link + unlink burst on the key\'s own name: the descriptor whose path reads "(deleted)" is not served', async () => {
    // The schedule of a leak seen against the earlier store. The store opens the key (a hard
    // link to the outside file); the attacker unlinks the key, so fstat counts one link and the
    // descriptor's path reads "<key> (deleted)"; then it links the key to the outside file again
    // and unlinks it while the store looks the name up, so that lstat's lookup finds the outside
    // file and its count, read after the unlink, is one. The secret carries the mark here, so only
    // the identity and path checks stand between it and the reply.
    const { secret, h0, store } = setup(true);
    linkSync(secret, h0);
    moves.fstatSync.push(before(() => unlinkSync(h0)));
    moves.lstatSync.push((call) => {
      linkSync(secret, h0);
      const seen = call();
      unlinkSync(h0);
      return Object.assign(seen, { nlink: statSync(secret).nlink }); // the count as the kernel reads it after the lookup
    });
    const r = await store.get('d/h0');
    const body = r.type === 's3.get.ok' ? Buffer.from(r.body).toString('latin1') : '';
    expect(body).not.toContain('OUTSIDE');
    // The store opens the key again and finds it gone: it answers as missing. No byte is returned.
    expect(r).toMatchObject({ type: 's3.get.error', code: 'AccessDenied' });
    expect(moves.fstatSync.length + moves.lstatSync.length).toBe(0);
  });

  it('an object the store wrote is served through the same checks', async () => {
    const { store } = setup(false);
    await store.put('d/mine', new TextEncoder().encode('mine'));
    const r = await store.get('d/mine');
    expect(r.type === 's3.get.ok' && Buffer.from(r.body).toString()).toBe('mine');
  });
});
