// start=materialized begins the world when the first Loop End region is scheduled.
// These tests hold it to what makes that sound: it is the one world every scratch run
// reaches at that moment (derived, not hand-written), a scratch run is that prefix
// followed by a materialized run, and every property outcome is the same from both
// starts. Where an earlier region can fail or take a fault, the start stays scratch.
import { describe, expect, it } from 'vitest';
import { checkDeterminism, drive, queryOf, randomChooser, check, parseParams, type World } from 'interleave';
import { initialWorld } from 'interleave/kernel';
import { amberLoopFamily } from '../../../src/machines/amber/family.ts';
import { amberScenario, DEFAULT_PARAMS, type AmberParams, loopEndLevel, startOf, workflowOf } from '../../../src/machines/amber/scenario.ts';
import { deriveStart, worldKey } from '../../../src/machines/amber/materialized.ts';
import { portBase, resultUri, stateUri } from '../../../src/machines/amber/messages.ts';
import { docFiles, type StoreState } from '../../../src/machines/amber/store.ts';
import { runOnce } from '../../helpers/amber.ts';

const seeded = (p: Partial<AmberParams>) => {
  const sc = amberScenario({ ...p, start: 'materialized' });
  const st = startOf(sc);
  if (st.kind !== 'materialized') throw new Error(`expected a materialized start, got scratch: ${st.reason}`);
  return { sc, seed: st.seed };
};

describe('the materialized start is the world every scratch run reaches when the Loop End region is scheduled', () => {
  const shapes: Partial<AmberParams>[] = [{}, { topology: 'nested', rows: 2 }, { topology: 'jvm-chain' }, { topology: 'fan-in' }, { endWorkerRace: true }, { bodyHops: 2 }];
  for (const shape of shapes) {
    it(JSON.stringify(shape), () => {
      const { sc, seed } = seeded(shape);
      const init = initialWorld(sc).world;
      expect(worldKey(init)).toBe(worldKey(seed.prefix.world));
      // Random fault-free scratch runs, stopped where the coordinator schedules the LE region.
      const scratch = amberScenario({ ...shape, start: 'scratch' });
      const level = loopEndLevel(workflowOf({ ...DEFAULT_PARAMS, ...shape }));
      const atCut = (w: World) => queryOf(scratch, w).context('coordinator').cursor >= level;
      for (let s = 1; s <= 8; s++) {
        const pick = randomChooser(s, 0);
        const run = drive(scratch, (w, steps, d) => (atCut(w) ? undefined : pick(w, steps, d)), { detail: false });
        expect(atCut(run.world)).toBe(true);
        expect(worldKey(run.world)).toBe(worldKey(init));
      }
    });
  }

  it('what it holds (single): Src and LS materialized, their workers ended, the cursor at LE, its CreatePort in flight', () => {
    const { sc, seed } = seeded({});
    const q = queryOf(sc, initialWorld(sc).world);
    const c = q.context('coordinator');
    expect([q.value('coordinator'), c.cursor, c.execs, c.jumps]).toEqual(['creatingPorts', 2, { Src: 1, LS: 1 }, {}]);
    expect(q.value('Src')).toBe('terminated');
    expect(q.value('LS')).toBe('terminated');
    expect(q.matches('LS.r0', 'done')).toBe(true);
    expect(q.value('LE')).toBe('ready');
    const store = q.context('store') as StoreState;
    for (const op of ['Src', 'LS']) expect(docFiles(store, resultUri(portBase(op))).length).toBeGreaterThan(0);
    expect(docFiles(store, stateUri(portBase('LS')))).toHaveLength(1);
    expect(seed.start.map((m) => `${m.from}->${m.to}:${m.msg.type}`)).toEqual(['coordinator->store:CreatePort']);
    expect(seed.prefix.schedule[0]).toBe('deliver:env->coordinator:StartWorkflow');
  });
});

describe('a scratch run is the earlier regions followed by the materialized run', () => {
  it('the materialized scenario is deterministic (same seed, same run), and deriving it twice gives the same world', () => {
    expect(checkDeterminism(amberScenario({ start: 'materialized' }), 11).deterministic).toBe(true);
    expect(checkDeterminism(amberScenario({ start: 'materialized', design: 'read-at-endchannel', topology: 'nested', rows: 2 }), 5).deterministic).toBe(true);
    // Derived afresh (not from amberScenario's per-parameter cache), the seed is the same world.
    const again = deriveStart(amberScenario({ start: 'scratch' }), loopEndLevel(workflowOf(DEFAULT_PARAMS)));
    expect(again.ok && worldKey(again.seed.prefix.world)).toBe(worldKey(initialWorld(amberScenario({ start: 'materialized' })).world));
  });

  const shapes: Partial<AmberParams>[] = [
    { design: 'read-at-endchannel' },
    { design: 'read-at-endchannel', topology: 'nested' },
    { design: 'table-in-state' },
    { design: 'read-at-endchannel', endWorkerRace: true },
    { design: 'read-at-endchannel', updateError: true },
  ];
  for (const shape of shapes) {
    it(JSON.stringify(shape), () => {
      const a = runOnce({ ...shape, start: 'scratch' });
      const b = runOnce({ ...shape, start: 'materialized' });
      expect(startOf(b.sc).kind).toBe('materialized');
      expect(b.schedule).toEqual(a.schedule);
      // The same events in the same order. Step numbers and the virtual clock restart at
      // the cut (timers are relative, so only the printed times move by the prefix's time).
      const cut = (startOf(b.sc) as Extract<ReturnType<typeof startOf>, { kind: 'materialized' }>).seed.prefix;
      const plain = (shift: number) => (e: any) => JSON.stringify({ ...e, step: undefined, ...('due' in e ? { due: e.due + shift } : {}), ...('at' in e ? { at: e.at + shift } : {}) });
      const tail = b.events.length - cut.events.length;
      expect(b.events.slice(0, cut.events.length).map(plain(0))).toEqual(a.events.slice(0, cut.events.length).map(plain(0)));
      expect(b.events.slice(cut.events.length).map(plain(cut.world.now))).toEqual(a.events.slice(a.events.length - tail).map(plain(0)));
      expect(b.end).toBe(a.end);
      expect(a.q.context('coordinator')).toEqual(b.q.context('coordinator'));
      expect(b.store.docs).toEqual(a.store.docs);
    });
  }
});

