// The statecharts of a scenario as text (Mermaid), JSON (Stately's import form) or one
// self-contained HTML page of SVG charts (no script, no network).
import { actorRole, type Legend } from '../../actors/index.ts';
import { escapeHtml } from '../escape.ts';
import { htmlPage } from '../html-page.ts';
import { chartMermaid } from './mermaid.ts';
import { chartTitle, layoutOf, type ActorChart, type ScenarioCharts } from './scenario.ts';
import { statelyJson } from './stately.ts';
import { contextLines } from './chart.ts';
import { CHART_CSS, chartSvg, contextBoxSvg } from './svg.ts';

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
  return `${JSON.stringify({ machines: sc.charts.map((c) => ({ actors: c.actors, machine: statelyJson(c.machine) })), others: sc.others.map((o) => ({ actor: o.actor, kind: o.kind })) }, null, 2)}\n`;
}

/** A reducer's state in at most `max` lines (the rest counted). */
export function reducerLines(context: unknown, max = 12): string[] {
  const lines = contextLines(context);
  return lines.length > max ? [...lines.slice(0, max - 1), `… ${lines.length - max + 1} more`] : lines;
}

/** One HTML page with every chart as inline SVG, each fitted to the page width but drawn at three quarters of its size at least (wider charts scroll); a checkbox shows it at full size. */
export function chartsHtml(name: string, sc: ScenarioCharts, legend?: Legend): string {
  const body: string[] = [];
  sc.charts.forEach((c, i) => {
    const title = chartTitle(c, legend);
    const layout = layoutOf(c.chart, c.actors.join(', '));
    const roles = roleLines(c, legend);
    body.push(
      `<section><h2>${escapeHtml(title)}</h2>${roles.length > 1 ? `<ul>${roles.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>` : ''}<input type="checkbox" class="zoom" id="zoom-c${i}"><label for="zoom-c${i}">full size (scroll to pan)</label><div class="chart" style="--min:${Math.round(layout.width * 0.75)}px">${chartSvg(c.chart, layout, { uid: `c${i}`, actor: c.actors[0]! })}</div></section>`,
    );
  });
  const reducers = sc.others.filter((o) => o.kind === 'reducer');
  const external = sc.others.filter((o) => o.kind !== 'reducer');
  for (const [i, o] of reducers.entries()) {
    const box = contextBoxSvg(o.actor, [], reducerLines(o.context), { uid: `r${i}`, actor: o.actor, contextTitle: 'state (initial)' });
    body.push(`<section><h2>${escapeHtml(`${o.actor} — a reducer${roleAfter(legend, o.actor, ': ')}`)}</h2><p class="note">No statechart: it answers each message from its state (its <code>receive</code>); its initial state:</p><div class="chart">${box}</div></section>`);
  }
  if (external.length) body.push(`<section><h2>External actors</h2><ul>${external.map((o) => `<li>${escapeHtml(`${o.actor}: answered by the live run${roleAfter(legend, o.actor, ' — ')}`)}</li>`).join('')}</ul></section>`);
  const css = `
body { margin:0; padding:12px 18px; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color:#1d2330; background:#fafbfc; }
h1 { font-size:18px; } h2 { font-size:15px; margin:18px 0 6px; }
.chart { overflow:auto; max-height:85vh; background:#fff; border:1px solid #c9ced8; border-radius:4px; padding:6px; }
.chart svg.statechart { max-width:100%; min-width:var(--min, 0px); height:auto; }
input.zoom:checked + label + .chart svg.statechart { max-width:none; }
input.zoom { margin:0 4px 4px 0; } label { font-size:12px; color:#6b7280; cursor:pointer; }
p.note { color:#6b7280; font-size:13px; margin:2px 0 6px; }
${CHART_CSS}
`;
  return htmlPage({ title: `statecharts: ${name}`, css, body: `<h1>${escapeHtml(`statecharts: ${name}`)}</h1>\n${body.join('\n')}` });
}
