// The statecharts of a scenario as text (Mermaid), JSON (Stately's import form) or one
// self-contained HTML page of SVG charts (no script, no network).
import { actorRole, type Legend } from '../../actors/index.ts';
import { escapeHtml } from '../escape.ts';
import { htmlPage } from '../html-page.ts';
import { chartMermaid } from './mermaid.ts';
import { chartTitle, layoutOf, type ActorChart, type ScenarioCharts } from './scenario.ts';
import { statelyJson } from './stately.ts';
import { CHART_CSS, chartSvg } from './svg.ts';

function roleLines(c: ActorChart, legend?: Legend): string[] {
  return c.actors.flatMap((a) => {
    const role = actorRole(legend, a);
    return role === undefined ? [] : [`${a}: ${role}`];
  });
}

/** The actor's role wrapped in `before`/`after`, or nothing when the legend has none. */
function roleAfter(legend: Legend | undefined, actor: string, before: string, after = ''): string {
  const role = actorRole(legend, actor);
  return role === undefined ? '' : `${before}${role}${after}`;
}

/** Every chart as a Mermaid `stateDiagram-v2`, separated by blank lines (each a diagram of its own). */
export function chartsMermaid(sc: ScenarioCharts, legend?: Legend): string {
  const parts = sc.charts.map((c) => chartMermaid(c.chart, { title: chartTitle(c, legend), notes: [`actors: ${c.actors.join(', ')}`, ...roleLines(c, legend)] }));
  const rest = sc.others.map((o) => `%% ${o.actor}: a ${o.kind}, no statechart${roleAfter(legend, o.actor, ' (', ')')}\n`);
  return [...parts, ...rest].join('\n');
}

/** `{ actors, machine }` per chart: the machine config Stately's tools import. */
export function chartsJson(sc: ScenarioCharts): string {
  return `${JSON.stringify({ machines: sc.charts.map((c) => ({ actors: c.actors, machine: statelyJson(c.machine) })), others: sc.others }, null, 2)}\n`;
}

/** One HTML page with every chart as inline SVG. */
export function chartsHtml(name: string, sc: ScenarioCharts, legend?: Legend): string {
  const body: string[] = [];
  sc.charts.forEach((c, i) => {
    const title = chartTitle(c, legend);
    const layout = layoutOf(c.chart, c.actors.join(', '));
    const roles = roleLines(c, legend);
    body.push(
      `<section><h2>${escapeHtml(title)}</h2>${roles.length > 1 ? `<ul>${roles.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>` : ''}<div class="chart">${chartSvg(c.chart, layout, { uid: `c${i}`, actor: c.actors[0]! })}</div></section>`,
    );
  });
  if (sc.others.length) body.push(`<section><h2>Actors without a statechart</h2><ul>${sc.others.map((o) => `<li>${escapeHtml(`${o.actor}: a ${o.kind}${roleAfter(legend, o.actor, ' — ')}`)}</li>`).join('')}</ul></section>`);
  const css = `
body { margin:0; padding:12px 18px; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color:#1d2330; background:#fafbfc; }
h1 { font-size:18px; } h2 { font-size:15px; margin:18px 0 6px; }
.chart { overflow:auto; background:#fff; border:1px solid #c9ced8; border-radius:4px; padding:6px; }
${CHART_CSS}
`;
  return htmlPage({ title: `statecharts: ${name}`, css, body: `<h1>${escapeHtml(`statecharts: ${name}`)}</h1>\n${body.join('\n')}` });
}
