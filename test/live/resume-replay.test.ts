// Recordings of runs that resumed after a real SIGKILL replay on the model: the
// example records the try it ran and the task state it found at its start
// (resumeTry, resumeState), so the model's runner and store start there too and
// `interleave replay` checks every property along the resumed run (exit 0). A
// recording without its start state is refused with exit 2 naming the recorded
// reply the model answered differently.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rng } from 'interleave';
import { main } from '../../src/cli/main.ts';
import { bundleMain, type BundledEntry } from '../helpers/bundled-entry.ts';

// The example's main (examples/iterable-task.js runs it through tsx) compiled once, so a
// start costs a fraction of a second of CPU; its recordings name the scenario, not a file.
let script: BundledEntry;
beforeAll(async () => {
  script = await bundleMain(join(import.meta.dirname, '..', '..', 'examples', 'iterable-task', 'main.ts'));
});
afterAll(() => script?.remove());
const dir = mkdtempSync(join(tmpdir(), 'interleave-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the example; with `killAfterMs`, SIGKILLs it that long after its first progress line (some checkpoints are durable by then). */
function run(args: string[], killAfterMs?: number): Promise<{ code: number | null; killed: boolean; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script.file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let killed = false;
    let armed = false;
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (!armed && killAfterMs !== undefined && out.includes('progress ')) {
        armed = true;
        setTimeout(() => {
          if (child.exitCode === null && child.signalCode === null) killed = child.kill('SIGKILL');
        }, killAfterMs);
      }
    });
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, killed, out }));
  });
}

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (err.push(String(s)), true));
  try {
    return { code: await main(argv), out: out.join(''), err: err.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('replay of recordings of resumed runs after real kills', () => {
  it('kill, resume with --record, replay: exit 0 with every property checked; without the start state: exit 2 naming what differed', { timeout: 480_000 }, async () => {
    const r = rng(7);
    let partial = 0;
    let lastRec = '';
    const trials: [string, number][] = [['per-round', 800], ['per-round', 800], ['per-index', 300]];
    for (const [k, [design, n]] of trials.entries()) {
      const db = join(dir, `t${k}.db`);
      const base = ['--items', String(n), '--db', db, '--concurrency', '8', '--lease-ms', '500', '--wait', ...(design === 'per-index' ? ['--per-index'] : [])];
      // One or two real kills, then a resumed run that records itself.
      for (let kills = 1 + (k % 2); kills > 0; kills--) await run(base, r.int(100));
      const rec = join(dir, `t${k}.json`);
      const resumed = await run([...base, '--record', rec]);
      expect(resumed.code, resumed.out).toBe(0);
      const file = JSON.parse(readFileSync(rec, 'utf8'));
      const p = file.scenario.params;
      expect(p.resumeTry, resumed.out).toBeGreaterThan(1);
      const found = p.resumeState === '' ? {} : JSON.parse(p.resumeState);
      if (Object.keys(found).length > 0 && !('_iterable_completed' in found && found._iterable_completed.completed)) partial++;
      const rep = await cli(['replay', rec]);
      expect(rep.code, rep.err + rep.out).toBe(0);
      expect(rep.out).toContain('recorded live run');
      expect(rep.out).toContain('no property is violated');
      lastRec = rec;
    }
    // At least one resume found checkpoints but no completed marker (a kill mid-run).
    expect(partial).toBeGreaterThan(0);
    // `check --from` takes where the recording started from the trace: following it (within 0) completes.
    const c = await cli(['check', 'airflow-checkpoints', '--param', 'design=per-index', '--param', 'items=300', '--param', 'taskConcurrency=8', '--param', 'staleGuard=true', '--param', 'tries=1000000', '--param', 'faultBudget=0', '--from', lastRec, '--within', '0', '--json']);
    expect(c.code, c.err).toBe(0);
    expect(JSON.parse(c.out)).toMatchObject({ ok: true, complete: true, strategy: 'from-trace' });
    // The same recording without its start state: the model's runner starts try 1, the live one ran a later try.
    const file = JSON.parse(readFileSync(lastRec, 'utf8'));
    const { resumeTry, resumeState: _s, ...rest } = file.scenario.params;
    const stale = join(dir, 'stale.json');
    writeFileSync(stale, JSON.stringify({ ...file, scenario: { ...file.scenario, params: rest } }));
    const bad = await cli(['replay', stale]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`a recorded reply differs from the model's: the live 'runner' answered 'task' with Start (recorded at step 2); the model's 'runner' answers differently, a: recorded ${resumeTry}, the model 1`);
    expect(bad.err).not.toContain('is not enabled there');
  });
});
