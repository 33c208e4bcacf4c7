// The HTML viewer in a real headless Chromium: stepping, highlighted step, actor
// states, the schedule diff, and payloads that must render as text, not run. Then the
// amber-loop report at 1400x1000 as a new user sees it (with --charts): statecharts with the
// current state, no label over another, idle actors folded, the diff's first divergence
// in view, the legend. Screenshots go to test-output/viewer/ (git-ignored) for people
// to look at; they are not compared. With INTERLEAVE_DOC_SHOTS=1 the three the docs show
// (amber-loop at its failing step, the guide's payment race, show --machines amber-loop)
// are written to docs/img/ as well.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHtml } from 'interleave';
import { fileView } from '../../src/report/index.ts';
import { lostUpdateTrace } from '../helpers/report-traces.ts';
import { readBlocks } from '../helpers/doc-blocks.ts';
import { runMain } from '../helpers/cli.ts';

const CHROMIUM = '/usr/bin/chromium';
const SCRIPT = '<script>window.__pwned = 1</script>';
const IMG = '<img src=x onerror=window.__pwned=2>';

let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does this`);
  const f = lostUpdateTrace({ passing: true });
  // Hostile payloads in a message, a state name and the property message.
  const deliver = (f.trace as any[]).find((e) => e.kind === 'deliver' && e.step === 2);
  deliver.msg.note = SCRIPT;
  const state = (f.trace as any[]).find((e) => e.kind === 'state' && e.step === 1);
  state.changed = { ...state.changed, evil: IMG };
  (f.property as any).message = `counter is 1 ${IMG} ${SCRIPT}`;
  const dir = mkdtempSync(join(tmpdir(), 'interleave-viewer-'));
  const file = join(dir, 'trace.html');
  writeFileSync(file, formatHtml(f));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) problems.push(`network: ${r.url()}`);
  });
  await page.goto(pathToFileURL(file).href);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const text = (sel: string) => page.locator(sel).first().textContent();
const stateOf = (actor: string) => page.locator(`#states tr[data-actor="${actor}"] td.state`).textContent();
const currentRow = () => page.locator('svg rect.row.current').getAttribute('data-step');

