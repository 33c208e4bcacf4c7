// Scenario legends: the built-in families explain every actor and property; step notes
// reach the text report and Mermaid; a malformed legend is refused with its problem named.
import { createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { defineScenario, parseParams, formatMermaid, formatText, type Legend } from 'interleave';
import { propertyNote, stepNotes, reportContext } from 'interleave/kernel';
import { families } from 'interleave/machines';
import { lostUpdateTrace } from '../helpers/report-traces.ts';

describe('the built-in legends', () => {
  for (const name of ['amber-loop', 'materialize-peeks', 'airflow-checkpoints']) {
    it(`${name}: every actor has a role and every property a line`, () => {
      const f = families.find((x) => x.name === name)!;
      const sc = f.build(parseParams(f, {}));
      expect(sc.legend, name).toBeDefined();
      expect(sc.ids.filter((a) => sc.legend!.actors?.[a] === undefined)).toEqual([]);
      const props = [...Object.keys(sc.invariants ?? {}), ...Object.keys(sc.monitors ?? {}), ...Object.keys(sc.eventually ?? {}), ...Object.keys(sc.liveness ?? {})];
      expect(props.length).toBeGreaterThan(0);
      expect(props.filter((p) => p !== 'task succeeded' && propertyNote(sc.legend, p) === undefined)).toEqual([]);
    });
  }
});

describe('step notes', () => {
  const legend: Legend = { actors: { client1: 'the first client', store: 'the counter' }, properties: { 'no-lost-update': 'both increments land' }, steps: [{ step: 'deliver:client2->store:Get', note: 'the second read, before the first write' }, { step: /->store:Put$/, note: 'a write' }] };
  it('match step ids exactly or by RegExp', () => {
    expect(stepNotes(legend, 'deliver:client2->store:Get')).toEqual(['the second read, before the first write']);
    expect(stepNotes(legend, 'deliver:client1->store:Put')).toEqual(['a write']);
    expect(stepNotes(legend, 'deliver:client1->store:Get')).toEqual([]);
    expect(propertyNote(legend, 'no-lost-update')).toBe('both increments land');
  });
  it('are printed by the text report and Mermaid, with the roles and the property line', () => {
    const f = lostUpdateTrace();
    const text = formatText(f, undefined, { legend });
    expect(text).toContain('legend:\n  client1  the first client\n');
    expect(text).toContain('  no-lost-update: both increments land');
    expect(text).toMatch(/store +← client2 +Get[^\n]*\n +✎ the second read, before the first write/);
    const mmd = formatMermaid(f, { legend });
    expect(mmd).toMatch(/Note over a\d+: the first client/);
    expect(mmd).toContain(': ✎ the second read, before the first write');
  });
  it('come from a scenario through reportContext', () => {
    const sc = defineScenario({ name: 'one', actors: { a: createMachine({ initial: 'x', states: { x: {} } }) }, legend });
    expect(reportContext(sc).legend).toBe(legend);
    expect(reportContext(sc).charts?.charts.map((c) => c.actors)).toEqual([['a']]);
  });
  it('a malformed legend is refused, naming the field', () => {
    const m = createMachine({ initial: 'x', states: { x: {} } });
    expect(() => defineScenario({ name: 'bad', actors: { a: m }, legend: { actors: { a: 3 } } as any })).toThrow("scenario 'bad': `legend.actors` must map names to one-line strings");
    expect(() => defineScenario({ name: 'bad', actors: { a: m }, legend: { steps: [{ step: 1, note: 'x' }] } as any })).toThrow('`legend.steps` must be a list of { step: string | RegExp, note: string }');
  });
});
