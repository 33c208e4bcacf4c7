// A live run streams its recording as it goes (runLive's recordTo): killed with SIGKILL, it
// leaves a log readable up to its last flushed batch. A user's program (counter-rounds.child.ts:
// the counter model on FsObjectStore, round after round, one with a real race) is killed
// mid-run, resumed from what it left on disk, and the race is found with --from … --within 2.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveLogTrace } from '../../src/check/trace/live-log.ts';
import { runMain } from '../helpers/cli.ts';
import { bundleScript, type BundledEntry } from '../helpers/bundled-entry.ts';

const REF = `${join(import.meta.dirname, 'counter-model.ts')}#counter`;
const base = mkdtempSync(join(tmpdir(), 'interleave-stream-'));
// The user's program compiled once (through tsx each start would cost about a second of
// CPU); its logs name counter-model.ts next to it, as from the sources.
let child: BundledEntry;
beforeAll(async () => {
  child = await bundleScript(join(import.meta.dirname, 'counter-rounds.child.ts'));
});
afterAll(() => {
  child?.remove();
  rmSync(base, { recursive: true, force: true });
});

/** Runs the child; with `killAt`, sends SIGKILL once it has printed that line and `afterMs` passed. */
function runChild(args: string[], kill?: { at: string; afterMs: number }): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, [child.file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let sent = false;
    p.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (kill && !sent && out.includes(kill.at)) {
        sent = true;
        setTimeout(() => p.kill('SIGKILL'), kill.afterMs);
      }
    });
    p.stderr.on('data', (b: Buffer) => (out += b.toString()));
    p.on('error', fail);
    p.on('exit', (code, signal) => done({ code, signal, out }));
  });
}

describe('a streamed live recording', () => {
  it('killed mid-run: the log reads up to its last batch; resumed from the disk, --from … --within 2 finds the race', async () => {
    const dir = join(base, 'run');
    // Rounds of the counter; round 2's GETs are slow, so its w2 reads before w1 writes: a real lost update.
    const killed = await runChild([dir, '20', '15', '2'], { at: 'round 4', afterMs: 60 });
    expect(killed.signal, killed.out).toBe('SIGKILL');
    const logs = readdirSync(dir).filter((f) => f.endsWith('.log')).sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]));
    expect(logs.length).toBeGreaterThanOrEqual(4);
    const last = join(dir, logs.at(-1)!);
    // Cut short: no end line, a note says so, and it replays on the model as far as it goes.
    expect(readFileSync(last, 'utf8')).not.toMatch(/"end":/);
    const rp = await runMain('replay', last);
    expect([0, 1], rp.stderr + rp.stdout).toContain(rp.code);
    expect(rp.stderr).toContain('the recording was cut short');
    const cf = await runMain('check', REF, '--from', last, '--within', '1');
    expect([0, 1], cf.stderr).toContain(cf.code);
    expect(cf.stdout).not.toContain('--max-depth bound');
    // The race round was recorded whole: within 0 it is the recorded lost update.
    const race = await runMain('check', REF, '--from', join(dir, 'round-2.log'), '--within', '0');
    expect(race.code, race.stdout + race.stderr).toBe(1);
    expect(race.stdout).toContain('an update was lost');
    expect(race.stdout).toContain('in the recorded order');
    // Resume: the next round starts from what the killed run left on disk (recorded as its start).
    const next = logs.length + 1;
    const resumed = await runChild([dir, '1', '15', '-1', String(next)]);
    expect(resumed.code, resumed.out).toBe(0);
    const log = join(dir, `round-${next}.log`);
    expect(existsSync(log)).toBe(true);
    expect((await runMain('replay', log)).code).toBe(0);
    const found = await runMain('check', REF, '--from', log, '--within', '2', '--json');
    expect(found.code, found.stderr).toBe(1);
    const doc = JSON.parse(found.stdout);
    expect(doc.violation.property.name).toBe('both done => counter = start + 2');
    expect(doc.violation.recorded.filter((x: { deviation?: string }) => x.deviation).length).toBeGreaterThan(0);
  });

  it('a torn last line (the process died while writing it) is dropped; a whole log ends with its end line', () => {
    const header = JSON.stringify({ kind: 'interleave-live-log', version: 1, tool: { name: 'interleave', version: '0' }, scenario: { name: 'counter', params: {} }, options: { mode: 'live', externals: ['store'] } });
    const steps = ['"deliver:w1->store:s3.get"', JSON.stringify(['input:store->w1:s3.get.ok', 'store', 'w1', { type: 's3.get.ok' }]), '"deliver:store->w1:s3.get.ok"'];
    const whole = liveLogTrace(`${header}\n${steps.join('\n')}\n{"end":3}\n`);
    expect(whole.schedule.length).toBe(3);
    expect(whole.inputs).toEqual([{ index: 1, from: 'store', to: 'w1', msg: { type: 's3.get.ok' } }]);
    expect(whole.options.cut).toBeUndefined();
    const torn = liveLogTrace(`${header}\n${steps.join('\n')}\n"deliver:w1->sto`);
    expect(torn.schedule.length).toBe(3);
    expect(torn.options).toMatchObject({ cut: true, tornLine: true });
    const path = join(base, 'bad.log');
    writeFileSync(path, `${header}\n"ok"\n{"what":1}\n`);
    return runMain('replay', path).then((r) => {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('line 3 is not a step');
    });
  });
});

describe('recordTo refuses bad options with a message naming them', () => {
  it('a bad cadence or a path it cannot write', async () => {
    const { runLive } = await import('interleave/live');
    const { counter } = await import('./counter-model.ts');
    const sc = counter.build({ head: false, format: 'compact', start: 0 });
    const store = async () => [];
    expect(() => runLive(sc, { externals: { store }, recordTo: { path: join(base, 'x.log'), batchSteps: 0 } })).toThrow(/recordTo needs batchSteps >= 1/);
    writeFileSync(join(base, 'afile'), 'x');
    expect(() => runLive(sc, { externals: { store }, recordTo: { path: join(base, 'afile', 'x.log') } })).toThrow(/cannot write the recording to .*afile.*give recordTo.path a file in a directory this process can write/);
    expect(() => runLive(sc, { externals: { store }, initial: { nobody: {} } })).toThrow(/options.initial names 'nobody', which is not an actor/);
  });
});

describe('show on a streamed log', () => {
  it('draws the model replay of a log, which has no events of its own', async () => {
    const dir = join(base, 'show');
    const r = await runChild([dir, '1', '5']);
    expect(r.code, r.out).toBe(0);
    const shown = await runMain('show', join(dir, 'round-1.log'));
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('store  ← w1     s3.get');
    expect(shown.stdout).toContain('(w1: reading → writing)');
  });
});
