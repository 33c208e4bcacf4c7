// Race-free confinement of the filesystem object store to its root. Checking a
// path (realpath) and then using it are two steps another process can come between
// by flipping a symlink, so nothing here resolves a path twice: every operation
// walks the key one component at a time from a handle on the root, opening each
// directory relative to its parent's handle without following a symlink
// (`/proc/self/fd/<dir>/<name>` with O_NOFOLLOW is Linux's openat(dir, name)), and
// creates, renames, reads, lists and removes relative to those handles too. A
// symlink anywhere in a key is refused, never followed; a file with more than one
// hard link, or without the store's mark (OBJECT_MARK), is refused (it may be
// another name of a file outside the root); and an opened handle's real path is
// checked against the root before any byte is written or returned. Without /proc (not Linux) the walk uses plain paths: each
// component is still opened without following symlinks, but a concurrent flip of a
// parent directory is not excluded there (docs/storage.md says so).
import { closeSync, constants as C, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, rmdirSync, unlinkSync, type Dirent } from 'node:fs';
import { readdir, type FileHandle } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ErrorCode } from '../messages.ts';

/** Operations are relative to directory handles through /proc (Linux). */
export const HANDLE_RELATIVE = process.platform === 'linux' && existsSync('/proc/self/fd');

const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const DIR_FLAGS = C.O_RDONLY | (C.O_DIRECTORY ?? 0) | NOFOLLOW;
/** Non-blocking so that opening a FIFO planted under a key cannot hang the store. */
export const READ_FLAGS = C.O_RDONLY | NOFOLLOW | (C.O_NONBLOCK ?? 0);
export const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW;

/**
 * The store's mark on the files it writes: the sticky bit (S_ISVTX), which Linux
 * ignores on regular files and lets only the file's owner (or a privileged process)
 * set. A file another user made, or one of this user's files that the store did not
 * write, lacks it, so a hard link to it planted under a key is told apart from an
 * object by one fstat of the descriptor read, whatever names are swapped meanwhile.
 * Only on Linux (`HANDLE_RELATIVE`): other systems may refuse the bit on files.
 */
export const OBJECT_MARK = HANDLE_RELATIVE ? 0o1000 : 0;
/** The mode an object is created with (the umask applies to the permission bits, not to the mark). */
export const OBJECT_MODE = 0o666 | OBJECT_MARK;

/** An operation refused with an S3 error code (mapped to an error reply by the store). */
export class Denied extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

/**
 * An open directory under the root (a plain descriptor: the walk uses synchronous
 * calls, each one short syscall, which costs far less than a thread-pool round
 * trip) and the path it had when it was opened (for messages and the fallback).
 */
export interface Dir {
  readonly fd: number;
  readonly path: string;
}

/** The path that names `name` inside `dir` without resolving `dir`'s path again. */
export function at(dir: Dir, name: string): string {
  return HANDLE_RELATIVE ? `/proc/self/fd/${dir.fd}/${name}` : join(dir.path, name);
}

/** The path that names `dir` itself (for readdir). */
function self(dir: Dir): string {
  return HANDLE_RELATIVE ? `/proc/self/fd/${dir.fd}` : dir.path;
}

export class ConfinedRoot {
  constructor(readonly root: string) {}

  /** Whether a real path lies under the root. */
  inside(real: string): boolean {
    return real === this.root || real.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep);
  }

  /**
   * Throws unless the open handle's current real path is under the root (a
   * directory on the way may have been moved since it was opened).
   */
  verify(fh: FileHandle, key: string): void {
    if (!HANDLE_RELATIVE) return;
    const real = readlinkSync(`/proc/self/fd/${fh.fd}`).replace(/ \(deleted\)$/, '');
    if (!this.inside(real)) throw new Denied(ErrorCode.InvalidKey, `key '${key}' now lies outside the store root '${this.root}' (a directory on its path was moved); refused`);
  }

  /**
   * Whether the open handle still has the key's own path, exactly: not a path
   * ending in " (deleted)" (its name was unlinked or replaced), nor one elsewhere
   * (its directory was moved). `true` without /proc, where this cannot be seen.
   */
  atKey(fd: number, key: string): boolean {
    if (!HANDLE_RELATIVE) return true;
    return readlinkSync(`/proc/self/fd/${fd}`) === `${this.root}${this.root.endsWith(sep) ? '' : sep}${key}`;
  }

  /**
   * Opens the directories `segs` one by one from the root, never following a
   * symlink. With `create`, missing directories are made. Returns the chain of
   * handles (root first); the caller closes it with `closeAll`. A missing
   * directory throws ENOENT, a file in the way ENOTDIR (or a conflict with
   * `create`), a symlink `Denied`.
   */
  walk(key: string, segs: readonly string[], create: boolean, conflict: () => Error): Dir[] {
    const chain: Dir[] = [{ fd: openSync(this.root, DIR_FLAGS), path: this.root }];
    try {
      for (const seg of segs) {
        const parent = chain[chain.length - 1]!;
        chain.push(this.openDir(key, parent, seg, create, conflict));
      }
      return chain;
    } catch (e) {
      closeAll(chain);
      throw e;
    }
  }

  private openDir(key: string, parent: Dir, seg: string, create: boolean, conflict: () => Error): Dir {
    const path = join(parent.path, seg);
    for (let attempt = 0; ; attempt++) {
      try {
        return { fd: openSync(at(parent, seg), DIR_FLAGS), path };
      } catch (e) {
        const code = errno(e);
        if (code === 'ENOENT' && create && attempt < 3) {
          try {
            mkdirSync(at(parent, seg)); // does not follow a symlink in its last component (EEXIST instead)
          } catch (m) {
            if (errno(m) !== 'EEXIST') throw m;
          }
          continue;
        }
        if (code === 'ENOTDIR' || code === 'ELOOP') {
          this.refuseLink(key, at(parent, seg), seg);
          if (create) throw conflict();
        }
        throw e;
      }
    }
  }

  /** Throws `Denied` when `path` (not followed) is a symbolic link. */
  refuseLink(key: string, path: string, name: string): void {
    let link = false;
    try {
      link = lstatSync(path).isSymbolicLink();
    } catch {
      /* gone */
    }
    if (link) throw symlinkDenied(key, name, this.root);
  }
}

