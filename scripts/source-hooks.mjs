// Module resolve hook (see source-loader.mjs): adds the 'interleave-source' export
// condition, so `import 'interleave'` inside the repository resolves to src/ (package.json
// "exports" lists it first), not to a dist/ that may be missing or stale.
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, 'interleave-source'] });
}
