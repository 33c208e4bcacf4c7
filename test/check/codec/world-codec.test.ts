// The world codec moves worlds between the shards of a distributed search, so a wrong
// decode makes the search unsound. Checked here: worlds reached by searches of every
// family's scenarios and of random systems decode to worlds with the same fingerprint
// (with and without symmetry), the same enabled steps and the same successors (their
// fingerprints and trace events), and re-encode to the same bytes (which also covers what
// fingerprints ignore: key order, frozen-ness, Map and Set order); decoded parts are
// interned; every value it cannot carry is refused with the actor and the path; and a
// property test over random values checks the value encoding exactly.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { setup } from 'xstate';
import { apply, enabled, initialWorld, StepMemo, Hasher, WorldHasher, fpHex } from 'interleave/kernel';
import { defineScenario, parseParams, type Scenario, type World } from 'interleave';
import { addressOf } from '../../../src/actors/xstate-adapter.ts';
import { families } from 'interleave/machines';
import { createWorldCodec, WorldCodecError, type WorldCodec } from '../../../src/check/codec/world-codec.ts';
import { SegmentLink } from '../../../src/check/codec/segment-link.ts';
import { ValueWriter } from '../../../src/check/codec/value-encode.ts';
import { ValueReader } from '../../../src/check/codec/value-decode.ts';
import { objectStore, scriptClient, s3Get, s3List, s3Put, s3Delete, taskStateStore, tsGet, tsSet, type TaskScope } from 'interleave/storage';
import { randomSystem } from '../../fixtures/check/models.ts';
import { reach } from '../../fixtures/check/reach.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';
import { randomMachineSystem } from '../../fixtures/check/random-machines.ts';

/**
 * What a world does next: its steps, and per step the successor's fingerprint and the hash
 * of its trace events as the search computes them (`detail: false`; with detail, a `state`
 * event's `changed` compares context entries by identity, which the codec keeps only within
 * a part and for objects both ends hold: see src/check/README.md).
 */
function behaviour(sc: Scenario, w: World, h: WorldHasher): string[] {
  const events = new Hasher();
  return enabled(sc, w).map((s) => {
    const r = apply(sc, w, s, { detail: false });
    events.hash(r.events);
    return `${s.id} -> ${fpHex(h.fp(r.world))} ${events.ha}:${events.hb}`;
  });
}

/** Asserts that every world round-trips exactly; returns the worlds' total bytes. */
function roundTrips(sc: Scenario, codec: WorldCodec, worlds: readonly World[]): number {
  const plain = new WorldHasher(sc, false);
  const sym = new WorldHasher(sc, true);
  let bytes = 0;
  for (const w of worlds) {
    const b = codec.encode(w);
    bytes += b.length;
    const d = codec.decode(b);
    expect(fpHex(plain.fp(d))).toBe(fpHex(plain.fp(w)));
    expect(fpHex(sym.fp(d))).toBe(fpHex(sym.fp(w)));
    expect(behaviour(sc, d, plain)).toEqual(behaviour(sc, w, plain));
    expectSameBytes(codec.encode(d), b);
  }
  return bytes;
}

/** `expect(a).toEqual(b)` for bytes, compared natively first: vitest's equality walks a typed array entry by entry. */
function expectSameBytes(a: Uint8Array, b: Uint8Array): void {
  if (Buffer.compare(a, b) !== 0) expect(a).toEqual(b);
}

const scope: TaskScope = { dagId: 'd', runId: 'r', taskId: 't', mapIndex: 0 };
function storageScenario(): Scenario {
  const b = (...xs: number[]) => new Uint8Array(xs);
  return defineScenario({
    name: 'codec-storage',
    actors: {
      writer: scriptClient('store', [s3Put('a/k', b(1, 2, 3)), s3List('a/'), s3Get('a/k'), s3Delete('a/k')]),
      reader: scriptClient('store', [s3Get('a/k'), s3Put('a/j', b(9))]),
      task: scriptClient('ts', [tsSet(scope, 'x', '1'), tsGet(scope, 'x')]),
      store: objectStore(),
      ts: taskStateStore(),
    },
    start: [
      { to: 'writer', msg: { type: 'go' } },
      { to: 'reader', msg: { type: 'go' } },
      { to: 'task', msg: { type: 'go' } },
    ],
    faults: { budget: 1 },
  });
}

