// Runs the TypeScript sources in a clone of the repository (bin/, examples/, swarm
// workers started from src/): tsx compiles .ts on import, and the hook in
// source-hooks.mjs makes `import 'interleave'` (and its subpaths) resolve to src/.
// tsx is a devDependency: the published package runs dist/ and never loads this file.
import { register as registerHooks } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

let done = false;

export function registerSource() {
  if (done) return;
  done = true;
  registerTsx();
  registerHooks('./source-hooks.mjs', import.meta.url);
}
