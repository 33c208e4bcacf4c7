#!/usr/bin/env node
// The `interleave` command. Installed from npm, the package has only dist/ (compiled
// JavaScript) and this runs it. In a clone of the repository (src/ present), it runs the
// TypeScript sources through tsx instead, so a fresh clone needs no build step and an edit
// takes effect at once: a dist/ left by an earlier `npm run build` or `npm pack` is never
// run by mistake. INTERLEAVE_DIST=1 runs dist/ in a clone (after `npm run build`).
import { existsSync } from 'node:fs';

const sources = new URL('../scripts/source-loader.mjs', import.meta.url);
const compiled = new URL('../dist/cli/main.js', import.meta.url);
let main;
if (existsSync(sources) && process.env.INTERLEAVE_DIST !== '1') {
  for (const m of preloads(process.argv.slice(2))) await import(m);
  const { registerSource } = await import(sources.href);
  registerSource();
  ({ main } = await import('../src/cli/main.ts'));
} else if (existsSync(compiled)) {
  ({ main } = await import(compiled.href));
} else {
  console.error('interleave: dist/ is missing; run `npm run build` in the package first');
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));

/**
 * Packages of many files load two to three times slower through tsx's loader hooks (each
 * file is a round trip to the loader thread), so in a clone the commands that run a model
 * load the ones they need first, before the hooks are registered; later imports of them
 * from the sources get the same modules. apache-arrow only for the bundled Amber model.
 */
function preloads(argv) {
  const [command, ...rest] = argv.filter((a) => !a.startsWith('-'));
  if (!['check', 'replay', 'show', 'simulate', 'merge'].includes(command ?? '')) return [];
  return ['xstate', 'zod', ...(rest.some((a) => a.includes('amber')) ? ['apache-arrow'] : [])];
}
