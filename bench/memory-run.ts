// Child of bench/memory.bench.ts: checks one configuration and prints one JSON line.
import { check, type CheckOptions } from '../src/check/index.ts';
import { families } from '../src/machines/catalog.ts';
import { parseParams } from '../src/actors/family.ts';

const cfg = JSON.parse(process.argv[2]!) as { family: string; params: Record<string, string | number>; options: CheckOptions };
const f = families.find((x) => x.name === cfg.family)!;
const sc = f.build(parseParams(f, cfg.params));
const c0 = process.cpuUsage();
const r = await check(sc, cfg.options);
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ stats: r.stats, complete: r.complete, ok: r.ok, cutBy: r.cutBy, options: r.options, cpuMs: (c.user + c.system) / 1000 }));
