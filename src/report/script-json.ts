// JSON for a `<script>` element, written in pieces: a trace can hold strings of
// 16 MiB, and `<` grows to six characters escaped, so the whole escaped JSON (or
// even one escaped string) may not fit the heap a command is promised. The value
// is walked as JSON.stringify walks it, and each string is serialized and escaped
// a slice at a time; no piece is longer than a few times SLICE characters.
import { constants as bufferConstants } from 'node:buffer';
import { RenderTooLargeError } from './render-too-large.ts';

const SCRIPT_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };
const SCRIPT_UNSAFE = /[<>&\u2028\u2029]/g;
/** Characters of a string serialized at once. */
const SLICE = 1 << 16;

function escapeScript(json: string): string {
  return json.replace(SCRIPT_UNSAFE, (c) => SCRIPT_ESCAPES[c]!);
}

/** The pieces of `JSON.stringify(s)`, a slice at a time (a slice never ends inside a surrogate pair). */
function* stringPieces(s: string): Generator<string> {
  if (s.length <= SLICE) {
    yield JSON.stringify(s);
    return;
  }
  yield '"';
  for (let i = 0; i < s.length; ) {
    let j = Math.min(s.length, i + SLICE);
    const last = s.charCodeAt(j - 1);
    if (j < s.length && last >= 0xd800 && last <= 0xdbff) j--; // keep a pair whole
    yield JSON.stringify(s.slice(i, j)).slice(1, -1);
    i = j;
  }
  yield '"';
}

/** The pieces of `JSON.stringify(v)` (same output, joined); `open` holds the objects being written, to refuse a cycle as it does. */
function* jsonPieces(value: unknown, open: Set<object>): Generator<string> {
  if (typeof value === 'string') {
    yield* stringPieces(value);
    return;
  }
  if (value === null || typeof value !== 'object') {
    // Numbers, booleans, bigint (throws, as JSON.stringify does); the caller drops or nulls undefined and functions.
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (open.has(value)) throw new TypeError('Converting circular structure to JSON');
  open.add(value);
  try {
    yield* containerPieces(value, open);
  } finally {
    open.delete(value);
  }
}

/** `v`, or what its `toJSON(key)` gives (as JSON.stringify does before anything else). */
function jsonValue(v: unknown, key: string): unknown {
  return v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON: (k: string) => unknown }).toJSON(key) : v;
}

/**
 * The pieces of `JSON.stringify(v)` (unescaped), so that a prefix of a huge value's JSON
 * can be had without building the whole. Throws a TypeError where JSON.stringify throws or
 * gives undefined.
 */
export function* jsonTextPieces(v: unknown): Generator<string> {
  const value = jsonValue(v, '');
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') throw new TypeError('the value has no JSON form');
  yield* jsonPieces(value, new Set());
}

function* containerPieces(value: object, open: Set<object>): Generator<string> {
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      const item = jsonValue(value[i], String(i));
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') yield 'null';
      else yield* jsonPieces(item, open);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const k of Object.keys(value)) {
    const item = jsonValue((value as Record<string, unknown>)[k], k);
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    yield `${first ? '' : ','}${JSON.stringify(k)}:`;
    first = false;
    yield* jsonPieces(item, open);
  }
  yield '}';
}

/**
 * JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`, no line
 * separators), in pieces whose concatenation is `JSON.stringify(v)` with `<`, `>`, `&`,
 * U+2028 and U+2029 escaped. Past `maxLength` characters in all (V8's longest string by
 * default: the page parses the JSON as one string) a `RenderTooLargeError` says so.
 */
export function* scriptSafeJsonPieces(v: unknown, maxLength: number = bufferConstants.MAX_STRING_LENGTH): Generator<string> {
  let length = 0;
  for (const piece of jsonTextPieces(v)) {
    const safe = escapeScript(piece);
    length += safe.length;
    if (length > maxLength) {
      throw new RenderTooLargeError(`the trace is too large to embed in one HTML page: its escaped JSON is over the ${maxLength} characters a JavaScript string can hold; use --format text or json, or a smaller trace`);
    }
    yield safe;
  }
}

/** `scriptSafeJsonPieces` as one string; the length is counted before the string is built. */
export function scriptSafeJson(v: unknown, maxLength: number = bufferConstants.MAX_STRING_LENGTH): string {
  let length = 0;
  for (const piece of jsonTextPieces(v)) {
    for (let i = 0; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      length += c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029 ? 6 : 1;
    }
  }
  if (length > maxLength) {
    throw new RenderTooLargeError(`the trace is too large to embed in one HTML page: its escaped JSON would be ${length} characters, over the ${maxLength} a JavaScript string can hold; use --format text or json, or a smaller trace`);
  }
  return [...scriptSafeJsonPieces(v, maxLength)].join('');
}
