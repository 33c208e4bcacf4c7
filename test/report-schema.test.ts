// The trace reader: valid files round-trip, every malformed one is refused with the
// field that is wrong, and no input at all makes it throw (fuzzed with fast-check).
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, formatHtml, formatMermaid, formatText, parseTraceText, traceJsonSchema, validateTraceFile, type TraceFileData } from '../src/report/index.ts';
import { lostUpdateTrace } from './report-fixtures.ts';

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
});

describe('published JSON Schema', () => {
  it('docs/trace.schema.json matches the reader (regenerate with UPDATE_SCHEMA=1)', () => {
    const url = new URL('../docs/trace.schema.json', import.meta.url);
    const now = `${JSON.stringify(traceJsonSchema(), null, 2)}\n`;
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(url, now);
    expect(readFileSync(url, 'utf8')).toBe(now);
    const s = traceJsonSchema() as any;
    expect(s.properties.schemaVersion.const).toBe(1);
    expect(s.properties.trace.items.anyOf).toHaveLength(EVENT_KINDS.length + 1);
  });
});
