// The TypeScript blocks of README.md and docs/*.md type-check, as a user's strict project
// compiles them: test/docs-blocks.test.ts runs them (through vitest's transform, which
// strips types), this file hands them to the TypeScript compiler. A typed scenario in the
// docs that needs a cast, or a `@ts-expect-error` line there that no longer errs, fails here.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { blockFileName, readBlocks, userDocs } from '../helpers/doc-blocks.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// Inside the repository, so that `import … from 'interleave'` resolves to src/ (the
// repository's tsconfig sets the `interleave-source` condition).
const outDir = join(root, '.docs-types');

describe('the docs’ TypeScript blocks', () => {
  it('type-check under the repository’s strict tsconfig (tsc --noEmit)', { timeout: 600_000 }, () => {
    rmSync(outDir, { recursive: true, force: true });
    const files: string[] = [];
    for (const doc of userDocs(root)) {
      const dir = join(outDir, doc.replace(/[/.]/g, '_'));
      for (const block of readBlocks(root, doc)) {
        if (block.noRun !== undefined || !['ts', 'typescript', 'mts'].includes(block.lang)) continue;
        const path = join(dir, blockFileName(block));
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, block.code + '\n');
        files.push(path);
      }
    }
    expect(files.length).toBeGreaterThan(10);
    writeFileSync(join(outDir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['**/*.ts'] }, null, 2));
    try {
      // tsc -p on this folder, but with the blocks' diagnostics only: src/ is checked whole by
      // `npm run lint`, and checking every body in it again was most of this test's time.
      const host: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
      const unrecoverable: ts.Diagnostic[] = [];
      const cfg = ts.getParsedCommandLineOfConfigFile(join(outDir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => void unrecoverable.push(d) });
      expect(ts.formatDiagnostics([...unrecoverable, ...(cfg?.errors ?? [])], host)).toBe('');
      expect([...cfg!.fileNames].sort()).toEqual([...files].sort());
      const program = ts.createProgram({ rootNames: cfg!.fileNames, options: cfg!.options });
      const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
      for (const f of files) {
        const sf = program.getSourceFile(f)!;
        diagnostics.push(...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf));
      }
      expect(ts.formatDiagnostics(diagnostics, host)).toBe('');
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
