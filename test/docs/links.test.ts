// Links in README.md, docs/*.md, examples/README.md and CONTRIBUTING.md point at files that exist, and
// `#anchors` at headings that exist (GitHub's slugs); nothing points outside the repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { userDocs } from '../helpers/doc-blocks.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const docs = [...userDocs(root), 'examples/README.md', 'CONTRIBUTING.md'];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function withoutFences(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const raw = m[1].replace(/`/g, '');
    const base = slug(raw);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every file under `dir` with one of the extensions, recursively. */
function filesUnder(dir: string, exts: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(rel, exts));
    else if (exts.some((x) => e.name.endsWith(x))) out.push(rel);
  }
  return out;
}

describe('nothing a user reads points outside the repository', () => {
  it('no mention of ../shared, the design note or section numbers of documents users do not have', () => {
    const files = ['README.md', ...['docs', 'src', 'examples', 'bin'].flatMap((d) => filesUnder(d, ['.md', '.ts', '.js', '.mjs', '.json']))];
    const bad: string[] = [];
    for (const f of files) {
      readFileSync(join(root, f), 'utf8').split('\n').forEach((line, i) => {
        if (/\.\.\/shared\/|shared\/(DESIGN|spec|seeds)|spec §|spec scenario|§\d/.test(line)) bad.push(`${f}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(files.length).toBeGreaterThan(100);
    expect(bad, bad.join('\n')).toEqual([]);
  });
});

describe('links in the docs', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Findings (expected, kept as tests in test/airflow-check.test.ts)')).toBe('findings-expected-kept-as-tests-in-testairflow-checktestts');
    expect(slug('5. From the command line')).toBe('5-from-the-command-line');
  });
  for (const doc of docs) {
    it(doc, () => {
      const file = join(root, doc);
      const text = withoutFences(readFileSync(file, 'utf8'));
      const bad: string[] = [];
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#');
        const dest = path ? resolve(dirname(file), path) : file;
        if (!dest.startsWith(root + '/') && dest !== root) { bad.push(`${target}: outside the repository`); continue; }
        if (!existsSync(dest)) { bad.push(`${target}: no such file ${relative(root, dest)}`); continue; }
        if (anchor && dest.endsWith('.md') && !anchorsOf(dest).has(anchor)) bad.push(`${target}: no heading #${anchor} in ${relative(root, dest)}`);
      }
      expect(bad, bad.join('\n')).toEqual([]);
    });
  }
});
