import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests import the package by name ('interleave', 'interleave/vitest', ...) as users do; the
// 'interleave-source' condition resolves those names to src/ (package.json "exports"),
// never to a dist/ left by an earlier build.
const conditions = ['interleave-source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ['test/**/*.test.ts'],
    // Limits against hangs, not speed checks: CI shares a 2-core machine, and a CLI test
    // that spawns node can wait seconds for a core.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
