// Child of bench/every-event.ts: explores one statechart (the two-counter one of size N or
// the elevator) with one tool in a process of its own and prints one JSON line. Both tools
// are loaded either way, so the RSS before the exploration is the same for both.
//   interleave: check(scenario, { strategy: 'bfs' }), default options (the elevator without shrink)
//   graph:      @xstate/graph's getAdjacencyMap(machine, { events })
//   kernel:     a plain breadth-first loop over interleave's step function (enabled / apply),
//               states told apart by their JSON as @xstate/graph does: the checker's own
//               cost is what `interleave` takes beyond this
//   stepper:    the same loop over interleave's xstate adapter alone (one machine step per event)
const spec = JSON.parse(process.argv[2]);
const { tool } = spec;
const { registerSource } = await import('../scripts/source-loader.mjs');
registerSource();
const ee = await import(new URL('./every-event.ts', import.meta.url).href);
const { check } = await import(new URL('../src/check/index.ts', import.meta.url).href);
const { initialWorld, enabled, apply } = await import(new URL('../src/actors/index.ts', import.meta.url).href);
const { getAdjacencyMap } = await import('@xstate/graph');
const isCounters = spec.model !== 'elevator';
// Built inside the timed part, by each tool, as a user's test would.
const machine = () => (isCounters ? ee.counters(spec.n) : ee.elevator(spec.floors, spec.capacity));
const scenario = () => (isCounters ? ee.countersScenario(spec.n) : ee.elevatorScenario(spec.floors, spec.capacity));
const events = isCounters ? ee.COUNTER_EVENTS : ee.ELEVATOR_EVENTS;
const keyOf = (s) => JSON.stringify(s.value) + JSON.stringify(s.context);

/** Breadth-first over `next(state)`'s successors, distinct by `key`; returns the count. */
function breadthFirst(init, next, key) {
  const seen = new Set([key(init)]);
  for (let level = [init]; level.length > 0; ) {
    const deeper = [];
    for (const s of level) for (const t of next(s)) {
      const k = key(t);
      if (!seen.has(k)) {
        seen.add(k);
        deeper.push(t);
      }
    }
    level = deeper;
  }
  return seen.size;
}

const before = process.memoryUsage().rss;
const c0 = process.cpuUsage();
const t0 = performance.now();
let states, complete;
if (tool === 'interleave') {
  const r = await check(scenario(), isCounters ? { strategy: 'bfs' } : { strategy: 'bfs', shrink: false });
  states = r.stats.distinctStates;
  complete = r.complete && r.ok;
} else if (tool === 'graph') {
  states = Object.keys(getAdjacencyMap(machine(), { events })).length;
  complete = true;
} else if (tool === 'kernel') {
  const sc = scenario();
  const init = initialWorld(sc, { detail: false }).world;
  states = breadthFirst(init, (w) => enabled(sc, w).map((t) => apply(sc, w, t, { detail: false }).world), (w) => keyOf(w.snaps[0]));
  complete = true;
} else if (tool === 'stepper') {
  const stepper = scenario().actorList[0].stepper;
  states = breadthFirst(stepper.initial().snapshot, (s) => events.map((e) => stepper.step(s, e).snapshot), keyOf);
  complete = true;
} else throw new Error(`every-event child: unknown tool '${tool}' (interleave, graph, kernel or stepper)`);
const wallMs = performance.now() - t0;
const c = process.cpuUsage(c0);
const peakRss = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({ states, complete, cpuMs: (c.user + c.system) / 1000, wallMs, peakRss, addedRss: peakRss - before }));
