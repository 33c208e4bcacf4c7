// Scenarios 1, 2, 6 and 8-15 of docs/materialize.md under the model
// checker, each explored completely (bfs) with invariants 1-11 and the scenario's
// expected outcome as end-of-run properties.
import { describe, expect, it } from 'vitest';
import { check, formatViolation, replaySchedule, parseParams, checkDeterminism } from 'interleave';
import { buildScenario, type Setup } from '../../../src/machines/materialize/scenario.ts';
import { materializePeeksFamily } from '../../../src/machines/materialize/family.ts';
import * as C from '../../../src/machines/materialize/cases.ts';

async function holds(setup: Setup, maxStates = 400_000) {
  const r = await check(buildScenario(setup), { strategy: 'bfs', maxStates });
  if (r.violation) throw new Error(formatViolation(r.violation).slice(0, 6000));
  expect(r.ok).toBe(true);
  expect(r.complete).toBe(true);
  expect(r.unreached).toEqual([]);
  expect(r.stats.distinctStates).toBeGreaterThan(3);
  return r;
}

describe('materialize-peeks: the documented scenarios under the checker (complete exploration)', () => {
  it('1: flag off, idle worker: Inline, inline = 1, the rows', async () => {
    await holds(C.idleLookup({ design: 'inline' }));
  });

  it('2: flag on, idle worker: Offloaded, offloaded = 1, in_flight 0 -> 1 -> 0, the same rows', async () => {
    await holds(C.idleLookup({ design: 'offload', slotRelease: 'walk-end' }));
    await holds(C.idleLookup({ design: 'offload', slotRelease: 'retire' }));
  });

  it('6: cap 2, five scans (retire): in_flight <= 2, counters sum to 5, 2 offloaded + 3 capped reachable', async () => {
    await holds(C.capSaturation({ slotRelease: 'retire' }, 5), 200_000);
  });

  it('6 (four scans, walk-end): a walk ending mid-batch frees its slot at once, so more than 2 offloaded is reachable', async () => {
    await holds(C.capSaturation({ slotRelease: 'walk-end' }, 4), 200_000);
  });

  it('8 (scaled): cap lowered 2 -> 1 with two walks in flight: later peeks capped, no walk interrupted', async () => {
    await holds(C.capLowered({ slotRelease: 'walk-end' }));
  });

  it('9: compaction gate: exact error text on both substrates; no counter, slot or cursor', async () => {
    await holds(C.compactionGate({ design: 'inline' }));
    await holds(C.compactionGate({ design: 'offload' }));
  });

  it('10: compaction after dispatch: since passes t while the walk runs; the answer equals the inline answer at t', async () => {
    await holds(C.compactionAfterDispatch({ design: 'offload' }));
  });

  it('11: not ready, then ready: pending and holding t, dispatched after the upper passes it', async () => {
    await holds(C.notReadyThenReady({ design: 'offload', slotRelease: 'walk-end' }));
    await holds(C.notReadyThenReady({ design: 'inline' }));
  });

  it('12: offloaded stash diversion: Stashed equal to the inline rows, slot held across the upload; a failure is one Error', async () => {
    await holds(C.offloadedStash({ design: 'offload', slotRelease: 'walk-end' }));
    await holds(C.offloadedStash({ design: 'offload', slotRelease: 'retire', faults: 1 }));
    await holds(C.offloadedStash({ design: 'inline', faults: 1 }));
  });

  it('13: non-streamable larger than max_result_size: the same error on both substrates, never a spare cursor', async () => {
    await holds(C.nonStreamableLarge({ design: 'inline' }));
    await holds(C.nonStreamableLarge({ design: 'offload' }));
    const sc = buildScenario(C.nonStreamableLarge({ design: 'offload' }));
    const r = await check(sc, { strategy: 'random', runs: 20, seed: 7 });
    expect(r.ok).toBe(true);
    // Replay one run and look at the spawned walk: no spare cursor.
    const run = replaySchedule(sc, ['deliver:env->client:Start', 'deliver:client->w0:PeekCmd', 'deliver:w0->w0:Loop']);
    const spawn = run.trace.find((e) => e.kind === 'send' && e.msg.type === 'SpawnWalk');
    expect(spawn && spawn.kind === 'send' && (spawn.msg.snapshot as { spare: boolean }).spare).toBe(false);
  });

  it('14: cancel during an offloaded walk (walk-end): one Canceled, the walk runs on holding its slot, running <= cap', async () => {
    await holds(C.cancelDuringWalk({ slotRelease: 'walk-end' }));
  });

  it('14: under slotRelease=retire the checker FINDS running_blocking > cap (expected counterexample)', async () => {
    const sc = buildScenario(C.cancelDuringWalk({ slotRelease: 'retire' }));
    const r = await check(sc, { strategy: 'bfs', maxStates: 200_000 });
    expect(r.ok).toBe(false);
    const v = r.violation!;
    expect(v.property.name).toBe('running-blocking-within-cap');
    expect(v.property.message).toMatch(/2 blocking walks running, cap 1/);
    // The counterexample replays, and in it the cancel returned the slot before the walk ended.
    const again = replaySchedule(sc, v.schedule);
    expect(again.violation?.property.name).toBe('running-blocking-within-cap');
    const kinds = again.trace.filter((e) => e.kind === 'emit').map((e) => (e.kind === 'emit' ? `${String(e.msg.type)}:${String(e.msg.uuid)}` : ''));
    expect(kinds.indexOf('SlotRelease:p1')).toBeLessThan(kinds.indexOf('WalkStart:p2'));
    expect(kinds).not.toContain('WalkEnd:p1');
    // Everything else holds under retire with the resource form off.
    await holds(C.cancelDuringWalk({ slotRelease: 'retire', resourceForm: false }));
  });

  it('14 under C3 (offload-yield): the walk notices the cancel at a slice boundary and stops early; C1 never does', async () => {
    await holds(C.cancelDuringWalk({ design: 'offload-yield', slotRelease: 'walk-end', fuel: { perPeek: 2, perPass: 100 } }));
  });

  it('15: an error on one worker wins the merge, on both substrates (two workers)', async () => {
    await holds(C.errorsMerge({ design: 'inline' }));
    await holds(C.errorsMerge({ design: 'offload', slotRelease: 'walk-end' }));
  });

  it('the counting point at outcome keeps the partition (cancelled walks count on no label)', async () => {
    await holds(C.cancelDuringWalk({ slotRelease: 'walk-end', countAt: 'outcome' }));
    await holds(C.capLowered({ slotRelease: 'retire', countAt: 'outcome' }));
  });

  it('conservative command visibility (next step) keeps every invariant', async () => {
    await holds(C.notReadyThenReady({ design: 'offload', slotRelease: 'walk-end', cmdVisibility: 'next' }));
  });
});