describe('HTML viewer in Chromium', () => {
  it('opens at the failing step with the violated property highlighted', async () => {
    expect(await text('#step-label')).toBe('step 10 / 10');
    expect(await currentRow()).toBe('10');
    expect(await page.locator('#property.violation').count()).toBe(1);
    expect(await text('#property')).toContain("✗ invariant 'no-lost-update' violated: counter is 1");
    expect(await stateOf('client2')).toBe('done');
    // The steps that matter are drawn stronger: the failing one and client2's (its actor).
    const key = await page.locator('#chart g.step.key').evaluateAll((es) => es.map((e) => Number(e.getAttribute('data-step'))));
    expect(key).toEqual([2, 4, 6, 8, 10]);
    // Nothing is faded at the failing step.
    expect(await page.locator('#chart g.step.future').count()).toBe(0);
  });

  it('steps forward with the arrow key and the next button', async () => {
    await page.keyboard.press('Home');
    expect(await text('#step-label')).toBe('step 0 / 10');
    expect(await stateOf('client1')).toBe('idle');
    await page.keyboard.press('ArrowRight');
    expect(await text('#step-label')).toBe('step 1 / 10');
    expect(await currentRow()).toBe('1');
    expect(await text('#step-title')).toBe('1  client1 ← env  start');
    expect(await stateOf('client1')).toBe('reading');
    expect(await page.locator('#states tr[data-actor="client1"]').getAttribute('class')).toBe('moved');
    expect(await stateOf('client2')).toBe('idle');
    for (let i = 0; i < 4; i++) await page.click('#next');
    expect(await currentRow()).toBe('5');
    expect(await page.locator('svg g.step.current').getAttribute('data-step')).toBe('5');
    expect(await stateOf('client1')).toBe('writing');
    // Context changes, old → new.
    expect(await page.locator('#changed table[data-actor="client1"] tr').evaluateAll((rs) => rs.map((r) => r.textContent))).toEqual(['readnull→0', 'tries0→1']);
    await page.keyboard.press('ArrowLeft');
    expect(await text('#step-label')).toBe('step 4 / 10');
  });

  it("shows the store's writes (a reducer's state) in the changed context, key by key", async () => {
    const puts = fileView(lostUpdateTrace()).steps.filter((s) => s.actor === 'store' && s.what === 'Put').map((s) => s.n);
    expect(puts).toHaveLength(2);
    const rows = () => page.locator('#changed table[data-actor="store"] tr').evaluateAll((rs) => rs.map((r) => r.textContent));
    await page.evaluate((n) => (globalThis as any).interleaveViewer.go(n), puts[0]);
    expect(await rows()).toEqual(['value0→1', 'version0→1']);
    expect(await page.locator('#states tr[data-actor="store"]').getAttribute('class')).toBe('moved');
    expect(await stateOf('store')).toBe('(no states)');
    expect(await page.locator('#states tr[data-actor="store"] td.state').getAttribute('title')).toMatch(/^it has no states \(a reducer, .*\); what it holds shows under Changed context/);
    await page.evaluate((n) => (globalThis as any).interleaveViewer.go(n), puts[1]);
    expect(await rows()).toEqual(['version1→2']);
  });

  it('marks the failing step at the end', async () => {
    await page.keyboard.press('End');
    expect(await text('#step-label')).toBe('step 10 / 10');
    expect(await page.locator('svg rect.row.current').getAttribute('class')).toContain('fail');
    expect(await page.locator('#step-title').getAttribute('class')).toBe('fail');
    expect(await stateOf('client2')).toBe('done');
  });

  it('shows the diff against the nearest passing schedule with the first divergent step marked', async () => {
    expect(await page.locator('#diff').isVisible()).toBe(true);
    expect(await text('#diff-summary')).toContain('first departs from the counterexample at step 4');
    const diverge = page.locator('#diff tr.diverge');
    expect(await diverge.count()).toBe(1);
    expect(await diverge.locator('td.id').first().textContent()).toBe('client2 → store  Get');
    expect(await diverge.locator('td.id').first().getAttribute('title')).toBe('deliver:client2->store:Get');
    await diverge.click();
    expect(await text('#step-label')).toBe('step 4 / 10');
  });

  it('renders injected markup as text and never runs it', async () => {
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(2);
    expect(await text('#property')).toContain(IMG);
    expect(await text('#property')).toContain(SCRIPT);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    expect(await text('#changed')).toContain(IMG);
    await page.keyboard.press('ArrowRight');
    expect(await text('#events')).toContain(SCRIPT);
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
  });

  it('loaded nothing from the network and raised no errors (the CSP allowed its own script)', () => {
    expect(problems).toEqual([]);
  });
});

describe('a viewer written by check without --charts', () => {
  it('says where the charts would be that they were left out, with the commands that draw them', async () => {
    // The page above had no commands to give: no statecharts section at all.
    expect(await page.locator('#machines-section').isHidden()).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'interleave-no-charts-'));
    expect((await runMain('check', 'lost-update', '--out', `${dir}/`)).code).toBe(1);
    const json = join(dir, readdirSync(dir).find((f) => f.endsWith('.json'))!);
    const html = json.replace(/\.json$/, '.html');
    const p = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await p.goto(pathToFileURL(html).href);
    expect(await p.locator('#machines-section').isVisible()).toBe(true);
    expect(await p.locator('#machines figure').count()).toBe(0);
    expect(await p.locator('#charts-left-out p').first().textContent()).toMatch(/^Not drawn in this page: .* leaves the statecharts out/);
    const cmds = await p.locator('#charts-left-out code').allTextContents();
    expect(cmds).toEqual([`npx interleave show ${json} --format html --out ${html}`, 'npx interleave check lost-update --charts']);
    // The first command does what the page says: the same page, with the charts and without the note.
    expect((await runMain('show', json, '--format', 'html', '--out', html)).code).toBe(0);
    await p.goto(pathToFileURL(html).href);
    expect(await p.locator('#machines figure').count()).toBeGreaterThan(0);
    expect(await p.locator('#charts-left-out').isHidden()).toBe(true);
    await p.close();
  }, 60_000);
});

