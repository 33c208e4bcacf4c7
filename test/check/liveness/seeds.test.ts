// The seed protocols' liveness properties checked as liveness over every run (the
// SCC pass on the full state graph), not only at quiescent worlds: Amber I12 and
// Airflow LIV-1 / LIV-3 (LIV-2 is a bound on each attempt, which a monitor checks
// when the attempt ends). Both models count iterations and tries in their state,
// so their graphs are acyclic: the pass finds no cyclic component, which the tests
// state, and its verdicts then match the quiescent checks.
import { describe, expect, it } from 'vitest';
import { check } from 'interleave';
import { parseOutcomes } from '../../../src/machines/airflow/config.ts';
import { buildAirflow } from '../../../src/machines/airflow/scenario.ts';
import { amberScenario } from '../../../src/machines/amber/scenario.ts';

describe('Amber I12 as a liveness property', () => {
  it('the fixed design (read at EndChannel) completes on every run; the graph is acyclic', async () => {
    const sc = amberScenario({ design: 'read-at-endchannel', liveness: true });
    expect(Object.keys(sc.liveness!)).toEqual(['I12 every run completes']);
    const r = await check(sc, { strategy: 'bfs' });
    expect(r).toMatchObject({ ok: true, complete: true });
    expect(r.options.liveness).toMatchObject({ algorithm: 'scc', properties: ['I12 every run completes'] });
    expect(r.stats.liveness!.cyclicComponents).toBe(0);
    expect(r.stats.liveness!.edges).toBe(r.stats.transitions);
  });

  it('the first design (read at consume) hangs: a run ends without completing (found first as the quiescent I12 / deadlock)', async () => {
    const r = await check(amberScenario({ design: 'read-at-consume', liveness: true }), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.message).toMatch(/hang: reader .* exited without EndChannel/);
  });

  it('I12 over runs alone: with the quiescent checks removed, the SCC pass reports the same hang as a run that ends owed', async () => {
    const sc = amberScenario({ design: 'read-at-consume', liveness: true });
    const { defineScenario } = await import('interleave');
    const only = defineScenario({ name: sc.name, actors: sc.actors, start: sc.start!, faults: sc.faults!, liveness: sc.liveness!, acceptEnd: () => true });
    const r = await check(only, { strategy: 'bfs' });
    expect(r.violation!.property).toMatchObject({ kind: 'liveness', name: 'I12 every run completes' });
    expect(r.violation!.property.message).toMatch(/the run ends after step \d+/);
    expect(r.violation!.cycleStart).toBeUndefined();
  });
});

describe('Airflow LIV-1 and LIV-3 as liveness properties', () => {
  it('transient failures and enough tries: every run succeeds and every startup read ends; acyclic', async () => {
    const sc = buildAirflow({ items: 3, W: 2, tries: 2, script: parseOutcomes('sfs'), liveness: true });
    expect(Object.keys(sc.liveness!)).toEqual(['LIV-1 eventually succeeds', 'LIV-3 startup read ends']);
    const r = await check(sc, { strategy: 'bfs' });
    expect(r).toMatchObject({ ok: true, complete: true });
    expect(r.stats.liveness!.cyclicComponents).toBe(0);
  });

  it('one try for a failing index: LIV-1 has no premise and is not declared; LIV-3 still holds', async () => {
    const sc = buildAirflow({ items: 2, W: 2, tries: 1, script: parseOutcomes('sf'), liveness: true });
    expect(Object.keys(sc.liveness!)).toEqual(['LIV-3 startup read ends']);
    expect(await check(sc, { strategy: 'bfs' })).toMatchObject({ ok: true, complete: true });
  });
});