describe('world codec: round trips on reached worlds', () => {
  for (const f of families) {
    it(`family ${f.name} (defaults): same fingerprints, steps, successors and bytes`, async () => {
      const sc = f.build(parseParams(f, {}));
      const codec = await createWorldCodec(sc);
      const worlds = reach(sc, 150);
      roundTrips(sc, codec, worlds);
      expect(codec.stats.decoded).toBe(worlds.length);
    });
  }

  it('another codec (another build of the scenario, as in another process) decodes from a Buffer view inside a bigger buffer', async () => {
    // Found by the exchange: a Buffer's slice() is a view, so a decoded ArrayBuffer took the whole file's bytes.
    const sc = storageScenario();
    const [a, b] = [await createWorldCodec(sc), await createWorldCodec(storageScenario())];
    const other = storageScenario();
    const h = new WorldHasher(other, false);
    let typed = 0;
    for (const w of reach(sc, 300)) {
      const bytes = a.encode(w);
      const file = Buffer.concat([Buffer.from('header'), bytes, Buffer.from('trailer')]);
      const d = b.decode(file.subarray(6, 6 + bytes.length));
      expect(fpHex(h.fp(d))).toBe(fpHex(new WorldHasher(sc, false).fp(w)));
      expect(behaviour(other, d, h)).toEqual(behaviour(sc, w, new WorldHasher(sc, false)));
      if (JSON.stringify(w.snaps, (_k, v) => (v instanceof Uint8Array ? 'U8' : v)).includes('U8')) typed++;
    }
    expect(typed).toBeGreaterThan(10);
  });

  it('storage reducers (object store, task state, fault outcomes)', async () => {
    const sc = storageScenario();
    const worlds = reach(sc, 300);
    expect(worlds.length).toBeGreaterThan(50);
    roundTrips(sc, await createWorldCodec(sc), worlds);
  });

  it('random systems, random actors (with symmetry) and random machines (hierarchy, parallel regions, history)', async () => {
    let withHistory = 0;
    for (let seed = 1; seed <= 12; seed++) {
      for (const sc of [randomSystem(seed, seed % 2 === 0), randomActors(seed).sc, randomMachineSystem(seed)]) {
        const worlds = reach(sc, 60);
        roundTrips(sc, await createWorldCodec(sc), worlds);
        withHistory += worlds.filter((w) => w.snaps.some((s) => Object.keys((s as { historyValue?: object })?.historyValue ?? {}).length > 0)).length;
      }
    }
    // The machines' history values are exercised, not vacuously equal.
    expect(withHistory).toBeGreaterThan(20);
  });
});

