import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import machines from './eslint-rules/machines.js';

export default tseslint.config(
  { ignores: ['.dependency-cruiser.cjs', 'node_modules/**', '.cache/**', 'dist/**', 'coverage/**', 'out/**', '.docs-blocks/**', '.docs-types/**', 'docs-api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setImmediate: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', Buffer: 'readonly', performance: 'readonly', structuredClone: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Machines are pure: the clock and randomness come from the scheduler.
    files: ['src/machines/**/*.ts'],
    plugins: { machines },
    rules: {
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'Machines are pure: time comes from the scheduler (world.now).' },
        { object: 'Math', property: 'random', message: 'Machines are pure: randomness comes from the seeded PRNG.' }],
      // Protocol actors are statecharts: no wildcard handlers, no states mirroring context.phase (eslint-rules/machines.js).
      'machines/no-wildcard-on': 'error',
      'machines/no-phase-mirroring': 'error',
    },
  },
);
