// Fingerprints and the visited set: canonical (order-insensitive objects, bytes by
// content), equal for worlds reached by commuting steps, compact, and symmetry.
import { Table, tableFromArrays, tableFromIPC, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { apply, enabled, initialWorld, Hasher, VisitedSet, WorldHasher, fpHex } from 'interleave/kernel';
import { defineScenario, rng, check, type Scenario, type TraceEvent, type World } from 'interleave';
import { AUX_MAX } from '../../src/check/search/visited.ts';
import { lostUpdate, machineRing, randomSystem, retryModel, tokenRing } from '../fixtures/check/models.ts';
import { buildAirflow } from '../../src/machines/airflow/scenario.ts';
import { assign, setup } from 'xstate';

function h(v: unknown): string {
  const x = new Hasher();
  x.hash(v);
  return `${x.ha}:${x.hb}`;
}

/**
 * A token ring whose monitors' states change shape as events arrive: keys added, removed
 * and set to undefined, nested records replaced, and a state that turns into an array or
 * a number and back (the monitor hashes a world's lanes keep must follow all of it).
 */
function shapeShifting(seed: number): Scenario {
  const ids = ['p0', 'p1', 'p2'];
  const r = rng(seed);
  const salt = r.int(7);
  const code = (e: TraceEvent): number => (e.kind === 'deliver' || e.kind === 'send' ? Number((e.msg as { v?: number }).v ?? 0) + (e.kind === 'send' ? 3 : 0) + e.to.length : 1);
  type Shape = Record<string, unknown> | unknown[] | number;
  const observe = (k: number) => (s: Shape, e: TraceEvent): Shape => {
    const c = (code(e) + k + salt) % 9;
    if (typeof s === 'number' || Array.isArray(s)) return c < 4 ? { back: c } : Array.isArray(s) ? [...s.slice(-2), c] : c;
    const next: Record<string, unknown> = { ...s };
    if (c === 0) return [c, 'list'];
    if (c === 1) return c + 40;
    if (c === 2) delete next[`k${(k + salt) % 3}`];
    else if (c === 3) next.gone = undefined;
    else if (c === 4) next.nested = { at: c, inner: { v: k } };
    else next[`k${c % 3}`] = c;
    return next;
  };
  return defineScenario({
    name: `shape-shifting-${seed}`,
    actors: Object.fromEntries(
      ids.map((id, i) => [
        id,
        {
          kind: 'reducer' as const,
          init: () => 0,
          receive: (s: number, msg: { type: string; v?: number; hops?: number }) =>
            msg.type === 'm' && (msg.hops ?? 0) > 0 ? { state: s + 1, send: [{ to: ids[(i + 1 + (msg.v ?? 0)) % 3]!, msg: { type: 'm', v: (s + (msg.v ?? 0)) % 2, hops: (msg.hops ?? 0) - 1 } }] } : { state: s + 1 },
        },
      ]),
    ),
    start: [
      { to: 'p0', msg: { type: 'm', v: 0, hops: 6 } },
      { to: 'p1', msg: { type: 'm', v: 1, hops: 5 } },
    ],
    monitors: Object.fromEntries([0, 1, 2, 3].map((k) => [`shape${k}`, { init: k === 3 ? 7 : { k0: k }, watches: () => true, observe: observe(k) }])),
  });
}

function run(sc: Scenario, ids: string[]): World {
  let w = initialWorld(sc, { detail: false }).world;
  for (const id of ids) w = apply(sc, w, enabled(sc, w).find((s) => s.id === id)!, { detail: false }).world;
  return w;
}

describe('structural hash', () => {
  it('is canonical for plain objects, ordered for arrays, typed by value', () => {
    expect(h({ a: 1, b: [2, 3] })).toBe(h({ b: [2, 3], a: 1 }));
    expect(h({ a: 1, b: undefined })).toBe(h({ a: 1 }));
    expect(h([1, 2])).not.toBe(h([2, 1]));
    expect(h(0)).not.toBe(h('0'));
    expect(h(1)).not.toBe(h(true));
    expect(h(null)).not.toBe(h(undefined));
    expect(h(0.5)).not.toBe(h(0.25));
    expect(h(new Map([['x', 1], ['y', 2]]))).toBe(h(new Map([['y', 2], ['x', 1]])));
    expect(h(new Uint8Array([1, 2, 3]))).toBe(h(new Uint8Array([1, 2, 3])));
    expect(h(new Uint8Array([1, 2, 3]))).not.toBe(h(new Uint8Array([1, 2, 4])));
    expect(h({ a: { b: 1 } })).not.toBe(h({ a: { b: 2 } }));
    expect(h(new Date(1))).not.toBe(h(new Date(2)));
    expect(h(new Date(1))).toBe(h(new Date(1)));
    expect(h(new Set([1, 2]))).toBe(h(new Set([2, 1])));
  });

  it('hashes Arrow tables by content, not by buffers or identity', () => {
    const a = tableFromArrays({ x: Int32Array.from([1, 2, 3]), s: ['a', 'b', 'c'] });
    const same = tableFromArrays({ x: Int32Array.from([1, 2, 3]), s: ['a', 'b', 'c'] });
    const viaIpc = tableFromIPC(tableToIPC(a));
    expect(h(a)).toBe(h(same));
    expect(h(a)).toBe(h(viaIpc));
    expect(h(a)).not.toBe(h(tableFromArrays({ x: Int32Array.from([1, 2, 4]), s: ['a', 'b', 'c'] })));
    expect(h(a)).not.toBe(h(tableFromArrays({ x: Int32Array.from([1, 2, 3]), s: ['a', 'b', 'd'] })));
    expect(h({ batch: a })).toBe(h({ batch: viaIpc }));
  });

  it('hashes Arrow record batches and schemas by content, so serialising a batch does not change its hash', () => {
    const make = () => tableFromArrays({ x: Int32Array.from([1, 2, 3]), s: ['a', 'b', 'c'] }).batches[0]!;
    const a = make();
    const b = make();
    const before = h({ batch: a, schema: a.schema });
    // Serialising fills the schema's dictionaries lazily: a plain-object hash would move.
    tableToIPC(new Table([b]));
    expect(h({ batch: b, schema: b.schema })).toBe(before);
    const other = tableFromArrays({ x: Int32Array.from([1, 2, 4]), s: ['a', 'b', 'c'] }).batches[0]!;
    expect(h({ batch: other })).not.toBe(h({ batch: a }));
    expect(h({ batch: a })).not.toBe(h({ batch: tableFromArrays({ x: Int32Array.from([1, 2, 3]), s: ['a', 'b', 'c'] }) }));
  });

  it('an array hashed from its elements\' hashes (seqOfLanes) equals the array hashed whole', () => {
    const r = rng(3);
    for (let n = 0; n < 200; n++) {
      const xs = Array.from({ length: r.int(6) }, () => (r.int(3) === 0 ? { a: r.int(5), b: [r.int(3), 'x'] } : r.int(3) === 1 ? `s${r.int(9)}` : r.int(100)));
      const x = new Hasher();
      const lanes: number[] = [];
      for (const v of xs) {
        x.hash(v);
        // Stored as int32, as a world's lanes hold them.
        lanes.push(x.ha | 0, x.hb | 0);
      }
      x.seqOfLanes(lanes, 0, xs.length);
      expect(`${x.ha}:${x.hb}`).toBe(h(xs));
    }
  });

  it('gives 64-bit keys with no collisions over many small distinct values', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(h({ i, s: `k${i % 97}`, xs: [i & 7, i >> 3] }));
    expect(seen.size).toBe(20_000);
  });

  it('hashes an xstate snapshot by content, not by object identity', async () => {
    const sc = lostUpdate();
    const a = run(sc, ['deliver:env->c1:go']);
    const b = run(sc, ['deliver:env->c1:go']);
    const i = sc.index.get('c1')!;
    expect(a.snaps[i]).not.toBe(b.snaps[i]);
    expect(h(a.snaps[i])).toBe(h(b.snaps[i]));
  });
});

