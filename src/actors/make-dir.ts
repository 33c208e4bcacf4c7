// `mkdir -p` that fails instead of hanging: shared by the checker's run directories and
// result files and the live file stores' roots.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Creates `dir` and its missing parents (`mkdir -p`). Not `mkdirSync(dir, { recursive:
 * true })`: on Node 20 that never returns for a path under /proc, where the kernel
 * refuses the new directory with ENOENT; here the refusal is thrown, for the caller to
 * turn into a clear error.
 */
export function makeDir(dir: string): void {
  const missing: string[] = [];
  for (let p = resolve(dir); !existsSync(p); ) {
    missing.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}
