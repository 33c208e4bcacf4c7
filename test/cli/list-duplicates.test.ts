// `interleave list` warns when two exports are scenarios of one name: a name cannot tell
// them apart, so each must be referred to by its module reference.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';

const fixture = fileURLToPath(new URL('../fixtures/user-scenarios/booking.mjs', import.meta.url));

describe('interleave list', () => {
  it('warns about two modules exporting scenarios of one name, naming both references', () => {
    // Inside the repository, so that the modules' `import 'interleave'` resolves.
    const dir = fileURLToPath(new URL(`../../scratch/list-dup-${process.pid}/`, import.meta.url));
    mkdirSync(dir, { recursive: true });
    copyFileSync(fixture, join(dir, 'a.mjs'));
    writeFileSync(join(dir, 'b.mjs'), readFileSync(fixture, 'utf8').replace("name: 'optional-goal'", "name: 'other'"));
    const r = cli(['list', './a.mjs', './b.mjs'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("warning: 2 exports are scenarios named 'typo-state' (./a.mjs#typoState, ./b.mjs#typoState)");
    expect(r.stderr).not.toContain("named 'other'");
  });
});
