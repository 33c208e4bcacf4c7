// A recording must fit the model before anything is explored around it, and the data in
// its recorded replies are part of the fit. A user-style model (test/live/counter-model.ts:
// two workers read-modify-write a counter object on FsObjectStore) is run live, recorded,
// and read back with `replay` and `check --from` as the model changes under it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Divergence, fromTrace, replayTraceFile, saveTraceFile } from 'interleave';
import { FsObjectStore, liveTraceFile, runLive } from 'interleave/live';
import { runMain } from '../helpers/cli.ts';
import { counter, counterBody } from './counter-model.ts';

const MODEL = join(import.meta.dirname, 'counter-model.ts');
const REF = `${MODEL}#counter`;
const base = mkdtempSync(join(tmpdir(), 'interleave-fit-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let runs = 0;

/**
 * Runs the counter live on a fresh FsObjectStore that holds `{"n":start}`. Time runs 5x slower
 * than the model's (w2's 20 ms timer fires after 100 ms), so w1 is done by then even on a loaded
 * machine; `slowGet` makes each GET take 250 ms, so w2's read overtakes w1's write: the lost
 * update. `initial` records the store's contents at the start.
 */
async function record(opts: { start?: number; slowGet?: boolean; initial?: boolean } = {}): Promise<string> {
  const dir = join(base, `run-${++runs}`);
  const fs = new FsObjectStore(join(dir, 'objects'));
  await fs.put('counter', counterBody(opts.start ?? 0)); // the store serves only files it wrote (it marks them)
  const sc = counter.build({ head: false, format: 'compact', start: 0 });
  const live = runLive(sc, {
    timeScale: 5,
    ...(opts.initial ? { initial: { store: await fs.snapshot() } } : {}),
    externals: {
      store: async (msg, from) => {
        if (opts.slowGet && msg.type === 's3.get') await new Promise((r) => setTimeout(r, 250));
        return fs.handler(msg, from);
      },
    },
  });
  await live.whenQuiescent();
  await live.stop();
  const path = join(dir, 'rec.json');
  saveTraceFile(path, liveTraceFile(live.recording()), { module: MODEL, export: 'counter' });
  return path;
}

/** The recording with other scenario parameters: the model edited since it was recorded. */
function edited(path: string, params: Record<string, unknown>): string {
  const f = JSON.parse(readFileSync(path, 'utf8'));
  Object.assign(f.scenario.params, params);
  const out = path.replace(/\.json$/, `-${Object.keys(params).join('-')}.json`);
  writeFileSync(out, JSON.stringify(f));
  return out;
}

describe('a recording must fit the model before --from explores around it', () => {
  it('a model that sends s3.head before s3.get: check --from exits 2 naming the step, before exploring; replay agrees', async () => {
    const rec = await record({ slowGet: true, initial: true });
    const r = await runMain('check', REF, '--param', 'head=true', '--from', rec, '--within', '0');
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the recording does not fit counter \(head=true\): step [12] of the file, 'deliver:w1->store:s3\.get', is not a step it can take \(the steps it can take there: deliver:w1->store:s3\.head/);
    expect(r.stderr).toContain('Nothing was explored.');
    expect(r.stdout).not.toContain('all properties hold');
    const rp = await runMain('replay', edited(rec, { head: true }));
    expect(rp.code).toBe(2);
    expect(rp.stderr).toMatch(/step [12] of the file, 'deliver:w1->store:s3\.get', is not a step scenario 'counter' can take/);
    // The API: a Divergence naming the file's step.
    const f = JSON.parse(readFileSync(rec, 'utf8'));
    expect(() => fromTrace(counter.build({ head: true, format: 'compact', start: 0 }), f, { within: 0 })).toThrow(Divergence);
  });

  it('the real race fits: --within 0 finds the lost update in the recorded order', async () => {
    const rec = await record({ slowGet: true, initial: true });
    const file = JSON.parse(readFileSync(rec, 'utf8'));
    const r = await runMain('check', REF, '--from', rec, '--within', '0', '--json');
    expect(r.code, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.violation.property.name).toBe('both done => counter = start + 2');
    // Steps in the recorded order: the replay's schedule, not a shrunk reordering.
    const replayed = replayTraceFile(counter.build({ head: false, format: 'compact', start: 0 }), file).violation!.schedule;
    expect(doc.violation.schedule).toEqual(replayed.filter((id) => !id.startsWith('tick:')));
  });

  it('a run that started from {"n":5} on disk: refused on a model starting at {"n":0}, naming the field; fits with the contents recorded', async () => {
    const bare = await record({ start: 5 });
    for (const cmd of [['replay', bare], ['check', REF, '--from', bare, '--within', '1']]) {
      const r = await runMain(...cmd);
      expect(r.code, cmd.join(' ')).toBe(2);
      expect(r.stderr).toContain("the live 'store' answered 'w1' with s3.get.ok for key 'counter'");
      expect(r.stderr).toContain('body (JSON).n: recorded 5, the model 0');
    }
    // --ignore-data compares steps and reply types only.
    expect((await runMain('replay', bare, '--ignore-data')).code).toBe(0);
    expect((await runMain('check', REF, '--from', bare, '--within', '1', '--ignore-data')).code).toBe(0);
    // Recorded with its start (runLive's `initial`, FsObjectStore.snapshot()): the model starts there.
    const withStart = await record({ start: 5, initial: true });
    const r = await runMain('replay', withStart);
    expect(r.code, r.stderr).toBe(0);
    const c = await runMain('check', REF, '--from', withStart, '--within', '1');
    expect(c.code, c.stderr).toBe(0);
  });

  it('a model that changed the body format (7-byte vs 10-byte bodies) is refused, with both sizes', async () => {
    const rec = await record({ initial: true });
    const r = await runMain('replay', edited(rec, { format: 'spaced' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/answered 'w1' with s3\.put\.ok for key 'counter' \(recorded at step \d+\); the model's 'store' answers differently, bytes: recorded 7, the model 10/);
  });

  it('--require-complete exits 1 (INCOMPLETE) when the search was cut; a complete search says "within k deviations"', async () => {
    const rec = await record({ initial: true });
    const cut = await runMain('check', REF, '--from', rec, '--within', '2', '--max-states', '3', '--require-complete');
    expect(cut.code).toBe(1);
    expect(cut.stdout).toContain('INCOMPLETE: --require-complete: the exploration was cut by the --max-states budget; exit 1');
    const json = await runMain('check', REF, '--from', rec, '--within', '2', '--max-states', '3', '--require-complete', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, complete: false, requireComplete: true, cutBy: 'maxStates' });
    const whole = await runMain('check', REF, '--from', rec, '--within', '1', '--require-complete');
    expect(whole.code).toBe(0);
    expect(whole.stdout).toContain('exploration complete: every state within 1 deviation of the recording was visited (from-trace;');
    expect(whole.stdout).not.toContain('every reachable state');
    expect(whole.stdout).toMatch(/depth bound 1,0\d\d steps \(the recording's \d+ steps as explored \+ 1,000\)/);
  });

  it('deviations from the recording are marked: text, --json, the trace file and the viewer', async () => {
    const rec = await record({ initial: true });
    const out = join(base, 'cex.json');
    // Within 2 the lost update is found around the passing run: w2's timer fires early and its read overtakes w1's write.
    const r = await runMain('check', REF, '--from', rec, '--within', '2', '--out', out);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/counterexample, \d+ steps; 2 steps marked ◆ deviate from the recording:/);
    expect(r.stdout).toMatch(/◆ timer fired early \(recorded as step \d+\)/);
    expect(r.stdout).toMatch(/◆ moved earlier \(recorded as step \d+\)/);
    const j = await runMain('check', REF, '--from', rec, '--within', '2', '--json');
    const steps = JSON.parse(j.stdout).violation.recorded as { step: number; recorded?: number; deviation?: string }[];
    expect(steps.map((x) => x.deviation).filter(Boolean)).toEqual(['timer-early', 'reorder']);
    expect(steps.every((x) => x.recorded !== undefined)).toBe(true);
    const file = JSON.parse(readFileSync(out, 'utf8'));
    expect(file.recorded.from).toBe(rec);
    expect(file.recorded.steps).toEqual(steps.map(({ step: _s, ...x }) => x));
    expect(file.recorded.window.ids.length).toBeGreaterThan(0);
    expect(readFileSync(out.replace(/\.json$/, '.html'), 'utf8')).toContain('Counterexample vs the recording');
    // show and replay keep the marks.
    expect((await runMain('show', out)).stdout).toContain('◆ timer fired early');
    expect((await runMain('replay', out)).stdout).toContain('◆ moved earlier');
    // Within 0 the counterexample is the recording itself, in its order.
    const race = await record({ slowGet: true, initial: true });
    const z = await runMain('check', REF, '--from', race, '--within', '0', '--out', join(base, 'cex0.json'));
    expect(z.stdout).toMatch(/counterexample, \d+ steps; in the recorded order:/);
    expect(z.stdout).not.toContain('◆');
  });
});

describe('step ids that survive a machine gaining an id', () => {
  it('a recording made before the workers had an id replays and is explored after they gain one, and back', async () => {
    const rec = await record({ slowGet: true, initial: true });
    expect(readFileSync(rec, 'utf8')).toContain('timer:w2:xstate.after.20.(machine).waiting');
    const named = edited(rec, { machineId: 'worker' });
    const r = await runMain('replay', named);
    expect(r.code, r.stderr).toBe(1); // the recorded lost update, found again
    const c = await runMain('check', REF, '--param', 'machineId=worker', '--from', named, '--within', '0', '--json');
    expect(c.code, c.stderr).toBe(1);
    expect(JSON.parse(c.stdout).violation.schedule).toContain('timer:w2:xstate.after.20.worker.waiting');
    // A counterexample saved with the id replays on the model without it.
    const out = join(base, 'named-cex.json');
    await runMain('check', REF, '--param', 'machineId=worker', '--from', named, '--within', '0', '--out', out);
    expect((await runMain('replay', edited(out, { machineId: '' }))).code).toBe(1);
  });
});
