// Arrow objects in world values (src/check/codec/arrow-classes.ts): each crosses as its
// class and parts, so a decoded object is of the same class (apache-arrow compares types
// with `instanceof`), reads the same values, writes the same Arrow IPC bytes, has the same
// fingerprint and encodes to the same bytes again. A Vector is rebuilt from its data, and
// one with an own property it would lose is refused; a codec made without Arrow support
// refuses Arrow objects, saying how to load it.
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import {
  Bool, Dictionary, Field, Float64, Int16, Int32, Int64, List, RecordBatch, Schema, Struct, Table, Uint8, Utf8, Vector, makeData, tableFromArrays, tableToIPC,
  vectorFromArray, type DataType,
} from 'apache-arrow';
import { Hasher, initialWorld } from 'interleave/kernel';
import { defineScenario, type Scenario } from 'interleave';
import { ValueWriter } from '../../../src/check/codec/value-encode.ts';
import { ValueReader } from '../../../src/check/codec/value-decode.ts';
import { loadArrowClasses } from '../../../src/check/codec/arrow-classes.ts';
import { createWorldCodec, WorldCodecError } from '../../../src/check/codec/world-codec.ts';

const arrow = await loadArrowClasses();

function roundTrip<T>(v: T): T {
  const w = new ValueWriter();
  w.arrow = arrow;
  w.value(v);
  const bytes = w.take();
  const r = new ValueReader(bytes);
  r.arrow = arrow;
  const back = r.value() as T;
  expect(r.pos).toBe(bytes.length);
  w.reset();
  w.value(back);
  expect(Buffer.compare(w.take(), bytes)).toBe(0);
  return back;
}

const hash = (v: unknown): string => {
  const h = new Hasher();
  h.hash(v);
  return `${h.ha}:${h.hb}`;
};

function sameTable(a: Table | RecordBatch, b: Table | RecordBatch): void {
  expect(b.constructor).toBe(a.constructor);
  expect(b.schema.fields.map((f) => [f.name, String(f.type), f.type.constructor, f.nullable])).toEqual(a.schema.fields.map((f) => [f.name, String(f.type), f.type.constructor, f.nullable]));
  // As JSON: a nested Vector's closures differ between two equal vectors.
  const rows = (t: Table | RecordBatch) => JSON.stringify(t.toArray(), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v));
  expect(rows(b)).toBe(rows(a));
  const ipc = (t: Table | RecordBatch) => tableToIPC(t instanceof Table ? t : new Table([t]), 'stream');
  expect(Buffer.compare(ipc(b), ipc(a))).toBe(0);
  expect(hash(b)).toBe(hash(a));
}

