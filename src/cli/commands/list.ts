// `interleave list [module...]`: the built-in scenarios and a project's own (from
// interleave.config.* or the modules given), with their parameters and defaults.
import { describeParam, type ScenarioFamily } from '../../actors/index.ts';
import { EXIT } from '../errors.ts';
import { printJson, type Io } from '../io.ts';
import { loadCatalog } from '../options.ts';
import { configTargets, modulePathText, refText, targetsOf, type Target } from '../scenario-ref.ts';

export async function runList(io: Io, modules: readonly string[], flags: { json?: boolean; config?: string }): Promise<number> {
  let targets: Target[];
  let from: string | undefined;
  if (modules.length) {
    targets = [];
    for (const m of modules) targets.push(...(await targetsOf(m)));
  } else {
    const project = await configTargets(flags.config);
    from = project ? modulePathText(project.file) : undefined;
    targets = [...(await loadCatalog()).families.map((family) => ({ family })), ...(project?.targets ?? [])];
  }
  const builtin = new Set(modules.length ? [] : (await loadCatalog()).families.map((f) => f.name));
  // A project scenario named like a built-in one is reached by its module reference only.
  const hidden = (t: Target) => t.origin !== undefined && builtin.has(t.family.name);
  if (flags.json) {
    printJson(io, targets.map((t) => ({
      name: t.family.name,
      description: t.family.description,
      ...(t.origin ? { module: refText(t.origin) } : {}),
      simulate: Boolean(t.family.simulate),
      params: Object.fromEntries(Object.entries(t.family.params).map(([k, p]) => [k, { ...p, allowed: describeParam(p) }])),
    })));
    return EXIT.ok;
  }
  const o = io.style;
  const w = Math.max(...targets.map((t) => t.family.name.length));
  const line = (f: ScenarioFamily, extra: string) => io.out(`${o.bold(f.name.padEnd(w))}  ${f.description}${f.simulate ? o.dim('  [simulate]') : ''}${extra}`);
  let header = false;
  for (const t of targets) {
    if (t.origin && !modules.length && !header) {
      io.out(o.dim(`\nfrom ${from}:`));
      header = true;
    }
    line(t.family, t.origin ? o.dim(`  (${refText(t.origin)}${hidden(t) ? `; a built-in scenario has this name: check it by this reference` : ''})`) : '');
    for (const [k, p] of Object.entries(t.family.params)) {
      io.out(`${' '.repeat(w + 2)}--param ${k}=<${describeParam(p)}>  default ${String(p.default)}${p.description ? o.dim(`  ${p.description}`) : ''}`);
    }
  }
  // Two modules exporting scenarios of one name: a name on the command line and a trace file's
  // scenario name cannot tell them apart, so say which references to use.
  const byName = new Map<string, Target[]>();
  for (const t of targets) if (t.origin) byName.set(t.family.name, [...(byName.get(t.family.name) ?? []), t]);
  for (const [name, ts] of byName) {
    if (ts.length > 1) io.err(o.yellow(`warning: ${ts.length} exports are scenarios named '${name}' (${ts.map((t) => refText(t.origin!)).join(', ')}): refer to each by its module reference, and give them distinct names`));
  }
  const example = modules.length && targets[0]?.origin ? refText(targets[0].origin) : '<scenario>';
  io.out(o.dim(`\ncheck one with: npx interleave check ${example} [--param key=value ...]`));
  return EXIT.ok;
}
