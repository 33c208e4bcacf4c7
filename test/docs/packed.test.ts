// The docs a user gets with the package (README.md and docs/*.md, as `npm pack` lists
// them, and the TSDoc comments the .d.ts files carry) stand alone: they name no file of the repository that the package does not ship
// (tests, examples, sources, benchmarks, build files), and every relative link resolves to
// a file the package ships, so it works where the docs are read, in node_modules/interleave.
// The file list is npm's own (`npm pack --dry-run --json`, without the build: dist/ is
// compiled from src/, and no doc names a file under it).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The package's files, as `npm pack` would ship them (relative, '/'-separated). */
function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'silent' },
  });
  const [pkg] = JSON.parse(out) as { files: { path: string }[] }[];
  return pkg!.files.map((f) => f.path);
}

/** Every file and folder of the repository (outside node_modules, dist and .git), '/'-separated. */
function repositoryPaths(dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (dir === '' && ['node_modules', 'dist', '.git', 'docs-api', '.interleave'].includes(e.name)) continue;
    const rel = dir ? `${dir}/${e.name}` : e.name;
    out.push(rel);
    if (e.isDirectory()) out.push(...repositoryPaths(rel));
  }
  return out;
}

/** Path-like words of a text: `a/b`, `a/b.ts`, `a/*.md`, `name.ext` (with where they are). */
export function pathWords(text: string): { word: string; line: number }[] {
  const out: { word: string; line: number }[] = [];
  text.split('\n').forEach((l, i) => {
    // Web addresses and package specifiers are not files.
    const line = l.replace(/[a-z]+:\/\/\S+/gi, ' ').replace(/\binterleave\/[a-z.]+/g, ' ');
    for (const m of line.matchAll(/(?<![\w@/.-])(?:\.{1,2}\/)*[\w*.-]+(?:\/[\w*.-]*)+|(?<![\w@/.-])[\w-]+(?:\.[\w-]+)*\.(?:ts|js|mjs|json|md)\b/g)) {
      out.push({ word: m[0].replace(/[.,;:]+$/, ''), line: i + 1 });
    }
  });
  return out;
}

/** Whether a pattern (a path, a folder, or a glob with `*`) covers a path. */
function covers(pattern: string, path: string): boolean {
  const p = pattern.replace(/\/+$/, '');
  if (!p.includes('*')) return path === p || path.startsWith(`${p}/`);
  const re = new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}(/.*)?$`);
  return re.test(path);
}

describe('the packed docs stand alone', () => {
  let shipped: string[];
  let repo: string[];
  let docs: string[];
  beforeAll(() => {
    shipped = packedFiles();
    repo = repositoryPaths();
    docs = shipped.filter((f) => f.endsWith('.md'));
  });

  it('the list is the package: README and the docs, not the tests, examples or sources', () => {
    expect(docs).toContain('README.md');
    expect(docs).toContain('docs/guide.md');
    expect(shipped.some((f) => /^(test|examples|src|bench)\//.test(f))).toBe(false);
  });

  it('the checker finds a repository file a doc names, and a link to one', () => {
    const words = pathWords('see `test/kernel.test.ts`, [x](../examples/README.md), src/actors/ and vitest.config.ts; not https://a.b/src/x nor interleave/live');
    expect(words.map((w) => w.word)).toEqual(['test/kernel.test.ts', '../examples/README.md', 'src/actors/', 'vitest.config.ts']);
    expect(covers('test/*.test.ts', 'test/kernel.test.ts')).toBe(true);
    expect(covers('src/actors/', 'src/actors/kernel.ts')).toBe(true);
    expect(covers('docs', 'docs/guide.md')).toBe(true);
  });

  it('no shipped doc names a file or folder the package does not ship', () => {
    const bad: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(root, doc), 'utf8');
      for (const { word, line } of pathWords(text)) {
        // A word names a repository path from the root, or from the doc's folder.
        for (const base of ['', posix.dirname(doc)]) {
          const path = posix.normalize(posix.join(base, word)).replace(/^\.\//, '');
          if (path.startsWith('..')) continue;
          const inRepo = repo.some((r) => covers(path, r));
          if (!inRepo) continue;
          if (!shipped.some((s) => covers(path, s))) bad.push(`${doc}:${line}: ${word}`);
          break;
        }
      }
    }
    expect(bad, `not in the package:\n${bad.join('\n')}`).toEqual([]);
  });

  it('no TSDoc comment (shipped in the .d.ts files, shown by editors) names a file the package does not ship', () => {
    const bad: string[] = [];
    for (const file of repo.filter((f) => f.startsWith('src/') && f.endsWith('.ts'))) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
        const at = text.slice(0, m.index).split('\n').length;
        for (const { word, line } of pathWords(m[0])) {
          const path = posix.normalize(word).replace(/^\.\//, '');
          if (repo.some((r) => covers(path, r)) && !shipped.some((s) => covers(path, s))) bad.push(`${file}:${at + line - 1}: ${word}`);
        }
      }
    }
    expect(bad, `not in the package:\n${bad.join('\n')}`).toEqual([]);
  });

  it('every relative link resolves to a file the package ships', () => {
    const bad: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(root, doc), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
        const path = posix.normalize(posix.join(posix.dirname(doc), target.split('#')[0]!));
        const abs = join(root, path);
        const ok = existsSync(abs) && (statSync(abs).isDirectory() ? shipped.some((s) => covers(path, s)) : shipped.includes(path));
        if (!ok) bad.push(`${doc}: (${target}) -> ${relative(root, abs) || '.'}`);
      }
    }
    expect(bad, `links to files the package does not ship:\n${bad.join('\n')}`).toEqual([]);
  });
});
