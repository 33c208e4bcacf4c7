// What a renderer may know besides the trace file: the scenario's legend, the charts of
// its machines, and its family's parameter defaults. The CLI builds it from the
// scenario it has; without it a trace renders as before, only less explained.
import type { Legend, ParamSpec, Scenario } from '../actors/index.ts';
import { scenarioCharts, type ScenarioCharts } from './charts/scenario.ts';

/** What a renderer may know besides the trace file (`reportContext` builds it from a scenario). */
export interface ReportContext {
  /** The scenario's legend: actor roles, property lines, step notes. */
  readonly legend?: Legend;
  /** The scenario's statecharts (the viewer draws them beside the trace). */
  readonly charts?: ScenarioCharts;
  /**
   * Commands that draw the statecharts, for a page written without `charts`: the viewer says
   * where the charts would be that they were left out, and gives these commands.
   */
  readonly chartsLeftOut?: readonly string[];
  /** Parameter defaults: the viewer shows the parameters that differ, the rest on demand. */
  readonly defaults?: Readonly<Record<string, unknown>>;
}

/**
 * The report context of a scenario (and its family's parameters, when it has one).
 * `opts.charts: false` leaves the statecharts out (they are built from every machine).
 */
export function reportContext(sc: Scenario, params?: Readonly<Record<string, ParamSpec>>, opts: { readonly charts?: boolean } = {}): ReportContext {
  return {
    ...(sc.legend ? { legend: sc.legend } : {}),
    ...(opts.charts === false ? {} : { charts: scenarioCharts(sc) }),
    ...(params ? { defaults: Object.fromEntries(Object.entries(params).map(([k, p]) => [k, p.default])) } : {}),
  };
}