// ---------------------------------------------------------------------------------------
// The amber-loop report, as written by `interleave check amber-loop --charts`.

const SHOTS = join(process.cwd(), 'test-output', 'viewer');
let amber: Page;

/** Pairs of the given elements whose boxes overlap by more than half a pixel. */
async function overlaps(p: Page, selector: string): Promise<string[]> {
  return p.evaluate((sel) => {
    const els: any[] = [...(globalThis as any).document.querySelectorAll(sel)].filter((e: any) => e.getBoundingClientRect().width > 0 && !e.closest('[hidden]'));
    const boxes = els.map((e) => ({ r: e.getBoundingClientRect(), t: String(e.textContent ?? '').trim() }));
    const out: string[] = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!.r;
        const b = boxes[j]!.r;
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) out.push(`'${boxes[i]!.t}' / '${boxes[j]!.t}'`);
      }
    }
    return out;
  }, selector);
}

/** Texts of the sequence chart that cross an arrow of another step (each text belongs to its step's group). */
async function textsOverArrows(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    const doc = (globalThis as any).document;
    const chart = doc.getElementById('chart');
    const m = chart.getScreenCTM();
    const arrows = [...chart.querySelectorAll('line.msg')].map((l: any) => {
      const at = (x: number, y: number) => ({ x: m.a * x + m.c * y + m.e, y: m.b * x + m.d * y + m.f });
      const a = at(+l.getAttribute('x1'), +l.getAttribute('y1'));
      const b = at(+l.getAttribute('x2'), +l.getAttribute('y2'));
      return { a, b, step: l.closest('g.step')?.getAttribute('data-step') };
    });
    // Liang-Barsky: does the segment a-b pass through the box (shrunk by half a pixel)?
    const crosses = (r: any, a: any, b: any) => {
      const x0 = r.left + 0.5, x1 = r.right - 0.5, y0 = r.top + 0.5, y1 = r.bottom - 0.5;
      const dx = b.x - a.x, dy = b.y - a.y;
      let t0 = 0, t1 = 1;
      const ps = [-dx, dx, -dy, dy], qs = [a.x - x0, x1 - a.x, a.y - y0, y1 - a.y];
      for (let i = 0; i < 4; i++) {
        if (ps[i] === 0) {
          if (qs[i]! < 0) return false;
          continue;
        }
        const t = qs[i]! / ps[i]!;
        if (ps[i]! < 0) t0 = Math.max(t0, t);
        else t1 = Math.min(t1, t);
        if (t0 > t1) return false;
      }
      return t0 < t1;
    };
    const out: string[] = [];
    for (const t of [...chart.querySelectorAll('g.step text.label, g.step text.move')] as any[]) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      const step = t.closest('g.step')?.getAttribute('data-step');
      for (const w of arrows) if (w.step !== step && crosses(r, w.a, w.b)) out.push(`'${t.textContent}' (step ${step}) over the arrow of step ${w.step}`);
    }
    return out;
  });
}

/** Texts cut with '…' that give no way to read them whole (a title, on hover). */
async function cutWithoutTitle(p: Page): Promise<string[]> {
  return p.evaluate(() =>
    [...(globalThis as any).document.querySelectorAll('#chart text, #chart-head text')]
      .filter((t: any) => String(t.textContent).includes('…') && !t.querySelector('title') && !t.getAttribute('title'))
      .map((t: any) => String(t.textContent)),
  );
}

/** Writes the amber-loop report as `interleave check amber-loop --charts` does; returns its URL. */
async function amberReport(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'interleave-amber-viewer-'));
  const r = await runMain('check', 'amber-loop', '--charts', '--out', `${dir}/`);
  expect(r.code).toBe(1);
  return pathToFileURL(join(dir, readdirSync(dir).find((f) => f.endsWith('.html'))!)).href;
}

