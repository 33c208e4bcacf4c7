// One measurement of bench/memory.bench.ts, in a process of its own (a fresh heap and
// RSS): loads the TypeScript sources through tsx, then runs bench/memory-run.ts.
import { registerSource } from '../scripts/source-loader.mjs';

registerSource();
await import('./memory-run.ts');
