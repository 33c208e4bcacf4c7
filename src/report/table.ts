// Aligned text tables for `interleave simulate` (and anything else that reports figures).
import type { ReportTable } from '../actors/family.ts';
import { safeText } from './text.ts';

function cell(c: string | number): string {
  if (typeof c === 'string') return safeText(c);
  if (!Number.isFinite(c)) return String(c);
  if (Number.isInteger(c)) return c.toLocaleString('en-US');
  const a = Math.abs(c);
  return a >= 100 ? c.toFixed(0) : a >= 1 ? c.toFixed(2) : c.toPrecision(3);
}

/** A Markdown-compatible table: first column left-aligned, the rest right-aligned. */
export function formatTable(t: ReportTable): string {
  const rows = t.rows.map((r) => t.columns.map((_, i) => cell(r[i] ?? '')));
  const cols = t.columns.map((c) => safeText(c));
  const w = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (xs: readonly string[]) => `| ${xs.map((x, i) => (i === 0 ? x.padEnd(w[i]!) : x.padStart(w[i]!))).join(' | ')} |`;
  const out = [`### ${safeText(t.title)}`, line(cols), `|${w.map((n, i) => (i === 0 ? '-'.repeat(n + 2) : `${'-'.repeat(n + 1)}:`)).join('|')}|`, ...rows.map(line)];
  if (t.note) out.push('', safeText(t.note));
  return `${out.join('\n')}\n`;
}
