// The PR #6971 race: the read at consume (D1) overlaps the worker's own reader; with
// F_overlap the reader gets 403, exits without EndChannel and the loop hangs. The
// read at EndChannel (D2) explores completely with the same faults and no violation.
// F_recreate mid-stream is caught as I1 by every design. Counts, never times.
import { describe, expect, it } from 'vitest';
import { drive, randomChooser, replay, check, expectHolds, parseParams } from 'interleave';
import { amberLoopFamily } from '../../../src/machines/amber/family.ts';
import { amberScenario, startOf } from '../../../src/machines/amber/scenario.ts';
import { DESIGNS } from '../../../src/machines/amber/operators.ts';

describe('read-at-consume (D1)', () => {
  // From the materialized start (the family default) and from scratch: the same violation, the scratch one longer by the earlier regions.
  it.each([
    ['materialized', 10, 20],
    ['scratch', 40, 60],
  ] as const)('violates I2 at the first consume from start=%s (bfs, shortest counterexample ends on the StateFrame delivery)', async (start, maxSteps, maxStates) => {
    const r = await check(amberScenario({ start, design: 'read-at-consume', overlapFault: false, designChecks: true }), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    const v = r.violation!;
    expect(v.property.name).toMatch(/^I2 /);
    expect(v.property.message).toContain("LE's main loop is reading");
    // The violating step is the matching consume: the LE reader's StateFrame reaching LE.
    expect(v.schedule.at(-1)).toBe('deliver:LE.r0->LE:StateFrame');
    // Nothing earlier in the run consumed anything: it is the first consume.
    expect(v.schedule.filter((s) => s === 'deliver:LE.r0->LE:StateFrame')).toHaveLength(1);
    expect(v.schedule.length).toBeLessThanOrEqual(maxSteps);
    expect(r.stats.distinctStates).toBeLessThan(maxStates);
  });

  // materialized: the LE region only (18 steps); scratch: Src and LS regions first (48).
  it.each([
    ['materialized', 20, 100],
    ['scratch', 50, 300],
  ] as const)('with F_overlap, bfs reports the hang from start=%s: reader 403, no EndChannel, no PortCompleted', async (start, maxSteps, maxStates) => {
    const sc = amberScenario({ start }); // D1, overlapFault on
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    const v = r.violation!;
    expect(v.property.kind).toBe('eventually');
    expect(v.property.message).toMatch(/hang: reader LE\.r0 failed \(S3 GetObject: 403 AccessDenied/);
    expect(v.property.message).toContain('exited without EndChannel');
    expect(v.property.message).toContain('no error reached the coordinator');
    expect(v.schedule).toContain('deliver:LE.r0->store:Fetch!403');
    // The shortest counterexample: the LE region (plus the Src and LS regions from scratch) up to the reader's failed fetch.
    expect(v.schedule.length).toBeLessThanOrEqual(v.originalLength);
    expect(v.schedule.length).toBeLessThanOrEqual(maxSteps);
    expect(r.stats.distinctStates).toBeLessThan(maxStates);
    // The trace shows the symptom CI saw: after the 403 the reader sends nothing; LE never sends PortCompleted.
    const k = v.trace.findIndex((e) => e.kind === 'io' && e.outcome === '403');
    expect(k).toBeGreaterThan(0);
    const after = v.trace.slice(k);
    expect(after.some((e) => e.kind === 'send' && e.from === 'LE.r0')).toBe(false);
    expect(v.trace.some((e) => e.kind === 'send' && e.from === 'LE' && e.msg.type === 'PortCompleted')).toBe(false);
    expect(v.trace.some((e) => e.kind === 'send' && e.to === 'coordinator' && e.msg.type === 'ConsoleMessage')).toBe(false);
    // Replaying the schedule reproduces it.
    const again = replay(sc, v.schedule);
    expect(again.schedule).toEqual(v.schedule);
  });

  it.each([
    ['materialized', 20],
    ['scratch', 60],
  ] as const)('pct finds the hang within a few runs from start=%s and shrinks it', async (start, maxSteps) => {
    const r = await check(amberScenario({ start }), { strategy: 'pct', seed: 7, runs: 500 });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.message).toMatch(/hang: reader LE\.r0 failed/);
    expect(r.stats.runs).toBeLessThanOrEqual(50);
    expect(r.violation!.schedule.length).toBeLessThanOrEqual(maxSteps);
  });
});

describe('read-at-endchannel (D2)', () => {
  it('explores single completely with the same faults: every property holds', async () => {
    const r = await check(amberScenario({ design: 'read-at-endchannel', designChecks: true }), { strategy: 'bfs' });
    expectHolds(r);
    expect(r.complete).toBe(true);
    expect(r.unreached).toEqual([]);
  });

  it('explores nested 2x2 completely with the same faults', async () => {
    const r = await check(amberScenario({ design: 'read-at-endchannel', designChecks: true, topology: 'nested', rows: 2 }), { strategy: 'bfs' });
    expectHolds(r);
    expect(r.complete).toBe(true);
  });

  it('the seed and runs that break D1 under pct pass D2', async () => {
    const opts = { strategy: 'pct' as const, seed: 7, runs: 100 };
    const broken = await check(amberScenario({ design: 'read-at-consume' }), opts);
    expect(broken.ok).toBe(false);
    const fixed = await check(amberScenario({ design: 'read-at-endchannel' }), opts);
    // Sampling never proves absence: 100 runs without a failure is what this claims.
    expectHolds(fixed, { allowIncomplete: true });
    expect(fixed.stats.runs).toBe(100);
  });

  it('F_overlap is never offered under D2, and offered in most D1 walks', () => {
    const offers = (design: 'read-at-consume' | 'read-at-endchannel') => {
      const sc = amberScenario({ design });
      let walks = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const pick = randomChooser(seed, 0);
        let seen = false;
        drive(sc, (w, steps, d) => {
          if (steps.some((s) => s.id.endsWith('!403'))) seen = true;
          return pick(w, steps, d);
        }, { detail: false });
        if (seen) walks++;
      }
      return walks;
    };
    expect(offers('read-at-endchannel')).toBe(0);
    expect(offers('read-at-consume')).toBeGreaterThan(20);
  });
});

