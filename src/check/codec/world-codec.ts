// Exact encoding of worlds, to move them between the processes of a distributed search
// (a world owned by another shard is encoded, sent, decoded and explored there). A decoded
// world is behaviourally identical to the original: same fingerprint, same enabled steps,
// same successors. Layout and the exactness argument: codec/README.md.
//
// A world is a header plus segments: each actor's snapshot, each message in flight, each
// timer's event, each monitor's state. Segments are cached by object identity on the
// sending side (a world shares most of them with its parent) and interned by content on
// the receiving side, so a received world's snapshots and messages are the same objects
// as in worlds received before, and the step memo and the fingerprint caches, which key
// on identity, keep hitting.
import type { AnyMachineSnapshot } from 'xstate';
import { ScenarioError, type Scenario } from '../../actors/scenario.ts';
import type { ActorStatus, Channel, Message, Timer, World } from '../../actors/types.ts';
import { EMPTY } from '../../actors/draft.ts';
import { snapshotParts, type MachineStepper, type SnapshotParts } from '../../actors/xstate-adapter.ts';
import { initialWorld } from '../../actors/kernel.ts';
import { ByteReader, ByteWriter, latin1View } from './byte-io.ts';
import { Refusal, ValueWriter } from './value-encode.ts';
import { ValueReader } from './value-decode.ts';
import { FIRST_OBJECT_TAG } from './value-tags.ts';
import { InternTable } from './intern.ts';
import { digestOf, mixBytes, worldObjects } from './world-codec-shared.ts';
import { LINK_MIN_BYTES, type SegmentLink } from './segment-link.ts';
import { loadArrowClasses, looksLikeArrow, type ArrowClasses } from './arrow-classes.ts';

/** Moves worlds of one scenario between processes, exactly. */
export interface WorldCodec {
  /**
   * Bytes that `decode` turns back into a world behaviourally identical to `world`. Throws `WorldCodecError` on a value it cannot carry exactly.
   * With a `link`, segments carried on it before are written as their number: the receiver must decode every world encoded with it, in order, with its own link.
   */
  encode(world: World, link?: SegmentLink): Uint8Array;
  /** The world that was encoded (with the receiving end of the sender's `link`, if it used one). Snapshots, reducer states, messages and monitor states equal to ones decoded before come back as the same objects. */
  decode(bytes: Uint8Array, link?: SegmentLink): World;
  /** Counters since the codec was made. */
  readonly stats: WorldCodecStats;
}

/** What a codec did so far. */
export interface WorldCodecStats {
  /** Worlds encoded. */
  encoded: number;
  /** Worlds decoded. */
  decoded: number;
  /** Segments (snapshots, messages, monitor states) encoded afresh: the rest came from the identity cache. */
  segmentsEncoded: number;
  /** Segments decoded that were already in the intern table (returned as the same object). */
  internHits: number;
  /** Segments decoded afresh. */
  internMisses: number;
}

/** Options of `createWorldCodec`. */
export interface WorldCodecOptions {
  /** Decoded segments kept for interning (the table is emptied when full, like the step memo). Default 65,536. */
  readonly internLimit?: number;
  /**
   * Carry apache-arrow objects (data types, Field, Schema, Data, RecordBatch, Table, Vector).
   * Default: when the scenario's initial world or inputs hold one, which loads apache-arrow.
   * Both ends must agree (the digest checks it).
   */
  readonly arrow?: boolean;
}

/** A world holds a value the codec cannot carry exactly, or the bytes are not a world of this scenario. */
export class WorldCodecError extends Error {
  /** Always `'WorldCodecError'`. */
  override name = 'WorldCodecError';
}

const MAGIC = 0x57,
  VERSION = 1;
const SEG_VALUE = 0,
  SEG_SNAPSHOT = 1;
const STATUS: readonly ActorStatus[] = ['up', 'crashed', 'error'];
const WORLD_KEYS = 'snaps,status,inbox,now,timers,faults,monitors,failure,anon';
const WORLD_KEY_SET = new Set(WORLD_KEYS.split(','));
const TIMER_KEYS = 'owner,to,id,due,event';
const AT_STATE = 0,
  AT_MESSAGE = 1,
  AT_TIMER = 2,
  AT_MONITOR = 3;

