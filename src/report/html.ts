// The HTML viewer: one self-contained file (no network). The trace is embedded as
// a JSON island with `<`, `>` and `&` escaped, and the page's script builds the
// DOM with textContent, so payloads render as text. A CSP pins the one script by hash.
// The page can also be had in pieces (formatHtmlPieces), which the commands write
// one by one: the escaped trace is never one string in the heap.
import { createHash } from 'node:crypto';
import { constants as bufferConstants } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { diffSchedules } from './diff.ts';
import { escapeHtml } from './escape.ts';
import { htmlPagePieces } from './html-page.ts';
import { RenderTooLargeError } from './render-too-large.ts';
import { scriptSafeJson, scriptSafeJsonPieces } from './script-json.ts';
import { actorRole, stepNotes, propertyNote } from '../actors/legend.ts';
import type { ReportContext } from './context.ts';
import { CHART_CSS } from './charts/svg.ts';
import { stepsText } from './text.ts';
import { busyActors, fileView, stepSummary, traceView, type StepView } from './model.ts';
import { viewerMachines } from './viewer-charts.ts';
import type { TraceFileData } from './schema.ts';

const MAX_STRING_LENGTH = bufferConstants.MAX_STRING_LENGTH;
let script: string | undefined;
/** The page's one script: the sequence chart's drawing, then the viewer. */
function viewerScript(): string {
  script ??= ['./viewer-seq.client.js', './viewer.client.js'].map((f) => readFileSync(new URL(f, import.meta.url), 'utf8')).join('\n');
  return script;
}

export { escapeHtml, RenderTooLargeError, scriptSafeJson };

