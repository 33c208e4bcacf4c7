import { availableParallelism } from 'node:os';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests import the package by name ('interleave', 'interleave/vitest', ...) as users do; the
// 'interleave-source' condition resolves those names to src/ (package.json "exports"),
// never to a dist/ left by an earlier build.
const conditions = ['interleave-source', ...defaultServerConditions];
// Server-side resolution, which vitest also passes to its workers as Node's --conditions,
// leaves out 'module': that condition picks bundler builds, and Node cannot load some (the
// AWS SDK's dist-es has extensionless imports).
const serverConditions = conditions.filter((c) => c !== 'module');

/**
 * Test files that need a process of their own (see `projects` below): two change
 * process-wide state (V8's heap flags, a mocked node:fs); one depends on it (a deprecation
 * warning is given once per process, found by running the files in shuffled orders).
 */
const ISOLATED = [
  'test/check/search/heap.test.ts',
  'test/storage/live/fs-race-schedule.test.ts',
  'test/actors/typed-scenarios.test.ts',
];

export default defineConfig({
  // Vite's cache out of node_modules (as the CLI's cache is): a new entry there makes npm's
  // hidden lockfile stale, and every later npx reads the whole installed tree again. The npm
  // scripts load this file with --configLoader runner for the same reason (the default
  // loader writes a bundled copy of it to node_modules/.vite-temp).
  cacheDir: '.cache/vite',
  resolve: { conditions },
  ssr: { resolve: { conditions: serverConditions, externalConditions: serverConditions } },
  test: {
    // Limits against hangs, not speed checks: CI shares a 2-core machine, and a CLI test
    // that spawns node can wait seconds for a core. A test spawning the CLI three times
    // (~4 s idle) took 10 s at load 8 and can take 12x idle under heavy load, near the
    // 60 s this was; tests that need more still say so themselves.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Many files wait on child processes (kills, leases, the CLI, servers): three files at a
    // time overlap those waits on a 2-core CI machine, where vitest's default runs one.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // A worker runs file after file with the modules it loaded (importing src/ afresh for
    // each file, in a new process, was a fifth of the suite's CPU: docs/measurements.md); the files in
    // ISOLATED run each in a fresh process.
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
