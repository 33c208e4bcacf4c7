// Child process for test/storage/live/fs-hardlink-race.test.ts: the attacker. It can
// write inside the store's root only, and keeps making the store's keys name a file
// outside the root (`secret`), as fast as it can until killed, in three ways:
// - rename: the store's object `hl/obj` is parked under another name, a hard link to
//   the secret is renamed over `hl/obj`, and the object is renamed back;
// - link + unlink bursts on the key's own name: with the object parked, `hl/obj` is
//   linked to the secret and unlinked again, 100 times, then the object comes back;
// - directory swaps: the directory `sw` (holding the store's `sw/obj`) is parked and a
//   directory whose `obj` is a hard link to the secret is renamed in its place, then back.
// Each step may race the store (its puts replace the objects), so each may fail.
// Prints `ready` once, then `swaps <n>` every 10 rounds.
import { linkSync, mkdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

const [root, secret] = process.argv.slice(2);
const obj = join(root, 'hl', 'obj');
const park = join(root, 'park');
const tmp = join(root, 'swap-tmp');
const sw = join(root, 'sw');
const swPark = join(root, 'sw-park');
const evil = join(root, 'evil');
const attempt = (f) => {
  try {
    f();
  } catch {
    /* raced: go on */
  }
};

process.stdout.write('ready\n');
for (let n = 1; ; n++) {
  switch (n % 3) {
    case 0:
      attempt(() => renameSync(obj, park));
      attempt(() => rmSync(tmp, { force: true }));
      attempt(() => linkSync(secret, tmp));
      attempt(() => renameSync(tmp, obj));
      attempt(() => renameSync(park, obj));
      break;
    case 1:
      attempt(() => renameSync(obj, park));
      for (let k = 0; k < 100; k++) {
        attempt(() => linkSync(secret, obj));
        attempt(() => unlinkSync(obj));
      }
      attempt(() => renameSync(park, obj));
      break;
    default:
      attempt(() => mkdirSync(evil));
      attempt(() => linkSync(secret, join(evil, 'obj')));
      attempt(() => renameSync(sw, swPark));
      attempt(() => renameSync(evil, sw));
      attempt(() => renameSync(sw, evil));
      attempt(() => renameSync(swPark, sw));
  }
  if (n % 10 === 0) process.stdout.write(`swaps ${n}\n`);
}