describe('the amber-loop report at 1400x1000', () => {
  beforeAll(async () => {
    amberUrl = await amberReport();
    amber = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    amber.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    amber.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    amber.on('request', (q) => {
      if (!q.url().startsWith('file:')) problems.push(`network: ${q.url()}`);
    });
    await amber.goto(amberUrl);
    mkdirSync(SHOTS, { recursive: true });
    await amber.screenshot({ path: join(SHOTS, 'amber-loop-start.png') });
  }, 120_000);

  it('opens on the failing step, the steps that matter drawn stronger, the changed context in view', async () => {
    expect(await text2('#step-label')).toBe('step 18 / 18');
    const key = await amber.locator('#chart g.step.key').evaluateAll((es) => es.map((e) => Number(e.getAttribute('data-step'))));
    // LE.r0's own steps, the 403, the legend's annotated steps, the failing step.
    for (const n of [4, 6, 9, 10, 14, 15, 18]) expect(key).toContain(n);
    expect(key.length).toBeLessThan(18);
    const changed = amber.locator('#changed table[data-actor="LE.r0"]');
    expect(await changed.textContent()).toContain('streamingtrue→false');
    const box = (await changed.boundingBox())!;
    expect(box.y + box.height).toBeLessThan(1000);
    // The store (a reducer) records the main loop's read in flight at step 10: the cause of the 403.
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(10));
    expect(await amber.locator('#changed table[data-actor="store"]').textContent()).toMatch(/^mainReads\.LE=.*result/);
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(18));
    await amber.screenshot({ path: join(SHOTS, 'amber-loop-failing-step.png') });
  });

  it('draws no label over an arrow of another step, and cuts no text without its whole on hover', async () => {
    expect(await textsOverArrows(amber)).toEqual([]);
    expect(await cutWithoutTitle(amber)).toEqual([]);
  });

  it('folds the actors that do nothing, and shows them on demand', async () => {
    const names = () => amber.locator('#chart-head text.actor').evaluateAll((es) => es.map((e) => e.getAttribute('data-actor')));
    expect(await names()).toEqual(['coordinator', 'LE', 'LE.r0', 'store']);
    expect(await amber.locator('#fold').textContent()).toBe('show 3 idle actors (Src, LS, LS.r0)');
    await amber.click('#fold');
    expect(await names()).toEqual(['coordinator', 'Src', 'LS', 'LE', 'LS.r0', 'LE.r0', 'store']);
    // Seven actors fit the width: no sideways scroll.
    expect(await amber.locator('#chart-wrap').evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    expect(await overlaps(amber, '#chart text, #chart-head text')).toEqual([]);
    await amber.screenshot({ path: join(SHOTS, 'amber-loop-all-actors.png') });
    await amber.click('#fold');
    expect(await names()).toHaveLength(4);
  });

  it('draws no arrow label, state note or actor name over another', async () => {
    expect(await amber.locator('#chart-wrap').evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    expect(await amber.locator('#chart text.move').count()).toBeGreaterThan(5);
    expect(await overlaps(amber, '#chart text, #chart-head text')).toEqual([]);
  });

  it('highlights the current state of each statechart and marks the transition just taken', async () => {
    const r0 = amber.locator('figure.machine[data-actor="LE.r0"]');
    const active = () => r0.locator('g.st.active').evaluateAll((es) => es.map((e) => e.getAttribute('data-state')));
    const taken = () => r0.locator('g.tr.taken text').allTextContents();
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(3));
    expect(await active()).toEqual(['idle']);
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(4));
    expect(await active()).toEqual(['opening']);
    expect(await taken()).toEqual(['Run']);
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(14));
    expect(await active()).toEqual(['fetching']);
    expect(await taken()).toEqual(['Pinned']);
    // This step's actor's chart comes first and is marked.
    expect(await amber.locator('#machines figure.machine').first().getAttribute('data-actor')).toBe('LE.r0');
    expect(await r0.getAttribute('class')).toContain('current');
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(15));
    expect(await taken()).toEqual([]);
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(18));
    expect(await active()).toEqual(['failed']);
    expect(await taken()).toEqual(['FetchFailed']);
    // Each chart scrolls on its own (its current state in view): texts are compared chart by chart.
    for (const actor of await amber.locator('figure.machine').evaluateAll((es) => es.map((e) => e.getAttribute('data-actor')))) {
      expect(await overlaps(amber, `figure.machine[data-actor="${actor}"] svg text`)).toEqual([]);
    }
    // The current state of LE.r0's chart is scrolled into its figure's view.
    const fig = (await r0.boundingBox())!;
    const cur = (await r0.locator('g.st.active > rect').last().boundingBox())!;
    expect(cur.x).toBeGreaterThanOrEqual(fig.x);
    expect(cur.x + cur.width).toBeLessThanOrEqual(fig.x + fig.width);
    expect(cur.y).toBeGreaterThanOrEqual(fig.y);
    expect(cur.y + cur.height).toBeLessThanOrEqual(fig.y + fig.height);
    await amber.screenshot({ path: join(SHOTS, 'amber-loop-step18.png') });
  });

  it('puts the first divergence from the passing schedule in view, the shared rest folded', async () => {
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(0));
    const diverge = amber.locator('#diff tr.diverge');
    expect(await diverge.count()).toBe(1);
    const box = (await diverge.boundingBox())!;
    expect(box.y + box.height).toBeLessThan(1000);
    expect(await diverge.locator('td.id').first().textContent()).toBe('LE.r0 → store  Fetch !403');
    expect(await amber.locator('#diff tbody tr:not(.fold)').count()).toBeLessThan(10);
    expect(await text2('#diff-note')).toContain('greedy search');
    const folds = amber.locator('#diff tr.fold');
    expect(await folds.first().textContent()).toMatch(/^⋯ \d+ more rows, the same in both$/);
    const before = await amber.locator('#diff tbody tr:not(.fold)').count();
    await folds.first().locator('button').click();
    expect(await amber.locator('#diff tbody tr:not(.fold)').count()).toBeGreaterThan(before);
  });

  it('explains names, the property and the steps of the race from the legend', async () => {
    expect(await text2('#property-note')).toMatch(/^I12: /);
    expect(await amber.locator('#chart-head text.actor[data-actor="LE.r0"] title').textContent()).toMatch(/^LE\.r0: LE's reader/);
    expect(await amber.locator('#chart-head text.role').count()).toBe(4);
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(15));
    expect(await text2('#annotations')).toContain('F_overlap: the store answers 403');
    expect(await amber.locator('#chart text.annot').count()).toBeGreaterThanOrEqual(3);
    await amber.screenshot({ path: join(SHOTS, 'amber-loop-step15.png') });
  });

  it('shows only the parameters that differ from their defaults, the rest on demand, long ones cut', async () => {
    expect(await amber.locator('#params .param').count()).toBe(0);
    expect(await amber.locator('#params-more').textContent()).toMatch(/^\+ \d+ at their defaults$/);
    await amber.click('#params-more');
    expect(await amber.locator('#params .param').count()).toBeGreaterThan(20);
    await amber.click('#params-more');
    expect(await amber.locator('#params .param').count()).toBe(0);
    // A long storage key in a note is cut, the whole on hover.
    await amber.evaluate(() => (globalThis as any).interleaveViewer.go(15));
    const cut = amber.locator('#notes .cut').first();
    expect(await cut.getAttribute('title')).toContain('g1-00001.arrow');
    expect((await cut.textContent())!.length).toBeLessThan(95);
  });

  it('raised no errors and loaded nothing from the network', () => {
    expect(problems).toEqual([]);
  });
});

