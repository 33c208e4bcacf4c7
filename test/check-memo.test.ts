// The checker's step memo (apply's `memo` option) reuses a machine's step for a
// (snapshot, message) pair met again, and a reducer's for the same state, message,
// sender, outcome and time; worlds and events must be the same as without it.
import { describe, expect, it } from 'vitest';
import { StepMemo, apply, enabled, initialWorld, rng, type Scenario, type World } from '../src/actors/index.ts';
import { WorldHasher, fpHex } from '../src/check/index.ts';
import { lostUpdate, machineRing, retryModel } from './fixtures-check/models.ts';
import { buildAirflow } from '../src/machines/airflow/scenario.ts';

/** Counts the hits of a memo. */
class CountingMemo extends StepMemo {
  hits = 0;
  reducerHits = 0;
  startHits = 0;
  override get<R>(actor: number, snapshot: object, msg: unknown): R | undefined {
    const r = super.get<R>(actor, snapshot, msg);
    if (r) this.hits++;
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
            const plain = apply(sc, w, en[k]!, { detail: false });
            const memoed = apply(sc, w, en[k]!, { detail: false, memo });
            expect(memoed.events).toEqual(plain.events);
            expect(fpHex(hasher.fp(memoed.world))).toBe(fpHex(hasher.fp(plain.world)));
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
        const plain = apply(sc, w, s, { detail: false });
        const memoed = apply(sc, w, s, { detail: false, memo });
        expect(memoed.events).toEqual(plain.events);
        expect(fpHex(hasher.fp(memoed.world))).toBe(fpHex(hasher.fp(plain.world)));
        w = memoed.world;
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
});