/** The kernel's world fields (order aside: decode writes them in the kernel's order), without allocating. */
function isKernelWorld(w: World): boolean {
  let n = 0;
  for (const k in w) {
    if (!Object.prototype.hasOwnProperty.call(w, k)) return false;
    n++;
    if (k === 'inputs') continue;
    if (!WORLD_KEY_SET.has(k)) return false;
  }
  return n === WORLD_KEY_SET.size || (n === WORLD_KEY_SET.size + 1 && 'inputs' in w);
}

/**
 * A codec for worlds of `sc`, the compiled scenario the search steps with `enabled`/`apply`.
 * Both ends must build it from the same scenario (same family and parameters): the bytes
 * carry a digest of its actors and monitors, checked on decode. Async because Arrow
 * support is imported when the scenario holds Arrow objects.
 *
 * @example
 * ```ts
 * const codec = await createWorldCodec(sc);
 * const bytes = codec.encode(world); // on the shard that met the world
 * const same = codec.decode(bytes); // on the shard that owns it: same fingerprint, same steps
 * ```
 */
export async function createWorldCodec(sc: Scenario, opts: WorldCodecOptions = {}): Promise<WorldCodec> {
  const init = initialWorld(sc, { detail: false }).world;
  const roots = [sc.actorList.map((a) => (a.kind === 'external' ? undefined : a.input)), (sc.start ?? []).map((x) => x.msg), sc.inputList.map((x) => x.step.msg)];
  const shared = worldObjects(sc, init, roots);
  const arrow = (opts.arrow ?? shared.objects.some(looksLikeArrow)) ? await loadArrowClasses() : undefined;
  return new Codec(sc, opts, init, shared, arrow);
}

class Codec implements WorldCodec {
  readonly stats: WorldCodecStats = { encoded: 0, decoded: 0, segmentsEncoded: 0, internHits: 0, internMisses: 0 };
  private digest: number;
  private readonly out = new ByteWriter();
  private readonly timersSeen = new WeakSet<object>();
  private readonly rawStrings = new Map<string, string>();
  private readonly vw: ValueWriter;
  private readonly vr: ValueReader;
  /** Encoded segments by object, as one-byte strings (see codec/byte-io.ts). */
  private cache = new WeakMap<object, string>();
  private readonly intern: InternTable;
  /** The bytes being decoded, for the intern keys. */
  private input: ReturnType<typeof latin1View> | undefined;
  /** Distinct machines of the scenario's actors, and one stepper of each (it restores snapshots). */
  private readonly machines = new Map<unknown, number>();
  private readonly steppers: MachineStepper[] = [];

  constructor(
    private readonly sc: Scenario,
    opts: WorldCodecOptions,
    init: World,
    shared: ReturnType<typeof worldObjects>,
    arrow: ArrowClasses | undefined,
  ) {
    this.digest = digestOf(sc);
    if (arrow) for (const c of arrow.byNumber) this.digest = mixBytes(this.digest, Buffer.from(c.name));
    this.vw = new ValueWriter();
    this.vr = new ValueReader(new Uint8Array(0));
    this.vw.arrow = arrow;
    this.vr.arrow = arrow;
    this.intern = new InternTable(opts.internLimit ?? 1 << 16);
    for (const a of sc.actorList) {
      if (a.kind !== 'machine' || this.machines.has(a.stepper.machine)) continue;
      this.machines.set(a.stepper.machine, this.steppers.length);
      this.steppers.push(a.stepper);
    }
    // Objects both ends hold keep their identity across processes: the initial world's
    // and the scenario's (actor inputs, start and input messages). Both ends compute them
    // alike (machines are pure), so each sends and receives them by number. Machines
    // reassign such objects later (an idle channel record, the actor's input list) and the
    // kernel's context diff compares by identity. The digest covers their content, so
    // both ends' numberings agree.
    const initBytes = this.encode(init);
    this.stats.encoded = 0;
    const { objects: known, strings, digest } = shared;
    this.digest = mixBytes(this.digest ^ digest, initBytes);
    this.vw.known = new Map(known.map((x, k) => [x, k]));
    this.vr.known = known;
    this.vw.dict = new Map(strings.map((x, k) => [x, k]));
    this.vr.dict = strings;
    this.cache = new WeakMap();
    this.vw.forgetBlocks();
  }

  /** The link of the world being encoded or decoded. */
  private link: SegmentLink | undefined;

  encode(w: World, link?: SegmentLink): Uint8Array {
    this.link = link;
    try {
      return this.encodeWorld(w);
    } finally {
      this.link = undefined;
    }
  }

