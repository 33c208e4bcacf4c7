// The Mermaid that `show --machines` and `show --format mermaid` print, rendered by
// Mermaid itself (its browser bundle) in headless Chromium: every statechart of every
// built-in scenario, and a trace's sequence diagram, must give an SVG and no error.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartsMermaid, formatMermaid, parseParams, scenarioCharts } from 'interleave';
import { families } from 'interleave/machines';
import { lostUpdateTrace } from '../helpers/report-traces.ts';

const CHROMIUM = '/usr/bin/chromium';
const MERMAID = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');

let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does this`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run'] });
  page = await browser.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
  await page.addScriptTag({ path: MERMAID });
  await page.evaluate(() => (globalThis as any).mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** Mermaid's SVG for `text`, or the error it raised. */
async function render(text: string, id: string): Promise<{ svg?: string; error?: string }> {
  return page.evaluate(
    async ([t, i]) => {
      try {
        const r = await (globalThis as any).mermaid.render(i, t);
        return { svg: String(r.svg) };
      } catch (e) {
        return { error: String((e as Error)?.message ?? e) };
      }
    },
    [text, id] as const,
  );
}

describe('Mermaid renders what interleave prints', () => {
  it('every statechart of every built-in scenario (default parameters)', async () => {
    const failed: string[] = [];
    let n = 0;
    for (const f of families) {
      const sc = f.build(parseParams(f, {}));
      for (const c of scenarioCharts(sc).charts) {
        const text = chartsMermaid({ charts: [c], others: [] }, sc.legend);
        const r = await render(text, `m${n++}`);
        if (r.error !== undefined || !r.svg?.startsWith('<svg') || !r.svg.includes('</svg>') || /Syntax error/i.test(r.svg)) failed.push(`${f.name} ${c.actors.join(', ')}: ${r.error ?? 'no SVG'}`);
      }
    }
    expect(n).toBeGreaterThan(10);
    expect(failed).toEqual([]);
  }, 120_000);

  it("a trace's sequence diagram", async () => {
    const r = await render(formatMermaid(lostUpdateTrace()), 'seq');
    expect(r.error).toBeUndefined();
    expect(r.svg).toMatch(/^<svg/);
    expect(r.svg).toContain('client1');
  });

  it('reports a broken diagram as an error (the check can fail)', async () => {
    const r = await render('stateDiagram-v2\n  state "a" as s0 {\n  s0 --> : x', 'bad');
    expect(r.error).toBeDefined();
  });

  it('raised no page errors', () => {
    expect(problems).toEqual([]);
  });
});
