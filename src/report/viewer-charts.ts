// The statecharts the HTML viewer shows next to a trace: one SVG per machine actor of
// the trace, the active states of each state text the trace records, and per step the
// transitions the step took (found from the event and the states before and after).
import { escapeHtml } from './escape.ts';
import { activePaths, takenTransitions } from './charts/chart.ts';
import { layoutOf, type ScenarioCharts } from './charts/scenario.ts';
import { reducerLines } from './charts/page.ts';
import { chartSvg, contextBoxSvg } from './charts/svg.ts';
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
    if (!c) {
      // A reducer (a storage actor): a box with the messages it answered in this trace and its initial state.
      const r = charts.others.find((o) => o.actor === actor && o.kind === 'reducer');
      if (!r) continue;
      const answered = [...new Set(view.steps.filter((s) => s.actor === actor && (s.kind === 'deliver' || s.kind === 'input')).map((s) => s.what))];
      data.push({ actor, active: {}, taken: {} });
      const box = contextBoxSvg(actor, answered.map((label) => ({ label })), reducerLines(r.context), { uid: `m${data.length}`, actor, contextTitle: 'state (initial)' });
      figures.push(`<figure class="machine reducer" data-actor="${escapeHtml(actor)}"><figcaption>${escapeHtml(actor)}</figcaption>${box}</figure>`);
      continue;
    }
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