describe('Arrow values', () => {
  const types: [string, DataType, unknown[]][] = [
    ['Int32', new Int32(), [1, null, 3]],
    ['Int16', new Int16(), [-2, 0, 7]],
    ['Uint8', new Uint8(), [0, 255, null]],
    ['Int64', new Int64(), [1n, -2n, null]],
    ['Float64', new Float64(), [0.5, -0, NaN]],
    ['Bool', new Bool(), [true, null, false]],
    ['Utf8', new Utf8(), ['a', '', null]],
    ['Dictionary<Utf8, Int32>', new Dictionary(new Utf8(), new Int32(), 7), ['x', 'y', 'x']],
    ['List<Int32>', new List(new Field('item', new Int32(), true)), [[1, 2], [], null]],
    ['Struct', new Struct([new Field('a', new Int32(), true), new Field('s', new Utf8(), true)]), [{ a: 1, s: 'p' }, { a: null, s: 'q' }, null]],
  ];
  for (const [name, type, values] of types) {
    it(`a record batch of ${name}: same class, values, IPC bytes and fingerprint`, () => {
      const t = new Table({ col: vectorFromArray(values, type) });
      const rb = t.batches[0]!;
      const back = roundTrip(rb);
      sameTable(rb, back);
      expect(back.schema.fields[0]!.type).toBeInstanceOf(type.constructor);
    });
  }

  it('a table of several batches, a sliced batch, a schema with metadata, and a chunked vector', () => {
    const a = tableFromArrays({ n: Int32Array.from([1, 2, 3]), s: ['a', 'b', 'c'] });
    const b = tableFromArrays({ n: Int32Array.from([4, 5]), s: ['d', 'e'] });
    const t = a.concat(b);
    expect(t.batches.length).toBe(2);
    sameTable(t, roundTrip(t));
    const sliced = t.batches[0]!.slice(1, 3);
    sameTable(sliced, roundTrip(sliced));
    const schema = new Schema([new Field('k', new Utf8(), false, new Map([['unit', 'ms']]))], new Map([['source', 'test']]));
    const withMeta = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 1, children: [vectorFromArray(['v'], new Utf8()).data[0]!] }));
    const back = roundTrip(withMeta);
    sameTable(withMeta, back);
    expect([...back.schema.metadata]).toEqual([['source', 'test']]);
    expect([...back.schema.fields[0]!.metadata]).toEqual([['unit', 'ms']]);
    const chunked = t.getChild('n')!;
    expect(chunked.data.length).toBe(2);
    const v = roundTrip(chunked);
    expect(v).toBeInstanceOf(Vector);
    expect(v.toArray()).toEqual(chunked.toArray());
    expect(v.get(4)).toBe(5);
  });

  it('a Vector with an own property it would lose is refused', () => {
    const v = Object.assign(vectorFromArray([1, 2], new Int32()), { note: 'extra' });
    const w = new ValueWriter();
    w.arrow = arrow;
    expect(() => w.value({ v })).toThrow(/an Arrow Vector with own property 'note' cannot move between shards/);
  });

  it('in a world: a codec loads Arrow support when the initial world holds an Arrow object; without it, Arrow is refused', async () => {
    const sc = (rb: RecordBatch | DataType | undefined): Scenario => {
      const m = setup({}).createMachine({ id: 'm', context: ({ input }) => ({ rb: (input as { rb?: unknown }).rb ?? null }), initial: 'idle', states: { idle: {} } });
      return defineScenario({ name: 'arrow-world', actors: { m: { logic: m, input: { rb } } } });
    };
    const rb = new Table({ x: vectorFromArray([1, 2], new Int32()) }).batches[0]!;
    const withArrow = sc(rb);
    const codec = await createWorldCodec(withArrow);
    const w0 = initialWorld(withArrow).world;
    // A batch the initial world does not hold crosses as its parts.
    const other = new Table({ x: vectorFromArray([3], new Int32()) }).batches[0]!;
    const snap = w0.snaps[0] as { context: { rb: RecordBatch } };
    const moved = { ...w0, snaps: [{ ...snap, context: { rb: other } }] };
    const back = codec.decode(codec.encode(moved as never)).snaps[0] as { context: { rb: RecordBatch } };
    sameTable(other, back.context.rb);
    const plain = sc(undefined);
    const noArrow = await createWorldCodec(plain);
    const p0 = initialWorld(plain).world;
    const withBatch = { ...p0, snaps: [{ ...(p0.snaps[0] as object), context: { rb: other } }] };
    expect(() => noArrow.encode(withBatch as never)).toThrow(WorldCodecError);
    expect(() => noArrow.encode(withBatch as never)).toThrow(/actor 'm' context\.rb: an Arrow RecordBatch cannot move between shards here: .*give an actor one as input .*or check this model without --exchange/);
    // A data type alone in the initial world loads Arrow support too.
    const typed = sc(new Int32());
    const t0 = initialWorld(typed).world;
    const typedCodec = await createWorldCodec(typed);
    const t1 = { ...t0, snaps: [{ ...(t0.snaps[0] as object), context: { rb: other } }] };
    sameTable(other, (typedCodec.decode(typedCodec.encode(t1 as never)).snaps[0] as { context: { rb: RecordBatch } }).context.rb);
    const forced = await createWorldCodec(plain, { arrow: true });
    sameTable(other, (forced.decode(forced.encode(withBatch as never)).snaps[0] as { context: { rb: RecordBatch } }).context.rb);
  });
});
