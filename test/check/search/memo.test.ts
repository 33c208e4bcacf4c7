// The checker's step memo (apply's `memo` option) reuses a machine's step for a
// (snapshot, message) pair met again, and a reducer's for the same state, message,
// sender, outcome and time; worlds and events must be the same as without it.
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { StepMemo, apply, enabled, initialWorld, WorldHasher, fpHex, type ApplyResult } from 'interleave/kernel';
import { defineScenario, rng, type Scenario, type Step, type World } from 'interleave';
import { ONE_ACTOR_PROBE, checkerMemo, contentKeyOf } from '../../../src/check/search/memo-key.ts';
import { runSchedule } from '../../../src/check/trace/replay.ts';
import { sameContent } from '../../../src/actors/same-content.ts';
import { randomMachineSystem } from '../../fixtures/check/random-machines.ts';
import { lostUpdate, machineRing, retryModel } from '../../fixtures/check/models.ts';
import { buildAirflow } from '../../../src/machines/airflow/scenario.ts';

/** Counts the hits of a memo. */
class CountingMemo extends StepMemo {
  constructor(limit?: number, contentKey?: (actor: number, snapshot: object, msg: unknown) => string) {
    super(limit, contentKey);
  }
  hits = 0;
  reducerHits = 0;
  startHits = 0;
  sameHits = 0;
  override get<R>(actor: number, snapshot: object, msg: unknown): R | undefined {
    const r = super.get<R>(actor, snapshot, msg);
    if (r) this.hits++;
    return r;
  }
  override getSame<R>(actor: number, snapshot: object, msg: unknown): { readonly snapshot: object; readonly res: R } | undefined {
    const r = super.getSame<R>(actor, snapshot, msg);
    if (r) this.sameHits++;
    return r;
  }
  override getStart<R>(actor: number): R | undefined {
    const r = super.getStart<R>(actor);
    if (r) this.startHits++;
    return r;
  }
  override getReduced<R>(actor: number, state: object, msg: unknown, from: number, outcome: string | undefined, now: number): R | undefined {
    const r = super.getReduced<R>(actor, state, msg, from, outcome, now);
    if (r) this.reducerHits++;
    return r;
  }
}

/** Applies `s` afresh and through `memo`: both must give the same events and the same world. */
function stepBoth(sc: Scenario, hasher: WorldHasher, w: World, s: Step, memo: StepMemo, detail: boolean): { plain: ApplyResult; memoed: ApplyResult } {
  const plain = apply(sc, w, s, { detail });
  const memoed = apply(sc, w, s, { detail, memo });
  expect(memoed.events).toEqual(plain.events);
  expect(fpHex(hasher.fp(memoed.world))).toBe(fpHex(hasher.fp(plain.world)));
  return { plain, memoed };
}

