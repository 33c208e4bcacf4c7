// Installs the packed package into a fresh project outside the repository, as a user's
// `npm install` would lay it out, without the network: the tarball is unpacked into
// node_modules/interleave, and each package it depends on (and each extra package the
// project asks for, e.g. vitest) is linked from this repository's node_modules, following
// package-lock.json. Only `dependencies` and `optionalDependencies` are followed, never
// peers or devDependencies, so tsx, typescript and better-sqlite3 are not installed unless
// asked for. Used by test/package/consumer.test.ts and bench/cli.bench.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  bin?: string | Record<string, string>;
}

/** `npm pack` into a fresh directory (runs prepack, i.e. the build, without its type check: lint does that); returns the tarball's path. */
export function pack(): string {
  const dir = mkdtempSync(join(tmpdir(), 'interleave-pack-'));
  execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', INTERLEAVE_BUILD_NO_CHECK: '1' } });
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`npm pack wrote no tarball into ${dir}`);
  return join(dir, tgz);
}

/** The paths in a tarball, without npm's leading 'package/'. */
export function tarballFiles(tgz: string): string[] {
  return execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((p) => p.replace(/^package\//, ''));
}

/** Top-level package names (node_modules/<name>) needed by `roots`, following the lockfile. */
export function closure(roots: readonly string[]): string[] {
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const top = new Set<string>();
  const seen = new Set<string>();
  const work = roots.map((n) => `node_modules/${n}`);
  while (work.length) {
    const path = work.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const entry = lock.packages[path];
    if (!entry) continue; // an optional dependency for another platform
    if (path.lastIndexOf('node_modules/') === 0) top.add(path.slice('node_modules/'.length));
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      // Node looks in the nearest node_modules first, then up.
      let base = path;
      for (;;) {
        const candidate = `${base}/node_modules/${dep}`;
        if (lock.packages[candidate]) {
          work.push(candidate);
          break;
        }
        const up = base.lastIndexOf('/node_modules/');
        if (up < 0) {
          work.push(`node_modules/${dep}`);
          break;
        }
        base = base.slice(0, up);
      }
    }
  }
  return [...top].sort();
}

export interface Consumer {
  readonly dir: string;
  /** node_modules/.bin/interleave */
  readonly bin: string;
  readonly linked: readonly string[];
}

/**
 * A fresh project in the system temp directory with the tarball installed; `extra` are
 * packages of this repository's node_modules the project also depends on (vitest, ...).
 */
export function installTarball(tgz: string, extra: readonly string[] = []): Consumer {
  const dir = mkdtempSync(join(tmpdir(), 'interleave-consumer-'));
  const nm = join(dir, 'node_modules');
  const own = join(nm, 'interleave');
  mkdirSync(own, { recursive: true });
  execFileSync('tar', ['-xzf', tgz, '-C', own, '--strip-components=1']);
  const pkg = JSON.parse(readFileSync(join(own, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; bin?: Record<string, string> };
  const linked = closure([...Object.keys(pkg.dependencies ?? {}), ...extra]);
  for (const name of linked) {
    const to = join(nm, name);
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(join(REPO, 'node_modules', name), to, 'dir');
  }
  mkdirSync(join(nm, '.bin'));
  const bin = join(nm, '.bin', 'interleave');
  symlinkSync(join('..', 'interleave', pkg.bin?.interleave ?? 'bin/interleave.js'), bin);
  const deps = Object.fromEntries([['interleave', `file:${tgz}`], ...extra.map((n) => [n, '*'])]);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: deps }, null, 2)}\n`);
  return { dir, bin, linked };
}

export function removeConsumer(c: Consumer | undefined): void {
  if (c && existsSync(c.dir) && c.dir.startsWith(tmpdir())) rmSync(c.dir, { recursive: true, force: true });
}
