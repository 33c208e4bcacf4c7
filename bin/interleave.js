#!/usr/bin/env node
// The `interleave` command. Installed from npm, the package has only dist/ (compiled
// JavaScript) and this runs it. In a clone of the repository (src/ present), it runs the
// sources, so a fresh clone needs no build step and an edit takes effect at once: a dist/
// left by an earlier `npm run build` or `npm pack` is never run by mistake. A command that
// loads no module of the user's (check or simulate of a bundled scenario, --version) runs
// the sources compiled per file into a cache (scripts/cli-cache.mjs); any other runs them
// through tsx, whose hooks also let a scenario module import 'interleave' from src/.
// INTERLEAVE_DIST=1 runs dist/ in a clone (after `npm run build`); INTERLEAVE_TSX=1 runs
// every command through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sources = new URL('../scripts/source-loader.mjs', import.meta.url);
const compiled = new URL('../dist/cli/main.js', import.meta.url);
let main;
let cached;
if (existsSync(sources) && process.env.INTERLEAVE_DIST !== '1' && process.env.INTERLEAVE_TSX !== '1' && loadsNoUserModule(process.argv.slice(2))) {
  try {
    const { compiledCli } = await import(new URL('../scripts/cli-cache.mjs', import.meta.url).href);
    cached = await compiledCli(fileURLToPath(new URL('..', import.meta.url)));
  } catch {
    // the cache is an optimisation: any trouble with it runs the sources through tsx
  }
}
if (cached) {
  ({ main } = await import(cached.href));
} else if (existsSync(sources) && process.env.INTERLEAVE_DIST !== '1') {
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

/**
 * True when the command line can load no module of the user's: `check` or `simulate` whose
 * every other word is a plain name or flag (a bundled scenario, `--param k=v` without dots
 * or slashes) or the value of a flag that is never loaded (where to write, and a shard's
 * `i/n`: every shard of a run must load its scenario from the same module, as the run key
 * holds its path), or a bare `--version`.
 * Anything else that might be a path (a scenario module, a trace to start from, a config)
 * goes through tsx.
 */
function loadsNoUserModule(argv) {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) return true;
  const [command, ...rest] = argv;
  if (command !== 'check' && command !== 'simulate') return false;
  const neverLoaded = new Map([
    ['out', /./],
    ['result', /./],
    ['fingerprints', /./],
    ['exchange', /./],
    ['share-visited', /./],
    ['shard', /^\d+\/\d+$/],
  ]);
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const flag = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    const value = flag && neverLoaded.get(flag[1]);
    if (value && value.test(flag[2] ?? rest[i + 1] ?? '')) {
      if (flag[2] === undefined) i++;
      continue;
    }
    if (!/^-{0,2}[A-Za-z0-9_=,:+-]*$/.test(a) || existsSync(a)) return false;
  }
  return true;
}