  private encodeWorld(w: World): Uint8Array {
    const sc = this.sc;
    const n = sc.ids.length;
    if (!isKernelWorld(w)) throw new WorldCodecError(`not a world of the kernel: its fields are ${Object.keys(w).join(',')}, expected ${WORLD_KEYS}[,inputs]`);
    if (w.snaps.length !== n || w.status.length !== n || w.inbox.length !== n || w.monitors.length !== sc.monitorDefs.length) {
      throw new WorldCodecError(`the world does not fit scenario '${sc.name}' (${n} actors, ${sc.monitorDefs.length} monitors)`);
    }
    const o = this.out;
    o.begin();
    o.u8(MAGIC);
    o.u8(VERSION);
    o.ensure(4);
    o.view.setUint32(o.pos, this.digest, true);
    o.pos += 4;
    for (let i = 0; i < n; i++) {
      const st = STATUS.indexOf(w.status[i]!);
      if (st < 0) throw new WorldCodecError(`actor '${sc.ids[i]}' has status '${String(w.status[i])}', not one of ${STATUS.join(', ')}`);
      o.u8(st);
      const actor = sc.actorList[i]!;
      const s = w.snaps[i];
      if (actor.kind === 'machine' && typeof s === 'object' && s !== null && 'machine' in s) this.snapshotSegment(s as AnyMachineSnapshot, actor.id);
      else {
        this.at(AT_STATE, i, 0);
        this.segment(s);
      }
    }
    for (let i = 0; i < n; i++) {
      const chs = w.inbox[i]!;
      o.uint(chs.length);
      for (const ch of chs) {
        o.uint(ch.from);
        o.uint(ch.queue.length);
        for (let k = 0; k < ch.queue.length; k++) {
          this.at(AT_MESSAGE, i, ch.from, k, ch.queue[k]);
          this.segment(ch.queue[k]);
        }
      }
    }
    o.f64(w.now);
    this.count(w.faults, 'faults');
    this.count(w.anon, 'anon');
    o.uint(w.timers.length);
    for (const t of w.timers) {
      if (!this.timersSeen.has(t)) {
        if (Object.keys(t).join(',') !== TIMER_KEYS) throw new WorldCodecError(`timer '${t.id}' has fields ${Object.keys(t).join(',')}, expected ${TIMER_KEYS}`);
        this.timersSeen.add(t);
      }
      o.uint(t.owner);
      o.uint(t.to);
      this.rawString(t.id);
      o.f64(t.due);
      this.at(AT_TIMER, t.owner, 0, 0, t.id);
      this.segment(t.event);
    }
    for (let m = 0; m < w.monitors.length; m++) {
      this.at(AT_MONITOR, m, 0);
      this.segment(w.monitors[m]);
    }
    if (w.failure === undefined) o.u8(0);
    else {
      if (Object.keys(w.failure).join(',') !== 'monitor,message') throw new WorldCodecError(`world.failure has fields ${Object.keys(w.failure).join(',')}, expected monitor,message`);
      o.u8(1);
      this.rawString(w.failure.monitor);
      this.rawString(w.failure.message);
    }
    if (w.inputs === undefined) o.u8(0);
    else {
      o.u8(1);
      o.uint(w.inputs.length);
      for (const c of w.inputs) this.count(c, 'inputs');
    }
    this.stats.encoded++;
    return o.finish();
  }

  private count(x: number, what: string): void {
    if (!Number.isSafeInteger(x) || x < 0) throw new WorldCodecError(`world.${what} is ${x}, not a count`);
    this.out.uint(x);
  }

  private rawString(s: string): void {
    let t = this.rawStrings.get(s);
    if (t === undefined) {
      this.vw.reset();
      this.vw.str(s);
      t = this.vw.text();
      if (this.rawStrings.size < 1 << 12) this.rawStrings.set(s, t);
    }
    this.out.uint(t.length);
    this.out.latin1(t);
  }

  // Where the segment being encoded sits, for a refusal's message (set before each segment: no closure per call).
  private atKind = 0;
  private atA = 0;
  private atB = 0;
  private atK = 0;
  private atX: unknown = undefined;
  private at(kind: number, a: number, b: number, k = 0, x: unknown = undefined): void {
    this.atKind = kind;
    this.atA = a;
    this.atB = b;
    this.atK = k;
    this.atX = x;
  }

