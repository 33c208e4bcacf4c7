// The charts of a scenario's actors: one per distinct machine (actors running the
// same statechart share it), laid out once, plus the actors that are not machines.
import type { AnyStateMachine } from 'xstate';
import { actorRole, type Legend, type Scenario } from '../../actors/index.ts';
import { chartOf, type MachineChart } from './chart.ts';
import { layoutChart, type ChartLayout } from './layout.ts';

/** One statechart and the actors that run it. */
export interface ActorChart {
  /** The actors that run this statechart, in scenario order. */
  readonly actors: readonly string[];
  /** The machine itself. */
  readonly machine: AnyStateMachine;
  /** Its statechart as data. */
  readonly chart: MachineChart;
}

/** The statecharts of a scenario's actors (`scenarioCharts`). */
export interface ScenarioCharts {
  /** One per distinct statechart, in scenario order. */
  readonly charts: readonly ActorChart[];
  /** Actors with no statechart: reducers and external actors. */
  readonly others: readonly {
    /** The actor's id. */
    readonly actor: string;
    /** What it is instead of a machine. */
    readonly kind: 'reducer' | 'external';
    /** A reducer's initial state (its `init` of its input); undefined if `init` threw. */
    readonly context?: unknown;
  }[];
}

/** Groups the scenario's machine actors by the shape of their statechart. */
export function scenarioCharts(sc: Scenario): ScenarioCharts {
  const byShape = new Map<string, { actors: string[]; machine: AnyStateMachine; chart: MachineChart }>();
  const others: { actor: string; kind: 'reducer' | 'external'; context?: unknown }[] = [];
  for (const a of sc.actorList) {
    if (a.kind === 'reducer') {
      others.push({ actor: a.id, kind: a.kind, ...initialState(a.logic, a.input) });
      continue;
    }
    if (a.kind !== 'machine') {
      others.push({ actor: a.id, kind: a.kind });
      continue;
    }
    const chart = chartOf(a.machine);
    const shape = JSON.stringify([chart.root, chart.transitions]);
    const g = byShape.get(shape);
    if (g) g.actors.push(a.id);
    else byShape.set(shape, { actors: [a.id], machine: a.machine, chart });
  }
  return { charts: [...byShape.values()], others };
}

/** A reducer's initial state, if its init runs (it is pure: the kernel calls it the same way). */
function initialState(logic: { init(input: unknown): unknown }, input: unknown): { context?: unknown } {
  try {
    return { context: logic.init(input) };
  } catch {
    return {};
  }
}

const layouts = new WeakMap<MachineChart, Map<string, ChartLayout>>();

/** A chart's layout, computed once per chart and title. */
export function layoutOf(chart: MachineChart, title: string): ChartLayout {
  let m = layouts.get(chart);
  if (!m) layouts.set(chart, (m = new Map()));
  let l = m.get(title);
  if (!l) m.set(title, (l = layoutChart(chart, title)));
  return l;
}

/** A chart's title: the actors that run it, with their roles when the legend has them. */
export function chartTitle(c: ActorChart, legend?: Legend): string {
  const roles = c.actors.map((a) => actorRole(legend, a)).filter((r): r is string => r !== undefined);
  const distinct = [...new Set(roles)];
  return `${c.actors.join(', ')}${distinct.length === 1 ? ` — ${distinct[0]}` : ''}`;
}