describe('world fingerprints', () => {
  it('worlds reached by commuting steps are equal; different worlds differ', () => {
    const sc = lostUpdate();
    const wh = new WorldHasher(sc, false);
    const x = run(sc, ['deliver:env->c1:go', 'deliver:env->c2:go']);
    const y = run(sc, ['deliver:env->c2:go', 'deliver:env->c1:go']);
    const z = run(sc, ['deliver:env->c1:go']);
    expect(fpHex(wh.fp(x))).toBe(fpHex(wh.fp(y)));
    expect(fpHex(wh.fp(x))).not.toBe(fpHex(wh.fp(z)));
  });

  it('symmetry collapses interchangeable clients without changing the verdict', async () => {
    const plain = lostUpdate({ cas: true, clients: 3 });
    const sym = { ...plain, symmetry: [['c1', 'c2', 'c3']] } as Scenario;
    const a = await check(plain, { strategy: 'bfs' });
    const b = await check(sym, { strategy: 'bfs' });
    expect(a.ok && b.ok && a.complete && b.complete).toBe(true);
    expect(b.options.symmetry).toBe(true);
    expect(b.stats.distinctStates!).toBeLessThan(a.stats.distinctStates!);
    const off = await check(sym, { strategy: 'bfs', symmetry: false });
    expect(off.stats.distinctStates).toBe(a.stats.distinctStates);
    const race = await check({ ...lostUpdate({ clients: 3 }), symmetry: [['c1', 'c2', 'c3']] } as Scenario, { strategy: 'bfs' });
    expect(race.ok).toBe(false);
    expect(race.violation!.schedule).toHaveLength(8);
  });
});

