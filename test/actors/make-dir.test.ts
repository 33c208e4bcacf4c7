// makeDir: `mkdir -p` for run directories, result files and file stores' roots. Node 20's
// recursive mkdir never returns for a path under /proc; these directories must fail with an
// error instead.
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDir } from '../../src/actors/make-dir.ts';
// From its module: interleave/live also loads the document store and apache-arrow.
import { FsObjectStore } from '../../src/storage/live/fs-object-store.ts';
import { runMain } from '../helpers/cli.ts';

describe('makeDir', () => {
  it('creates missing parents, accepts an existing directory, and throws under a file', () => {
    const root = mkdtempSync(join(tmpdir(), 'interleave-makedir-'));
    const deep = join(root, 'a', 'b', 'c');
    makeDir(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    makeDir(deep);
    writeFileSync(join(root, 'file'), 'x');
    expect(() => makeDir(join(root, 'file', 'sub'))).toThrow(/ENOTDIR/);
  });

  it.runIf(existsSync('/proc/self'))('throws ENOENT under /proc instead of never returning', () => {
    expect(() => makeDir('/proc/interleave-nope/a')).toThrow(/ENOENT/);
  });

  it.runIf(existsSync('/proc/self'))('a shared-visited or exchange directory under /proc exits 2 saying what to do', async () => {
    for (const mode of ['--share-visited', '--exchange']) {
      const r = await runMain('check', 'lost-update', '--strategy', 'dfs', '--shard', '1/2', mode, '/proc/interleave-nope');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('/proc/interleave-nope');
      expect(r.stderr).toContain('give a directory every shard can create files in');
    }
  });

  it.runIf(existsSync('/proc/self'))('a file object store rooted under /proc throws, naming the root, instead of never returning', () => {
    expect(() => new FsObjectStore('/proc/interleave-nope/store')).toThrow(/FsObjectStore: cannot create the root directory \/proc\/interleave-nope\/store: ENOENT.*give a directory/);
  });
});
