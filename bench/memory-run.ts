// Child of bench/memory.bench.ts: checks one configuration and prints one JSON line.
// With --expose-gc it also measures the live heap when the search ends, its frontier
// or stack still held: a forced collection in the last progress tick (after the peak
// was sampled, so the peak is the search's own, uncollected garbage included).
import { checkRun, type CheckOptions } from '../src/check/index.ts';
import { families } from '../src/machines/catalog.ts';
import { parseParams } from '../src/actors/family.ts';

const cfg = JSON.parse(process.argv[2]!) as { family: string; params: Record<string, string | number>; options: CheckOptions & { maxStates: number } };
const f = families.find((x) => x.name === cfg.family)!;
const sc = f.build(parseParams(f, cfg.params));
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const base = process.memoryUsage();
let live: number | undefined;
const c0 = process.cpuUsage();
const run = checkRun(sc, cfg.options);
run.progress$.subscribe((p) => {
  if (gc && live === undefined && p.distinctStates >= cfg.options.maxStates) {
    gc();
    const m = process.memoryUsage();
    live = m.heapUsed + m.external - (base.heapUsed + base.external);
  }
});
const r = await run.result;
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ stats: r.stats, complete: r.complete, ok: r.ok, cutBy: r.cutBy, options: r.options, cpuMs: (c.user + c.system) / 1000, live }));
