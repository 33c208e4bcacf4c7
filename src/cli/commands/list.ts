// `interleave list`: the registered scenarios, their parameters and defaults.
import { describeParam } from '../../actors/index.ts';
import { EXIT } from '../errors.ts';
import { printJson, type Io } from '../io.ts';
import { loadCatalog } from '../options.ts';

export async function runList(io: Io, flags: { json?: boolean }): Promise<number> {
  const { families } = await loadCatalog();
  if (flags.json) {
    printJson(io, families.map((f) => ({
      name: f.name,
      description: f.description,
      simulate: Boolean(f.simulate),
      params: Object.fromEntries(Object.entries(f.params).map(([k, p]) => [k, { ...p, allowed: describeParam(p) }])),
    })));
    return EXIT.ok;
  }
  const o = io.style;
  const w = Math.max(...families.map((f) => f.name.length));
  for (const f of families) {
    io.out(`${o.bold(f.name.padEnd(w))}  ${f.description}${f.simulate ? o.dim('  [simulate]') : ''}`);
    for (const [k, p] of Object.entries(f.params)) {
      io.out(`${' '.repeat(w + 2)}--param ${k}=<${describeParam(p)}>  default ${String(p.default)}${p.description ? o.dim(`  ${p.description}`) : ''}`);
    }
  }
  io.out(o.dim(`\ncheck one with: npx interleave check <scenario> [--param key=value ...]`));
  return EXIT.ok;
}
