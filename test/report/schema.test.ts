// The trace reader: valid files round-trip, every malformed one is refused with the
// field that is wrong, and no input at all makes it throw (fuzzed with fast-check).
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scriptSafeJson } from '../../src/report/index.ts';
import { DEFAULT_TRACE_LIMITS, EVENT_KINDS, RenderTooLargeError, formatHtml, formatMermaid, formatText, parseTraceBytes, parseTraceLimits, parseTraceText, traceJsonSchema, validateTraceFile, type TraceFileData, type TraceLimits } from 'interleave';
import { lostUpdateTrace } from '../helpers/report-traces.ts';

const good = (): any => JSON.parse(JSON.stringify(lostUpdateTrace({ passing: true })));

function rejected(data: unknown): string {
  const r = validateTraceFile(data, 'x.json');
  expect(r.ok).toBe(false);
  return r.ok ? '' : r.error;
}

describe('trace file schema', () => {
  it('accepts what the report fixtures write, and round-trips it', () => {
    const f = good();
    const r = parseTraceText(JSON.stringify(f));
    expect(r.ok).toBe(true);
    if (r.ok) expect(JSON.parse(JSON.stringify(r.file))).toEqual(f);
  });

  it('names the field and what was expected', () => {
    const f = good();
    f.trace[4].msg.type = 7;
    expect(rejected(f)).toMatch(/field 'trace\[4\]\.msg\.type': expected string, received number/);
    const g = good();
    delete g.schedule;
    expect(rejected(g)).toMatch(/field 'schedule': expected array/);
    const h = good();
    h.kind = 'something-else';
    expect(rejected(h)).toMatch(/field 'kind'.*interleave-trace/);
    const i = good();
    i.trace[2].step = 99;
    expect(rejected(i)).toMatch(/field 'trace\[2\]\.step': step 99 is past the end of the schedule \(10 steps\)/);
    const j = good();
    j.property = { name: 'p' };
    expect(rejected(j)).toMatch(/field 'property\.kind'/);
  });

  it('tells a newer file apart from a broken one', () => {
    const f = good();
    f.schemaVersion = 2;
    expect(rejected(f)).toMatch(/'schemaVersion' is 2, written by a newer interleave; this version reads schemaVersion 1/);
    f.schemaVersion = 0;
    expect(rejected(f)).toMatch(/field 'schemaVersion': expected 1/);
  });

  it('refuses text that is not JSON, and JSON that is not an object', () => {
    const r = parseTraceText('{"schemaVersion": 1,', 'y.json');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^y\.json: not JSON/);
    expect(rejected([1, 2])).toMatch(/expected a JSON object .* got an array/);
    expect(rejected(null)).toMatch(/got null/);
  });

  it('keeps events of kinds it does not know (a newer kernel), and renders them', () => {
    const f = good();
    f.trace.push({ kind: 'future-kind', step: 3, what: '<b>x</b>' });
    const r = validateTraceFile(f);
    expect(r.ok).toBe(true);
    if (r.ok) expect(formatText(r.file)).toContain('future-kind');
  });
});

// Arbitrary JSON values, and valid files with one part replaced by arbitrary JSON.
const json = fc.jsonValue({ maxDepth: 4 });
function mutate(f: any, path: (string | number)[], v: unknown): any {
  let o = f;
  for (let k = 0; k < path.length - 1; k++) {
    if (typeof o !== 'object' || o === null) return f;
    o = o[path[k]!];
  }
  if (typeof o === 'object' && o !== null) o[path[path.length - 1]!] = v;
  return f;
}
const paths: (string | number)[][] = [
  ['schemaVersion'], ['kind'], ['tool'], ['tool', 'version'], ['scenario'], ['scenario', 'name'], ['scenario', 'params'],
  ['options'], ['seed'], ['property'], ['property', 'message'], ['schedule'], ['schedule', 0], ['originalLength'], ['inputs'],
  ['trace'], ['trace', 0], ['trace', 5, 'kind'], ['trace', 5, 'msg'], ['trace', 5, 'step'], ['trace', 7, 'changed'],
  ['passing'], ['passing', 'schedule'], ['passing', 'trace', 3],
];

