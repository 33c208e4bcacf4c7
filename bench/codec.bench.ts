// `npm run bench -- codec`: the cost of moving worlds between the shards of a distributed
// search (src/check/codec/world-codec.ts). A stream of worlds is taken as a search makes them
// (every successor of the first distinct worlds of a bfs, with the step memo, as the checker
// steps), then:
// - the world codec (hand-written binary, parts cached by identity when sent and interned
//   by content when received) encodes the stream in one codec and decodes it in another;
// - `v8.serialize` with the pre-walk it needs (machine snapshots to their parts, every
//   object's prototype checked, since structured clone drops prototypes silently), and
//   `v8.deserialize` plus the snapshots' restore; no interning;
// - the receiver steps the decoded worlds with a step memo, with and without interning,
//   against stepping the original worlds: the memo's hit rate.
// CPU time (process.cpuUsage), one run: on a loaded machine compare the rows, not the absolutes.
//   --worlds=N   worlds in the stream (default 20,000)
//   --only=NAME  one model (airflow or materialize)
import v8 from 'node:v8';
import type { AnyMachineSnapshot } from 'xstate';
import { StepMemo, apply, enabled, initialWorld, parseParams, type Scenario, type World } from '../src/actors/index.ts';
import { snapshotParts, type MachineStepper, type SnapshotParts } from '../src/actors/xstate-adapter.ts';
import { WorldHasher } from '../src/check/fingerprint/fingerprint.ts';
import { createWorldCodec } from '../src/check/codec/world-codec.ts';
import { airflowFamily } from '../src/machines/airflow/family.ts';
import { materializePeeksFamily } from '../src/machines/materialize/family.ts';
import { printTable, type Cell } from './table.ts';
import { flag } from './flags.ts';

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Successors as a bfs with the step memo generates them, and the search's CPU per distinct state. */
function stream(sc: Scenario, count: number): { worlds: World[]; usPerState: number } {
  const h = new WorldHasher(sc, false);
  const memo = new StepMemo();
  const seen = new Set<string>();
  const worlds: World[] = [];
  const queue = [initialWorld(sc, { detail: false }).world];
  let states = 0;
  const t0 = cpuMs();
  for (let q = 0; q < queue.length && worlds.length < count; q++) {
    const w = queue[q]!;
    states++;
    for (const s of enabled(sc, w)) {
      const next = apply(sc, w, s, { detail: false, memo }).world;
      worlds.push(next);
      h.world(next);
      const key = `${h.ha}:${h.hb}`;
      if (!seen.has(key)) {
        seen.add(key);
        queue.push(next);
      }
    }
  }
  return { worlds: worlds.slice(0, count), usPerState: ((cpuMs() - t0) * 1000) / states };
}

/** The v8.serialize baseline: a walk that turns snapshots into parts and checks every object's prototype. */
function v8Codec(sc: Scenario): { encode(w: World): Uint8Array; decode(b: Uint8Array): World } {
  const steppers = sc.actorList.map((a) => (a.kind === 'machine' ? a.stepper : undefined));
  const check = (v: unknown): void => {
    if (typeof v === 'function' || typeof v === 'symbol') throw new Error('cannot carry a function or symbol');
    if (typeof v !== 'object' || v === null) return;
    const proto = Object.getPrototypeOf(v);
    if (Array.isArray(v)) for (const x of v) check(x);
    else if (proto === Object.prototype || proto === null) for (const k in v) check((v as Record<string, unknown>)[k]);
    else if (v instanceof Map) {
      for (const [k, x] of v) {
        check(k);
        check(x);
      }
    }
    else if (v instanceof Set) for (const x of v) check(x);
    else if (!(v instanceof Date) && !ArrayBuffer.isView(v)) throw new Error(`cannot carry a ${proto?.constructor?.name}`);
  };
  return {
    encode(w) {
      const snaps = w.snaps.map((s, i) => {
        const st = steppers[i];
        if (st === undefined || typeof s !== 'object' || s === null) return s;
        const p = snapshotParts(s as AnyMachineSnapshot, st.machine);
        check(p.context);
        return p;
      });
      for (const s of snaps) check(s);
      check(w.inbox);
      check(w.timers);
      check(w.monitors);
      return v8.serialize({ ...w, snaps });
    },
    decode(b) {
      const w = v8.deserialize(b) as World;
      const snaps = w.snaps.map((s, i) => (steppers[i] !== undefined && s ? (steppers[i] as MachineStepper).restore(s as SnapshotParts) : s));
      return { ...w, snaps };
    },
  };
}