describe('world codec: segment links (what one sender already carried to one receiver)', () => {
  it('a stream of worlds through links of 1 to 16,384 entries decodes exactly at another codec, in fewer bytes', async () => {
    const airflow = families.find((x) => x.name === 'airflow-checkpoints')!;
    const models: (() => Scenario)[] = [storageScenario, () => randomMachineSystem(3), () => randomSystem(5, true), () => airflow.build(parseParams(airflow, {}))];
    for (const make of models) {
      const sc = make();
      const other = make();
      const worlds = reach(sc, 60);
      const plain = await createWorldCodec(sc);
      const plainBytes = worlds.reduce((n, w) => n + plain.encode(w).length, 0);
      for (const limit of [1, 5, 16_384]) {
        const [a, b] = [await createWorldCodec(sc), await createWorldCodec(other)];
        const [send, recv] = [new SegmentLink(limit), new SegmentLink(limit)];
        const ha = new WorldHasher(sc, false);
        const hb = new WorldHasher(other, false);
        let bytes = 0;
        for (const w of worlds) {
          const enc = a.encode(w, send);
          bytes += enc.length;
          const d = b.decode(enc, recv);
          expect(fpHex(hb.fp(d)), `${sc.name} limit ${limit}`).toBe(fpHex(ha.fp(w)));
          if (limit === 5) expect(behaviour(other, d, hb)).toEqual(behaviour(sc, w, ha));
          // Without links, the decoded world encodes to the bytes of the original.
          expectSameBytes(b.encode(d), plain.encode(w));
        }
        expect(recv.refs).toBe(send.refs);
        if (limit > 1) {
          expect(send.refs, `${sc.name} limit ${limit}`).toBeGreaterThan(0);
          expect(bytes).toBeLessThan(plainBytes);
        }
      }
    }
  });

  it('a world carried by number cannot be decoded without its link, nor past a lost one', async () => {
    const sc = storageScenario();
    const worlds = reach(sc, 40);
    const a = await createWorldCodec(sc);
    const b = await createWorldCodec(storageScenario());
    const send = new SegmentLink();
    // Per world, how many of its segments went as numbers.
    const refs: number[] = [];
    const encoded = worlds.map((w) => {
      const before = send.refs;
      const e = a.encode(w, send).slice();
      refs.push(send.refs - before);
      return e;
    });
    const byNumber = refs.findIndex((x) => x > 0);
    expect(byNumber).toBeGreaterThan(0);
    expect(() => b.decode(encoded[byNumber]!)).toThrow(WorldCodecError);
    // The first world (which numbered the segments) skipped: the receiver's link lacks them.
    expect(() => b.decode(encoded[byNumber]!, new SegmentLink())).toThrow(/was never carried on this link/);
    expect(() => new SegmentLink(0)).toThrow(/at least 1 entry/);
  });
});

describe('world codec: interning', () => {
  it('decoded snapshots and messages equal to earlier ones are the same objects, so the step memo hits', async () => {
    const f = families.find((x) => x.name === 'lost-update')!;
    const sc = f.build(parseParams(f, {}));
    const codec = await createWorldCodec(sc);
    const w = reach(sc, 20).at(-1)!;
    const bytes = codec.encode(w);
    const a = codec.decode(bytes);
    const b = codec.decode(bytes);
    expect(a).not.toBe(b);
    for (let i = 0; i < a.snaps.length; i++) if (typeof a.snaps[i] === 'object') expect(b.snaps[i]).toBe(a.snaps[i]);
    const msgs = (x: World) => x.inbox.flatMap((chs) => chs.flatMap((c) => c.queue));
    expect(msgs(a).length).toBeGreaterThan(0);
    msgs(a).forEach((m, k) => expect(msgs(b)[k]).toBe(m));
    const memo = new StepMemo();
    const step = enabled(sc, a).find((s) => s.kind === 'deliver')!;
    apply(sc, a, step, { memo, detail: false });
    apply(sc, b, step, { memo, detail: false });
    expect(memo.counts).toEqual({ lookups: 2, hits: 1 });
  });

  it('without interning (internLimit 0) the same bytes decode to new objects', async () => {
    const f = families.find((x) => x.name === 'lost-update')!;
    const sc = f.build(parseParams(f, {}));
    const codec = await createWorldCodec(sc, { internLimit: 0 });
    const bytes = codec.encode(reach(sc, 20).at(-1)!);
    expect(codec.decode(bytes).snaps[0]).not.toBe(codec.decode(bytes).snaps[0]);
  });
});

/** A scenario whose one machine actor `writer` has `context` as its initial context, and a reducer `store` whose state is `state`. */
function holding(context: unknown, state: unknown = { ok: true }): Scenario {
  const writer = setup({}).createMachine({ id: 'writer', context: ({ input }) => (input as { context: unknown }).context, initial: 'idle', states: { idle: {} } });
  return defineScenario({
    name: 'codec-refusals',
    actors: {
      writer: { logic: writer, input: { context } },
      store: { logic: { kind: 'reducer', init: () => state, receive: (s: unknown) => ({ state: s }) } },
    },
  });
}

async function refusal(context: unknown, state?: unknown): Promise<string> {
  const sc = holding(context, state);
  try {
    // The codec encodes the initial world when it is made (see createWorldCodec), so it refuses there.
    (await createWorldCodec(sc)).encode(initialWorld(sc).world);
  } catch (e) {
    expect(e).toBeInstanceOf(WorldCodecError);
    return (e as Error).message;
  }
  throw new Error('encode did not refuse');
}