const text2 = (sel: string) => amber.locator(sel).first().textContent();
let amberUrl = '';

const DOC_SHOTS = join(process.cwd(), 'docs', 'img');
/** A screenshot for review; also into docs/img/ when INTERLEAVE_DOC_SHOTS=1 (the docs link those). */
async function docShot(p: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: join(SHOTS, name) });
  if (process.env.INTERLEAVE_DOC_SHOTS === '1') {
    mkdirSync(DOC_SHOTS, { recursive: true });
    await p.screenshot({ path: join(DOC_SHOTS, name) });
  }
}

describe('the pictures the docs show', () => {
  it("amber-loop at its failing step, the guide's payment race, and show --machines amber-loop", async () => {
    const p = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await p.goto(amberUrl || (amberUrl = await amberReport()));
    expect(await p.locator('#step-label').textContent()).toBe('step 18 / 18');
    await docShot(p, 'viewer-amber-loop.png');

    // The guide's first scenario, saved as a user would save it (inside the repository, so
    // that its `import … from 'interleave'` resolves to this package).
    const dir = join(process.cwd(), 'test-output', 'guide-payment');
    mkdirSync(dir, { recursive: true });
    const block = readBlocks(process.cwd(), 'docs/guide.md').find((b) => b.file === 'payment.ts')!;
    writeFileSync(join(dir, 'payment.ts'), `${block.code}\n`);
    const r = await runMain('check', `${join(dir, 'payment.ts')}#payment`, '--out', `${dir}/`);
    expect(r.code).toBe(1);
    const html = readdirSync(dir).find((f) => /^payment.*-seed\d+\.html$/.test(f))!;
    await p.goto(pathToFileURL(join(dir, html)).href);
    expect(await p.locator('#step-title').getAttribute('class')).toBe('fail');
    // The bank is a machine with a context only: no '→ {}' in the chart, its context change in view.
    expect(await p.locator('#chart text.move').allTextContents()).not.toContain('→ {}');
    expect(await p.locator('#changed table[data-actor="bank"]').textContent()).toContain('balance90→80');
    expect(await p.locator('#states tr[data-actor="bank"] td.state').textContent()).toBe('(no states)');
    // The timer that fired the retry sent the failing Pay: it is drawn stronger too.
    expect(await p.locator('#chart g.step.key').evaluateAll((es) => es.map((e) => Number(e.getAttribute('data-step'))))).toEqual([1, 2, 3]);
    await docShot(p, 'viewer-payment-race.png');

    const charts = join(dir, 'charts.html');
    expect((await runMain('show', '--machines', 'amber-loop', '--out', charts)).code).toBe(0);
    await p.goto(pathToFileURL(charts).href);
    await docShot(p, 'charts-amber-loop.png');
    await p.close();
  }, 120_000);
});