const CSS = `
:root { --fg:#1d2330; --muted:#6b7280; --line:#c9ced8; --cur:#fff3bf; --fail:#fde2e2; --red:#c62828; --green:#2e7d32; --accent:#1f5fbf; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:#fafbfc; display:flex; flex-direction:column; height:100vh; overflow:hidden; }
header { padding:10px 18px; border-bottom:1px solid var(--line); background:#fff; max-height:34vh; overflow:auto; flex:0 0 auto; }
h1 { font-size:18px; margin:0 0 6px; }
h2 { font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); margin:14px 0 6px; }
h3 { font-size:13px; margin:8px 0 2px; }
#property { padding:6px 10px; border-radius:4px; font-weight:600; white-space:pre-wrap; word-break:break-word; }
#property.violation { background:var(--fail); color:var(--red); border:1px solid #f3b4b4; }
#property.ok { background:#e3f4e4; color:var(--green); }
#meta { color:var(--muted); margin-top:6px; }
#property-note { margin-top:4px; color:var(--fg); font-style:italic; }
#property-note:empty, #legend:empty, #params:empty, #annotations:empty { display:none; }
#params { margin-top:4px; color:var(--muted); font-size:13px; }
#params .param { display:inline-block; margin:1px 6px 1px 0; padding:0 6px; border-radius:3px; background:#eef1f6; font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12px; color:var(--fg); }
#params .param.changed { background:#e7efff; border:1px solid #b9cdf3; }
#legend-box { margin-top:4px; font-size:13px; } #legend-box summary { cursor:pointer; color:var(--accent); }
#legend { margin-top:4px; display:flex; flex-wrap:wrap; gap:4px 14px; }
#diff-note { color:var(--muted); font-size:12px; margin:2px 0 6px; }
#diff-summary { margin:4px 0 2px; }
#legend .role b { font-family:ui-monospace, Menlo, Consolas, monospace; }
.cut { border-bottom:1px dotted var(--muted); cursor:help; }
button.link { border:0; background:none; color:var(--accent); cursor:pointer; padding:0 4px; text-decoration:underline; }
#annotations li { color:#7c2d12; background:#fff7ed; border-left:3px solid #fb923c; padding:2px 6px; margin:3px 0; list-style:none; }
#annotations { padding-left:0; }
#diff summary { font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); margin:12px 0 4px; cursor:pointer; font-weight:600; }
#diff table { font-size:12px; }
#diff tr.fold td { background:#f5f6f8; text-align:center; }
.hint { text-transform:none; letter-spacing:0; font-weight:400; }
figure.machine { margin:6px 0; border:1px solid #e3e6ec; border-radius:4px; padding:0 4px 2px; background:#fff; overflow:auto; max-height:340px; }
figure.machine.current { border-color:#e0a800; box-shadow:0 0 0 1px #e0a800; }
figure.machine figcaption { font-family:ui-monospace, Menlo, Consolas, monospace; font-weight:700; font-size:12px; cursor:zoom-out; position:sticky; left:0; top:0; z-index:1; background:#fff; padding:2px 0; }
figure.machine.fit figcaption { cursor:zoom-in; }
figure.machine figcaption .role { font-family:system-ui, sans-serif; font-weight:400; color:var(--muted); }
figure.machine svg.statechart { max-width:none; }
figure.machine.fit svg.statechart { max-width:100%; height:auto; }
#controls { flex:0 0 auto; z-index:2; display:flex; gap:10px; align-items:center; padding:8px 18px; background:#fff; border-bottom:1px solid var(--line); }
#slider { flex:1; }
button { font:inherit; padding:2px 10px; }
#step-label { font-variant-numeric:tabular-nums; min-width:8em; text-align:right; color:var(--muted); }
main { display:flex; gap:0; flex:1 1 auto; min-height:0; }
#chart-wrap { flex:1 1 auto; min-width:0; overflow:auto; height:100%; background:#fff; border-right:1px solid var(--line); }
aside { flex:0 0 min(460px, 42vw); padding:6px 16px 24px; height:100%; overflow:auto; }
#charts-left-out p { margin:2px 0 4px; }
#charts-left-out code { display:block; font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12px; background:#f3f4f6; padding:3px 6px; border-radius:4px; margin:2px 0 6px; user-select:all; overflow-wrap:anywhere; }
#changed table { font-size:12px; font-family:ui-monospace, Menlo, Consolas, monospace; }
#changed td.key { font-weight:600; white-space:nowrap; }
#changed td.old { white-space:nowrap; color:var(--muted); text-decoration:line-through; text-decoration-color:#b0b6c0; }
#changed td.arrow { color:var(--muted); padding:3px 0; }
#changed td.new { color:#7c2d12; font-weight:600; }
#changed h3 { margin:6px 0 0; font-family:ui-monospace, Menlo, Consolas, monospace; }
#step-title { font-family:ui-monospace, Menlo, Consolas, monospace; font-weight:600; white-space:pre-wrap; word-break:break-word; }
#step-title.fail { color:var(--red); }
#step-id { color:var(--muted); font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12px; word-break:break-all; }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:3px 6px; border-bottom:1px solid #eceef2; vertical-align:top; word-break:break-word; }
td.state, td.id { font-family:ui-monospace, Menlo, Consolas, monospace; }
tr.moved td { background:var(--cur); font-weight:600; }
pre { background:#f3f4f6; padding:6px 8px; border-radius:4px; overflow:auto; max-height:260px; font-size:12px; margin:2px 0; white-space:pre-wrap; word-break:break-word; }
.none { color:var(--muted); margin:2px 0; }
#notes li { font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12px; }
svg text { font-family:ui-monospace, Menlo, Consolas, monospace; font-size:11px; fill:var(--fg); }
svg text.actor { font-weight:700; font-size:12px; }
#chart-head { position:sticky; top:0; z-index:1; display:block; }
#chart { display:block; }
svg .head-bg { fill:#fff; stroke:var(--line); }
svg text.num { fill:var(--muted); }
svg text.move { fill:#4c2a85; font-size:11px; font-weight:600; }
svg text.label, svg text.move, svg text.fault { paint-order:stroke; stroke:#fff; stroke-width:3px; stroke-linejoin:round; }
svg text.role { fill:var(--muted); font-size:10px; }
svg text.annot { fill:#c2410c; font-size:13px; cursor:help; }
svg text.fault { fill:var(--red); font-weight:700; }
svg .lifeline { stroke:var(--line); stroke-dasharray:4 3; }
svg .row { fill:transparent; cursor:pointer; }
svg .row.key { fill:#f2f6fd; }
svg .row.fail { fill:var(--fail); }
svg .row.cycle { fill:#e8f0fe; }
svg .cycle-bar { stroke:var(--accent); stroke-width:3; }
svg text.cycle-label { fill:var(--accent); font-size:12px; font-weight:600; }
svg .row.current { fill:var(--cur); }
svg .row.fail.current { fill:#ffd7a8; }
svg .msg { stroke:#7f9cc8; stroke-width:1.3; }
svg g.step.key .msg { stroke:var(--accent); stroke-width:2.2; }
svg g.step.key text.label { fill:#0b2a5c; font-weight:700; }
svg g.step.key text.num { fill:var(--fg); font-weight:700; }
svg g.step .msg.dropped { stroke:var(--red); stroke-dasharray:5 3; }
svg g.step .msg.faulty { stroke:#e67e22; }
svg .head { fill:var(--accent); }
svg .timer { fill:#fff; stroke:#6a4c93; }
svg g.step.future { opacity:.6; }
svg g.step.current .msg { stroke-width:3.2; stroke:var(--accent); }
svg g.step.current .msg.faulty { stroke:#e67e22; }
svg g.step.current text.label { font-weight:700; }
#diff tr.differ td, #recorded tr.differ td { background:#fff7e6; }
#recorded td.n { width:3em; color:var(--muted); text-align:right; }
#diff tr.diverge td { background:var(--fail); font-weight:700; }
#diff tr.current td { outline:2px solid #e0b400; }
#diff td.n { width:3em; color:var(--muted); text-align:right; }
`;