describe('step memo', () => {
  it('gives the same worlds and events as stepping afresh, along random walks that revisit pairs', () => {
    const models: Scenario[] = [lostUpdate({ clients: 3 }), machineRing(4, 1, 2), retryModel(2)];
    let reducerHits = 0;
    for (const sc of models) {
      const memo = new CountingMemo(64);
      const hasher = new WorldHasher(sc, false);
      const r = rng(9);
      let steps = 0;
      for (let run = 0; run < 30; run++) {
        let w: World = initialWorld(sc, { detail: false }).world;
        for (let d = 0; d < 80; d++) {
          const en = enabled(sc, w);
          if (en.length === 0) break;
          // Every enabled step, so a step not taken here recurs (same snapshot, same message) one level down.
          let next: World | undefined;
          const pick = r.int(en.length);
          for (let k = 0; k < en.length; k++) {
            const { memoed } = stepBoth(sc, hasher, w, en[k]!, memo, false);
            steps++;
            if (k === pick) next = memoed.world;
          }
          w = next!;
        }
      }
      expect(steps).toBeGreaterThan(100);
      expect({ model: sc.name, hits: memo.hits > 0 }).toEqual({ model: sc.name, hits: true });
      reducerHits += memo.reducerHits;
    }
    // The lost-update store is a reducer: its results are reused too.
    expect(reducerHits).toBeGreaterThan(0);
  });

  it('a restarted machine starts from its memoised start: the same worlds and events as starting afresh', () => {
    // airflow's task process is killed and restarted (a new try); its start depends only on its input.
    const sc = buildAirflow({ items: 2, W: 2, faultBudget: 3, hardKill: true });
    const memo = new CountingMemo();
    const hasher = new WorldHasher(sc, false);
    const r = rng(4);
    let restarts = 0;
    for (let run = 0; run < 40; run++) {
      let w: World = initialWorld(sc, { detail: false }).world;
      for (let d = 0; d < 60; d++) {
        const en = enabled(sc, w);
        if (en.length === 0) break;
        // Restarts first when offered, so every run restarts as often as the budget lets it.
        const s = en.find((x) => x.kind === 'restart') ?? r.pick(en);
        if (s.kind === 'restart') restarts++;
        w = stepBoth(sc, hasher, w, s, memo, false).memoed.world;
      }
    }
    expect(restarts).toBeGreaterThan(5);
    // Every restart after the first of the actor reuses its start.
    expect(memo.startHits).toBe(restarts - 1);
  });

  it('a small limit clears the memo and it still gives the same results', () => {
    const sc = lostUpdate({ clients: 3 });
    const memo = new CountingMemo(2);
    let w = initialWorld(sc, { detail: false }).world;
    let steps = 0;
    for (let i = 0; i < 50; i++) {
      const en = enabled(sc, w);
      if (en.length === 0) break;
      const s = en[i % en.length]!;
      const x = apply(sc, w, s, { detail: false, memo });
      const y = apply(sc, w, s, { detail: false, memo });
      expect(y.events).toEqual(x.events);
      expect(y.world.snaps).toEqual(x.world.snaps);
      w = y.world;
      steps++;
    }
    expect(steps).toBeGreaterThan(5);
    expect(memo.hits).toBeGreaterThan(0);
  });

  it('by content: a pair equal to one stepped before, reached as other objects, gives the same worlds and events as stepping afresh', () => {
    // The checker's memo (content keys from the structural hash). Random xstate machines
    // (hierarchy, parallel regions, history, after timers) and airflow (restarts, 18 monitors).
    const models: Scenario[] = [lostUpdate({ clients: 3 }), machineRing(4, 1, 2), buildAirflow({ items: 2, W: 2, faultBudget: 2, hardKill: true }), ...[1, 2, 3, 4, 5, 6].map((k) => randomMachineSystem(k))];
    let sameHits = 0;
    for (const sc of models) {
      const memo = new CountingMemo(256, contentKeyOf());
      const hasher = new WorldHasher(sc, false);
      const r = rng(11);
      for (let run = 0; run < 25; run++) {
        let w: World = initialWorld(sc, { detail: false }).world;
        for (let d = 0; d < 60; d++) {
          const en = enabled(sc, w);
          if (en.length === 0) break;
          let next: World | undefined;
          const pick = r.int(en.length);
          for (let k = 0; k < en.length; k++) {
            // Detail on: the events carry context changes, so a wrong "unchanged" would show.
            const { plain } = stepBoth(sc, hasher, w, en[k]!, memo, true);
            if (k === pick) next = plain.world; // the plain world: its snapshots are new objects, so equal pairs recur as other objects
          }
          w = next!;
        }
      }
      sameHits += memo.sameHits;
    }
    expect(sameHits).toBeGreaterThan(100);
  });
});

describe('step memo by content, with colliding keys', () => {
  it('reuses a step only for a pair equal in content: a key shared by every pair changes nothing', () => {
    // Every pair gets one key: the memo holds the last pair stepped and must compare it exactly.
    let sameHits = 0;
    for (const sc of [lostUpdate({ clients: 3 }), buildAirflow({ items: 2, W: 2, faultBudget: 2, hardKill: true }), randomMachineSystem(2), randomMachineSystem(3)]) {
      const memo = new CountingMemo(256, () => 'one key');
      const hasher = new WorldHasher(sc, false);
      const r = rng(12);
      let steps = 0;
      for (let run = 0; run < 20; run++) {
        let w: World = initialWorld(sc, { detail: false }).world;
        for (let d = 0; d < 60; d++) {
          const en = enabled(sc, w);
          if (en.length === 0) break;
          // Every enabled step: the memo then meets, under its one key, pairs of other
          // actors and other contents (which it must not reuse) and equal ones.
          for (const s of en) {
            stepBoth(sc, hasher, w, s, memo, true);
            steps++;
          }
          // On from a fresh world, so the next pairs are new objects.
          w = apply(sc, w, r.pick(en), { detail: false }).world;
        }
      }
      expect(steps).toBeGreaterThan(100);
      sameHits += memo.sameHits;
    }
    // Equal pairs met again as other objects were reused too (the test is not only misses).
    expect(sameHits).toBeGreaterThan(0);
  });
});