  private where(): string {
    const ids = this.sc.ids;
    switch (this.atKind) {
      case AT_STATE:
        return `actor '${ids[this.atA]}' state`;
      case AT_MESSAGE:
        return `message #${this.atK} ('${String((this.atX as Message | undefined)?.type)}') on channel '${ids[this.atB] ?? this.atB}' -> '${ids[this.atA]}', msg`;
      case AT_TIMER:
        return `timer '${String(this.atX)}' of actor '${ids[this.atA]}' event`;
      default:
        return `monitor '${this.sc.monitorNames[this.atA]}' state`;
    }
  }

  /** Writes a value's segment (length-prefixed), from the identity cache when it was encoded before. */
  private segment(v: unknown): void {
    const cacheable = typeof v === 'object' && v !== null;
    let bytes = cacheable ? this.cache.get(v) : undefined;
    if (bytes === undefined) {
      const vw = this.vw;
      vw.reset();
      vw.u8(SEG_VALUE);
      try {
        vw.root(v);
      } catch (e) {
        throw this.refused(e, this.where());
      }
      bytes = vw.text();
      if (cacheable) {
        this.cache.set(v, bytes);
        this.stats.segmentsEncoded++;
      }
    }
    this.put(bytes);
  }

  /** Writes a segment's bytes, or its number (length 0, then the number) when the link carried it before. */
  private put(bytes: string): void {
    const link = this.link;
    if (link !== undefined && bytes.length >= LINK_MIN_BYTES) {
      const id = link.number(bytes);
      if (id !== undefined) {
        this.out.uint(0);
        this.out.uint(id);
        return;
      }
    }
    this.out.uint(bytes.length);
    this.out.latin1(bytes);
  }

  private snapshotSegment(s: AnyMachineSnapshot, actorId: string): void {
    let bytes = this.cache.get(s);
    if (bytes === undefined) {
      const machine = this.machines.get(s.machine);
      let parts: SnapshotParts;
      try {
        if (machine === undefined) throw new Error("it is a snapshot of another machine than the actor's");
        parts = snapshotParts(s, s.machine);
      } catch (e) {
        throw new WorldCodecError(`actor '${actorId}' snapshot cannot move between shards: ${(e as Error).message}`);
      }
      const vw = this.vw;
      vw.reset();
      vw.u8(SEG_SNAPSHOT);
      vw.uint(machine!);
      vw.str(parts.status);
      let at = 'value';
      try {
        vw.value(parts.value);
        at = 'context';
        vw.value(parts.context);
        at = 'output';
        vw.value(parts.output);
        at = 'error';
        vw.value(parts.error);
      } catch (e) {
        throw this.refused(e, `actor '${actorId}' ${at}`);
      }
      vw.uint(parts.history.length);
      for (const [key, ids] of parts.history) {
        vw.str(key);
        vw.uint(ids.length);
        for (const id of ids) vw.str(id);
      }
      vw.uint(parts.nodes.length);
      for (const k of parts.nodes) vw.uint(k);
      bytes = vw.text();
      this.cache.set(s, bytes);
      this.stats.segmentsEncoded++;
    }
    this.put(bytes);
  }

  private refused(e: unknown, where: string): unknown {
    if (!(e instanceof Refusal)) return e;
    return new WorldCodecError(`${where}${e.path.join('')}: ${e.message}`);
  }

  decode(bytes: Uint8Array, link?: SegmentLink): World {
    // A Buffer's slice() and subarray() make Buffers whose slice() is a view, not a copy:
    // read through a plain Uint8Array over the same bytes.
    if (bytes instanceof Buffer) bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.link = link;
    try {
      return this.decodeWorld(bytes);
    } catch (e) {
      if (e instanceof WorldCodecError || e instanceof ScenarioError) throw e;
      throw new WorldCodecError(`these bytes are not a world encoded by this codec (${(e as Error).message}); both ends must run the same interleave version on the same scenario`);
    } finally {
      this.link = undefined;
    }
  }

