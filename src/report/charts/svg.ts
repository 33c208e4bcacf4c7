// A laid-out statechart as SVG markup. Every text is escaped; states carry
// `data-state` (their path) and transitions `data-t` (their index), so the viewer can
// highlight the current state and the transition just taken by class.
import { escapeHtml } from '../escape.ts';
import { contextLines, contextOnly, type MachineChart } from './chart.ts';
import { CHAR_W, type ChartLayout } from './layout.ts';

const r = (n: number) => Math.round(n * 10) / 10;

/** The `<style>` rules the charts need (shared by the charts page and the viewer). */
export const CHART_CSS = `
svg.statechart { font-family:ui-monospace, Menlo, Consolas, monospace; font-size:11px; }
svg.statechart .st rect { fill:#fff; stroke:#7a8699; stroke-width:1.2; }
svg.statechart .st.cluster > rect { fill:#f7f8fb; stroke:#b7bfcc; }
svg.statechart .st.region > rect { fill:none; stroke-dasharray:5 3; }
svg.statechart .st.final rect.inner { fill:none; }
svg.statechart .st text { fill:#1d2330; }
svg.statechart .st.cluster > text { font-weight:600; fill:#4b5563; }
svg.statechart .start { fill:#1d2330; }
svg.statechart .tr path { fill:none; stroke:#6b7280; stroke-width:1.1; }
svg.statechart .tr text { fill:#374151; }
svg.statechart .tr rect { fill:#fff; fill-opacity:.85; }
svg.statechart .init path { fill:none; stroke:#1d2330; stroke-width:1.1; }
svg.statechart .st.active > rect { fill:#fff3bf; stroke:#e0a800; stroke-width:2.2; }
svg.statechart .st.cluster.active > rect { fill:#fffbea; }
svg.statechart .st.active > text { font-weight:700; }
svg.statechart .tr.taken path { stroke:#c2410c; stroke-width:2.6; }
svg.statechart .tr.taken text { fill:#c2410c; font-weight:700; }
svg.statechart marker path { fill:#6b7280; }
svg.statechart marker.taken path { fill:#c2410c; }
svg.statechart .tr:hover path { stroke:#1f5fbf; stroke-width:2.6; }
svg.statechart .tr:hover text { fill:#1f5fbf; font-weight:700; }
svg.statechart .tr:hover rect { fill-opacity:1; }
svg.statechart text.section { fill:#6b7280; font-style:italic; }
svg.statechart text.ctx { fill:#1d2330; }
`;

/**
 * An actor that is only a context (a machine with no states, a reducer, a storage
 * actor) as one box: its name, the messages it answers, its context. `answers`: a
 * machine's transitions (index, label: highlighted like edges) or a reducer's message types.
 */
export function contextBoxSvg(name: string, answers: readonly { readonly index?: number; readonly label: string }[], context: readonly string[], opts: { readonly uid: string; readonly actor?: string; readonly contextTitle?: string }): string {
  const LINE = 15;
  const rows: string[] = [];
  let y = 22;
  const text = (cls: string, s: string, dx = 12) => {
    y += LINE;
    return `<text class="${cls}" x="${dx}" y="${y}">${escapeHtml(s)}</text>`;
  };
  const lines = [name, ...answers.map((a) => `• ${a.label}`), ...context, opts.contextTitle ?? 'context'];
  const w = Math.ceil(Math.max(...lines.map((l) => l.length)) * CHAR_W + 40);
  if (answers.length) {
    rows.push(text('section', 'answers'));
    for (const a of answers) {
      const t = text('', `• ${a.label}`, 20);
      rows.push(a.index === undefined ? `<g class="msg-in">${t}</g>` : `<g class="tr" data-t="${a.index}">${t}</g>`);
    }
  }
  if (context.length) {
    y += 4;
    rows.push(text('section', opts.contextTitle ?? 'context'));
    for (const c of context) rows.push(text('ctx', c, 20));
  }
  const h = y + 12;
  return `<svg class="statechart context-box" xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${escapeHtml(`${opts.actor ?? name}: context and messages`)}"${opts.actor !== undefined ? ` data-actor="${escapeHtml(opts.actor)}"` : ''}>` +
    `<g class="st cluster" data-state=""><title>${escapeHtml(name)}</title><rect x="4" y="4" width="${w - 8}" height="${h - 8}" rx="8"/><text x="12" y="20">${escapeHtml(name)}</text></g>${rows.join('')}</svg>`;
}

/**
 * One chart as an `<svg>` element. `uid` makes the arrow-head ids unique when several
 * charts share a page; `scale` shrinks the drawing (the viewBox keeps its coordinates).
 */
