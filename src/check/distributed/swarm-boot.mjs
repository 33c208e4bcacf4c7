// Entry of a swarm worker thread. Compiled (dist/, the installed package): runs
// swarm-worker.js next to this file. From the sources (a clone of the repository):
// registers tsx through scripts/source-loader.mjs first, since workers do not inherit
// the main thread's TypeScript loader. A scenario module written in TypeScript needs
// tsx in the worker in both cases.
import { existsSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

const compiled = new URL('./swarm-worker.js', import.meta.url);
if (!existsSync(compiled)) {
  const { registerSource } = await import(new URL('../../../scripts/source-loader.mjs', import.meta.url).href);
  registerSource();
} else {
  const module = String(workerData?.source?.module ?? '');
  if (/\.[cm]?tsx?$/.test(module)) {
    let tsx;
    try {
      tsx = await import('tsx/esm/api');
    } catch {
      throw new Error(`the scenario module ${module} is TypeScript: install tsx in your project (npm install --save-dev tsx) or point at its compiled .js`);
    }
    tsx.register();
  }
}
await import(existsSync(compiled) ? compiled.href : new URL('./swarm-worker.ts', import.meta.url).href);
