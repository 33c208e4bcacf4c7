// Benchmarks that measure the compiled package (as installed from npm) build dist/ first.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BUILD = fileURLToPath(new URL('../scripts/build.mjs', import.meta.url));

/** Runs `npm run build` (scripts/build.mjs): src/ compiled to dist/. Throws with its output when it fails. */
export function buildDist(): void {
  const b = spawnSync(process.execPath, [BUILD], { encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`npm run build failed (${b.status}): ${b.stdout}${b.stderr}`);
}
