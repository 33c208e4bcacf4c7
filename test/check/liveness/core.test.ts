// Liveness on cyclic state graphs: eventually / leadsTo / non-progress cycles under
// weak fairness, lasso counterexamples that replay to the same fingerprint, and a
// differential test of the SCC pass against a naive reference on random cyclic systems.
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { ScenarioError, defineScenario, eventually, leadsTo, nonProgressCycles, send, check, replayLasso, type Scenario, type ScenarioDef } from 'interleave';
import { rally, retry } from '../../../src/machines/demo/rally.ts';
import { referenceLiveness, randomCyclicSystem } from '../../helpers/liveness-reference.ts';

const bfs = { strategy: 'bfs' as const };

function redefine(sc: Scenario, over: Partial<ScenarioDef>): Scenario {
  return defineScenario({ name: sc.name, actors: sc.actors, start: sc.start ?? [], ...(sc.fairness ? { fairness: sc.fairness } : {}), ...over });
}

describe('eventually on a rally that never stops', () => {
  it('violates `eventually a done` with a lasso that returns to the same fingerprint', async () => {
    const sc = rally('endless');
    const r = await check(sc, bfs);
    expect(r.ok).toBe(false);
    expect(r.complete).toBe(false);
    const v = r.violation!;
    expect(v.property).toMatchObject({ kind: 'liveness', name: 'a done' });
    expect(v.cycleStart).toBe(2);
    expect(v.schedule).toEqual(['deliver:env->a:serve', 'deliver:a->b:ball', 'deliver:b->a:ball', 'deliver:a->b:ball']);
    const re = replayLasso(sc, v.schedule, v.cycleStart, 'a done');
    expect(re.loop).toMatchObject({ returns: true, fair: true, owed: true });
    expect(re.loop!.from).toBe(re.loop!.to);
    expect(re.property?.kind).toBe('liveness');
    // What quiescence-only checking says about the same model: nothing (it never quiesces).
    const old = await check(redefine(sc, { atEnd: { 'a done': (q) => q.matches('a', 'done') } }), bfs);
    expect(old.ok).toBe(true);
    expect(r.options.por).toBe(false);
    expect(r.options.porNote).toMatch(/liveness/);
    expect(r.stats.liveness!.cyclicComponents).toBeGreaterThan(0);
    expect(r.stats.liveness!.bytesPerState).toBeGreaterThan(0);
  });

  it('holds when a referee whistles and deliveries are weakly fair; an unfair scheduler starves the whistle', async () => {
    const fair = await check(rally('referee', 'actors'), bfs);
    expect(fair.ok).toBe(true);
    expect(fair.complete).toBe(true);
    expect(fair.stats.liveness!.cyclicComponents).toBeGreaterThan(0); // the rally still cycles after the whistle
    const unfair = await check(rally('referee', 'none'), bfs);
    expect(unfair.ok).toBe(false);
    const v = unfair.violation!;
    expect(v.property.name).toBe('referee finishes');
    // The whistle is never delivered on the lasso.
    expect(v.schedule).not.toContain('deliver:env->referee:whistle');
  });

  it('a stop sent to a player: per-actor fairness is satisfied by the balls, per-channel fairness delivers the stop', async () => {
    const perActor = await check(rally('stop', 'actors'), bfs);
    expect(perActor.ok).toBe(false);
    expect(perActor.violation!.schedule.slice(perActor.violation!.cycleStart)).not.toContain('deliver:env->a:stop');
    const perChannel = await check(rally('stop', 'channels'), bfs);
    expect(perChannel).toMatchObject({ ok: true, complete: true });
  });
});

describe('leadsTo and non-progress cycles on a retry loop', () => {
  it('unbounded retries violate leadsTo(request, response)', async () => {
    const sc = retry(0);
    const r = await check(sc, bfs);
    expect(r.violation!.property).toMatchObject({ kind: 'liveness', name: 'request leads to response' });
    expect(r.violation!.property.message).toMatch(/holds after step 1 .* repeat forever/);
    expect(r.violation!.schedule.slice(r.violation!.cycleStart)).toEqual(['deliver:client->server:request', 'deliver:server->client:unavailable']);
  });

  it('bounded retries hold (the client gives up: the graph is acyclic and the run ends answered)', async () => {
    const r = await check(retry(3), bfs);
    expect(r).toMatchObject({ ok: true, complete: true });
    expect(r.stats.liveness!.cyclicComponents).toBe(0);
  });

  it('a server that recovers: only channel fairness on env -> server forces the recover message in', async () => {
    expect((await check(retry(0, true, 'actors'), bfs)).ok).toBe(false);
    expect(await check(retry(0, true, 'channels'), bfs)).toMatchObject({ ok: true, complete: true });
  });

  it('nonProgressCycles: the retry storm is a non-progress cycle; a loop through a progress state is not', async () => {
    const sc = retry(0);
    const np = redefine(sc, { liveness: { storm: sc.liveness!['no retry storm']! } });
    const r = await check(np, bfs);
    expect(r.violation!.property).toMatchObject({ kind: 'liveness', name: 'storm' });
    expect(r.violation!.property.message).toMatch(/non-progress cycle/);
    // Bounded retries end (ends are not non-progress cycles).
    const bounded = retry(2);
    expect((await check(redefine(bounded, { liveness: { storm: nonProgressCycles() } }), bfs)).ok).toBe(true);
    // A clock that loops forever through a state tagged `progress`.
    const clock = setup({ types: {} as { events: { type: 'tick' } } }).createMachine({
      initial: 'a',
      states: {
        a: { on: { tick: { target: 'b', actions: send('clock', { type: 'tick' }) } } },
        b: { tags: ['progress'], on: { tick: { target: 'a', actions: send('clock', { type: 'tick' }) } } },
      },
    });
    const def = { name: 'clock', actors: { clock }, start: [{ to: 'clock', msg: { type: 'tick' } }] };
    expect(await check(defineScenario({ ...def, liveness: { ticks: nonProgressCycles() } }), bfs)).toMatchObject({ ok: true, complete: true });
    const never = await check(defineScenario({ ...def, liveness: { ticks: nonProgressCycles(() => false) } }), bfs);
    expect(never.violation!.property.name).toBe('ticks');
    // leadsTo(a, b) holds on the clock, leadsTo(a, never) does not.
    expect((await check(defineScenario({ ...def, liveness: { ab: leadsTo((q) => q.matches('clock', 'a'), (q) => q.matches('clock', 'b')) } }), bfs)).ok).toBe(true);
    expect((await check(defineScenario({ ...def, liveness: { an: leadsTo((q) => q.matches('clock', 'a'), () => false) } }), bfs)).ok).toBe(false);
  });
});

