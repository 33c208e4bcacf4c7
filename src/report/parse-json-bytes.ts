// JSON.parse for the bytes of a large trace file without holding the file's whole
// text and its parse at once. A file whose bulk is a few long strings would need
// both: V8 keeps a string with any character beyond Latin-1 at two bytes a
// character, so 64 MiB of such strings is 128 MB of text and 128 MB parsed. Long
// value strings are cut out of the text first and parsed one by one into place.
import { randomBytes } from 'node:crypto';

/** Value strings at least this long (bytes as written) are parsed apart from the rest. */
export const LONG_STRING_BYTES = 1 << 20;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** [start, end) of each value string (quotes included) of at least `minBytes` bytes; keys stay. */
function longStrings(bytes: Uint8Array, minBytes: number): [number, number][] {
  const out: [number, number][] = [];
  const n = bytes.byteLength;
  for (let i = 0; i < n; i++) {
    if (bytes[i] !== QUOTE) continue;
    const start = i;
    for (i++; i < n; i++) {
      const d = bytes[i]!;
      if (d === BACKSLASH) i++;
      else if (d === QUOTE) break;
    }
    if (i - start - 1 < minBytes) continue;
    let j = i + 1;
    while (isSpace(bytes[j])) j++;
    if (bytes[j] !== COLON) out.push([start, i + 1]);
  }
  return out;
}

/**
 * `JSON.parse` of UTF-8 `bytes` (valid UTF-8, as checked by the trace limits), the same
 * value; throws a SyntaxError on bad JSON. Value strings of `minBytes` or more are
 * parsed one at a time after the rest.
 */
export function parseJsonBytes(bytes: Uint8Array, minBytes: number = LONG_STRING_BYTES): unknown {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const cuts = bytes.byteLength < minBytes ? [] : longStrings(bytes, minBytes);
  if (cuts.length === 0) return JSON.parse(decoder.decode(bytes));
  let nonce: string;
  do nonce = `\u0000${randomBytes(12).toString('hex')}:`;
  while (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(nonce.slice(1)));
  const parts: string[] = [];
  let at = 0;
  cuts.forEach(([start, end], k) => {
    parts.push(decoder.decode(bytes.subarray(at, start)), JSON.stringify(`${nonce}${k}`));
    at = end;
  });
  parts.push(decoder.decode(bytes.subarray(at)));
  const skeleton: unknown = JSON.parse(parts.join(''));
  parts.length = 0;
  const long = (s: string): string | undefined => {
    if (!s.startsWith(nonce)) return undefined;
    const [start, end] = cuts[Number(s.slice(nonce.length))]!;
    return JSON.parse(decoder.decode(bytes.subarray(start, end))) as string;
  };
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') return long(v) ?? v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = fill(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) (v as Record<string, unknown>)[k] = fill((v as Record<string, unknown>)[k]);
    }
    return v;
  };
  return fill(skeleton);
}