describe('the amber-loop report at 1024x700', () => {
  let small: Page;
  beforeAll(async () => {
    small = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    small.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await small.goto(amberUrl);
  }, 60_000);

  it('keeps the selected step and its changed context in view, labels clear of each other and of other arrows', async () => {
    for (const n of [18, 9, 15]) {
      await small.evaluate((k) => (globalThis as any).interleaveViewer.go(k), n);
      const row = (await small.locator('#chart rect.row.current').boundingBox())!;
      expect(row.y).toBeGreaterThan(0);
      expect(row.y + row.height).toBeLessThan(700);
      const head = (await small.locator('#chart-head').boundingBox())!;
      expect(row.y).toBeGreaterThanOrEqual(head.y + head.height - 1);
    }
    await small.evaluate(() => (globalThis as any).interleaveViewer.go(18));
    const changed = (await small.locator('#changed table').first().boundingBox())!;
    expect(changed.y + changed.height).toBeLessThan(700);
    expect(await small.locator('#chart-wrap').evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    // Scrolled, chart texts pass under the sticky head: each is checked on its own.
    expect(await overlaps(small, '#chart text')).toEqual([]);
    expect(await overlaps(small, '#chart-head text')).toEqual([]);
    expect(await textsOverArrows(small)).toEqual([]);
    expect(await cutWithoutTitle(small)).toEqual([]);
    await small.screenshot({ path: join(SHOTS, 'amber-loop-1024.png') });
  });

  it('at 1400 with every actor shown: labels clear of other arrows too', async () => {
    await amber.click('#fold');
    expect(await overlaps(amber, '#chart text, #chart-head text')).toEqual([]);
    expect(await textsOverArrows(amber)).toEqual([]);
    await amber.click('#fold');
  });

  it('raised no errors', () => {
    expect(problems).toEqual([]);
  });
});