/** The memo's hit rate when a receiver steps every enabled step of these worlds. */
function memoRate(sc: Scenario, worlds: readonly World[]): number {
  const memo = new StepMemo();
  for (const w of worlds) for (const s of enabled(sc, w)) apply(sc, w, s, { detail: false, memo });
  const { lookups, hits } = memo.counts;
  return lookups === 0 ? 0 : (100 * hits) / lookups;
}

export default async function codecBench(argv: readonly string[]): Promise<void> {
  const count = Number(flag(argv, 'worlds') ?? 20000);
  const only = flag(argv, 'only');
  const models = [
    { name: 'airflow-checkpoints items=8 taskConcurrency=2', key: 'airflow', sc: () => airflowFamily.build(parseParams(airflowFamily, { items: 8, taskConcurrency: 2 })) },
    { name: 'materialize-peeks workers=2 slotRelease=walk-end', key: 'materialize', sc: () => materializePeeksFamily.build(parseParams(materializePeeksFamily, { workers: 2, slotRelease: 'walk-end' })) },
  ].filter((m) => only === undefined || m.key === only);
  const rows: Cell[][] = [];
  const memoRows: Cell[][] = [];
  for (const m of models) {
    const sc = m.sc();
    const { worlds, usPerState } = stream(sc, count);
    const n = worlds.length;

    const sender = await createWorldCodec(sc);
    let t = cpuMs();
    const encoded = worlds.map((w) => sender.encode(w));
    const enc = ((cpuMs() - t) * 1000) / n;
    const receiver = await createWorldCodec(sc);
    t = cpuMs();
    const decoded = encoded.map((b) => receiver.decode(b));
    const dec = ((cpuMs() - t) * 1000) / n;
    const bytes = encoded.reduce((a, b) => a + b.length, 0) / n;
    const st = receiver.stats;
    rows.push([m.name, 'world codec (binary, identity cache + interning)', enc, dec, enc + dec, bytes, `${((100 * st.internHits) / (st.internHits + st.internMisses)).toFixed(1)}%`, usPerState]);

    const cold = await createWorldCodec(sc, { internLimit: 0 });
    t = cpuMs();
    for (const b of encoded) cold.decode(b);
    const decCold = ((cpuMs() - t) * 1000) / n;
    rows.push([m.name, 'world codec, decode without interning', enc, decCold, enc + decCold, bytes, '-', usPerState]);

    const base = v8Codec(sc);
    t = cpuMs();
    const v8bytes = worlds.map((w) => base.encode(w));
    const venc = ((cpuMs() - t) * 1000) / n;
    t = cpuMs();
    for (const b of v8bytes) base.decode(b);
    const vdec = ((cpuMs() - t) * 1000) / n;
    rows.push([m.name, 'v8.serialize + pre-walk (no interning)', venc, vdec, venc + vdec, v8bytes.reduce((a, b) => a + b.length, 0) / n, '-', usPerState]);

    const plain = await createWorldCodec(sc, { internLimit: 0 });
    memoRows.push([m.name, memoRate(sc, worlds), memoRate(sc, decoded), memoRate(sc, encoded.map((b) => plain.decode(b)))]);
  }
  printTable(
    `codec: cost per world (${count.toLocaleString('en-US')} worlds as a bfs generates them; CPU µs)`,
    ['model', 'codec', 'encode µs', 'decode µs', 'sum µs', 'bytes/world', 'parts interned', 'search µs/state'],
    rows,
    'encode: one sending codec over the stream in order (parts shared with earlier worlds come from its identity cache); decode: one receiving codec. "search µs/state": CPU of the bfs that made the stream, per distinct state expanded.',
  );
  printTable('codec: step memo hit rate when a receiver steps the worlds', ['model', 'original worlds', 'decoded, interned', 'decoded, not interned'], memoRows.map((r) => [r[0]!, ...r.slice(1).map((x) => `${(x as number).toFixed(1)}%`)]));
}
