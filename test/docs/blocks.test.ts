// Every TypeScript/JavaScript block of README.md and docs/*.md runs here, as a user
// would run it: saved as a module (one folder per doc, so blocks can import the files
// earlier blocks saved) and imported. A block that should not run says so
// (```ts no-run: reason); a block that fails to run, or prints something other than
// the `text output` block after it shows, fails its test. Vitest files shown in the
// docs (file=*.test.ts) register their tests here. See test/helpers/doc-blocks.ts.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runMainIn } from '../helpers/cli.ts';
import { blockFileName, blocksOf, isShell, missingOutput, readBlocks, shellCommands, userDocs, type DocBlock } from '../helpers/doc-blocks.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Inside the repository, so that `import … from 'interleave'` resolves to this package.
const outDir = join(root, '.docs-blocks');
rmSync(outDir, { recursive: true, force: true });

interface Saved { block: DocBlock; path: string }
const byDoc = new Map<string, Saved[]>();
for (const doc of userDocs(root)) {
  const dir = join(outDir, doc.replace(/[/.]/g, '_'));
  const saved: Saved[] = [];
  for (const block of readBlocks(root, doc)) {
    const path = join(dir, blockFileName(block));
    if (block.noRun === undefined && !isShell(block)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, block.code + '\n');
    }
    saved.push({ block, path });
  }
  byDoc.set(doc, saved);
}

/**
 * Runs the `npx interleave` lines of a `sh run` block in the doc's folder; returns their
 * stdout. Each line runs the command's `main` in this process from that folder (what
 * `npx interleave` runs after starting node): a child per line would add a second of
 * start-up each, and the command line itself, as a child, is covered by the CLI tests.
 */
async function runShell(block: DocBlock, dir: string): Promise<string> {
  const printed: string[] = [];
  // A doc with no code block of its own has no folder yet.
  mkdirSync(dir, { recursive: true });
  const color = process.env.NO_COLOR;
  process.env.NO_COLOR = '1';
  try {
    for (const { args, exit } of shellCommands(block)) {
      const r = await runMainIn(dir, ...args);
      expect(r.code, `npx interleave ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(exit);
      printed.push(r.stdout);
    }
  } finally {
    if (color === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = color;
  }
  return printed.join('\n');
}

/**
 * Runs a saved block in its doc's folder (as a user runs `npx tsx live.ts` in their project,
 * so relative paths it writes or names land there) and returns what it printed with
 * console.log / console.info.
 */
async function runBlock(path: string): Promise<string> {
  const printed: string[] = [];
  const log = console.log;
  const info = console.info;
  const cwd = process.cwd();
  console.log = (...args: unknown[]) => { printed.push(format(...args)); };
  console.info = console.log;
  try {
    process.chdir(dirname(path));
    await import(pathToFileURL(path).href);
  } finally {
    process.chdir(cwd);
    console.log = log;
    console.info = info;
  }
  return printed.join('\n');
}

describe('the docs-block reader', () => {
  it('parses languages, file names, no-run reasons and output blocks', () => {
    const md = [
      '```ts file=a.ts', 'export const a = 1;', '```',
      '```text output', 'one … three', '```',
      '```js no-run: needs a browser', 'x', '```',
      '```ts no-run', 'y', '```',
      '```sh', 'npx interleave list', '```',
      "```sh run", "npx interleave check './m.ts#x' --seed 0   # exit 1", '```',
    ].join('\n');
    const blocks = blocksOf('x.md', md);
    expect(blocks.map((b) => [b.lang, b.file, b.noRun, b.expectOutput])).toEqual([
      ['ts', 'a.ts', undefined, 'one … three'],
      ['js', undefined, 'needs a browser', undefined],
      ['ts', undefined, '', undefined],
      ['sh', undefined, undefined, undefined],
    ]);
    expect(shellCommands(blocks[3])).toEqual([{ args: ['check', './m.ts#x', '--seed', '0'], exit: 1 }]);
  });
  it('finds the blocks of the user docs', () => {
    const all = [...byDoc.values()].flat();
    expect(byDoc.has('README.md')).toBe(true);
    expect(all.filter((x) => x.block.noRun === undefined).length).toBeGreaterThan(0);
  });
  it('matches expected output in order, with … as a wildcard', () => {
    expect(missingOutput('a\n…\nc 1… 3', 'a\nb\nc 1 2 3')).toBeUndefined();
    expect(missingOutput('c\na', 'a\nc')).toMatch(/not found/);
    expect(missingOutput('x … y', 'y x')).toMatch(/not found/);
  });
});

for (const [doc, saved] of byDoc) {
  if (saved.length === 0) continue;
  describe(doc, () => {
    for (const { block, path } of saved) {
      const name = `${doc}:${block.line} (${blockFileName(block)})`;
      if (block.noRun !== undefined) {
        it(`${name} is marked no-run with a reason`, () => {
          expect(block.noRun, `${name}: write the reason after no-run:`).not.toBe('');
        });
        continue;
      }
      if (path.endsWith('.test.ts')) continue; // registered below, at the top level
      it(`${name} runs`, async () => {
        const printed = isShell(block) ? await runShell(block, dirname(path)) : await runBlock(path);
        if (block.expectOutput !== undefined) {
          const missing = missingOutput(block.expectOutput, printed);
          expect(missing, `${name}: ${missing}\n--- printed ---\n${printed}`).toBeUndefined();
        }
      });
    }
  });
}

// Vitest files shown in the docs: importing them registers their tests in this file.
for (const saved of byDoc.values()) {
  for (const { block, path } of saved) {
    if (block.noRun === undefined && path.endsWith('.test.ts')) await import(pathToFileURL(path).href);
  }
}
