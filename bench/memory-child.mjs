// Child of bench/memory.bench.ts: checks one configuration in a process of its own (a
// fresh heap and RSS) and prints one JSON line. `source`: the TypeScript sources
// through tsx, as `interleave` runs in a clone; `compiled`: dist/ (npm run build), as
// the installed package runs. Either way only the checked family's modules are loaded,
// as the CLI loads them (src/machines/family-table.ts).
//
// With --expose-gc it also measures the live heap when the search ends, its frontier
// or stack still held: a forced collection in the last progress tick (after the peak
// was sampled, so the peak is the search's own, uncollected garbage included).
const cfg = JSON.parse(process.argv[2]);
let mod;
if (cfg.compiled) {
  mod = (p) => import(new URL(`../dist/${p}.js`, import.meta.url).href);
} else {
  const { registerSource } = await import('../scripts/source-loader.mjs');
  registerSource();
  mod = (p) => import(new URL(`../src/${p}.ts`, import.meta.url).href);
}
const { checkRun } = await mod('check/index');
const { loadFamily } = await mod('machines/family-table');
const { parseParams } = await mod('actors/family');
const f = await loadFamily(cfg.family);
const sc = f.build(parseParams(f, cfg.params));
const gc = globalThis.gc;
gc?.();
const base = process.memoryUsage();
let live;
const c0 = process.cpuUsage();
const run = checkRun(sc, cfg.options);
run.progress$.subscribe((p) => {
  if (gc && live === undefined && p.distinctStates >= cfg.options.maxStates) {
    gc();
    const m = process.memoryUsage();
    live = m.heapUsed + m.arrayBuffers - (base.heapUsed + base.arrayBuffers);
  }
});
const r = await run.result;
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ stats: r.stats, complete: r.complete, cutBy: r.cutBy, cpuMs: (c.user + c.system) / 1000, live }));
