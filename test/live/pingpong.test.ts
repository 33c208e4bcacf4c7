// One machine definition, two drivers: ping-pong run live on Node's event loop
// (runLive) and in simulation (drive, simulate) produces the same events in the
// same order; only timing differs (live runs add `tick` steps for real time).
import { describe, expect, it } from 'vitest';
import { defineScenario, drive, randomChooser, replay, simulate, type Scenario, type RecordedEvent, type TraceEvent } from 'interleave';
// The live runner and the models from their modules: interleave/live also loads the stores'
// live adapters with apache-arrow, and interleave/machines every bundled model.
import { runLive } from '../../src/live/runner.ts';
import { canonicalJson } from 'interleave/kernel';
import { pingPong, pinger } from '../../src/machines/demo/ping-pong.ts';
import { picky, slowPonger } from '../fixtures/actors/machines.ts';

/** What must match across modes: kinds, actors, messages, timer ids; not steps, times or ticks. */
function shape(events: readonly TraceEvent[]): string[] {
  return events
    .filter((e) => e.kind !== 'tick')
    .map((e) => {
      const x = e as Record<string, any>;
      return [e.kind, x.actor ?? '', x.from ?? '', x.to ?? '', x.msg ? canonicalJson(x.msg) : '', x.id ?? '', x.changed ? canonicalJson(x.changed) : ''].join('|');
    });
}

async function live(sc: Scenario, timeScale: number): Promise<{ events: RecordedEvent[]; streamed: RecordedEvent[]; schedule: readonly string[]; inputs: any }> {
  const sys = runLive(sc, { timeScale });
  const streamed: RecordedEvent[] = [];
  sys.events$.subscribe((e) => streamed.push(e));
  await sys.whenQuiescent();
  await sys.stop();
  expect(sys.errors).toEqual([]);
  return { events: [...sys.recording().events], streamed, schedule: sys.schedule(), inputs: sys.inputs() };
}

function slowPingPong(rounds: number): Scenario {
  return defineScenario({
    name: 'slow-ping-pong',
    actors: { pinger: { logic: pinger, input: { rounds } }, ponger: slowPonger },
    start: [{ to: 'pinger', msg: { type: 'start' } }],
  });
}

describe('ping-pong live and in simulation', () => {
  it('gives the same events in the same order', async () => {
    const sc = pingPong(5);
    const l = await live(sc, 0);
    const sim = drive(sc, randomChooser(1));
    expect(sim.end).toBe('quiescent');
    expect(shape(l.events)).toEqual(shape(sim.events));
    // Not vacuous: the ball went back and forth and the pinger finished.
    expect(l.events.filter((e) => e.kind === 'deliver').length).toBe(11);
    expect(l.events.some((e) => e.kind === 'output' && e.msg.type === 'finished')).toBe(true);
    // The observable saw what happened after subscription, in the same order.
    expect(shape(l.streamed)).toEqual(shape(l.events).slice(shape(l.events).length - l.streamed.length));
  });

  it('with timers: same events live (real, scaled time) as in drive and simulate (virtual time)', async () => {
    const sc = slowPingPong(4);
    const l = await live(sc, 0.2);
    const d = drive(sc, randomChooser(3));
    const s = simulate(sc, {}, { seed: 3 });
    expect(d.events.filter((e) => e.kind === 'timer-fire').length).toBe(4);
    expect(shape(l.events)).toEqual(shape(d.events));
    // simulate records without context diffs (detail: false); so does this drive.
    expect(shape(s.events)).toEqual(shape(drive(sc, randomChooser(3), { detail: false }).events));
    // Virtual time: drive fires each pong 5 ms after its ping; live time only runs later.
    const fires = d.events.filter((e) => e.kind === 'timer-fire').map((e) => (e as any).at);
    expect(fires).toEqual([5, 10, 15, 20]);
    const liveFires = l.events.filter((e) => e.kind === 'timer-fire').map((e) => (e as any).at as number);
    liveFires.forEach((at, i) => expect(at).toBeGreaterThanOrEqual(fires[i]!));
  });

  it('a live schedule replays in simulation to the same trace', async () => {
    const sc = slowPingPong(3);
    const l = await live(sc, 0.2);
    const r = replay(sc, l.schedule, { inputs: l.inputs });
    expect(r.schedule).toEqual(l.schedule);
    expect(canonicalJson(r.events.map(({ step: _s, ...e }) => e))).toBe(canonicalJson(l.events.map(({ step: _s, ...e }) => e)));
  });
});

describe('live runs flag what simulation flags', () => {
  it('an unmatched event under the default policy is a failure live too', async () => {
    const sc = defineScenario({ name: 'picky-live', actors: { picky }, start: [{ to: 'picky', msg: { type: 'noise' } }] });
    const sys = runLive(sc, { timeScale: 0 });
    await sys.whenQuiescent();
    await sys.stop();
    expect(sys.failures.map((e) => [e.kind, (e as any).msg.type, (e as any).policy])).toEqual([['unhandled', 'noise', 'error']]);
    expect(drive(sc, randomChooser(1)).end).toBe('failure');
    const tolerant = runLive(defineScenario({ name: 'picky-trace', actors: { picky }, unhandled: 'trace', start: [{ to: 'picky', msg: { type: 'noise' } }] }), { timeScale: 0 });
    await tolerant.whenQuiescent();
    await tolerant.stop();
    expect(tolerant.failures).toEqual([]);
    expect(tolerant.recording().events.some((e) => e.kind === 'unhandled')).toBe(true);
  });
});