describe('every property outcome is the same from both starts', () => {
  const cases: Partial<AmberParams>[] = [
    { design: 'read-at-consume' },
    { design: 'read-at-consume', overlapFault: false, designChecks: true },
    { design: 'read-at-consume', overlapFault: false },
    { design: 'read-at-endchannel', designChecks: true },
    { design: 'table-in-state' },
    { design: 'read-at-consume', topology: 'nested', rows: 2 },
    { design: 'read-at-endchannel', topology: 'nested', rows: 2, designChecks: true },
    { design: 'read-at-endchannel', deletedInput: true },
    { design: 'read-at-endchannel', backEdgeWriteError: true, endWorkerAttempts: 3 },
  ];
  for (const p of cases) {
    it(JSON.stringify(p), async () => {
      const [a, b] = await Promise.all([check(amberScenario({ ...p, start: 'scratch' }), { strategy: 'bfs' }), check(amberScenario({ ...p, start: 'materialized' }), { strategy: 'bfs' })]);
      expect(startOf(amberScenario({ ...p, start: 'materialized' })).kind).toBe('materialized');
      const outcome = (r: typeof a) => ({ ok: r.ok, complete: r.complete, kind: r.violation?.property.kind, name: r.violation?.property.name, message: r.violation?.property.message, unreached: r.unreached });
      expect(outcome(b)).toEqual(outcome(a));
      // The materialized check skips the earlier regions' worlds, nothing else: explored
      // completely, scratch visits exactly those plus the materialized check's (the cut shared).
      const { seed } = seeded(p);
      if (a.complete) expect(a.stats.distinctStates!).toBe(b.stats.distinctStates! + seed.explored - 1);
      else expect(b.stats.distinctStates!).toBeLessThan(a.stats.distinctStates!);
      if (a.violation) expect(b.violation!.schedule.length).toBeLessThan(a.violation.schedule.length);
    });
  }
});

describe('where an earlier region can fail or take a fault, the start stays scratch', () => {
  it.each([
    [{ recreateFault: true, overlapFault: false }, /a fault can fire before the Loop End region \(deliver:LS\.r0->store:Fetch!recreate\)/],
    [{ design: 'table-in-state', largeTable: true }, /a run stops before the Loop End region is scheduled/],
    [{ reservedTable: 'init' }, /a run stops before the Loop End region is scheduled/],
  ] as [Partial<AmberParams>, RegExp][])('%j', async (p, why) => {
    const sc = amberScenario({ ...p, start: 'materialized' });
    const st = startOf(sc);
    expect(st.kind).toBe('scratch');
    expect(st.kind === 'scratch' && st.reason).toMatch(why);
    expect(sc.description).toContain('from scratch (start=materialized does not apply: a ');
    // The CLI's hint line says so too.
    const fp = parseParams(amberLoopFamily, Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)])));
    expect(amberLoopFamily.hint!(fp, true)).toMatch(/^checked from StartWorkflow: start=materialized does not apply here \(a /);
  });
});

describe('the default check', () => {
  it('shows the race in under 20 steps from the materialized start (48 from scratch)', async () => {
    const p = parseParams(amberLoopFamily, {});
    expect(p.start).toBe('materialized');
    const sc = amberLoopFamily.build(p);
    expect(sc.description).toContain("from the LE region's scheduling");
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    const v = r.violation!;
    expect(v.property.message).toMatch(/^hang: reader LE\.r0 failed \(S3 GetObject: 403 AccessDenied/);
    expect(v.schedule[0]).toBe('deliver:coordinator->store:CreatePort');
    expect(v.schedule).toContain('deliver:LE.r0->store:Fetch!403');
    expect(v.schedule.length).toBeLessThanOrEqual(20);
    const scratch = await check(amberLoopFamily.build(parseParams(amberLoopFamily, { start: 'scratch' })), { strategy: 'bfs' });
    // bfs gives shortest counterexamples: the difference is exactly the earlier regions' steps.
    expect(scratch.violation!.schedule.length - v.schedule.length).toBe(startOf(sc).kind === 'materialized' ? (startOf(sc) as any).seed.prefix.schedule.length : -1);
  });
});
