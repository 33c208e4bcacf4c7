// The HTML viewer in a real headless Chromium: stepping, highlighted step, actor
// states, the schedule diff, and payloads that must render as text, not run.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHtml } from '../src/report/index.ts';
import { lostUpdateTrace } from './report-fixtures.ts';

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
  it('opens at the initial world with the violated property highlighted', async () => {
    expect(await text('#step-label')).toBe('step 0 / 10');
    expect(await currentRow()).toBe('0');
    expect(await page.locator('#property.violation').count()).toBe(1);
    expect(await text('#property')).toContain("✗ invariant 'no-lost-update' violated: counter is 1");
    expect(await stateOf('client1')).toBe('idle');
  });

  it('steps forward with the arrow key and the next button', async () => {
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
    expect(await text('#changed pre[data-actor="client1"]')).toContain('"read": 0');
    await page.keyboard.press('ArrowLeft');
    expect(await text('#step-label')).toBe('step 4 / 10');
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
    expect(await text('#diff-summary')).toContain('first departs from the nearest passing schedule at step 4');
    const diverge = page.locator('#diff tr.diverge');
    expect(await diverge.count()).toBe(1);
    expect(await diverge.locator('td.id').first().textContent()).toBe('deliver:client2->store:Get');
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