describe('visited set', () => {
  it('holds many fingerprints at <= 16 bytes a state (8-byte slots, 7/12 to 7/8 full)', () => {
    const v = new VisitedSet();
    const r = rng(1);
    const keys: [number, number][] = [];
    for (let i = 0; i < 300_000; i++) keys.push([r.nextU32(), r.nextU32()]);
    let added = 0,
      again = 0,
      found = 0;
    for (const [a, b] of keys) if (v.add(a, b)) added++;
    for (const [a, b] of keys) if (v.add(a, b)) again++;
    for (const [a, b] of keys) if (v.has(a, b)) found++;
    expect([added, again, found, v.size]).toEqual([300_000, 0, 300_000, 300_000]);
    // At every size on the way, not just at the end.
    const w = new VisitedSet(true);
    let worst = 0;
    for (let i = 0; i < 100_000; i++) {
      w.add(keys[i]![0], keys[i]![1]);
      if (i > 2000) worst = Math.max(worst, w.bytes / w.size);
    }
    expect(worst).toBeLessThanOrEqual(16);
    expect(v.has(12345, 67890)).toBe(false);
    expect(v.bytes / v.size).toBeLessThanOrEqual(16);
    expect(v.add(0, 0)).toBe(true);
    expect(v.add(0, 0)).toBe(false);
  });

  it('keeps a per-state number (bfs depth) in 2 bytes, saturating at AUX_MAX', () => {
    const v = new VisitedSet(true, 16, false, true);
    const r = rng(3);
    const depths = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const a = r.nextU32(),
        b = r.nextU32();
      const d = r.int(3) === 0 ? AUX_MAX + r.int(100_000) : r.int(AUX_MAX);
      v.add(a, b);
      v.setAux(d);
      depths.set(`${a}:${b}`, d);
    }
    for (const [k, d] of depths) {
      const [a, b] = k.split(':').map(Number);
      expect(v.has(a!, b!)).toBe(true);
      expect(v.getAux()).toBe(Math.min(d, AUX_MAX));
    }
    // keys 8 + mark 1 + aux 2 bytes a slot
    expect(v.bytes).toBe(v.capacity * 11);
  });

  it('a larger exploration stays compact', async () => {
    for (const por of [false, true]) {
      const r = await check(tokenRing(5, 1, 2), { strategy: 'dfs', por });
      expect(r.complete).toBe(true);
      expect(r.stats.distinctStates).toBeGreaterThan(1000);
      expect(r.stats.bytesPerState).toBeLessThanOrEqual(16);
    }
  });
});

