// Parsing a trace file's bytes with its long value strings cut out and parsed one by
// one gives what JSON.parse of the whole text gives, for any JSON (seeded), with
// strings as keys, escapes, multi-byte characters, and text that looks like the
// placeholder; bad JSON still throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonBytes } from '../../src/report/parse-json-bytes.ts';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('parseJsonBytes', () => {
  it('equals JSON.parse when every string of 4 bytes or more is parsed apart (seeded)', () => {
    const text = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: fc.constantFrom('<', '"', '\\', '\n', 'ā', '😀', '\u0000', ':', 'x') }));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('v')), fc.dictionary(text, tie('v'))),
    })).v;
    fc.assert(
      fc.property(value, fc.boolean(), (v, pretty) => {
        const json = pretty ? JSON.stringify(v, null, 2) : JSON.stringify(v);
        expect(parseJsonBytes(bytes(json), 4)).toEqual(JSON.parse(json));
      }),
      { seed: 30, numRuns: 300 },
    );
  });

  it('keys stay in place, spaces before a colon included; bad JSON in or around a long string throws', () => {
    const json = '{"a long key" : "a long value", "k": ["another long one", 1]}';
    expect(parseJsonBytes(bytes(json), 4)).toEqual(JSON.parse(json));
    expect(() => parseJsonBytes(bytes('{"k": "bad \\x escape"}'), 4)).toThrow(SyntaxError);
    expect(() => parseJsonBytes(bytes('{"k": "long enough" ]'), 4)).toThrow(SyntaxError);
  });
});