describe('world codec: refusals name the actor, the path and what to do', () => {
  class Widget {
    x = 1;
  }
  const cases: [string, () => unknown, RegExp][] = [
    ['a function', () => ({ pending: [{}, {}, { cb: () => 1 }] }), /^actor 'writer' context\.pending\[2\]\.cb: a function \('cb'\) cannot move between shards: keep behaviour in the machine/],
    ['a symbol', () => ({ tag: Symbol('t') }), /^actor 'writer' context\.tag: a symbol \(Symbol\(t\)\) cannot move between shards/],
    ['a class instance', () => ({ w: new Widget() }), /^actor 'writer' context\.w: an instance of class Widget cannot move between shards: the codec carries plain data only/],
    ['a WeakMap', () => ({ m: new Map([['k', new WeakMap()]]) }), /^actor 'writer' context\.m<Map entry 0>: a WeakMap cannot move between shards \(its entries cannot be read\)/],
    ['a getter', () => ({ o: Object.defineProperty({}, 'g', { get: () => 1, enumerable: true }) }), /^actor 'writer' context\.o: an accessor property 'g'/],
    ['a non-enumerable property', () => ({ o: Object.defineProperty({}, 'h', { value: 1 }) }), /^actor 'writer' context\.o: a non-enumerable property 'h'/],
    ['a symbol key', () => ({ o: { [Symbol('s')]: 1 } }), /^actor 'writer' context\.o: a symbol-keyed property/],
    ['a named array property', () => ({ a: Object.assign([1], { extra: 2 }) }), /^actor 'writer' context\.a: an array with a named property 'extra'/],
    ['one read-only property', () => ({ o: Object.defineProperty({ a: 1 }, 'a', { writable: false }) }), /^actor 'writer' context\.o: property 'a' is read-only/],
    ['a Map with an own property', () => ({ m: Object.assign(new Map(), { n: 1 }) }), /^actor 'writer' context\.m: a Map with own property 'n'/],
    ['a Promise', () => ({ p: Promise.resolve(1) }), /^actor 'writer' context\.p: a Promise cannot move between shards/],
  ];
  for (const [what, make, message] of cases) {
    it(`${what}`, async () => {
      expect(await refusal(make())).toMatch(message);
    });
  }

  it('a reducer state, a message and a monitor state are named too', async () => {
    expect(await refusal({}, { objects: new Map([['k', { cb: () => 1 }]]) })).toMatch(/^actor 'store' state\.objects<Map entry 0>\.cb: a function/);
    const sc = holding({});
    const codec = await createWorldCodec(sc);
    const w = initialWorld(sc).world;
    const withMsg: World = { ...w, inbox: [[], [{ from: 0, queue: [{ type: 'Put', then: () => 0 }] }]] };
    expect(() => codec.encode(withMsg)).toThrow(/^message #0 \('Put'\) on channel 'writer' -> 'store', msg\.then: a function/);
  });

  it('a snapshot with child actors', async () => {
    const sc = holding({});
    const codec = await createWorldCodec(sc);
    const w = initialWorld(sc).world;
    const snap = { ...(w.snaps[0] as object), children: { kid: {} } };
    expect(() => codec.encode({ ...w, snaps: [snap, w.snaps[1]] })).toThrow(/^actor 'writer' snapshot cannot move between shards: it has child actors \(kid\); the kernel keeps every actor flat/);
  });

  it('bytes of another scenario, or not a world', async () => {
    const a = holding({});
    const b = defineScenario({ name: 'other', actors: { x: { logic: { kind: 'reducer', init: () => 0, receive: (s: number) => ({ state: s }) } } } });
    const bytes = (await createWorldCodec(a)).encode(initialWorld(a).world);
    await expect(createWorldCodec(b).then((c) => c.decode(bytes))).rejects.toThrow(/encoded for another scenario than 'other'/);
    const codec = await createWorldCodec(a);
    expect(() => codec.decode(bytes.subarray(0, bytes.length - 3))).toThrow(WorldCodecError);
    expect(() => codec.decode(new Uint8Array([1, 2, 3]))).toThrow(/not an encoded world/);
  });

  it('a cycle', async () => {
    const cyc: Record<string, unknown> = { name: 'c' };
    cyc.self = { up: cyc };
    expect(await refusal({ cyc })).toMatch(/^actor 'writer' context\.cyc\.self\.up\.self\.up.*: a cycle \(an object inside itself\) cannot move between shards/);
  });

  it('carries what it can exactly: address stubs and objects of the initial world by identity, frozen and sealed objects, Errors, bigints; shared objects as copies', async () => {
    const shared = Object.freeze({ s: 1 });
    const err = new RangeError('bad');
    const context = { a: shared, b: shared, to: addressOf('store'), sealed: Object.seal({ x: 1 }), err, big: -12345678901234567890n };
    const sc = holding(context);
    const codec = await createWorldCodec(sc);
    const w = initialWorld(sc).world;
    // A context met later (not the initial world's object), holding the initial world's `shared` and a fresh copy of it.
    const later = { ...context, c: { ...shared } };
    const snap = { ...(w.snaps[0] as { context: unknown }), context: later };
    const d = codec.decode(codec.encode({ ...w, snaps: [snap, w.snaps[1]] }));
    const ctx = (d.snaps[0] as { context: typeof later }).context;
    expect(ctx).not.toBe(later);
    // Objects of the initial world keep their identity (both ends hold them); others arrive as equal copies.
    expect(ctx.a).toBe(shared);
    expect(ctx.b).toBe(shared);
    expect(ctx.c).not.toBe(later.c);
    expect(ctx.c).toEqual(later.c);
    expect(Object.isFrozen(ctx.c)).toBe(false);
    expect(Object.isSealed(ctx.sealed)).toBe(true);
    expect(ctx.to).toBe(addressOf('store'));
    expect(ctx.err).toBe(err);
    expect(ctx.big).toBe(context.big);
    const fresh = codec.decode(codec.encode({ ...w, snaps: [{ ...snap, context: { ...later, err: new TypeError('worse'), sealed: Object.seal({ x: 2 }) } }, w.snaps[1]] }));
    const ctx2 = (fresh.snaps[0] as { context: { err: Error; sealed: object } }).context;
    expect(ctx2.err).toBeInstanceOf(TypeError);
    expect([ctx2.err.message, Object.keys(ctx2.err)]).toEqual(['worse', []]);
    expect(Object.isSealed(ctx2.sealed) && !Object.isFrozen(ctx2.sealed)).toBe(true);
  });
});

/**
 * Exact structural equality, independent of the codec: same prototypes, same own keys in
 * the same order, Object.is on primitives (-0, NaN), holes, integrity, Map and Set order,
 * typed arrays' kind, buffer bytes and window. (Sharing is not compared: the codec turns a
 * DAG into a tree, see src/check/README.md.)
 */
function sameValue(a: unknown, b: unknown, path = '$'): void {
  if (typeof a !== 'object' || a === null) {
    if (!Object.is(a, b)) throw new Error(`${path}: ${String(a)} !== ${String(b)}`);
    return;
  }
  if (typeof b !== 'object' || b === null) throw new Error(`${path}: object vs ${String(b)}`);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) throw new Error(`${path}: prototypes differ`);
  if (Object.isFrozen(a) !== Object.isFrozen(b) || Object.isSealed(a) !== Object.isSealed(b) || Object.isExtensible(a) !== Object.isExtensible(b)) throw new Error(`${path}: integrity differs`);
  if (ArrayBuffer.isView(a)) {
    const x = a as Uint8Array,
      y = b as Uint8Array;
    if (x.byteOffset !== y.byteOffset || x.byteLength !== y.byteLength) throw new Error(`${path}: view window differs`);
    sameValue(x.buffer, y.buffer, `${path}.buffer`);
    return;
  }
  if (a instanceof ArrayBuffer) {
    if (Buffer.compare(Buffer.from(a), Buffer.from(b as ArrayBuffer)) !== 0) throw new Error(`${path}: bytes differ`);
    return;
  }
  if (a instanceof Date) return sameValue(a.getTime(), (b as Date).getTime(), `${path}.time`);
  if (a instanceof Map) {
    const x = [...a],
      y = [...(b as Map<unknown, unknown>)];
    if (x.length !== y.length) throw new Error(`${path}: Map sizes ${x.length} vs ${y.length}`);
    x.forEach(([k, v], i) => {
      sameValue(k, y[i]![0], `${path}<key ${i}>`);
      sameValue(v, y[i]![1], `${path}<value ${i}>`);
    });
    return;
  }
  if (a instanceof Set) return sameValue([...a], [...(b as Set<unknown>)], `${path}<set>`);
  const ka = Reflect.ownKeys(a),
    kb = Reflect.ownKeys(b);
  if (ka.join('|') !== kb.join('|')) throw new Error(`${path}: keys ${ka.join(',')} vs ${kb.join(',')}`);
  for (const k of ka) {
    const da = Object.getOwnPropertyDescriptor(a, k)!,
      db = Object.getOwnPropertyDescriptor(b, k)!;
    if (da.enumerable !== db.enumerable || da.writable !== db.writable || da.configurable !== db.configurable) throw new Error(`${path}.${String(k)}: attributes differ`);
    sameValue(da.value, db.value, `${path}.${String(k)}`);
  }
}