describe('table-in-state (D0)', () => {
  it('has no main-loop read, so F_overlap is never offered: complete and every property holds', async () => {
    const r = await check(amberScenario({ design: 'table-in-state', designChecks: false }), { strategy: 'bfs' });
    expectHolds(r);
    expect(r.complete).toBe(true);
  });
});

describe('F_recreate mid-stream', () => {
  for (const design of DESIGNS) {
    it(`is caught as I1 under ${design}`, async () => {
      const r = await check(amberScenario({ design, overlapFault: false, recreateFault: true }), { strategy: 'bfs' });
      expect(r.ok).toBe(false);
      expect(r.violation!.property.name).toMatch(/^I1 /);
      expect(r.violation!.property.message).toMatch(/mid-stream .* pinned at generation 1 .* now generation 2/);
      expect(r.violation!.schedule.at(-1)).toMatch(/!recreate$/);
    });
  }
});

describe('family', () => {
  it('defaults show the race from the materialized start and hint at the fixed design and at the scratch start', async () => {
    const p = parseParams(amberLoopFamily, {});
    expect(p.design).toBe('read-at-consume');
    expect(p.overlapFault).toBe(true);
    expect(p.topology).toBe('single');
    expect(p.start).toBe('materialized');
    const sc = amberLoopFamily.build(p);
    expect(startOf(sc).kind).toBe('materialized');
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.schedule.length).toBeLessThanOrEqual(20);
    const hint = amberLoopFamily.hint!(p, true)!;
    // The fix's command repeats only parameters the user changed (not the default start).
    expect(hint).toContain('npx interleave check amber-loop --param design=read-at-endchannel\n');
    expect(hint).toContain('npx interleave check amber-loop --param start=scratch');
    const q = parseParams(amberLoopFamily, { start: 'scratch', rows: '2' });
    expect(amberLoopFamily.hint!(q, true)).toContain('--param design=read-at-endchannel --param start=scratch --param rows=2');
    expect(amberLoopFamily.hint!(q, true)).not.toContain('the same check from StartWorkflow');
  });

  it('rejects unknown parameters and bad values by name', () => {
    expect(() => parseParams(amberLoopFamily, { design: 'read-later' })).toThrow(/design.*table-in-state, read-at-consume, read-at-endchannel/);
    expect(() => parseParams(amberLoopFamily, { toplogy: 'single' })).toThrow(/no parameter 'toplogy'/);
  });
});