describe('options, strategies and bad input', () => {
  it('dfs builds the same graph; liveness: false falls back to quiescence-only checks; sampling says it skipped liveness', async () => {
    const sc = rally('endless');
    const d = await check(sc, { strategy: 'dfs' });
    expect(d.violation!.property.name).toBe('a done');
    const off = await check(sc, { ...bfs, liveness: false });
    expect(off.ok).toBe(true);
    expect(off.options.livenessNote).toMatch(/not checked/);
    const rnd = await check(sc, { strategy: 'random', runs: 3, maxDepth: 20, seed: 1 });
    expect(rnd.options.livenessNote).toMatch(/dfs and bfs only/);
  });

  it('a lasso that is not one is refused by replay with the reason', async () => {
    const sc = rally('endless');
    const r = await check(sc, bfs);
    const v = r.violation!;
    const shifted = replayLasso(sc, v.schedule, 1, 'a done');
    expect(shifted.property).toBeUndefined();
    expect(shifted.note).toMatch(/does not return/);
    const fairSc = rally('referee', 'actors');
    const starving = replayLasso(fairSc, ['deliver:env->a:serve', 'deliver:a->b:ball', 'deliver:b->a:ball', 'deliver:a->b:ball'], 2, 'referee finishes');
    expect(starving.loop).toMatchObject({ returns: true, fair: false });
    expect(starving.note).toMatch(/starves/);
  });

  it('a budget cut still reports a cycle found in the explored part, and never says complete', async () => {
    const r = await check(rally('endless'), { ...bfs, maxStates: 3 });
    expect(r.complete).toBe(false);
    const held = await check(rally('referee', 'actors'), { ...bfs, maxStates: 3 });
    expect(held).toMatchObject({ ok: true, complete: false, cutBy: 'maxStates' });
  });

  it('rejects liveness and fairness declarations it cannot read, naming the field', () => {
    const base = { name: 'x', actors: rally().actors, start: rally().start! };
    expect(() => defineScenario({ ...base, liveness: { p: ((q: any) => q) as any } })).toThrow(ScenarioError);
    expect(() => defineScenario({ ...base, liveness: { p: ((q: any) => q) as any } })).toThrow(/liveness\.p must be built with eventually/);
    expect(() => defineScenario({ ...base, liveness: { p: eventually('x' as any) } })).toThrow(/liveness\.p: p must be a function/);
    expect(() => defineScenario({ ...base, fairness: { actors: ['nobody'] } })).toThrow(/fairness\.actors names unknown actor 'nobody'/);
    expect(() => defineScenario({ ...base, fairness: { channels: [['a', 'zz']] } })).toThrow(/fairness\.channels\[0\] names unknown receiver 'zz'/);
    expect(() => defineScenario({ ...base, fairness: { strong: true } as any })).toThrow(/fairness\.strong is not a fairness setting/);
  });
});

describe('the SCC pass agrees with a naive reference on random cyclic systems', () => {
  it('16 systems x 3 properties x 3 fairness settings: same verdicts, every counterexample replays', async () => {
    let violated = 0,
      held = 0,
      fairnessDecides = 0;
    for (let seed = 1; seed <= 16; seed++) {
      const verdicts = new Map<string, boolean[]>();
      for (const fairness of ['none', 'actors', 'channels'] as const) {
        const { sc, props } = randomCyclicSystem(seed, fairness);
        // The reference decides each property on the system's one state graph (built once for
        // all three); the checker sees each property alone.
        const all = redefine(sc, { liveness: props });
        for (const [name, prop] of Object.entries(props)) {
          const one = redefine(sc, { liveness: { [name]: prop } });
          const want = referenceLiveness(all, name);
          verdicts.set(name, [...(verdicts.get(name) ?? []), want]);
          const r = await check(one, bfs);
          expect(r.ok, `seed ${seed} ${fairness} ${name}: reference says ${want ? 'violated' : 'holds'}`).toBe(!want);
          if (r.ok) {
            expect(r.complete).toBe(true);
            held++;
          } else {
            violated++;
            const v = r.violation!;
            const re = replayLasso(one, v.schedule, v.cycleStart, name);
            expect(re.property?.kind, `seed ${seed} ${fairness} ${name}: ${re.note}`).toBe('liveness');
          }
        }
      }
      for (const v of verdicts.values()) if (new Set(v).size > 1) fairnessDecides++;
    }
    // Both verdicts occur, and fairness changes the verdict often enough for the comparison to test it.
    expect(violated).toBeGreaterThan(25);
    expect(held).toBeGreaterThan(25);
    expect(fairnessDecides).toBeGreaterThan(6);
  }, 180_000);
});
