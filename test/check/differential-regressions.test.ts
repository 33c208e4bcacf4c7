// What the differential fuzzer (test/check/differential.test.ts) found, each minimised
// to a hand-written model.
import { describe, expect, it } from 'vitest';
import { defineScenario, eventually, check, replayLasso, replaySchedule, type ReducerLogic } from 'interleave';

describe('sharded bfs, compact frontier: an end violation at a frontier world', () => {
  // x forwards one message to a, which relays to b; the channel x -> a may lose it. The
  // prefix (no lookahead) stops at level 2 (2 worlds, one per shard), where the lost message leaves a
  // quiescent world that violates `delivered`. Its shard used to crash building the
  // schedule (TypeError in CompactBfs.scheduleOf: the root's parent is the prefix chain,
  // not an entry); fuzzer seed 33.
  const relay: ReducerLogic<number> = { kind: 'reducer', init: () => 0, receive: (n) => (n < 3 ? { state: n + 1, send: [{ to: 'b', msg: { type: 'm' } }] } : { state: n }) };
  const sink: ReducerLogic<number> = { kind: 'reducer', init: () => 0, receive: (n) => ({ state: n + 1 }) };
  const first: ReducerLogic<number> = { kind: 'reducer', init: () => 0, receive: () => ({ state: 1, send: [{ to: 'a', msg: { type: 'm' } }] }) };
  const sc = defineScenario({
    name: 'lost-at-the-frontier',
    actors: { x: first, a: relay, b: sink },
    start: [{ to: 'x', msg: { type: 'go' } }],
    faults: { budget: 1, drop: [['x', 'a']] },
    atEnd: { delivered: (q) => q.context('b') > 0 || 'b got nothing' },
  });

  it('reports it from the shard that holds it, with a schedule from the initial world, as the worlds frontier does', async () => {
    for (const frontier of ['compact', 'worlds'] as const) {
      const rs = [];
      for (let index = 0; index < 2; index++) rs.push(await check(sc, { strategy: 'bfs', frontier, shard: { index, count: 2 }, shardPrefix: 1, shardLookahead: 0 }));
      expect(rs.map((r) => r.shard!.prefixDepth)).toEqual([1, 1]);
      const found = rs.filter((r) => !r.ok);
      expect(found, frontier).toHaveLength(1);
      const v = found[0]!.violation!;
      expect(v.property.name).toBe('delivered');
      expect(v.schedule).toEqual(['deliver:env->x:go', 'drop:x->a:m']);
      expect(replaySchedule(sc, v.schedule).violation?.property.name).toBe('delivered');
    }
  });
});

describe('liveness with an inspector that goes on past safety violations', () => {
  // Two reducers pass a ball forever; an invariant fails on the way and `eventually`
  // fails on the cycle. An inspector returning true asks the search to go on past the
  // invariant, so the liveness lasso may pass through the violating world: the final
  // replay of the lasso used to stop there and `check` threw "internal: the liveness
  // counterexample ... does not replay" (fuzzer seeds 61, 104, 121, ...).
  const player: ReducerLogic<number> = { kind: 'reducer', init: () => 0, receive: (n, _m, ctx) => ({ state: (n + 1) % 3, send: [{ to: ctx.self === 'a' ? 'b' : 'a', msg: { type: 'ball' } }] }) };
  const sc = defineScenario({
    name: 'ball-forever',
    actors: { a: player, b: player },
    start: [{ to: 'a', msg: { type: 'ball' } }],
    invariants: { aNotTwo: (q) => q.context('a') !== 2 || 'a reached 2' },
    liveness: { stops: eventually((q) => q.context('b') === 5) },
  });

  it('reports the invariant first without an inspector, and the lasso with one', async () => {
    const plain = await check(sc, { strategy: 'bfs' });
    expect(plain.violation?.property.name).toBe('aNotTwo');
    const seen: string[] = [];
    const r = await check(sc, { strategy: 'bfs', inspect: { violation: (p) => (seen.push(p.name), true) } });
    expect(seen).toContain('aNotTwo');
    expect(r.violation?.property).toMatchObject({ kind: 'liveness', name: 'stops' });
    const v = r.violation!;
    // The lasso passes the violating world; replayed past it, it is a fair cycle that never pays.
    expect(replayLasso(sc, v.schedule, v.cycleStart, 'stops').property?.name).toBe('aNotTwo');
    expect(replayLasso(sc, v.schedule, v.cycleStart, 'stops', true).loop).toMatchObject({ returns: true, fair: true, owed: true });
  });
});
