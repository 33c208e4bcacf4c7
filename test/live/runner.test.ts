// The live runner: delivery order, I/O not starved, timers, errors, stop, quiescence,
// inspection shapes, and recordings that replay exactly in simulation.
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { defineScenario, replay, simulate, send, type Message, type RecordedEvent, type ReducerLogic, type Scenario } from 'interleave';
import { canonicalJson } from 'interleave/kernel';
// The live runner and the models from their modules: interleave/live also loads the stores'
// live adapters with apache-arrow, and interleave/machines every bundled model.
import { runLive, type LiveInspectionEvent } from '../../src/live/runner.ts';
import { withExternals } from '../../src/actors/externals.ts';
import { pingPong, pinger, ponger } from '../../src/machines/demo/ping-pong.ts';

/** What a trace says modulo timing: per actor, the messages it got and the states it went through. */
function shape(events: readonly RecordedEvent[], actors: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const a of actors) out[a] = [];
  for (const e of events) {
    if (e.kind === 'deliver' && out[e.to]) out[e.to]!.push(`got ${e.msg.type} from ${e.from}`);
    else if (e.kind === 'state' && out[e.actor]) out[e.actor]!.push(`${e.from} -> ${e.to}`);
    else if (e.kind === 'send' && out[e.from]) out[e.from]!.push(`sent ${e.msg.type} to ${e.to}`);
    else if (e.kind === 'output' && out[e.from]) out[e.from]!.push(`output ${e.msg.type}`);
  }
  return out;
}

/** A client writes `n` keys one after another to `store`, then reports `done` to env. */
const client = setup({ types: {} as { context: { n: number; i: number }; input: { n: number } } }).createMachine({
  context: ({ input }) => ({ n: input.n, i: 0 }),
  initial: 'idle',
  states: {
    idle: { on: { go: { target: 'writing', actions: send('store', ({ context }) => ({ type: 'put', key: `k${context.i}`, value: context.i })) } } },
    writing: {
      on: {
        ok: [
          { guard: ({ context }) => context.i + 1 >= context.n, target: 'done', actions: [assign({ i: ({ context }) => context.i + 1 }), send('env', { type: 'done' })] },
          { actions: [assign({ i: ({ context }) => context.i + 1 }), send('store', ({ context }) => ({ type: 'put', key: `k${context.i}`, value: context.i }))] },
        ],
      },
    },
    done: { type: 'final' },
  },
});

const memStore: ReducerLogic<Record<string, unknown>> = {
  kind: 'reducer',
  init: () => ({}),
  receive: (s, msg, ctx) => (msg.type === 'put' ? { state: { ...s, [msg.key as string]: msg.value }, send: [{ to: ctx.from, msg: { type: 'ok', key: msg.key } }] } : { state: s, unhandled: true }),
};

function writer(n: number): Scenario {
  return defineScenario({ name: 'writer', actors: { client: { logic: client, input: { n } }, store: memStore }, start: [{ to: 'client', msg: { type: 'go' } }], params: { n } });
}

/** A real-I/O stand-in: replies after a macrotask, keeping what it stored. */
function asyncStore(kept: Map<string, unknown>, delay = 0) {
  return async (msg: Message, from: string) => {
    await new Promise((r) => setTimeout(r, delay));
    kept.set(msg.key as string, msg.value);
    return [{ to: from, msg: { type: 'ok', key: msg.key } }];
  };
}