describe('materialize-peeks family (fixture=check)', () => {
  const build = (raw: Record<string, string>) => materializePeeksFamily.build(parseParams(materializePeeksFamily, raw));

  it('defaults (retire, cancel on) report the resource-form counterexample, with a hint', async () => {
    const r = await check(build({}), { strategy: 'bfs', maxStates: 200_000 });
    expect(r.violation?.property.name).toBe('running-blocking-within-cap');
    expect(materializePeeksFamily.hint?.(parseParams(materializePeeksFamily, {}), true)).toMatch(/walk-end/);
  });

  it('walk-end holds completely, and every design holds with the resource form off', async () => {
    for (const raw of <Record<string, string>[]>[{ slotRelease: 'walk-end' }, { design: 'inline', peeks: '3' }, { design: 'yield', peeks: '3' }, { design: 'offload-yield', resourceForm: 'false' }]) {
      const r = await check(build(raw), { strategy: 'bfs', maxStates: 400_000 });
      if (r.violation) throw new Error(formatViolation(r.violation).slice(0, 4000));
      expect(r.complete).toBe(true);
    }
  });

  it('is deterministic: the same seed gives the same trace (machines are pure)', () => {
    for (const raw of <Record<string, string>[]>[{}, { peeks: '4', workers: '2', slotRelease: 'walk-end' }]) {
      const rep = checkDeterminism(build(raw), 11);
      expect(rep.deterministic).toBe(true);
      expect(rep.events).toBeGreaterThan(20);
    }
  });

  it('rejects a bad parameter with a clear error', () => {
    expect(() => build({ design: 'fast' })).toThrow(/design.*one of inline, offload, yield, offload-yield/);
  });
});
