// The checker on small models: lost update (found, minimal, shrunk), its
// compare-and-set fix (complete pass), deadlock, eventually, vacuity, budgets, stop.
import { firstValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { defineScenario, check, checkRun, expectHolds, formatViolation, type ReducerLogic } from 'interleave';
import { counterModel, diningLocks, lostUpdate, tokenRing } from '../fixtures/check/models.ts';

describe('lost update (read-then-write)', () => {
  const sc = lostUpdate();

  it('dfs and bfs find it, with and without POR', async () => {
    for (const strategy of ['dfs', 'bfs'] as const) {
      for (const por of [true, false]) {
        const r = await check(sc, { strategy, por });
        expect(r.ok).toBe(false);
        expect(r.complete).toBe(false);
        expect(r.violation!.property).toMatchObject({ kind: 'invariant', name: 'noLostUpdate' });
        expect(r.violation!.property.message).toContain('an update was lost');
      }
    }
  });

  it("bfs's counterexample is a shortest one: no schedule one step shorter fails", async () => {
    // Without partial-order reduction (with it, shortest in the reduced graph).
    const r = await check(sc, { strategy: 'bfs', shrink: false, por: false });
    const len = r.violation!.schedule.length;
    // Both clients read, both get the value, both write: 8 deliveries.
    expect(len).toBe(8);
    expect(r.violation!.originalLength).toBe(len);
    const shorter = await check(sc, { strategy: 'bfs', maxDepth: len - 1, por: false });
    expect(shorter.ok).toBe(true);
    expect(shorter.complete).toBe(false);
    expect(shorter.cutBy).toBe('maxDepth');
    // An unshrunk dfs counterexample is never shorter than bfs's.
    const d = await check(sc, { strategy: 'dfs', shrink: false });
    expect(d.violation!.schedule.length).toBeGreaterThanOrEqual(len);
  });

  it("shrinking turns a long random-walk counterexample into one of bfs's length", async () => {
    const noisy = lostUpdate({ noise: 6, rounds: 3 });
    const bfs = await check(noisy, { strategy: 'bfs' });
    let shrunkOne = false;
    for (const seed of [1, 2, 3, 4, 5]) {
      const raw = await check(noisy, { strategy: 'random', seed, runs: 200, shrink: false });
      const r = await check(noisy, { strategy: 'random', seed, runs: 200 });
      expect(r.ok).toBe(false);
      expect(r.violation!.originalLength).toBe(raw.violation!.schedule.length);
      expect(r.violation!.schedule.length).toBe(bfs.violation!.schedule.length);
      if (raw.violation!.schedule.length > r.violation!.schedule.length) shrunkOne = true;
      // The shrunk schedule still replays to the same violation.
      expect(r.violation!.property.name).toBe('noLostUpdate');
      expect(r.violation!.trace.some((e) => e.kind === 'deliver')).toBe(true);
    }
    expect(shrunkOne).toBe(true);
  });

  it('the violation carries trace, world and property; expectHolds prints it', async () => {
    const r = await check(sc, { strategy: 'bfs' });
    const v = r.violation!;
    const store = v.world.snaps[sc.index.get('store')!] as { value: number; writes: number };
    expect(store.writes).toBe(2);
    expect(store.value).toBe(1);
    expect(v.trace.filter((e) => e.kind === 'deliver')).toHaveLength(v.schedule.length);
    expect(v.trace.some((e) => e.kind === 'state' && e.changed !== undefined)).toBe(true);
    // The store is a reducer: the final replay records its state changes, the second write's too.
    expect(v.trace.filter((e) => e.kind === 'context' && e.actor === 'store').map((e) => (e as { changed: unknown }).changed)).toEqual([
      { value: 0, version: 0, writes: 0 },
      { value: 1, version: 1, writes: 1 },
      { version: 2, writes: 2 },
    ]);
    expect(formatViolation(v)).toContain('store: {"version":2,"writes":2}');
    expect(() => expectHolds(r)).toThrow(/invariant 'noLostUpdate' violated[\s\S]*1\. deliver:env->c[12]:go[\s\S]*8\. deliver:c[12]->store:write/);
  });
});

describe('compare-and-set', () => {
  it('passes with complete: true under every exhaustive strategy', async () => {
    for (const strategy of ['dfs', 'bfs'] as const) {
      const r = await check(lostUpdate({ cas: true }), { strategy });
      expect(r.ok).toBe(true);
      expect(r.complete).toBe(true);
      expect(r.cutBy).toBeUndefined();
      expect(r.unreached).toEqual([]);
      expect(r.stats.distinctStates).toBeGreaterThan(20);
      expect(() => expectHolds(r)).not.toThrow();
    }
  });

  it('three clients with two rounds each still pass', async () => {
    const r = await check(lostUpdate({ cas: true, clients: 3, rounds: 2 }), { strategy: 'dfs' });
    expect(r.ok).toBe(true);
    expect(r.complete).toBe(true);
  });
});

describe('quiescent properties', () => {
  it('reports a deadlock (locks taken in opposite orders), and not when the order is the same', async () => {
    const r = await check(diningLocks(), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.kind).toBe('deadlock');
    expect(r.violation!.property.message).toMatch(/'p' in 'second'.*'q' in 'second'/);
    const ok = await check(diningLocks(true), { strategy: 'bfs' });
    expect(ok.ok).toBe(true);
    expect(ok.complete).toBe(true);
  });

  it('acceptEnd turns a deadlock into an accepted end', async () => {
    const base = diningLocks();
    const sc = defineScenario({ ...base, name: 'locks-accepted', acceptEnd: () => true });
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.ok).toBe(true);
  });

  it('reports an eventually that fails at quiescence', async () => {
    const r = await check(counterModel(3), { strategy: 'dfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property).toMatchObject({ kind: 'eventually', name: 'counted', message: 'counter is 2, expected 3' });
    // It fails only where nothing more can happen: all four deliveries were made.
    expect(r.violation!.schedule).toHaveLength(4);
    const good = await check(counterModel(2), { strategy: 'dfs' });
    expect(good.ok && good.complete).toBe(true);
  });

  it('reports a reachable property no state satisfies after a complete exploration', async () => {
    const r = await check(lostUpdate({ cas: true, unreachable: true }), { strategy: 'bfs' });
    // A required goal never reached fails the complete check (the model may test nothing).
    expect(r.ok).toBe(false);
    expect(r.violation).toBeUndefined();
    expect(r.complete).toBe(true);
    expect(r.unreached).toEqual(['valueIsHundred']);
    expect(r.finding).toMatchObject({ kind: 'unreached', goals: ['valueIsHundred'] });
  });
});

describe('step properties', () => {
  const thrower: ReducerLogic<number> = {
    kind: 'reducer',
    init: () => 0,
    receive: (n, msg) => {
      if (msg.type === 'boom' && n > 0) throw new Error('kaboom');
      return msg.type === 'tick' || msg.type === 'boom' ? { state: n + 1 } : { state: n, unhandled: true };
    },
  };

  it('a machine that throws is an error violation', async () => {
    const sc = defineScenario({ name: 't-error', actors: { a: thrower }, start: [{ to: 'a', msg: { type: 'tick' } }, { to: 'a', msg: { type: 'boom' } }] });
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.violation!.property).toMatchObject({ kind: 'error', name: 'a' });
    expect(r.violation!.property.message).toContain('kaboom');
  });

  it("an unhandled event is a violation under the default policy, not under 'trace'", async () => {
    const def = { name: 't-unhandled', actors: { a: thrower }, start: [{ to: 'a', msg: { type: 'nope' } }] };
    const r = await check(defineScenario(def), { strategy: 'bfs' });
    expect(r.violation!.property).toMatchObject({ kind: 'unhandled', name: 'a' });
    const t = await check(defineScenario({ ...def, unhandled: 'trace' }), { strategy: 'bfs' });
    expect(t.ok).toBe(true);
  });
});

describe('budgets, progress and stop', () => {
  it('maxStates cuts the exploration and says so', async () => {
    const r = await check(tokenRing(5, 2), { strategy: 'bfs', maxStates: 50 });
    expect(r.ok).toBe(true);
    expect(r.complete).toBe(false);
    expect(r.cutBy).toBe('maxStates');
    expect(r.stats.distinctStates).toBe(50);
  });

  it('timeLimitMs cuts a long exploration', async () => {
    const r = await check(tokenRing(7, 3, 2), { strategy: 'dfs', timeLimitMs: 1 });
    expect(r.complete).toBe(false);
    expect(r.cutBy).toBe('timeLimit');
  });

  it('progress$ emits while exploring and stop() resolves with the stats so far', async () => {
    const run = checkRun(tokenRing(7, 3, 2), { strategy: 'bfs' });
    const all = firstValueFrom(run.progress$.pipe(toArray()));
    run.progress$.subscribe((p) => {
      if (p.distinctStates! > 0) run.stop();
    });
    const r = await run.result;
    const seen = await all;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]!.states).toBeGreaterThan(0);
    expect(r.complete).toBe(false);
    expect(r.cutBy).toBe('stopped');
    expect(r.stats.distinctStates).toBeGreaterThan(0);
  });
});

describe('bad options', () => {
  it('reject with a message naming the problem', async () => {
    const sc = lostUpdate();
    await expect(check(sc, { strategy: 'astar' as never })).rejects.toThrow(/unknown strategy 'astar'; use one of dfs, bfs, random, pct, pos, swarm/);
    await expect(check(sc, { strategy: 'pct', depth: 0 })).rejects.toThrow(/pct depth must be a whole number >= 1/);
    await expect(check(sc, { strategy: 'swarm', shard: { index: 2, count: 2 }, workers: 0 })).rejects.toThrow(/shard must be index\/count with 0 <= index < count/);
    // Workers belong to the swarm: a random check given workers is refused, not run in one thread.
    await expect(check(sc, { strategy: 'random', workers: 4 })).rejects.toThrow(/workers \(4\) run the swarm strategy's threads; random runs in one thread: use strategy 'swarm'/);
    await expect(check(sc, { strategy: 'bfs', workers: 2 })).rejects.toThrow(/split a dfs\/bfs over processes with shard/);
  });
});