export function chartSvg(chart: MachineChart, layout: ChartLayout, opts: { readonly uid: string; readonly scale?: number; readonly actor?: string }): string {
  if (contextOnly(chart)) return contextBoxSvg(chart.id, chart.transitions.map((t) => ({ index: t.index, label: t.label })), contextLines(chart.context), { ...opts, contextTitle: 'context (initial)' });
  const s = opts.scale ?? 1;
  const uid = escapeHtml(opts.uid);
  const out: string[] = [];
  out.push(
    `<svg class="statechart" xmlns="http://www.w3.org/2000/svg" width="${r(layout.width * s)}" height="${r(layout.height * s)}" viewBox="0 0 ${layout.width} ${layout.height}" role="img" aria-label="statechart of ${escapeHtml(opts.actor ?? chart.id)}"${opts.actor !== undefined ? ` data-actor="${escapeHtml(opts.actor)}"` : ''}>`,
    `<defs><marker id="${uid}-h" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker>` +
      `<marker id="${uid}-ht" class="taken" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="10" markerHeight="10" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>`,
  );
  // Frames first (outer before inner), then atomic states, then edges on top.
  const sorted = [...layout.states].sort((a, b) => Number(b.cluster) - Number(a.cluster) || a.path.split('.').length - b.path.split('.').length);
  for (const st of sorted) {
    const cls = `st${st.cluster ? ' cluster' : ''}${st.region ? ' region' : ''}${st.type === 'final' ? ' final' : ''}${st.type === 'history' ? ' history' : ''}`;
    const title = `<title>${escapeHtml(st.path || chart.id)}${st.type !== 'atomic' && st.type !== 'compound' ? ` (${st.type})` : ''}</title>`;
    if (st.cluster) {
      out.push(
        `<g class="${cls}" data-state="${escapeHtml(st.path)}">${title}<rect x="${r(st.x)}" y="${r(st.y)}" width="${r(st.w)}" height="${r(st.h)}" rx="8"/>` +
          `<text x="${r((st.title?.x ?? st.x + 4) + 4)}" y="${r((st.title?.y ?? st.y) + 12)}">${escapeHtml(st.label)}${st.type === 'parallel' ? ' ∥' : ''}</text></g>`,
      );
    } else if (st.type === 'history') {
      out.push(`<g class="${cls}" data-state="${escapeHtml(st.path)}">${title}<rect x="${r(st.x)}" y="${r(st.y)}" width="${r(st.w)}" height="${r(st.h)}" rx="${r(st.h / 2)}"/><text x="${r(st.x + st.w / 2)}" y="${r(st.y + st.h / 2 + 4)}" text-anchor="middle">${escapeHtml(st.label)}</text></g>`);
    } else {
      const inner = st.type === 'final' ? `<rect class="inner" x="${r(st.x + 3)}" y="${r(st.y + 3)}" width="${r(st.w - 6)}" height="${r(st.h - 6)}" rx="4"/>` : '';
      out.push(`<g class="${cls}" data-state="${escapeHtml(st.path)}">${title}<rect x="${r(st.x)}" y="${r(st.y)}" width="${r(st.w)}" height="${r(st.h)}" rx="6"/>${inner}<text x="${r(st.x + st.w / 2)}" y="${r(st.y + st.h / 2 + 4)}" text-anchor="middle">${escapeHtml(st.label)}</text></g>`);
    }
  }
  for (const d of layout.starts) out.push(`<circle class="start" cx="${r(d.x + d.w / 2)}" cy="${r(d.y + d.h / 2)}" r="5"/>`);
  for (const e of layout.edges) {
    const d = `M${e.points.map(([x, y]) => `${r(x)},${r(y)}`).join(' L')}`;
    if (e.index < 0) {
      out.push(`<g class="init"><path d="${d}" marker-end="url(#${uid}-h)"/></g>`);
      continue;
    }
    const lines = e.label ? e.label.text.split('\n') : [];
    const tx = e.label ? r(e.label.x + e.label.w / 2) : 0;
    const text = e.label ? `<text x="${tx}" y="${r(e.label.y + 11)}" text-anchor="middle">${lines.map((l, i) => (i === 0 ? escapeHtml(l) : `<tspan x="${tx}" dy="14">${escapeHtml(l)}</tspan>`)).join('')}</text>` : '';
    const label = e.label ? `<rect x="${r(e.label.x)}" y="${r(e.label.y)}" width="${r(e.label.w)}" height="${r(e.label.h)}"/>${text}` : '';
    const path = e.points.length ? `<path d="${d}" marker-end="url(#${uid}-h)" data-marker="${uid}"/>` : '';
    out.push(`<g class="tr${e.points.length ? '' : ' internal'}" data-t="${(e.indices ?? [e.index]).join(' ')}">${path}${label}</g>`);
  }
  out.push('</svg>');
  return out.join('');
}
