// The CLI on live recordings: `interleave replay` re-runs a live Amber run on the
// model (the modelled store answering for itself) and finds no violation.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { replayTraceFile, type ReducerLogic } from 'interleave';
import { liveTraceFile, runLive } from 'interleave/live';
import { amberScenario } from '../../src/machines/amber/scenario.ts';
import type { StoreState } from '../../src/machines/amber/store.ts';
import { main } from '../../src/cli/main.ts';
import { amberFsStore } from '../../examples/amber-loop/fs-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-live-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function recordAmber(design: 'read-at-endchannel' | 'read-at-consume' = 'read-at-endchannel'): Promise<string> {
  const sc = amberScenario({ topology: 'single', rows: 2, design, overlapFault: false });
  const model = sc.actorList[sc.index.get('store')!]!;
  if (model.kind !== 'reducer') throw new Error('expected the modelled store');
  const store = amberFsStore(join(dir, `objects-${design}`), model.logic as ReducerLogic<StoreState>, model.input);
  const live = runLive(sc, { externals: { store: store.handle }, timeScale: 0 });
  await live.whenQuiescent();
  await live.stop();
  const path = join(dir, `amber-${design}.json`);
  writeFileSync(path, JSON.stringify(liveTraceFile(live.recording())));
  return path;
}

async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
  try {
    return { code: await main(argv), out: out.join('') };
  } finally {
    spy.mockRestore();
  }
}

describe('interleave on live recordings', () => {
  it('replay re-runs a live Amber recording on the model: exit 0, no violation', async () => {
    const path = await recordAmber();
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
    let code: number;
    try {
      code = await main(['replay', path, '--json']);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(0);
    const doc = JSON.parse(out.join(''));
    expect(doc.ok).toBe(true);
    expect(doc.scenario.name).toBe('amber-loop');
    // Both counts, and the API's: the recorded steps, and the fewer the model took (it gave the store's replies itself).
    const file = JSON.parse(readFileSync(path, 'utf8'));
    const api = replayTraceFile(amberScenario({ topology: 'single', rows: 2, design: 'read-at-endchannel', overlapFault: false }), file);
    expect(doc.steps).toBe(file.schedule.length);
    expect(api.recordedSteps).toBe(doc.steps);
    expect(doc.answeredByModel).toBeGreaterThan(0);
    expect(api.answeredByModel).toBe(doc.answeredByModel);
    expect(doc.modelSteps).toBe(api.schedule.length);
    expect(doc.modelSteps).toBe(doc.steps - doc.answeredByModel);
    const text = await cli(['replay', path]);
    expect(text.code).toBe(0);
    expect(text.out).toContain(`✓ the recorded live run (${doc.steps} steps) replays on the model and no property is violated`);
    expect(text.out).toContain(`${doc.modelSteps} of them on the model: it gave the ${doc.answeredByModel} recorded replies of 'store' itself`);
  });

  it('check --from --within explores around a live run: the 403 hang one fault away, a replayable counterexample', async () => {
    const path = await recordAmber('read-at-consume');
    const cex = join(dir, 'cex.json');
    // The recording starts at StartWorkflow: the family's default start (materialized) cannot follow it.
    const misfit = await cli(['check', 'amber-loop', '--param', 'rows=2', '--from', path, '--within', '1', '--json']);
    expect(misfit.code).toBe(2);
    expect(JSON.parse(misfit.out).error.message).toContain("does not fit amber-loop (rows=2): step 1 of the file, 'deliver:env->coordinator:StartWorkflow', is not a step it can take");
    expect(JSON.parse(misfit.out).error.message).toContain('pass --param overlapFault=false --param start=scratch');
    const from = ['--param', 'rows=2', '--param', 'start=scratch', '--param', 'design=read-at-consume', '--from', path];
    const r = await cli(['check', 'amber-loop', ...from, '--within', '1', '--out', cex, '--json']);
    expect(r.code, r.out).toBe(1);
    const doc = JSON.parse(r.out);
    expect(doc.strategy).toBe('from-trace');
    expect(doc.violation.property.name).toMatch(/^I12/);
    expect(doc.rerun).toContain('--within 1');
    expect((await cli(['replay', cex, '--json'])).code).toBe(1);
    // Within 0 it only follows the recording: nothing fails.
    expect((await cli(['check', 'amber-loop', ...from, '--within', '0', '--json'])).code).toBe(0);
  });
});

describe('interleave replay of a live iterable-task run on SQLite', () => {
  it('rebuilds airflow-checkpoints from the recorded family parameters and finds no violation', async () => {
    const { execFileSync } = await import('node:child_process');
    const db = join(dir, 'iterable.db');
    const rec = join(dir, 'iterable.json');
    execFileSync(process.execPath, ['examples/iterable-task.js', '--items', '40', '--db', db, '--record', rec, '--quiet'], { stdio: 'pipe' });
    const r = await cli(['replay', rec]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('recorded live run');
    expect(r.out).toContain('no property is violated');
  });
});
