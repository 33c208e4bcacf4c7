// The violation a check reports does not depend on the partial-order reduction
// (src/check/first-violation.ts): the same property and schedule as `por: false`, with
// the unreduced re-run when the reduced search had pruned something before its first
// violation, and an honest fallback when a budget cuts that re-run.
import { describe, expect, it } from 'vitest';
import { check, checkRun, formatViolation, replaySchedule, type CheckOptions } from 'interleave';
import { progressText } from '../../../src/cli/progress.ts';
import { lostUpdate, orderingBug } from '../../fixtures/check/models.ts';
import { seededBugs } from '../../fixtures/check/seeded-bugs.ts';

interface First {
  search: 'reduced' | 'unreduced';
  reduced: string;
  reducedDistinctStates: number;
  rerunDistinctStates?: number;
}

const LONG = 120_000;

describe('first violation: identical with and without POR', () => {
  for (const bug of seededBugs) {
    it(`${bug.name}: same property and schedule, dfs and bfs`, async () => {
      const sc = bug.build();
      for (const strategy of ['dfs', 'bfs'] as const) {
        const opts: CheckOptions = { strategy, shrink: false, maxStates: 300_000 };
        const off = await check(sc, { ...opts, por: false });
        const on = await check(sc, opts);
        expect(off.ok, `${strategy}`).toBe(false);
        expect(off.violation!.property.name).toMatch(bug.expect);
        expect(on.violation!.property, strategy).toEqual(off.violation!.property);
        expect(on.violation!.schedule, strategy).toEqual(off.violation!.schedule);
        if (on.options.por) expect((on.options.firstViolation as First).search, strategy).toMatch(/^(reduced|unreduced)$/);
      }
    }, LONG);
  }

  it('the shrunk counterexample is the same too, and replays', async () => {
    for (const sc of [lostUpdate(), orderingBug(3, 2, 3)]) {
      for (const strategy of ['dfs', 'bfs'] as const) {
        const off = await check(sc, { strategy, por: false });
        const on = await check(sc, { strategy });
        expect(formatViolation(on.violation!)).toBe(formatViolation(off.violation!));
        expect(on.violation!.passing).toEqual(off.violation!.passing);
        expect(replaySchedule(sc, on.violation!.schedule).violation?.property.name).toBe(on.violation!.property.name);
      }
    }
  });

  it('says which search found it: the reduced one met a violation first, the unreduced re-run decided', async () => {
    const r = await check(lostUpdate(), { strategy: 'dfs', shrink: false });
    const fv = r.options.firstViolation as First;
    expect(fv.search).toBe('unreduced');
    expect(fv.reduced).toBe('invariant:noLostUpdate');
    expect(fv.reducedDistinctStates).toBeLessThan(fv.rerunDistinctStates!);
    expect(r.stats.distinctStates).toBe(fv.rerunDistinctStates);
    expect(r.options.firstViolationNote).toBeUndefined();
    // Progress says when the counts start over for the re-run.
    const run = checkRun(lostUpdate(), { strategy: 'dfs', shrink: false });
    const phases: (string | undefined)[] = [];
    run.progress$.subscribe((p) => {
      phases.push(p.phase);
      if (p.phase) expect(progressText(p, 'checking')).toContain('· unreduced re-run ·');
    });
    await run.result;
    expect(phases[0]).toBeUndefined();
    expect(phases.at(-1)).toBe('unreduced re-run');
  });

  it('a budget that cuts the re-run: the reduced search\'s violation, and a note saying so', async () => {
    const sc = lostUpdate();
    const fv = (await check(sc, { strategy: 'dfs', shrink: false })).options.firstViolation as First;
    // Enough for the reduced search to reach its violation, not for the unreduced one.
    const maxStates = fv.reducedDistinctStates + 1;
    expect(maxStates).toBeLessThan(fv.rerunDistinctStates!);
    const off = await check(sc, { strategy: 'dfs', shrink: false, por: false, maxStates });
    expect([off.ok, off.cutBy]).toEqual([true, 'maxStates']);
    const on = await check(sc, { strategy: 'dfs', maxStates });
    expect(on.ok).toBe(false);
    expect((on.options.firstViolation as First).search).toBe('reduced');
    expect(String(on.options.firstViolationNote)).toMatch(/cut by maxStates .*--no-por may report another first/);
    expect(`invariant:${on.violation!.property.name}`).toBe(fv.reduced);
    expect(replaySchedule(sc, on.violation!.schedule).violation?.property.name).toBe(on.violation!.property.name);
  });
});
