#!/usr/bin/env node
// `npm run build` (and prepack): compiles src/ to dist/ with tsconfig.build.json, then
// copies the files the compiled code reads at run time next to it (the swarm worker's
// boot script, the HTML viewer's client script): every non-TypeScript file under src/
// except docs.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// INTERLEAVE_BUILD_NO_CHECK=1 emits without type-checking (tsc --noCheck: the same files, a
// union's members possibly in another order) for the packed-package test, which runs after
// `npm run lint` has checked the same sources; a plain build or prepack checks them.
const noCheck = process.env.INTERLEAVE_BUILD_NO_CHECK === '1' ? ['--noCheck'] : [];
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), ...noCheck], { stdio: 'inherit' });

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}
let copied = 0;
for (const f of files(src)) {
  if (/\.(ts|md)$/.test(f)) continue;
  const to = join(dist, relative(src, f));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(f, to);
  copied++;
}
console.log(`built ${relative(root, dist)}/ (${copied} assets copied)`);
