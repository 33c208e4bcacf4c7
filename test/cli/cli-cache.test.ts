// The compiled cache a clone's `interleave` command runs for bundled scenarios: built once
// per state of src/, rebuilt after an edit, safe when two runs build it at once, and the
// same verdicts as the sources through tsx.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs script without types
import { compiledCli } from '../../scripts/cli-cache.mjs';

const REPO = join(import.meta.dirname, '../..');
const root = mkdtempSync(join(tmpdir(), 'interleave-cli-cache-'));
const cache = join(root, 'cache');
for (const f of ['src', 'package.json', 'tsconfig.json']) cpSync(join(REPO, f), join(root, f), { recursive: true });
symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const build = (): Promise<URL | undefined> => compiledCli(root, cache);

function runCompiled(url: URL, ...argv: string[]): { code: number | null; stdout: string } {
  const script = `const { main } = await import(${JSON.stringify(url.href)}); process.exitCode = await main(${JSON.stringify(argv)});`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout };
}

describe('the CLI cache of a clone', () => {
  it('builds once per state of src/: two builds at once agree, and an edit makes a new copy', async () => {
    const [a, b] = await Promise.all([build(), build()]);
    expect(a).toBeInstanceOf(URL);
    expect(b?.href).toBe(a?.href);
    expect((await build())?.href).toBe(a?.href);
    const file = join(root, 'src/cli/version.ts');
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later);
    const c = await build();
    expect(c?.href).not.toBe(a?.href);
  });

  it('runs a bundled scenario with the verdict and counterexample length of the sources', async () => {
    const url = (await build())!;
    const out = join(root, 'lu.json');
    const r = runCompiled(url, 'check', 'lost-update', '--json', '--out', out);
    expect(r.code).toBe(1);
    const viaTsx = spawnSync(process.execPath, [join(REPO, 'bin/interleave.js'), 'check', 'lost-update', '--json', '--out', join(root, 'lu-tsx.json')], { cwd: root, encoding: 'utf8', env: { ...process.env, INTERLEAVE_TSX: '1' } });
    expect(viaTsx.status).toBe(1);
    const [j, t] = [JSON.parse(r.stdout), JSON.parse(viaTsx.stdout)];
    expect([j.ok, j.stats.distinctStates, j.violation.schedule]).toEqual([t.ok, t.stats.distinctStates, t.violation.schedule]);
    expect(j.stats.distinctStates).toBeGreaterThan(1);
  });

  it('gives up (undefined) rather than half-building when the sources do not compile', async () => {
    writeFileSync(join(root, 'src/cli/broken.ts'), 'export const = ;\n');
    expect(await build()).toBeUndefined();
    rmSync(join(root, 'src/cli/broken.ts'));
  });
});
