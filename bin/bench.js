#!/usr/bin/env node
// `npm run bench -- [name ...]`: runs bench/<name>.ts (all of them with no name).
import { registerSource } from '../scripts/source-loader.mjs';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

registerSource();
const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'bench');
const all = readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).map((f) => f.replace(/\.bench\.ts$/, '')).sort();
const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const n of names) {
  if (!all.includes(n)) {
    console.error(`unknown benchmark '${n}'; available: ${all.join(', ')}`);
    process.exit(2);
  }
}
for (const n of names.length ? names : all) {
  const mod = await import(join(dir, `${n}.bench.ts`));
  // --json: the output is one JSON document per benchmark, so no heading around it.
  if (!process.argv.includes('--json')) console.log(`\n## ${n}\n`);
  await mod.default(process.argv.slice(2).filter((a) => a.startsWith('-')));
}