/** The data the viewer script renders (exported for tests). */
export function viewerData(f: TraceFileData, ctx: ReportContext = {}) {
  const view = fileView(f);
  const legend = ctx.legend;
  const defaults = ctx.defaults;
  const params = Object.entries(f.scenario.params).map(([k, v]) => ({ k, v: String(v), changed: defaults ? !(k in defaults) || defaults[k] !== v : true }));
  let passing;
  if (f.passing) {
    const diff = diffSchedules(f.schedule, f.passing.schedule);
    const pview = traceView(f.passing.schedule, f.passing.trace);
    const text = (steps: readonly StepView[], k: number | undefined) => (k === undefined ? undefined : steps[k] ? stepSummary(steps[k]) : undefined);
    const rows = diff.rows.map((r) => ({ ...r, aText: text(view.steps, r.a), bText: text(pview.steps, r.b) }));
    passing = { diff: { ...diff, rows }, steps: pview.steps.length - 1, ...(f.passing.note ? { note: f.passing.note } : {}) };
  }
  const roles: Record<string, string> = {};
  for (const a of view.actors) {
    const role = actorRole(legend, a);
    if (role !== undefined) roles[a] = role;
  }
  const machines = ctx.charts ? viewerMachines(view, ctx.charts) : undefined;
  return {
    title: `${f.property ? 'counterexample' : 'trace'}: ${f.scenario.name}`,
    meta: `scenario ${f.scenario.name} · seed ${f.seed} · ${stepsText(f.schedule.length)}${f.originalLength > f.schedule.length ? ` (shrunk from ${f.originalLength})` : ''} · interleave ${f.tool.version}`,
    params,
    /** False when the defaults are unknown (no scenario at hand): every parameter is shown. */
    paramsKnown: defaults !== undefined,
    property: f.property,
    ...(f.property && propertyNote(legend, f.property.name) !== undefined ? { propertyNote: propertyNote(legend, f.property.name) } : {}),
    failStep: f.property ? f.schedule.length : -1,
    /** The steps drawn stronger: the failing step, the chain of steps that sent its message, the steps of its actor, faults and drops, the legend's annotated steps. */
    keySteps: f.property ? keySteps(view.steps, legend) : [],
    // A liveness lasso: steps after this one form the cycle that repeats forever (-1: none).
    cycleStart: f.cycleStart ?? -1,
    actors: view.actors,
    // Busy actors act in some step (receive, send, move); the others are folded at first.
    busy: busyActors(view),
    roles,
    legend: Object.entries(roles).map(([actor, role]) => ({ actor, role })),
    steps: view.steps.map((s) => ({ ...s, annotations: stepNotes(legend, s.id) })),
    passing,
    machines: machines?.data ?? [],
    /** Without charts: the commands that draw them (the page says so where they would be). */
    chartsLeftOut: machines ? [] : [...(ctx.chartsLeftOut ?? [])],
    /** The charts' SVG markup (put in the page, not in the JSON island). */
    machinesHtml: machines?.html ?? '',
  };
}

/** The steps that matter to a violation (the last step fails): see `viewerData`'s `keySteps`. */
function keySteps(steps: readonly StepView[], legend: ReportContext['legend']): number[] {
  const fail = steps[steps.length - 1];
  if (!fail || fail.n === 0) return [];
  const who = new Set(fail.actor ? [fail.actor] : fail.moves.map((m) => m.actor));
  // The chain of steps that sent the messages leading to the failing delivery (a timer that
  // fired a retry, say), back to the start.
  const cause = new Set<number>();
  for (let k = fail.sentAt; k > 0 && !cause.has(k); k = steps[k]?.sentAt ?? -1) cause.add(k);
  return steps
    .filter((s) => s.n > 0 && (s.n === fail.n || cause.has(s.n) || who.has(s.actor) || (s.from !== undefined && who.has(s.from)) || s.kind === 'fault' || s.kind === 'drop' || s.outcome !== undefined || stepNotes(legend, s.id).length > 0))
    .map((s) => s.n);
}

