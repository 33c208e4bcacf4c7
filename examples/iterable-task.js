#!/usr/bin/env node
// An iterable task with checkpoint rounds on SQLite, run live by interleave.
//   node examples/iterable-task.js --items 5000 --db ./state.db
// Kill it (Ctrl-C, kill -9) and run it again: it resumes from the durable checkpoints.
// Loads the TypeScript sources through tsx, like bin/interleave.js: `import 'interleave'`
// resolves to src/ in a clone of the repository.
import { registerSource } from '../scripts/source-loader.mjs';

registerSource();
const { main } = await import('./iterable-task/main.ts');
process.exitCode = await main(process.argv.slice(2));
