// Child of bench/every-event.ts: explores the two-counter statechart of size N with one
// tool (interleave's bfs check or @xstate/graph's getAdjacencyMap) in a process of its
// own and prints one JSON line. Both tools are loaded either way, so the RSS before the
// exploration is the same for both.
const { tool, n } = JSON.parse(process.argv[2]);
const { registerSource } = await import('../scripts/source-loader.mjs');
registerSource();
const { countersScenario, counters, COUNTER_EVENTS } = await import(new URL('./every-event.ts', import.meta.url).href);
const { check } = await import(new URL('../src/check/index.ts', import.meta.url).href);
const { getAdjacencyMap } = await import('@xstate/graph');
const before = process.memoryUsage().rss;
const c0 = process.cpuUsage();
const t0 = performance.now();
let states, complete;
if (tool === 'interleave') {
  const r = await check(countersScenario(n), { strategy: 'bfs' });
  states = r.stats.distinctStates;
  complete = r.complete && r.ok;
} else {
  states = Object.keys(getAdjacencyMap(counters(n), { events: COUNTER_EVENTS })).length;
  complete = true;
}
const wallMs = performance.now() - t0;
const c = process.cpuUsage(c0);
const peakRss = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({ states, complete, cpuMs: (c.user + c.system) / 1000, wallMs, peakRss, addedRss: peakRss - before }));