describe('incremental fingerprints', () => {
  it('a record hashed from a known one (recordDelta) equals the record hashed afresh', () => {
    const r = rng(7);
    const value = (): unknown => r.pick([1, 2, 'x', 'y', undefined, null, [1, 2], { a: 1 }, { a: [1, { b: 'z' }] }, 0.5]);
    let checked = 0;
    for (let t = 0; t < 500; t++) {
      const prev: Record<string, unknown> = {};
      for (let k = 0; k < r.int(8); k++) prev[`k${r.int(10)}`] = value();
      const next: Record<string, unknown> = { ...prev };
      for (let k = 0; k < r.int(4); k++) {
        const key = `k${r.int(10)}`;
        if (r.int(3) === 0) delete next[key];
        else next[key] = value();
      }
      const hp = new Hasher();
      hp.recordSums(prev);
      const hn = new Hasher();
      hn.recordDelta(prev, next, hp.sa, hp.sb, hp.sn);
      hn.recordHash(hn.sa, hn.sb, hn.sn);
      expect(`${hn.ha}:${hn.hb}`).toBe(h(next));
      checked++;
    }
    expect(checked).toBe(500);
  });

  it("a world hashed from its parent's lanes equals the world hashed afresh, along random walks", () => {
    // airflow: 18 monitors, a few moving per step (each monitor's hash is reused from the parent's lanes), and restarts.
    const models: Scenario[] = [
      lostUpdate({ clients: 3 }),
      machineRing(4, 1, 2),
      retryModel(2),
      randomSystem(3, true),
      randomSystem(8),
      buildAirflow({ items: 2, W: 2, faultBudget: 2, hardKill: true }),
      // Monitors whose record states gain, lose and blank keys, or stop being records.
      ...[1, 2, 3, 4].map(shapeShifting),
    ];
    let worlds = 0;
    for (const sc of models) {
      const inc = new WorldHasher(sc, false);
      const r = rng(5);
      for (let run = 0; run < 20; run++) {
        let w = initialWorld(sc, { detail: false }).world;
        inc.world(w);
        let lanes = inc.lastLanes;
        for (let d = 0; d < 60; d++) {
          const steps = enabled(sc, w);
          if (steps.length === 0) break;
          const next = apply(sc, w, r.pick(steps), { detail: false }).world;
          inc.world(next, w, lanes);
          lanes = inc.lastLanes;
          expect(fpHex({ a: inc.ha, b: inc.hb })).toBe(fpHex(new WorldHasher(sc, false).fp(next)));
          worlds++;
          w = next;
        }
      }
    }
    expect(worlds).toBeGreaterThan(1000);
  });

  it('one machine fed its inputs: fingerprints stay equal to fresh ones past the point where the snapshot cache gives up', () => {
    // Every changed snapshot is a new object here (no step memo), so the cache misses,
    // turns itself off after its probe, and later worlds (and worlds hashed again, whose
    // snapshots it may have held) must hash as before.
    const counter = setup({
      types: { context: {} as { n: number; m: number }, events: {} as { type: 'INC' } | { type: 'DEC' } | { type: 'FLIP' } },
    }).createMachine({
      context: { n: 0, m: 0 },
      initial: 'a',
      states: {
        a: { on: { FLIP: 'b', INC: { actions: assign({ n: ({ context }) => context.n + 1 }) } } },
        b: { on: { FLIP: 'a', DEC: { actions: assign({ m: ({ context }) => context.m + 1 }) } } },
      },
    });
    const sc = defineScenario({ name: 'one-counter', actors: { counter }, unhandled: 'trace', inputs: [{ to: 'counter', events: [{ type: 'INC' }, { type: 'DEC' }, { type: 'FLIP' }] }] });
    const inc = new WorldHasher(sc, false);
    const r = rng(11);
    let w = initialWorld(sc, { detail: false }).world;
    inc.world(w);
    let lanes = inc.lastLanes;
    const seen: World[] = [];
    for (let d = 0; d < 3000; d++) {
      const next = apply(sc, w, r.pick(enabled(sc, w)), { detail: false }).world;
      inc.world(next, w, lanes);
      lanes = inc.lastLanes;
      expect(fpHex({ a: inc.ha, b: inc.hb })).toBe(fpHex(new WorldHasher(sc, false).fp(next)));
      if (d % 7 === 0) seen.push(next);
      w = next;
    }
    for (const x of seen) expect(fpHex(inc.fp(x))).toBe(fpHex(new WorldHasher(sc, false).fp(x)));
    expect(seen.length).toBeGreaterThan(400);
  });
});
