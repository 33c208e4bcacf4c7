// Live recordings as trace files, replayed in the model, and the schedules within
// k deviations of them explored (production-trace-seeded exploration).
import { describe, expect, it } from 'vitest';
import { fromTrace, replayTraceFile, Divergence, defineScenario, validateTraceFile, type Message } from 'interleave';
import { fromTraceRun } from 'interleave/kernel';
// The live runner and the models from their modules: interleave/live also loads the stores'
// live adapters with apache-arrow, and interleave/machines every bundled model.
import { runLive } from '../../src/live/runner.ts';
import { liveTraceFile } from '../../src/live/recording.ts';
import { pinger, ponger } from '../../src/machines/demo/ping-pong.ts';
import { client, counterStore } from '../../src/machines/demo/lost-update.ts';

/** Ping-pong where a ping may be lost (one fault): the recorded live run never loses one. */
function lossyPingPong(rounds: number) {
  return defineScenario({
    name: 'lossy-ping-pong',
    actors: { pinger: { logic: pinger, input: { rounds } }, ponger },
    start: [{ to: 'pinger', msg: { type: 'start' } }],
    faults: { budget: 1, drop: [['pinger', 'ponger']] },
    atEnd: { finished: (q) => q.matches('pinger', 'done') || 'pinger never finished' },
    params: { rounds },
  });
}

/** Two clients increment a counter one after the other (the env starts the second after the first is done). */
function counter(design: 'read-then-write' | 'compare-and-set') {
  const logic = client(design);
  return defineScenario({
    name: 'counter',
    actors: { store: counterStore, client1: logic, client2: logic },
    invariants: {
      // (A live store has no model state to look at: then the property is the model's to check.)
      'no-lost-update': (q) =>
        !q.context('store') || !(q.matches('client1', 'done') && q.matches('client2', 'done')) || q.context('store').value === 2 || `counter is ${q.context('store').value}`,
    },
  });
}

/** The live store: a real (in-process, asynchronous) versioned register. */
function liveCounter() {
  let cell = { value: 0, version: 0 };
  return async (msg: Message, from: string) => {
    await new Promise((r) => setImmediate(r));
    if (msg.type === 'Get') return [{ to: from, msg: { type: 'Value', ...cell } }];
    if (msg.type === 'Put') return ((cell = { value: msg.value as number, version: cell.version + 1 }), [{ to: from, msg: { type: 'Ok', version: cell.version } }]);
    if (msg.expect !== cell.version) return [{ to: from, msg: { type: 'Conflict', ...cell } }];
    cell = { value: msg.value as number, version: cell.version + 1 };
    return [{ to: from, msg: { type: 'Ok', version: cell.version } }];
  };
}

async function recordCounter(design: 'read-then-write' | 'compare-and-set') {
  const live = runLive(counter(design), { externals: { store: liveCounter() }, timeScale: 0 });
  live.send('client1', { type: 'start' });
  await live.whenQuiescent();
  live.send('client2', { type: 'start' });
  await live.whenQuiescent();
  await live.stop();
  return live;
}

describe('live recordings as trace files', () => {
  it('writes a valid schemaVersion 1 trace file whose replay reproduces the live trace', async () => {
    const live = await recordCounter('read-then-write');
    const file = liveTraceFile(live.recording());
    const parsed = validateTraceFile(JSON.parse(JSON.stringify(file)));
    expect(parsed.ok).toBe(true);
    expect(file.options.externals).toEqual(['store']);
    expect(file.inputs!.filter((x) => x.from === 'env').length).toBe(2);
    // Replay with the recorded replies: the store is swapped back to an external fed by them.
    const r = replayTraceFile(counter('read-then-write'), JSON.parse(JSON.stringify(file)), { recorded: true });
    expect(r.violation?.property).toBeUndefined();
    expect([r.recordedSteps, r.answeredByModel, r.schedule.length]).toEqual([file.schedule.length, 0, file.schedule.length]);
    expect(r.trace.length).toBe(file.trace.length);
    expect(r.trace.map((e) => e.kind)).toEqual(file.trace.map((e) => (e as { kind: string }).kind));
    // Replay on the model: the modelled store answers; same deliveries, every property checked.
    const m = replayTraceFile(counter('read-then-write'), JSON.parse(JSON.stringify(file)));
    expect(m.violation).toBeUndefined();
    // The store's recorded replies are left out: the model gives them itself.
    const storeReplies = file.inputs!.filter((x) => x.from === 'store').length;
    expect(storeReplies).toBeGreaterThan(0);
    expect([m.recordedSteps, m.answeredByModel, m.schedule.length]).toEqual([file.schedule.length, storeReplies, file.schedule.length - storeReplies]);
    const delivered = (t: readonly unknown[]) => t.filter((e) => (e as { kind: string }).kind === 'deliver').map((e) => JSON.stringify([(e as { from: string }).from, (e as { to: string }).to, (e as { msg: { type: string } }).msg.type]));
    expect(delivered(m.trace)).toEqual(delivered(file.trace));
  });
});

