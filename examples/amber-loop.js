#!/usr/bin/env node
// An Amber loop (Texera, PR #6971) over an Arrow table, run live by interleave with
// its documents on the filesystem object store.
//   node examples/amber-loop.js --rows 5 --dir ./amber-data
// Loads the TypeScript sources through tsx, like bin/interleave.js: `import 'interleave'`
// resolves to src/ in a clone of the repository.
import { registerSource } from '../scripts/source-loader.mjs';

registerSource();
const { main } = await import('./amber-loop/main.ts');
process.exitCode = await main(process.argv.slice(2));
