// Child process for test/storage/live/fs-race.test.ts: the attacker. Inside the store's
// root it keeps flipping, as fast as it can until killed,
// - the directory `d` between a real directory (parked as `parked-<n>` meanwhile)
//   and symlinks to a directory outside the root (absolute and relative) or to the
//   parked directory;
// - the objects `f0` and `h0` in that directory between a regular file and a
//   symlink (f0) or a hard link (h0) to a secret outside.
// Every step may race the store (which prunes empty directories, replaces files),
// so each is allowed to fail. Prints `ready` once, then `flips <n>` every 100 flips.
import { linkSync, lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [root, outside] = process.argv.slice(2);
const d = join(root, 'd');
const real = join(root, 'real');
const tmp = join(root, 'flip-tmp');
const attempt = (f) => {
  try {
    f();
  } catch {
    /* raced: try the next flip */
  }
};
/** Replaces `path` (a file or symlink, not a directory) atomically via rename. */
const replace = (path, make) =>
  attempt(() => {
    rmSync(tmp, { force: true });
    make(tmp);
    renameSync(tmp, path);
  });

process.stdout.write('ready\n');
let parked = real;
for (let n = 1; ; n++) {
  if (n % 4 === 0) {
    // d: a real directory (the last one parked, or a new one)
    attempt(() => unlinkSync(d));
    attempt(() => renameSync(parked, d));
    attempt(() => mkdirSync(d));
  } else {
    // d: a symlink (to the outside, absolute or relative, or to a directory inside); park a real d first
    attempt(() => {
      if (!lstatSync(d).isDirectory()) return; // park real directories only (the attacker writes inside the root only)
      renameSync(d, join(root, `parked-${n}`));
      parked = join(root, `parked-${n}`);
    });
    const target = n % 4 === 1 ? outside : n % 4 === 2 ? parked : join('..', outside.split('/').pop());
    replace(d, (p) => symlinkSync(target, p));
  }
  const dir = n % 4 === 0 ? d : parked;
  attempt(() => mkdirSync(dir));
  if (n % 2 === 0) {
    replace(join(dir, 'f0'), (p) => symlinkSync(join(outside, 'secret-0'), p));
    replace(join(dir, 'h0'), (p) => linkSync(join(outside, 'secret-1'), p));
  } else {
    replace(join(dir, 'f0'), (p) => writeFileSync(p, 'inside f0'));
    replace(join(dir, 'h0'), (p) => writeFileSync(p, 'inside h0'));
  }
  if (n % 100 === 0) process.stdout.write(`flips ${n}\n`);
}
