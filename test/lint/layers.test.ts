// The layering lint (.dependency-cruiser.cjs, run by `npm run lint`) fails on an upward
// import and on a cycle between files, and lets a type-only cycle and a downward
// import pass: run on test/fixtures/layering, which has one of each.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

function cruise(cwd: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [bin, 'src', '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'err'], { cwd, encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('layer lint', () => {
  it('reports the upward import and the cycle, not the type-only cycle or the downward import', () => {
    const r = cruise(join(root, 'test', 'fixtures', 'layering'));
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('layer-actors: src/actors/kernel.ts → src/check/explore.ts');
    expect(r.out).toMatch(/no-cycle: src\/machines\/a\.ts →\s+src\/machines\/b\.ts/);
    expect(r.out).not.toContain('type-only.ts');
    expect(r.out).not.toMatch(/src\/check\/explore\.ts →/);
    expect(r.out).toContain('2 dependency violations');
  });

  it('passes on the sources', () => {
    const r = cruise(root);
    expect(r.out).toContain('no dependency violations found');
    expect(r.code).toBe(0);
  });
});
