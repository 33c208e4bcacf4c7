// Prints benchmark results as an aligned text table (and Markdown-friendly).
export type Cell = string | number;

function fmt(c: Cell): string {
  if (typeof c === 'string') return c;
  if (!Number.isFinite(c)) return String(c);
  if (Number.isInteger(c)) return c.toLocaleString('en-US');
  const a = Math.abs(c);
  return a >= 100 ? c.toFixed(0) : a >= 1 ? c.toFixed(2) : c.toPrecision(3);
}

export function printTable(title: string, columns: readonly string[], rows: readonly (readonly Cell[])[], note?: string): void {
  const cells = rows.map((r) => r.map(fmt));
  const w = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (xs: readonly string[]) => `| ${xs.map((x, i) => (i === 0 ? x.padEnd(w[i]!) : x.padStart(w[i]!))).join(' | ')} |`;
  console.log(`### ${title}`);
  console.log(line(columns));
  console.log(`|${w.map((n, i) => (i === 0 ? '-'.repeat(n + 2) : `${'-'.repeat(n + 1)}:`)).join('|')}|`);
  for (const r of cells) console.log(line(r));
  if (note) console.log(`\n${note}`);
  console.log();
}

/** Runs `fn` repeatedly for about `ms` milliseconds (after a warm-up) and returns calls per second. */
export function rate(fn: () => void, ms = 500): number {
  const warm = performance.now();
  while (performance.now() - warm < Math.min(100, ms / 4)) fn();
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let i = 0; i < 64; i++) fn();
    n += 64;
    t = performance.now();
  }
  return (n * 1000) / (t - t0);
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