/** Found around a recording: the counterexample's steps with their recorded positions and deviations, and the recorded steps beside them. */
function recordedHtml(f: TraceFileData): string {
  const r = f.recorded;
  if (!r) return '';
  const taken = new Set(r.steps.map((o) => o.recorded).filter((n) => n !== undefined));
  const rows = f.schedule
    .map((id, i) => {
      const o = r.steps[i] ?? {};
      return `<tr${o.deviation ? ' class="differ"' : ''}><td class="n">${i + 1}</td><td>${escapeHtml(id)}</td><td class="n">${o.recorded ?? ''}</td><td>${o.deviation ? `◆ ${escapeHtml(o.deviation)}` : ''}</td></tr>`;
    })
    .join('\n');
  const rec = r.window.ids.map((id, k) => `<tr${taken.has(r.window.start + k) ? '' : ' class="differ"'}><td class="n">${r.window.start + k}</td><td>${escapeHtml(id)}</td></tr>`).join('\n');
  const dev = r.steps.filter((o) => o.deviation).length;
  return `<details id="recorded" open>
<summary>Counterexample vs the recording${r.from ? ` (${escapeHtml(r.from)}, ${r.length} steps)` : ` (${r.length} steps)`}</summary>
<p>${dev === 0 ? 'Every step is taken in the recorded order.' : `${dev} step${dev === 1 ? '' : 's'} marked ◆ deviate${dev === 1 ? 's' : ''} from the recording (reorder, fault, timer early or late, input earlier, or not in the recording).`}</p>
<table><thead><tr><th>#</th><th>counterexample</th><th>recorded #</th><th>deviation</th></tr></thead><tbody>
${rows}
</tbody></table>
<p>The recorded steps it covers (highlighted: not taken by the counterexample):</p>
<table><thead><tr><th>#</th><th>recorded</th></tr></thead><tbody>
${rec}
</tbody></table>
</details>
`;
}

/** A trace file as one self-contained HTML viewer page (no network): sequence chart, step slider, states, statecharts and the diff against a passing schedule. */
export function formatHtml(f: TraceFileData, ctx: ReportContext = {}): string {
  try {
    return [...formatHtmlPieces(f, ctx)].join('');
  } catch (e) {
    if (e instanceof RangeError && /string length/i.test(e.message)) throw new RenderTooLargeError(`the trace is too large to render as one HTML string (${e.message}); use --format text or json, or a smaller trace`);
    throw e;
  }
}

function* joinPieces(before: string, middle: Iterable<string>, after: string): Generator<string> {
  yield before;
  yield* middle;
  yield after;
}

/** Where the JSON island goes in the page's markup (split there: the island is written in pieces). */
const ISLAND = '\u0000trace-data\u0000';

/** `formatHtml`'s page in pieces, for writing to a file: the trace's JSON is never one string, so a trace with huge strings is written within a small heap. */
export function* formatHtmlPieces(f: TraceFileData, ctx: ReportContext = {}): Generator<string> {
  const js = viewerScript();
  const hash = createHash('sha256').update(js, 'utf8').digest('base64');
  const { machinesHtml, ...data } = viewerData(f, ctx);
  const body = `<header>
<h1 id="title"></h1>
<div id="property"></div>
<div id="property-note"></div>
<div id="meta"></div>
<div id="params"></div>
<details id="legend-box" hidden><summary id="legend-summary"></summary><div id="legend"></div></details>
</header>
<div id="controls">
<button id="prev" title="previous step (←)">◀</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
<button id="next" title="next step (→)">▶</button>
<span id="step-label"></span>
<button id="fold" class="link" hidden></button>
</div>
<main>
<div id="chart-wrap"><svg id="chart-head" xmlns="http://www.w3.org/2000/svg" aria-hidden="true"></svg><svg id="chart" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="message sequence chart"></svg></div>
<aside>
<h2>Step</h2>
<div id="step-title"></div>
<div id="step-id"></div>
<ul id="annotations"></ul>
<ul id="notes"></ul>
<h2>Changed context <span class="hint">(old → new)</span></h2>
<div id="changed"></div>
<details id="diff" open hidden>
<summary>Counterexample vs a nearby passing schedule</summary>
<p id="diff-summary"></p>
<p id="diff-note"></p>
<table><thead><tr><th>#</th><th>counterexample</th><th>#</th><th>passing</th></tr></thead><tbody id="diff-rows"></tbody></table>
</details>
${recordedHtml(f)}<section id="machines-section">
<h2>Statecharts <span class="hint" id="machines-hint">(this step's actor first, its current state in view; scroll to pan, click a name to fit the whole chart)</span></h2>
<div id="charts-left-out" hidden></div>
<div id="machines">
${machinesHtml}
</div>
</section>
<h2>Actor states</h2>
<table id="states"></table>
<h2>Events</h2>
<pre id="events"></pre>
</aside>
</main>
<script type="application/json" id="trace-data">${ISLAND}</script>
<script>${js}</script>`;
  const at = body.lastIndexOf(ISLAND); // the last: markup before it may quote trace text
  const island = scriptSafeJsonPieces(data, MAX_STRING_LENGTH - js.length - CSS.length - machinesHtml.length - 16 * 1024);
  yield* htmlPagePieces({ title: data.title, css: `${CSS}${CHART_CSS}`, body: joinPieces(body.slice(0, at), island, body.slice(at + ISLAND.length)), csp: [`script-src 'sha256-${hash}'`, 'img-src data:'] });
}