describe('world codec: values (property test)', () => {
  const value = fc
    .tuple(
      fc.anything({
        withBigInt: true,
        withDate: true,
        withMap: true,
        withSet: true,
        withTypedArray: true,
        withSparseArray: true,
        withNullPrototype: true,
        withObjectString: true,
        withUnicodeString: true,
        maxDepth: 4,
      }),
      fc.integer(),
    )
    .map(([v, seed]) => freezeSome(v, seed));

  /** Freezes or seals some objects (by a seeded choice), as immer and models do. */
  function freezeSome(v: unknown, seed: number): unknown {
    let x = seed | 0;
    const visit = (o: unknown): void => {
      if (typeof o !== 'object' || o === null || ArrayBuffer.isView(o)) return;
      for (const k of Object.keys(o)) visit((o as Record<string, unknown>)[k]);
      if (o instanceof Map) {
        for (const [k, y] of o) {
          visit(k);
          visit(y);
        }
      }
      x = (Math.imul(x, 1103515245) + 12345) | 0;
      if ((x >>> 16) % 5 === 0) Object.freeze(o);
      else if ((x >>> 16) % 5 === 1) Object.seal(o);
    };
    visit(v);
    return v;
  }

  it('decode(encode(v)) is exactly v, and encodes to the same bytes again', async () => {
    const w = new ValueWriter();
    fc.assert(
      fc.property(value, (v) => {
        w.reset();
        w.value(v);
        const bytes = w.take();
        const r = new ValueReader(bytes);
        const back = r.value();
        expect(r.pos).toBe(bytes.length);
        sameValue(v, back);
        w.reset();
        w.value(back);
        expect(w.take()).toEqual(bytes);
      }),
      { seed: 20261202, numRuns: 400 },
    );
  });

  it('edge values: -0, NaN, infinities, lone surrogates, holes, undefined entries, __proto__ keys, typed-array windows', () => {
    const buf = new ArrayBuffer(16);
    const holes: number[] = [1];
    holes[2] = 3;
    holes.length = 5;
    const proto = JSON.parse('{"__proto__": {"x": 1}, "a": 2}');
    const v = { z: -0, n: NaN, i: -Infinity, j: Infinity, s: 'a\ud800b', holes, u: [undefined], o: { u: undefined }, proto, a: new Uint16Array(buf, 2, 3), b: new DataView(buf, 8, 4), node: Buffer.from('hi') };
    const w = new ValueWriter();
    w.value(v);
    const back = new ValueReader(w.take()).value() as typeof v;
    sameValue(v, back);
    // Two views of one buffer arrive over two copies of it (a DAG becomes a tree), each whole.
    expect(back.a.buffer).not.toBe(back.b.buffer);
    expect(back.a.buffer.byteLength).toBe(16);
    expect(Object.getPrototypeOf(back.proto)).toBe(Object.prototype);
  });
});