describe('fromTrace', () => {
  it('within 0 follows the recording in the model and finds nothing', async () => {
    const live = await recordCounter('read-then-write');
    const res = fromTrace(counter('read-then-write'), liveTraceFile(live.recording()), { within: 0 });
    expect(res.ok).toBe(true);
    expect(res.complete).toBe(true);
    // Replies of the modelled store were dropped: the model answers them.
    expect(res.seedLength).toBe(live.schedule().filter((s) => !s.startsWith('input:store') && !s.startsWith('tick:')).length);
  });

  it('finds the fault one deviation away from a passing live run', async () => {
    const live = runLive(lossyPingPong(3), { timeScale: 0 });
    await live.whenQuiescent();
    await live.stop();
    expect(live.failures).toEqual([]);
    const file = liveTraceFile(live.recording());
    expect(fromTrace(lossyPingPong(3), file, { within: 0 }).ok).toBe(true);
    const res = fromTrace(lossyPingPong(3), file, { within: 1 });
    expect(res.ok).toBe(false);
    expect(res.violation!.property.name).toBe('finished');
    expect(res.violation!.deviations).toBe(1);
    expect(res.violation!.schedule.some((s) => s.startsWith('drop:pinger->ponger'))).toBe(true);
  });

  it('explores reorderings: a second client started early loses an update, compare-and-set does not', async () => {
    // Recorded: client2 started after client1 finished, so the live run passed.
    const rtw = await recordCounter('read-then-write');
    const file = liveTraceFile(rtw.recording());
    expect(fromTrace(counter('read-then-write'), file, { within: 0 }).ok).toBe(true);
    // Three deviations: client2's start arrives early, is delivered early, and its read
    // overtakes client1's write. Fewer cannot lose the update.
    expect(fromTrace(counter('read-then-write'), file, { within: 2 }).ok).toBe(true);
    const a = fromTrace(counter('read-then-write'), file, { within: 3 });
    expect(a.ok).toBe(false);
    expect(a.violation!.property.name).toBe('no-lost-update');
    expect(a.violation!.deviations).toBe(3);
    expect(a.violation!.inputs!.map((x) => x.to)).toEqual(['client1', 'client2']);
    const cas = await recordCounter('compare-and-set');
    const b = fromTrace(counter('compare-and-set'), liveTraceFile(cas.recording()), { within: 3 });
    expect(b.ok).toBe(true);
  });

  it('a depth bound shorter than the recording cuts the exploration: not complete, cut by maxDepth', async () => {
    const live = await recordCounter('read-then-write');
    const file = liveTraceFile(live.recording());
    const cutShort = fromTrace(counter('read-then-write'), file, { within: 0, maxDepth: 3 });
    expect(cutShort.ok).toBe(true);
    expect([cutShort.complete, cutShort.depthCut]).toEqual([false, true]);
    const whole = fromTrace(counter('read-then-write'), file, { within: 0, maxDepth: cutShort.seedLength + 5 });
    expect([whole.complete, whole.depthCut]).toEqual([true, undefined]);
  });

  it('a recording the scenario cannot follow is a Divergence naming the step, not an exploration that holds', async () => {
    // Recorded with compare-and-set (the clients send Cas), explored as read-then-write (Put):
    // following it must fail at the first Cas, at any within.
    const cas = await recordCounter('compare-and-set');
    const file = liveTraceFile(cas.recording());
    const cut = file.schedule.findIndex((id) => id.endsWith(':Cas'));
    expect(cut).toBeGreaterThan(0);
    for (const within of [0, 1, 2]) {
      let err: unknown;
      try {
        fromTrace(counter('read-then-write'), file, { within });
      } catch (e) {
        err = e;
      }
      expect(err, `within ${within}`).toBeInstanceOf(Divergence);
      expect((err as Divergence).index).toBe(cut);
      expect((err as Divergence).expected).toBe(file.schedule[cut]);
      expect((err as Divergence).enabledIds.some((id) => id.endsWith(':Put'))).toBe(true);
    }
    // The same recording on its own design follows it whole.
    expect(fromTrace(counter('compare-and-set'), file, { within: 1 }).complete).toBe(true);
  });

  it('counts states and stops at a budget', async () => {
    const live = runLive(lossyPingPong(20), { timeScale: 0 });
    await live.whenQuiescent();
    await live.stop();
    const res = fromTrace(lossyPingPong(20), liveTraceFile(live.recording()), { within: 3, maxStates: 50 });
    expect(res.complete).toBe(false);
    expect(res.stats.states).toBeGreaterThanOrEqual(50);
  });

  it('runs as a check (result, progress$, stop) for the CLI, same verdict as fromTrace', async () => {
    const rtw = await recordCounter('read-then-write');
    const file = liveTraceFile(rtw.recording());
    const run = fromTraceRun(counter('read-then-write'), file, { within: 3, from: 'incident.json' });
    const seen: number[] = [];
    run.progress$.subscribe((p) => seen.push(p.states));
    const r = await run.result;
    expect(r.ok).toBe(false);
    expect(r.strategy).toBe('from-trace');
    expect(r.options).toMatchObject({ within: 3, from: 'incident.json' });
    expect(r.violation!.property.name).toBe('no-lost-update');
    expect(seen.length).toBeGreaterThan(0);
    // Stopped before it starts: cut, not complete, no verdict.
    const stopped = fromTraceRun(counter('read-then-write'), file, { within: 3 });
    stopped.stop();
    const s = await stopped.result;
    expect(s.ok).toBe(true);
    expect(s.complete).toBe(false);
  });
});
