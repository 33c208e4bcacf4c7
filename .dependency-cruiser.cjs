// Layers one way (docs/architecture.md, "Layers"): each rule names what a layer may NOT
// import. `npm run lint` runs it (`depcruise src`); test/lint/layers.test.ts shows it failing.
const layer = (name, dir, allowed) => ({
  name: `layer-${name}`,
  comment: `${dir} may import only ${allowed.join(', ')} (and packages)`,
  severity: 'error',
  from: { path: `^src/${dir}/` },
  to: { path: '^src/', pathNot: allowed.map((a) => `^src/${a}/`) },
});

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'no import cycle between files, except through type-only imports',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    layer('actors', 'actors', ['actors']),
    layer('storage', 'storage', ['actors', 'storage']),
    layer('machines', 'machines', ['actors', 'storage', 'machines']),
    layer('check', 'check', ['actors', 'check']),
    layer('report', 'report', ['actors', 'check', 'report']),
    layer('live', 'live', ['actors', 'check', 'storage', 'live']),
    layer('vitest', 'vitest', ['actors', 'check', 'report', 'vitest']),
    layer('kernel', 'kernel', ['actors', 'check', 'report', 'kernel']),
    layer('eslint', 'eslint', ['eslint']),
    {
      name: 'root-entry',
      comment: 'the root entry point is the user API: actors, check and report',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/(actors|check|report)/'] },
    },
    {
      name: 'nothing-imports-cli',
      comment: 'the command line is the top layer',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { conditionNames: ['interleave-source', 'import', 'default'], extensions: ['.ts', '.mjs', '.js'] },
  },
};
