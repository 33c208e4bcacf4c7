// Context changes in the step list: the keys a step changed, old → new, found from the
// new values a trace records per step and the whole context it records at step 0.
import { describe, expect, it } from 'vitest';
import { formatSteps, formatText } from 'interleave';
import { contextChanges, contextLine, fileView, shortValue } from '../../src/report/index.ts';
import { lostUpdateTrace } from '../helpers/report-traces.ts';

describe('context changes', () => {
  const f = lostUpdateTrace();
  const view = fileView(f);

  it('pairs each changed key with the value it had before the step', () => {
    const all = contextChanges(view);
    expect(all[0]).toEqual([]);
    const step5 = all[5]!;
    expect(step5).toContainEqual({ actor: 'client1', key: 'read', from: null, to: 0, known: true });
    expect(step5).toContainEqual({ actor: 'client1', key: 'tries', from: 0, to: 1, known: true });
    // A key set again to the value it had is no change.
    expect(all.flat().every((c) => JSON.stringify(c.from) !== JSON.stringify(c.to))).toBe(true);
  });

  it('prints them under their step, actor by actor', () => {
    const lines = formatSteps(view, undefined, { context: true });
    const at = lines.findIndex((l) => /^ +5 /.test(l));
    expect(lines[at + 1]).toMatch(/^ +Δ client1: read null → 0, tries 0 → 1$/);
    expect(formatSteps(view).some((l) => l.includes('Δ'))).toBe(false);
    expect(formatText(f)).toContain('Δ client1: read null → 0, tries 0 → 1');
  });

  it("shows a reducer's state changes: the lost write only bumps the store's version", () => {
    const puts = view.steps.filter((s) => s.actor === 'store' && s.what === 'Put').map((s) => s.n);
    expect(puts).toHaveLength(2);
    const all = contextChanges(view);
    expect(all[puts[0]!]).toEqual([
      { actor: 'store', key: 'value', from: 0, to: 1, known: true },
      { actor: 'store', key: 'version', from: 0, to: 1, known: true },
    ]);
    expect(all[puts[1]!]).toEqual([{ actor: 'store', key: 'version', from: 1, to: 2, known: true }]);
    expect(formatText(f)).toContain('Δ store: version 1 → 2');
  });

  it('reads a trace recorded before reducers had context events: no store line, the rest as before', () => {
    const old = { ...f, trace: f.trace.filter((e) => e.kind !== 'context') };
    const text = formatText(old);
    expect(text).not.toContain('Δ store');
    expect(text).toContain('Δ client1: read null → 0, tries 0 → 1');
  });

  it('prints a reducer state recorded whole (not a record) without a key', () => {
    const v = { actors: ['t'], steps: [{ ...view.steps[0]!, changed: { t: { '': 0 } } }, { ...view.steps[1]!, n: 1, changed: { t: { '': 1 } } }] };
    const cs = contextChanges(v)[1]!;
    expect(cs).toEqual([{ actor: 't', key: '', from: 0, to: 1, known: true }]);
    expect(contextLine(cs)).toBe('0 → 1');
  });

  it('goes into records key by key, and cuts long values and lines', () => {
    const view2 = {
      actors: ['a'],
      steps: [
        { ...view.steps[0]!, changed: { a: { o: { x: 1, y: 'same' }, s: 'short' } } },
        { ...view.steps[1]!, n: 1, changed: { a: { o: { x: 2, y: 'same', z: true }, s: 'x'.repeat(100) } } },
      ],
    };
    const cs = contextChanges(view2)[1]!;
    expect(cs.map((c) => c.key)).toEqual(['o.x', 'o.z', 's']);
    expect(contextLine(cs)).toBe(`o.x 1 → 2, o.z = true, s "short" → ${shortValue('x'.repeat(100))}`);
    expect(shortValue('x'.repeat(100))).toHaveLength(24);
    expect(shortValue('x'.repeat(100))).toContain('…');
    const many = Array.from({ length: 30 }, (_, i) => ({ actor: 'a', key: `key${i}`, from: i, to: i + 1, known: true }));
    const line = contextLine(many, 60);
    expect(line.length).toBeLessThan(80);
    expect(line).toMatch(/… \+\d+ more$/);
  });
});