export function symlinkDenied(key: string, name: string, root: string): Denied {
  return new Denied(ErrorCode.InvalidKey, `key '${key}' goes through the symbolic link '${name}'; the store follows no symbolic links, so every key stays inside '${root}'`);
}

export function hardLinkDenied(key: string, links: number): Denied {
  return new Denied(ErrorCode.InvalidKey, `object '${key}' has ${links} hard links; the store serves only files it wrote itself (one link), since another name may be a file outside the root`);
}

/** Why a regular file opened under a key is not one of this store's objects (owner or mark), or `undefined`. */
export function foreignProblem(st: { uid: number; mode: number }, key: string): string | undefined {
  const uid = process.geteuid?.();
  if (uid !== undefined && st.uid !== uid) return `object '${key}' is owned by uid ${st.uid}, not by this store's uid ${uid}; the store serves only files it wrote itself, since another user's file may be a hard link to a file outside the root`;
  if ((st.mode & OBJECT_MARK) !== OBJECT_MARK) {
    return `object '${key}' lacks the mark (the sticky bit, the 't' or 'T' that 'ls -l' shows) that the store sets on every file it writes; refused, since it may be a hard link to a file outside the root (a file placed in the root by hand is served after 'chmod +t' on it)`;
  }
  return undefined;
}

export function closeAll(chain: readonly Dir[]): void {
  for (const d of chain) closeSync(d.fd);
}

/** The entries of an open directory (names and types, symlinks not followed). */
export function entries(dir: Dir): Promise<Dirent[]> {
  return readdir(self(dir), { withFileTypes: true });
}

/** Opens the subdirectory `name` of `dir` without following a symlink, or `undefined` when it is not a directory (any more). */
export function openSub(dir: Dir, name: string): Dir | undefined {
  try {
    return { fd: openSync(at(dir, name), DIR_FLAGS), path: join(dir.path, name) };
  } catch {
    return undefined;
  }
}

/**
 * Removes files whose names start with `prefix` under `root`, walking by handles
 * like the async operations (a flipped symlink cannot steer the sweep outside the
 * root). Returns how many were removed.
 */
export function sweepSync(root: string, prefix: string): number {
  const fd = openSync(root, DIR_FLAGS);
  try {
    return sweepDir(fd, root, prefix);
  } finally {
    closeSync(fd);
  }
}

function sweepDir(fd: number, path: string, prefix: string): number {
  const here = (name: string) => (HANDLE_RELATIVE ? `/proc/self/fd/${fd}/${name}` : join(path, name));
  let n = 0;
  for (const ent of readdirSync(HANDLE_RELATIVE ? `/proc/self/fd/${fd}` : path, { withFileTypes: true })) {
    if (ent.name.startsWith(prefix) && ent.isFile()) {
      try {
        if (lstatSync(here(ent.name)).isFile()) {
          unlinkSync(here(ent.name));
          n++;
        }
      } catch {
        /* gone meanwhile */
      }
    } else if (ent.isDirectory()) {
      let sub: number;
      try {
        sub = openSync(here(ent.name), DIR_FLAGS);
      } catch {
        continue; // replaced by a symlink or removed meanwhile
      }
      try {
        n += sweepDir(sub, join(path, ent.name), prefix);
      } finally {
        closeSync(sub);
      }
    }
  }
  return n;
}

/** Removes the empty directories at the end of `chain` (`segs` names them), deepest first, each relative to its parent's handle. */
export function prune(chain: readonly Dir[], segs: readonly string[]): void {
  for (let i = chain.length - 1; i >= 1; i--) {
    try {
      rmdirSync(at(chain[i - 1]!, segs[i - 1]!));
    } catch {
      return;
    }
  }
}
