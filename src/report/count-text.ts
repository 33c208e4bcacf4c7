// Whole numbers with thousands separators, as `toLocaleString('en-US')` writes them.
// The first `toLocaleString` of a process loads ICU's number formatting and every later
// one builds a formatter; a counterexample's text and the check's summary print a
// handful of counts, so they are grouped here instead (docs/measurements.md).

/** `1234567` as `1,234,567` (what `toLocaleString('en-US')` gives); other than a safe integer, that. */
export function countText(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const s = String(Math.abs(n));
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ',';
    out += s[i];
  }
  return n < 0 ? `-${out}` : out;
}