describe('trace reader fuzz (fast-check)', () => {
  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const r = parseTraceText(s);
        return r.ok || (typeof r.error === 'string' && r.error.length > 0);
      }),
      { numRuns: 500, seed: 42 },
    );
  });

  it('never throws on arbitrary JSON, and refuses it with a message', () => {
    fc.assert(
      fc.property(json, (v) => {
        const r = validateTraceFile(v);
        return !r.ok && r.error.length > 0;
      }),
      { numRuns: 500, seed: 43 },
    );
  });

  it('on a valid file with one field replaced: refuses with that field named, or accepts and renders it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...paths), json, (path, v) => {
        const f = mutate(good(), path, v);
        const r = validateTraceFile(f);
        if (!r.ok) {
          expect(r.error).toMatch(/field '|schemaVersion/);
          return true;
        }
        // Whatever validates must render in every format without throwing.
        const file: TraceFileData = r.file;
        formatText(file);
        formatMermaid(file);
        expect(formatHtml(file)).toContain('<!doctype html>');
        return true;
      }),
      { numRuns: 400, seed: 44 },
    );
  });

  it('survives pathological nesting', () => {
    let deep: any = {};
    for (let i = 0; i < 100_000; i++) deep = { type: 'x', d: deep };
    const f = good();
    f.trace[4].msg = deep;
    expect(rejected(f)).toMatch(/field 'trace\[4\]\.msg\.d\.d\.d…' is nested more than 200 levels deep/);
    const text = '['.repeat(200_000) + ']'.repeat(200_000);
    expect(parseTraceText(text).ok).toBe(false);
  });

  it('checks nesting of a deep and wide value without a path per pending node (190 deep, 2,000,000 wide)', () => {
    let v: unknown = Array.from({ length: 2_000_000 }, () => 0);
    for (let i = 0; i < 190; i++) v = [v];
    const f = good();
    f.trace[5].data = v; // a log event carries any data
    f.trace[5].kind = 'log';
    f.trace[5].actor = 'x';
    expect(validateTraceFile(f, 'x.json').ok).toBe(true);
    let tooDeep: unknown = {};
    for (let i = 0; i < 200; i++) tooDeep = [tooDeep];
    f.trace[5].data = [v, tooDeep]; // the wide part first: the check walks past it
    expect(rejected(f)).toMatch(/field 'trace\[5\]\.data\[1\]\[0\]\[0\]…' is nested more than 200 levels deep/);
  });
});

/** The limits a JSON value needs, measured on the value (the reference the byte scanner is tested against). */
function needs(v: unknown): { depth: number; items: number; stringBytes: number } {
  const str = (x: string) => Buffer.byteLength(JSON.stringify(x)) - 2;
  if (typeof v === 'string') return { depth: 0, items: 0, stringBytes: str(v) };
  if (typeof v !== 'object' || v === null) return { depth: 0, items: 0, stringBytes: 0 };
  const entries = Array.isArray(v) ? v.map((x) => ['', x] as const) : Object.entries(v).map(([k, x]) => [k, x] as const);
  const out = { depth: 1, items: entries.length, stringBytes: 0 };
  for (const [k, x] of entries) {
    const n = needs(x);
    out.depth = Math.max(out.depth, n.depth + 1);
    out.items = Math.max(out.items, n.items);
    out.stringBytes = Math.max(out.stringBytes, n.stringBytes, Array.isArray(v) ? 0 : str(k));
  }
  return out;
}

/** A value `depth` arrays deep whose innermost array holds `width` strings of `len` characters `ch`. */
const shaped = fc.record({ depth: fc.nat({ max: 60 }), width: fc.nat({ max: 200 }), len: fc.nat({ max: 2000 }), ch: fc.constantFrom('a', '<', '&', '\u00e9', '\u2028', '"', '\\', '\u{1F600}', '\n') });
function build(s: { depth: number; width: number; len: number; ch: string }): unknown {
  let v: unknown = Array.from({ length: s.width }, () => s.ch.repeat(s.len));
  for (let i = 0; i < s.depth; i++) v = [v];
  return v;
}
/** A limit at or above `need` (three times in four) or below it. */
const near = (need: number, slack: number) => fc.tuple(fc.integer({ min: 0, max: 3 }), fc.nat({ max: slack })).map(([o, k]) => (o === 0 ? Math.max(1, need - 1 - k) : need + k));
const limitsNear = (n: { depth: number; items: number; stringBytes: number }, bytes: number) =>
  fc.record({ maxBytes: near(bytes, 100), maxDepth: near(n.depth, 5), maxItems: near(n.items, 5), maxStringBytes: near(n.stringBytes, 20) });