describe('live runner', () => {
  it('runs ping-pong to the end with the same trace shape as simulation', async () => {
    const sc = pingPong(5);
    const live = runLive(sc, { timeScale: 0 });
    const outputs: Message[] = [];
    live.events$.subscribe((e) => e.kind === 'output' && outputs.push(e.msg));
    const w = await live.whenQuiescent();
    await live.stop();
    expect(outputs).toEqual([{ type: 'finished', rounds: 5 }]);
    expect(w.snaps.length).toBe(2);
    const sim = simulate(sc, {}, { seed: 3 });
    expect(shape(live.recording().events, sc.ids)).toEqual(shape(sim.events, sc.ids));
    expect(live.errors).toEqual([]);
  });

  it('swaps a modelled store for a live handler and waits for I/O in flight before it is quiescent', async () => {
    const kept = new Map<string, unknown>();
    const live = runLive(writer(6), { externals: { store: asyncStore(kept, 5) }, timeScale: 0 });
    expect(live.scenario.actorList[live.scenario.index.get('store')!]!.kind).toBe('external');
    const w = await live.whenQuiescent();
    // Quiescent only once the last reply came back and was delivered.
    expect(kept.size).toBe(6);
    expect((w.snaps[0] as { value: string }).value).toBe('done');
    await live.stop();
  });

  it('records a schedule that replays in simulation to exactly the same trace', async () => {
    const sc = writer(8);
    const live = runLive(sc, { externals: { store: asyncStore(new Map()) }, timeScale: 1 });
    await live.whenQuiescent();
    await live.stop();
    const rec = live.recording();
    expect(rec.inputs.length).toBe(8);
    expect(rec.externals).toEqual(['store']);
    const r = replay(live.scenario, rec.schedule, { inputs: rec.inputs });
    expect(r.events.map(canonicalJson)).toEqual(rec.events.map(canonicalJson));
    // Without payloads an input step cannot be rebuilt: the replay reports where it diverges.
    expect(() => replay(live.scenario, rec.schedule)).toThrow(/diverges at step/);
  });

  it('delivers across channels in arrival order', async () => {
    const sink = setup({ types: {} as { context: { got: string[] } } }).createMachine({
      context: { got: [] },
      on: { '*': { actions: assign({ got: ({ context, event }) => [...context.got, event.type] }) } },
    });
    const sc = defineScenario({ name: 'fan-in', actors: { sink }, unhandled: 'trace' });
    const live = runLive(sc, { timeScale: 0, slice: 3 });
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      live.send('sink', { type: `a${i}` });
      order.push(`a${i}`);
      if (i % 2 === 0) {
        live.send('sink', { type: `b${i}` });
        order.push(`b${i}`);
      }
    }
    const w = await live.whenQuiescent();
    await live.stop();
    expect((w.snaps[0] as { context: { got: string[] } }).context.got).toEqual(order);
  });

  it('does not starve I/O: replies arrive while another actor keeps itself busy', async () => {
    // `spin` sends itself a message per delivery, 3000 times; a store call is made at the start.
    const spin = setup({ types: {} as { context: { left: number; at: number } } }).createMachine({
      context: { left: 3000, at: -1 },
      on: {
        go: { actions: [send('spin', { type: 'tick' }), send('store', { type: 'put', key: 'x', value: 1 })] },
        tick: { guard: ({ context }) => context.left > 0, actions: [assign({ left: ({ context }) => context.left - 1 }), send('spin', { type: 'tick' })] },
        ok: { actions: assign({ at: ({ context }) => context.left }) },
      },
    });
    const sc = defineScenario({ name: 'spin', actors: { spin, store: { kind: 'external' } }, start: [{ to: 'spin', msg: { type: 'go' } }], unhandled: 'trace' });
    const live = runLive(sc, { externals: { store: asyncStore(new Map()) }, timeScale: 0, slice: 32 });
    const w = await live.whenQuiescent();
    await live.stop();
    const ctx = (w.snaps[0] as { context: { left: number; at: number } }).context;
    // The reply (after a setTimeout) came in while most of the spinning was still to do.
    expect(ctx.at).toBeGreaterThan(1500);
  });

  it('fires timers on scaled real time, in virtual-time order', async () => {
    const m = setup({ types: {} as { context: { fired: string[] } } }).createMachine({
      context: { fired: [] },
      initial: 'a',
      states: {
        a: { after: { 300: { target: 'b', actions: assign({ fired: ({ context }) => [...context.fired, 'a300'] }) } } },
        b: { after: { 200: { target: 'c', actions: assign({ fired: ({ context }) => [...context.fired, 'b200'] }) } } },
        c: { type: 'final' },
      },
    });
    const sc = defineScenario({ name: 'timers', actors: { m } });
    // 0.05 real ms per virtual ms: 500 virtual ms take about 25 real ms.
    const live = runLive(sc, { timeScale: 0.05 });
    const w = await live.whenQuiescent();
    await live.stop();
    expect((w.snaps[0] as { context: { fired: string[] } }).context.fired).toEqual(['a300', 'b200']);
    expect(w.now).toBeGreaterThanOrEqual(500);
    const fires = live.recording().events.filter((e) => e.kind === 'timer-fire');
    expect(fires.map((e) => (e as { at: number }).at)).toEqual([300, 500]);
    // Timers replay too: ticks are part of the schedule.
    const r = replay(live.scenario, live.schedule(), { inputs: live.inputs() });
    expect(r.world.now).toBe(w.now);
  });

  it('surfaces a failing external handler: errors list, events$ error, whenQuiescent rejects', async () => {
    const live = runLive(writer(3), {
      externals: {
        store: async (msg) => {
          if (msg.key === 'k1') throw new Error('disk on fire');
          return [{ to: 'client', msg: { type: 'ok' } }];
        },
      },
      timeScale: 0,
    });
    let streamError: unknown;
    live.events$.subscribe({ error: (e) => (streamError = e) });
    await expect(live.whenQuiescent()).rejects.toThrow(/external 'store' failed on 'put'.*disk on fire/);
    expect(live.errors.length).toBe(1);
    expect(String(streamError)).toMatch(/disk on fire/);
    expect(() => live.send('client', { type: 'go' })).toThrow(/failed/);
    await live.stop();
  });

  it('swapping a modelled actor for an external drops the faults that name it, keeps the rest', () => {
    const sc = defineScenario({
      name: 'faulty',
      actors: { pinger: { logic: pinger, input: { rounds: 2 } }, ponger },
      start: [{ to: 'pinger', msg: { type: 'start' } }],
      faults: { budget: 2, crash: ['ponger', 'pinger'], restart: ['pinger'], drop: [['pinger', 'ponger'], ['ponger', 'pinger']] },
      params: { rounds: 2 },
    });
    const live = withExternals(sc, ['ponger']);
    expect(live.actorList[live.index.get('ponger')!]!.kind).toBe('external');
    expect(live.faults).toMatchObject({ budget: 2, crash: ['pinger'], restart: ['pinger'], drop: [] });
    expect(live.params).toEqual({ rounds: 2 });
    expect(withExternals(sc, [])).toBe(sc);
  });

  it('rejects a handler for an actor that does not exist, and an external without a handler', () => {
    expect(() => runLive(writer(1), { externals: { nope: () => [] } })).toThrow(/'nope', which is not an actor/);
    const sc = defineScenario({ name: 'ext', actors: { client: { logic: client, input: { n: 1 } }, store: { kind: 'external' } } });
    expect(() => runLive(sc)).toThrow(/external actor 'store' has no handler/);
  });

  it('stop() cancels timers, ignores late replies and waits for calls in flight', async () => {
    const m = setup({}).createMachine({ initial: 'a', states: { a: { after: { 60_000: 'b' } }, b: {} } });
    let started = 0;
    let settled = 0;
    const sc = defineScenario({ name: 'stop', actors: { m, store: { kind: 'external' } }, start: [{ to: 'store', msg: { type: 'put' } }] });
    const live = runLive(sc, {
      externals: { store: async () => (started++, await new Promise((r) => setTimeout(r, 20)), settled++, [{ to: 'm', msg: { type: 'late' } }]) },
    });
    const q = live.whenQuiescent();
    // Stop once the call is in flight (not after a fixed delay: a busy machine may start it later).
    while (started === 0) await new Promise((r) => setTimeout(r, 1));
    expect(settled).toBe(0);
    const before = live.schedule().length;
    await live.stop();
    // stop() waited for the call in flight; its reply was not taken.
    expect(settled).toBe(1);
    expect(live.schedule().length).toBe(before);
    await q; // waiters resolve on stop
    expect(live.world().timers.length).toBe(1);
  });

  it('emits xstate inspection events a @statelyai/inspect inspector can read', async () => {
    const seen: LiveInspectionEvent[] = [];
    const live = runLive(pingPong(2), { timeScale: 0, inspect: { next: (e) => seen.push(e) } });
    const viaStream: LiveInspectionEvent[] = [];
    live.inspection$.subscribe((e) => viaStream.push(e));
    await live.whenQuiescent();
    await live.stop();
    const actors = seen.filter((e) => e.type === '@xstate.actor');
    expect(actors.map((e) => e.actorRef.id)).toEqual(['env', 'pinger', 'ponger']);
    for (const e of seen) {
      expect(typeof e.rootId).toBe('string');
      expect(typeof e.actorRef.sessionId).toBe('string');
    }
    const pinger = actors[1]!.actorRef;
    expect((pinger.logic as { config: { id: string } }).config.id).toBe('pinger');
    expect(pinger._parent?.sessionId).toBe(actors[0]!.rootId);
    const evs = seen.filter((e) => e.type === '@xstate.event');
    expect(evs.map((e) => `${(e as { sourceRef?: { id: string } }).sourceRef?.id}->${e.actorRef.id}:${(e as { event: Message }).event.type}`)).toEqual([
      'env->pinger:start', 'pinger->ponger:ping', 'ponger->pinger:pong', 'pinger->ponger:ping', 'ponger->pinger:pong',
    ]);
    const snaps = seen.filter((e): e is LiveInspectionEvent & { type: '@xstate.snapshot' } => e.type === '@xstate.snapshot');
    const last = snaps.filter((e) => e.actorRef.id === 'pinger').at(-1)!;
    expect((last.snapshot as { value: string }).value).toBe('done');
    expect(last.event.type).toBe('pong');
    // The snapshot serialises (the inspector sends it over a socket as JSON).
    expect(JSON.parse(JSON.stringify(last.snapshot)).value).toBe('done');
    expect(viaStream.length).toBeGreaterThan(0);
  });
});
