// `interleave show --machines <scenario|module>`: each actor's statechart as Mermaid
// (default), a page of SVG charts (--format html) or the JSON Stately's tools import.
import type { Format } from '../../report/index.ts';
import { UsageError } from '../errors.ts';
import type { Io } from '../io.ts';
import { resolveParams } from '../options.ts';
import { resolveTarget } from '../scenario-ref.ts';
import { buildScenario } from './check.ts';
import { writeOut } from './show.ts';

export interface ShowMachinesFlags {
  format?: string;
  out?: string;
  config?: string;
  param?: string[];
  /** Only the chart of this actor. */
  actor?: string;
}

const BY_EXT: Record<string, Format> = { '.html': 'html', '.htm': 'html', '.mmd': 'mermaid', '.mermaid': 'mermaid', '.json': 'json', '.txt': 'text' };

export async function runShowMachines(io: Io, name: string, flags: ShowMachinesFlags): Promise<number> {
  const t = await resolveTarget(name, flags.config);
  const p = resolveParams(t.family, flags.param ?? []);
  const sc = buildScenario(t.family, p);
  const { scenarioCharts, chartsHtml, chartsJson, chartsMermaid } = await import('../../report/charts/index.ts');
  let charts = scenarioCharts(sc);
  if (flags.actor !== undefined) {
    const chart = charts.charts.find((c) => c.actors.includes(flags.actor!));
    if (!chart) {
      const other = charts.others.find((o) => o.actor === flags.actor);
      if (other) throw new UsageError(`actor '${flags.actor}' of scenario '${sc.name}' is a ${other.kind}, not a machine: it has no statechart`);
      throw new UsageError(`scenario '${sc.name}' has no actor '${flags.actor}'; its actors: ${sc.ids.join(', ')}`);
    }
    charts = { charts: [{ ...chart, actors: [flags.actor] }], others: [] };
  }
  const ext = flags.out ? /\.[^./\\]+$/.exec(flags.out)?.[0]?.toLowerCase() : undefined;
  const format = (flags.format ?? (ext ? BY_EXT[ext] : undefined) ?? 'mermaid') as Format;
  const text = format === 'html' ? chartsHtml(sc.name, charts, sc.legend) : format === 'json' ? chartsJson(charts) : chartsMermaid(charts, sc.legend);
  if (flags.out) {
    writeOut(flags.out, text);
    io.err(`wrote the statecharts of ${sc.name} (${format}) to ${flags.out}`);
  } else io.out(text.replace(/\n$/, ''));
  return 0;
}