describe('replays through a memo (shrinking, the nearby passing schedule)', () => {
  it('a replay with a memo shared across candidates takes the same steps to the same world and verdict as one without', () => {
    let hits = 0;
    let replays = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const sc = randomMachineSystem(seed);
      const hasher = new WorldHasher(sc, false);
      const r = rng(seed);
      // A random walk, then candidates cut from it as delta debugging cuts them (chunks removed, neighbours swapped).
      const walk: string[] = [];
      let w: World = initialWorld(sc, { detail: false }).world;
      for (let d = 0; d < 30; d++) {
        const en = enabled(sc, w);
        if (en.length === 0) break;
        const t = r.pick(en);
        walk.push(t.id);
        w = apply(sc, w, t, { detail: false }).world;
      }
      const memo = new CountingMemo();
      for (let k = 0; k < 40; k++) {
        const cand = walk.slice();
        const at = r.int(Math.max(1, cand.length));
        if (r.int(2) === 0) cand.splice(at, 1 + r.int(4));
        else if (at + 1 < cand.length) [cand[at], cand[at + 1]] = [cand[at + 1]!, cand[at]!];
        const plain = runSchedule(sc, cand, { detail: false, lenient: true });
        const memoed = runSchedule(sc, cand, { detail: false, lenient: true, memo });
        replays++;
        expect(memoed.schedule).toEqual(plain.schedule);
        expect(memoed.property).toEqual(plain.property);
        expect(fpHex(hasher.fp(memoed.world))).toBe(fpHex(hasher.fp(plain.world)));
      }
      hits += memo.hits;
    }
    expect(replays).toBe(480);
    // Candidates share their prefixes: the memo is used, not only missed.
    expect(hits).toBeGreaterThan(0);
  });
});

describe('step memo switch-off', () => {
  it('turns itself off after `probe` lookups with under 2% hits, and stays on while they hit', () => {
    const snap = {};
    const idle = new StepMemo(undefined, undefined, 8);
    for (let k = 0; k < 8; k++) expect(idle.get(0, {}, k)).toBeUndefined();
    idle.set(0, snap, 'm', 'r');
    // Off: nothing is recorded or found any more.
    expect(idle.get(0, snap, 'm')).toBeUndefined();
    expect(idle.counts.lookups).toBe(8);

    const busy = new StepMemo(undefined, undefined, 8);
    busy.set(0, snap, 'm', 'r');
    for (let k = 0; k < 8; k++) expect(busy.get(0, snap, 'm')).toBe('r');
    expect(busy.get(0, snap, 'm')).toBe('r');
    expect(busy.counts).toEqual({ lookups: 9, hits: 9 });
  });

  it('a one-actor scenario decides after ONE_ACTOR_PROBE lookups, others after 4,096', () => {
    const one = checkerMemo(defineScenario({ name: 'one', actors: { a: createMachine({ id: 'a', initial: 'x', states: { x: {} } }) } }));
    const many = checkerMemo(lostUpdate({ cas: false, clients: 2, rounds: 1 }));
    for (let k = 0; k < 600; k++) {
      one.get(0, {}, k);
      many.get(0, {}, k);
    }
    // Off after ONE_ACTOR_PROBE misses: lookups are no longer counted.
    expect(one.counts.lookups).toBe(ONE_ACTOR_PROBE);
    expect(many.counts.lookups).toBe(600);
  });
});

describe('sameContent', () => {
  it('compares plain data by value, key order aside, and anything else by identity', () => {
    expect(sameContent({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameContent({ a: 1 }, { a: 1, b: undefined })).toBe(false); // conservative: not known equal
    expect(sameContent([1, 2], [2, 1])).toBe(false);
    expect(sameContent([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameContent(new Map([[1, 2]]), new Map([[1, 2]]))).toBe(false);
    const m = new Map();
    expect(sameContent({ m }, { m })).toBe(true);
    expect(sameContent(NaN, NaN)).toBe(false);
    expect(sameContent({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
  });
});