  private decodeWorld(bytes: Uint8Array): World {
    const sc = this.sc;
    const r = new ByteReader(bytes);
    this.input = latin1View(bytes);
    if (r.u8() !== MAGIC || r.u8() !== VERSION) throw new WorldCodecError('these bytes are not an encoded world (bad magic or version)');
    const digest = r.view.getUint32(r.pos, true);
    r.pos += 4;
    if (digest !== this.digest) throw new WorldCodecError(`this world was encoded for another scenario than '${sc.name}' (its actors or monitors differ); build both ends' codecs from the same scenario and parameters`);
    const n = sc.ids.length;
    const snaps = new Array<unknown>(n);
    const status = new Array<ActorStatus>(n);
    for (let i = 0; i < n; i++) {
      status[i] = STATUS[r.u8()]!;
      snaps[i] = this.segmentAt(r);
    }
    const inbox = new Array<readonly Channel[]>(n);
    for (let i = 0; i < n; i++) {
      const nch = r.uint();
      if (nch === 0) {
        inbox[i] = EMPTY;
        continue;
      }
      const chs = new Array<Channel>(nch);
      for (let c = 0; c < nch; c++) {
        const from = r.uint();
        const len = r.uint();
        const queue = new Array<Message>(len);
        for (let k = 0; k < len; k++) queue[k] = this.segmentAt(r) as Message;
        chs[c] = { from, queue };
      }
      inbox[i] = chs;
    }
    const now = r.f64();
    const faults = r.uint();
    const anon = r.uint();
    const nt = r.uint();
    const timers = new Array<Timer>(nt);
    for (let k = 0; k < nt; k++) {
      const owner = r.uint();
      const to = r.uint();
      const id = this.rawStringAt(r);
      const due = r.f64();
      timers[k] = { owner, to, id, due, event: this.segmentAt(r) as Message };
    }
    const monitors = new Array<unknown>(sc.monitorDefs.length);
    for (let m = 0; m < monitors.length; m++) monitors[m] = this.segmentAt(r);
    const failure = r.u8() === 1 ? { monitor: this.rawStringAt(r), message: this.rawStringAt(r) } : undefined;
    let inputs: number[] | undefined;
    if (r.u8() === 1) {
      inputs = new Array<number>(r.uint());
      for (let k = 0; k < inputs.length; k++) inputs[k] = r.uint();
    }
    if (r.pos !== bytes.length) throw new WorldCodecError(`${bytes.length - r.pos} bytes left after the world`);
    this.stats.decoded++;
    return { snaps, status, inbox, now, timers, faults, monitors, failure, anon, ...(inputs ? { inputs } : {}) };
  }

  private rawStringAt(r: ByteReader): string {
    const len = r.uint();
    const start = r.pos;
    r.pos += len;
    this.vr.reset(r.buf, start);
    return this.vr.str();
  }

  /** The value of the segment at the reader's position: interned unless it is a primitive. */
  private segmentAt(r: ByteReader): unknown {
    const len = r.uint();
    const link = this.link;
    if (len === 0) {
      if (link === undefined) throw new Error('a segment carried by number, decoded without its link');
      return link.value(r.uint());
    }
    const v = this.segmentBytes(r, len);
    if (link !== undefined && len >= LINK_MIN_BYTES) link.add(v);
    return v;
  }

  private segmentBytes(r: ByteReader, len: number): unknown {
    const start = r.pos;
    const seg = r.bytes(len);
    if (seg[0] === SEG_VALUE && seg[1]! < FIRST_OBJECT_TAG) return this.read(seg);
    const key = this.input!.latin1Slice(start, start + len);
    const hit = this.intern.get(key);
    if (hit !== undefined) {
      this.stats.internHits++;
      return hit;
    }
    this.stats.internMisses++;
    const v = this.read(seg);
    this.intern.add(key, v);
    return v;
  }

  private read(seg: Uint8Array): unknown {
    const vr = this.vr;
    vr.reset(seg, 1);
    let v: unknown;
    if (seg[0] === SEG_VALUE) v = vr.value();
    else if (seg[0] === SEG_SNAPSHOT) {
      const stepper = this.steppers[vr.uint()];
      if (stepper === undefined) throw new Error('a snapshot of an unknown machine');
      const status = vr.str();
      const value = vr.value();
      const context = vr.value();
      const output = vr.value();
      const error = vr.value();
      const history: [string, string[]][] = [];
      for (let h = vr.uint(); h > 0; h--) {
        const key = vr.str();
        const ids: string[] = [];
        for (let k = vr.uint(); k > 0; k--) ids.push(vr.str());
        history.push([key, ids]);
      }
      const nodes: number[] = [];
      for (let k = vr.uint(); k > 0; k--) nodes.push(vr.uint());
      v = stepper.restore({ status, value, context, output, error, history, nodes });
    } else throw new Error(`unknown segment kind ${seg[0]}`);
    if (vr.pos !== seg.length) throw new Error('a segment has bytes left over');
    return v;
  }
}
