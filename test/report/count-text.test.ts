// countText writes whole numbers as toLocaleString('en-US') does, without loading ICU.
import { describe, expect, it } from 'vitest';
import { rng } from 'interleave';
import { countText } from '../../src/report/count-text.ts';

describe('countText', () => {
  it("groups digits as toLocaleString('en-US') does, for every magnitude and sign", () => {
    const r = rng(31);
    const xs = [0, 1, -1, 999, 1000, -1000, 999_999, 1_000_000, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 0.5, 1234.5678, -0, NaN, Infinity];
    for (let k = 0; k < 500; k++) xs.push(Math.floor(r.next() * 10 ** r.int(16)) * (r.int(2) === 0 ? 1 : -1));
    for (const x of xs) expect(countText(x)).toBe(x.toLocaleString('en-US'));
  });
});