describe('trace limits (fast-check: deep, wide and huge inputs)', () => {
  it('the byte scanner refuses exactly the files over a limit, naming it, and otherwise agrees with the unlimited reader', () => {
    const seen = { within: 0, over: 0 };
    fc.assert(
      fc.property(
        shaped.chain((s) => {
          const f = good();
          f.trace[5] = { kind: 'log', step: f.trace[5].step, actor: 'x', data: build(s) };
          const text = JSON.stringify(f);
          return fc.tuple(fc.constant(text), limitsNear(needs(f), Buffer.byteLength(text)));
        }),
        ([text, limits]: [string, TraceLimits]) => {
          const n = needs(JSON.parse(text));
          const over = {
            maxBytes: Buffer.byteLength(text) > limits.maxBytes,
            maxDepth: n.depth > limits.maxDepth,
            maxItems: n.items > limits.maxItems,
            maxStringBytes: n.stringBytes > limits.maxStringBytes,
          };
          const r = parseTraceText(text, 'f.json', limits);
          seen[Object.values(over).some(Boolean) ? 'over' : 'within']++;
          if (!Object.values(over).some(Boolean)) {
            expect(r).toEqual(parseTraceText(text, 'f.json', { maxBytes: 1e9, maxDepth: 1e6, maxItems: 1e9, maxStringBytes: 1e9 }));
            return true;
          }
          expect(r.ok).toBe(false);
          const named = { maxBytes: /trace size limit/, maxDepth: /levels deep/, maxItems: /items/, maxStringBytes: /bytes per string/ };
          const hit = (Object.keys(over) as (keyof TraceLimits)[]).filter((k) => over[k] && named[k].test(r.ok ? '' : r.error));
          expect(hit.length, r.ok ? '' : r.error).toBeGreaterThan(0);
          expect(r.ok ? '' : r.error).toMatch(/raise it with --trace-limit (bytes|depth|items|string)=<n>/);
          return true;
        },
      ),
      { numRuns: 200, seed: 45 },
    );
    // Both sides of the limits were exercised.
    expect(seen.within).toBeGreaterThan(30);
    expect(seen.over).toBeGreaterThan(30);
  });

  it('never throws on arbitrary bytes, and refuses invalid UTF-8 instead of reading U+FFFD', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (b) => {
        const r = parseTraceBytes(b, 'b.json', { ...DEFAULT_TRACE_LIMITS, maxDepth: 8, maxItems: 8, maxStringBytes: 16 });
        return r.ok || r.error.length > 0;
      }),
      { numRuns: 500, seed: 46 },
    );
    const text = Buffer.from(JSON.stringify({ ...good(), seed: 1, note: 'XX' }));
    const at = text.indexOf('XX');
    for (const bad of [[0xc3, 0x28], [0xff, 0xfe], [0xed, 0xa0]]) {
      text[at] = bad[0]!;
      text[at + 1] = bad[1]!;
      const r = parseTraceBytes(text, 'bad.json');
      expect(r.ok ? '' : r.error).toMatch(/bad\.json: not valid UTF-8/);
    }
    text[at] = 0x58;
    text[at + 1] = 0x58;
    expect(parseTraceBytes(text, 'good.json').ok).toBe(true);
  });

  it('parses limits as the CLI takes them, and refuses bad ones', () => {
    expect(parseTraceLimits('bytes=256M, depth=400,string=2k,items=5')).toEqual({ maxBytes: 256 * 1024 ** 2, maxDepth: 400, maxStringBytes: 2048, maxItems: 5 });
    expect(parseTraceLimits('')).toEqual(DEFAULT_TRACE_LIMITS);
    for (const bad of ['bytes', 'size=3', 'depth=-1', 'depth=0', 'depth=1.5']) expect(() => parseTraceLimits(bad)).toThrow(/trace limit/);
  });
});

describe('HTML embedding of huge strings', () => {
  it('refuses, with a message, a page that would outgrow a JavaScript string, instead of dying in the escaping', () => {
    const v = { s: '<&>'.repeat(10) };
    expect(scriptSafeJson(v, 1000)).toBe(JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026'));
    expect(() => scriptSafeJson(v, 100)).toThrow(RenderTooLargeError);
    expect(() => scriptSafeJson(v, 100)).toThrow(/escaped JSON would be 188 characters, over the 100/);
  });
});

describe('published JSON Schema', () => {
  it('docs/trace.schema.json matches the reader (regenerate with UPDATE_SCHEMA=1)', () => {
    const url = new URL('../../docs/trace.schema.json', import.meta.url);
    const now = `${JSON.stringify(traceJsonSchema(), null, 2)}\n`;
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(url, now);
    expect(readFileSync(url, 'utf8')).toBe(now);
    const s = traceJsonSchema() as any;
    expect(s.properties.schemaVersion.const).toBe(1);
    expect(s.properties.trace.items.anyOf).toHaveLength(EVENT_KINDS.length + 1);
  });
});
