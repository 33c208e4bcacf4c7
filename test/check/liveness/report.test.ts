// Lasso counterexamples end to end: the trace file keeps the cycle start, every
// renderer marks the cycle, and the CLI's replay runs the prefix and then the cycle
// once and confirms it is back at the same fingerprint.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check, toTraceFile, formatHtml, formatMermaid, formatText, validateTraceFile } from 'interleave';
import { rally } from '../../../src/machines/demo/rally.ts';
import { runMainIn, scratchDir } from '../../helpers/cli.ts';

describe('a lasso in the trace file and its renderings', () => {
  it('keeps cycleStart, and text, Mermaid and HTML mark the cycle', async () => {
    const sc = rally('endless');
    const r = await check(sc, { strategy: 'bfs' });
    const file = toTraceFile(sc, r.violation, { params: {}, options: r.options, seed: r.seed });
    expect(file.cycleStart).toBe(2);
    const read = validateTraceFile(JSON.parse(JSON.stringify(file)));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const text = formatText(read.file);
    expect(text).toContain('↻ cycle: steps 3..4 repeat forever');
    expect(text).toMatch(/↻ 3 {2}a {2}← b {4}ball/);
    expect(text).toContain('after step 4 the run is back at the world after step 2, forever: a done');
    const mer = formatMermaid(read.file);
    expect(mer).toMatch(/ {2}loop ↻ steps 3\.\.4 repeat forever\n {2}a2->>a1: 3 ball\n {2}a1->>a2: 4 ball\n {2}end\n/);
    const html = formatHtml(read.file);
    expect(html).toContain('"cycleStart":2');
    expect(html).toContain('cycle-bar');
  });

  it('refuses a cycleStart that names no step of the schedule', async () => {
    const sc = rally('endless');
    const r = await check(sc, { strategy: 'bfs' });
    const file = { ...toTraceFile(sc, r.violation, { params: {}, options: {}, seed: 0 }), cycleStart: 4 };
    const read = validateTraceFile(JSON.parse(JSON.stringify(file)), 'x.json');
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.error).toMatch(/field 'cycleStart': cycleStart 4 must be the index of a step/);
  });
});

describe('the CLI on liveness', () => {
  // The command's main in this process, from a scratch directory: what check and replay say
  // about a lasso. Their exit codes from a child process are test/cli/e2e.test.ts's; a child
  // here would add only its start-up (replay starts through tsx, about a second of CPU).
  const slow = 120_000;
  const dir = scratchDir();
  const out = join(dir, 'rally.json');
  const cli = (args: string[]) => runMainIn(dir, ...args);

  it('check reports the lasso (exit 1) and replay confirms the cycle returns to the same fingerprint', async () => {
    const c = await cli(['check', 'rally', '--out', out]);
    expect(c.code).toBe(1);
    expect(c.stdout).toContain("✗ liveness 'a done' violated: eventually: the expected world never comes: steps 3..4 repeat forever");
    expect(c.stdout).toContain('↻ cycle: steps 3..4 repeat forever');
    const rp = await cli(['replay', out, '--json']);
    expect(rp.code).toBe(1);
    const j = JSON.parse(rp.stdout);
    expect(j.loop.returns).toBe(true);
    expect(j.loop.from).toBe(j.loop.to);
    expect(j.violation.property.name).toBe('a done');
  }, slow);

  it('replay of a tampered cycle says it no longer returns to where it starts', async () => {
    const f = JSON.parse(readFileSync(out, 'utf8'));
    f.cycleStart = 1;
    const bad = join(dir, 'tampered.json');
    writeFileSync(bad, JSON.stringify(f));
    const r = await cli(['replay', bad]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/no longer violates liveness 'a done': the cycle does not return to the world it starts at/);
  }, slow);

  it('a fair model holds (exit 0) and the stats name the graph memory', async () => {
    const ok = await cli(['check', 'rally', '--param', 'end=referee']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('(liveness referee finishes)');
    expect(ok.stdout).toMatch(/liveness graph \d+ edges at [\d,.]+ B\/state/);
  }, slow);
});
