// Where the interleave package lives and its version, found by walking up from this
// module: the compiled package (dist/), the sources (src/) and the CLI's compiled cache in
// a clone (.cache/interleave-cli) sit at different depths under the package root.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): { root: string; version: string } {
  let first: { root: string; version: string } | undefined;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; ) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
        const found = { root: dir, version: String(pkg.version ?? '0.0.0') };
        if (pkg.name === 'interleave') return found;
        first ??= found;
      } catch {
        // not JSON: keep walking
      }
    }
    const up = dirname(dir);
    if (up === dir) return first ?? { root: dir, version: '0.0.0' };
    dir = up;
  }
}

const found = findRoot();

/** The interleave package's root folder (where its package.json is). */
export const PACKAGE_ROOT: string = found.root;

/** The package version recorded in trace files and shown by `--version`. */
export const TOOL_VERSION: string = found.version;
