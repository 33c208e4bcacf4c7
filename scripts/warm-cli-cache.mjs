#!/usr/bin/env node
// `npm ci` / `npm install` in a clone (the `prepare` script): compiles the CLI's cache
// (scripts/cli-cache.mjs) now, so the README's first command does not pay for it. Never
// fails the install: without the cache the command runs the sources through tsx.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
try {
  const { compiledCli } = await import('./cli-cache.mjs');
  await compiledCli(root);
} catch (e) {
  console.warn(`interleave: the CLI's compiled cache was not built (${e instanceof Error ? e.message : String(e)}); commands run the sources through tsx`);
}
