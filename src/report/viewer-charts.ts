// The statecharts the HTML viewer shows next to a trace: one SVG per machine actor of
// the trace, the active states of each state text the trace records, and per step the
// transitions the step took (found from the event and the states before and after).
import { escapeHtml } from './escape.ts';
import { activePaths, takenTransitions } from './charts/chart.ts';
import { layoutOf, type ScenarioCharts } from './charts/scenario.ts';
import { chartSvg } from './charts/svg.ts';
import type { TraceView } from './model.ts';

export interface ViewerMachine {
  readonly actor: string;
  /** Each state text of this actor in the trace → its active state paths. */
  readonly active: Readonly<Record<string, readonly string[]>>;
  /** Step number → indices of the transitions that step took. */
  readonly taken: Readonly<Record<number, readonly number[]>>;
}

/** The charts' markup (escaped SVG, one `<figure>` per actor) and the data to highlight them. */
export function viewerMachines(view: TraceView, charts: ScenarioCharts): { readonly html: string; readonly data: readonly ViewerMachine[] } {
  const figures: string[] = [];
  const data: ViewerMachine[] = [];
  for (const actor of view.actors) {
    const c = charts.charts.find((x) => x.actors.includes(actor));
    if (!c) continue;
    const active: Record<string, string[]> = {};
    const taken: Record<number, number[]> = {};
    let before: string | undefined;
    for (const s of view.steps) {
      const now = s.states[actor];
      if (now !== undefined && !(now in active)) active[now] = activePaths(now);
      if (s.n > 0 && before !== undefined && now !== undefined) {
        const receiver = s.actor === actor && (s.kind === 'deliver' || s.kind === 'input' || s.kind === 'timer');
        const unhandled = s.events.some((e) => e.kind === 'unhandled' && e.actor === actor);
        if (!unhandled && (receiver || before !== now)) {
          const ev = receiver ? (s.kind === 'timer' ? ({ kind: 'after' } as const) : ({ kind: 'on', type: s.what } as const)) : ({ kind: 'none' } as const);
          const t = takenTransitions(c.chart, before, now, ev);
          if (t.length) taken[s.n] = t;
        }
      }
      if (now !== undefined) before = now;
    }
    data.push({ actor, active, taken });
    const layout = layoutOf(c.chart, actor);
    figures.push(`<figure class="machine" data-actor="${escapeHtml(actor)}"><figcaption>${escapeHtml(actor)}</figcaption>${chartSvg(c.chart, layout, { uid: `m${data.length}`, actor })}</figure>`);
  }
  return { html: figures.join('\n'), data };
}
