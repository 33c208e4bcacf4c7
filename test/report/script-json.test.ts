// The viewer's JSON island written in pieces: joined, the pieces are JSON.stringify's
// output with `<`, `>`, `&`, U+2028 and U+2029 escaped, for any JSON-like value,
// including strings longer than one slice with a surrogate pair across its edge.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RenderTooLargeError } from 'interleave';
import { scriptSafeJson, scriptSafeJsonPieces } from '../../src/report/script-json.ts';

const reference = (v: unknown) => JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const joined = (v: unknown, max?: number) => [...scriptSafeJsonPieces(v, max)].join('');

describe('script-safe JSON in pieces', () => {
  it('equals JSON.stringify, escaped, on random values (seeded)', () => {
    const text = fc.oneof(fc.string({ unit: 'grapheme' }), fc.constantFrom('</script>', '<!--', '\u2028\u2029', '&amp;', '"\\\n'), fc.string({ unit: fc.constantFrom('<', '&', '😀', 'ā', '\ud800', 'x') }));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(tie('v')), fc.dictionary(text, tie('v'))),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        const w = { v, date: new Date(0) }; // toJSON, and undefined members dropped or nulled, as JSON.stringify does
        expect(joined(w)).toBe(reference(w));
      }),
      { seed: 30, numRuns: 300 },
    );
  });

  it('a string longer than a slice, with surrogate pairs across every edge, is split into small pieces and joins back', () => {
    const s = `x${'😀<'.repeat(100_000)}`; // odd offset: every 65,536-character edge falls inside a pair
    const pieces = [...scriptSafeJsonPieces({ s })];
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(6 * 65_536);
    expect(pieces.join('')).toBe(reference({ s }));
    expect(JSON.parse(pieces.join('')).s).toBe(s);
    for (const p of pieces) expect(/[\ud800-\udbff]$/.test(p) || /^[\udc00-\udfff]/.test(p)).toBe(false);
  });

  it('past the length a JavaScript string can hold: RenderTooLargeError, with the length', () => {
    const v = { s: '<&>'.repeat(10) };
    expect(scriptSafeJson(v, 1000)).toBe(reference(v));
    expect(() => scriptSafeJson(v, 100)).toThrow(/escaped JSON would be 188 characters, over the 100/);
    expect(() => joined(v, 100)).toThrow(RenderTooLargeError);
    expect(() => joined(v, 187)).toThrow(/over the 187 characters/);
    expect(joined(v, 188)).toBe(reference(v));
  });
});
