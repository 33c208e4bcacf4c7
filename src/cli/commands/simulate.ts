// `interleave simulate <scenario>`: the family's virtual-time study, printed as tables.
import { formatTable } from '../../report/index.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printJson, type Io } from '../io.ts';
import { loadCatalog, resolveParams } from '../options.ts';
import { resolveTarget } from '../scenario-ref.ts';
import { statusLine } from '../progress.ts';

export async function runSimulate(io: Io, name: string, flags: { param: string[]; seed?: number; json?: boolean; config?: string }): Promise<number> {
  const t = await resolveTarget(name, flags.config);
  const f = t.family;
  const p = resolveParams(f, flags.param);
  if (!f.simulate) {
    const withSim = (await loadCatalog()).families.filter((x) => x.simulate).map((x) => x.name);
    throw new UsageError(`scenario '${f.name}' has no simulation (no cost model); scenarios with one: ${withSim.length ? withSim.join(', ') : '(none yet)'}`);
  }
  const seed = flags.seed ?? 1;
  // On a terminal a line says which design runs and how far it got (a study can take a minute).
  const status = statusLine(io.tty && !flags.json, `simulating ${f.name}`);
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  status.update('starting', true);
  let rep;
  try {
    rep = f.simulate(p, { seed, onProgress: (what, steps, now) => status.update(`${what} · ${n(steps)} steps · virtual ${(now / 1000).toFixed(1)}s`) });
  } finally {
    status.stop();
  }
  if (flags.json) {
    printJson(io, { scenario: { name: f.name, params: { ...p } }, seed, title: rep.title, tables: rep.tables, data: rep.data });
    return EXIT.ok;
  }
  io.out(`## ${rep.title}\n`);
  for (const t of rep.tables) io.out(formatTable(t));
  return EXIT.ok;
}
