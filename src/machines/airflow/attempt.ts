// The task process of one attempt (IterableOperator.execute), as a pure step
// function: phase A reads the checkpoints, phase B is the event loop with at most
// W indexed tasks in flight (results in completion order, fail-fast, stop flag),
// phase C writes the rest then the marker with sync calls, phase D concludes.
// The checkpoint writer, the reader and the request channel are components of
// this one process: a hard kill takes them all at once, and the loop calls them
// synchronously, so they are not separate actors (see docs/airflow.md).
import type { Message } from '../../actors/index.ts';
import {
  ALL_KEY, MARKER_KEY, batchKey, indexKey, isFailFast, outcomeOf,
  type AirflowConfig, type Entry, type Marker, type Outcome,
} from './config.ts';
import { IDLE, asend, cancel, isIdle, release, syncSend, type ChannelState, type Req, type Role } from './channel.ts';
import { cancelWrites, newWriter, record, restOf, writeErr, writeOk, type Write, type WriterState } from './round-writer.ts';
import { pget, pset, pvec, type PVec } from './pstore.ts';

export type Phase = 'idle' | 'reading' | 'looping' | 'closing' | 'exited';
export type Fate = 'success' | 'skipped' | 'up_for_retry' | 'failed' | 'terminated';

/** A live coroutine of the loop: one index. */
export interface Co {
  readonly i: number;
  readonly stage: 'run' | 'read' | 'ckpt' | 'push' | 'idle';
  /** Its outcome, once the operator ended. */
  readonly o?: Outcome;
  /** It closed a round and awaits that write (writeAwait = closing-slot). */
  readonly holdsWrite: boolean;
  readonly replay: boolean;
}

export interface TaskCtx {
  readonly a: number;
  /** The runner started this try after a clear of a successful run. */
  readonly afterClear: boolean;
  readonly phase: Phase;
  readonly seq: number;
  readonly ch: ChannelState;
  // phase A
  readonly trusted: boolean;
  readonly since: number;
  readonly readN: number;
  readonly maxT: number;
  readonly earlier: PVec<Entry | null> | null;
  readonly readFailed: boolean;
  // phase B
  readonly next: number;
  readonly co: readonly Co[];
  readonly w: WriterState;
  readonly stop: 'none' | 'failfast' | 'sigterm' | 'timeout';
  readonly failed: readonly number[];
  readonly noRetry: boolean;
  readonly skipped: number;
  readonly records: number;
  // phase C
  readonly markerFailed: boolean;
  readonly fate: Fate | null;
}

/** A message to send; or, to `self`, a delayed event (an operator finishing); or a timer to cancel. */
export interface Out {
  readonly to: string;
  readonly msg: Message;
  readonly delay?: number;
  readonly id?: string;
  readonly cancel?: string;
}

export function initialTask(): TaskCtx {
  return {
    a: 0, afterClear: false, phase: 'idle', seq: 0, ch: IDLE,
    trusted: false, since: 0, readN: 0, maxT: 0, earlier: null, readFailed: false,
    next: 0, co: [], w: newWriter(0), stop: 'none',
    failed: [], noRetry: false, skipped: 0, records: 0, markerFailed: false, fate: null,
  };
}

/** A step under construction: the context so far and the messages to send. */
class Step {
  out: Out[] = [];
  constructor(
    public c: TaskCtx,
    readonly cfg: AirflowConfig,
  ) {}
  set(p: Partial<TaskCtx>): void {
    this.c = { ...this.c, ...p };
  }
  emit(msg: Message): void {
    this.out.push({ to: 'env', msg });
  }
  log(text: string, extra: Record<string, unknown> = {}): void {
    this.emit({ type: 'Log', a: this.c.a, text, ...extra });
  }
  req(op: Req['op'], key: string, role: Role, sync: boolean, more: Partial<Req> = {}): Req {
    const rid = this.c.seq + 1;
    this.set({ seq: rid });
    return { rid, op, key, role, sync, bytes: 0, ...more };
  }
  wire(r: Req): void {
    const type = r.op === 'get' ? 'GetTaskStateStore' : r.op === 'set' ? 'SetTaskStateStore' : 'SetXCom';
    const msg: Record<string, unknown> = { type, a: this.c.a, rid: r.rid, key: r.key, role: r.role, sync: r.sync, bytes: r.bytes };
    if (r.value !== undefined) msg.value = r.value;
    if (r.i !== undefined) msg.i = r.i;
    if (r.n !== undefined) msg.n = r.n;
    this.out.push({ to: 'supervisor', msg: msg as Message });
  }
  async(r: Req): void {
    const { ch, out } = asend(this.c.ch, r);
    this.set({ ch });
    if (out) this.wire(out);
  }
  /** A sync call; false when it raised DeadlockImminentError (logged). */
  sync(r: Req): boolean {
    const res = syncSend(this.c.ch, r);
    if ('error' in res) {
      this.log('DeadlockImminentError', { message: res.error.message });
      return false;
    }
    this.set({ ch: res.ch });
    this.wire(res.out);
    return true;
  }
}

const entryBytesOf = (cfg: AirflowConfig, entries: readonly Entry[]): number => entries.length * cfg.entryBytes;

// ---------- phase A: startup reads ----------

export function onStart(c0: TaskCtx, cfg: AirflowConfig, a: number, afterClear = false): { c: TaskCtx; out: Out[] } {
  const s = new Step({ ...initialTask(), a, afterClear, phase: 'reading' }, cfg);
  s.emit({ type: 'Begin', a });
  if (a === 1) startLoop(s);
  else if (!s.sync(s.req('get', MARKER_KEY, 'marker-read', true))) fail(s);
  void c0;
  return { c: s.c, out: s.out };
}

function readNext(s: Step): void {
  const { cfg } = s;
  if (cfg.design === 'per-round') s.sync(s.req('get', batchKey(s.c.readN), 'batch-read', true, { n: s.c.readN }));
  else if (cfg.design === 'overwrite-one-key') s.sync(s.req('get', ALL_KEY, 'all-read', true));
  else if (cfg.oldReads === 'upfront' && s.c.readN < cfg.items) s.sync(s.req('get', indexKey(s.c.readN), 'index-read', true, { i: s.c.readN }));
  else startLoop(s);
}

function fold(s: Step, entries: readonly Entry[]): void {
  let earlier = s.c.earlier ?? pvec<Entry | null>(s.cfg.items, null);
  let maxT = s.c.maxT;
  const t = entries.reduce((m, e) => Math.max(m, e.t), 0);
  if (s.cfg.staleGuard && t < s.c.maxT) {
    s.log('stale batch ignored', { n: s.c.readN, t, maxT: s.c.maxT });
    return;
  }
  for (const e of entries) if (e.i < s.cfg.items) earlier = pset(earlier, e.i, e);
  maxT = Math.max(maxT, t);
  s.set({ earlier, maxT });
}

function onReadResp(s: Step, r: Req, resp: Resp): void {
  const { cfg } = s;
  if (resp.error !== undefined) {
    s.log('startup read failed', { key: r.key, error: resp.error });
    s.set({ readFailed: true });
    fail(s);
    return;
  }
  switch (r.role) {
    case 'marker-read': {
      const m = resp.value as Marker | undefined;
      if (m?.completed === true && cfg.markerGuard && !s.c.afterClear) {
        // H6 guard: no clear happened, so the previous try was killed after its marker.
        s.log('completed marker without a clear: checkpoints trusted', { try_number: m.try_number });
        s.set({ trusted: true, since: m.since ?? 0, readN: 0 });
        readNext(s);
        return;
      }
      if (m?.completed === true) {
        // A rerun after a clear that kept the state: ignore the checkpoints.
        s.set({ trusted: false, since: s.c.a });
        if (!s.sync(s.req('set', MARKER_KEY, 'since-set', true, { value: { completed: false, since: s.c.a }, bytes: 32 }))) fail(s);
        return;
      }
      s.set({ trusted: true, since: m?.completed === false ? m.since : 0, readN: 0 });
      readNext(s);
      return;
    }
    case 'since-set':
      if (cfg.design === 'per-round' && cfg.rerunNumbering === 'appendAfterExisting') s.sync(s.req('get', batchKey(0), 'probe-read', true, { n: 0 }));
      else startLoop(s);
      return;
    case 'probe-read':
      if (resp.value === undefined) {
        s.set({ w: newWriter(r.n!) });
        startLoop(s);
      } else s.sync(s.req('get', batchKey(r.n! + 1), 'probe-read', true, { n: r.n! + 1 }));
      return;
    case 'batch-read':
      if (resp.value === undefined) {
        s.set({ w: newWriter(r.n!) });
        startLoop(s);
        return;
      }
      fold(s, resp.value as Entry[]);
      s.set({ readN: r.n! + 1 });
      readNext(s);
      return;
    case 'all-read': {
      const all = (resp.value as Entry[] | undefined) ?? [];
      fold(s, all);
      s.set({ w: newWriter(0, all) });
      startLoop(s);
      return;
    }
    case 'index-read':
      if (resp.value !== undefined) fold(s, resp.value as Entry[]);
      s.set({ readN: r.i! + 1 });
      readNext(s);
      return;
    default:
      return;
  }
}

// ---------- phase B: the loop ----------

function startLoop(s: Step): void {
  const w = s.c.w.all === null && s.cfg.design === 'overwrite-one-key' ? newWriter(0, []) : s.c.w;
  s.set({ phase: 'looping', w });
  s.emit({ type: 'Phase', a: s.c.a, phase: 'loop', trusted: s.c.trusted, since: s.c.since, batches: s.c.readN });
  if (s.c.stop !== 'none') {
    maybeClose(s);
    return;
  }
  pull(s);
  maybeClose(s);
}

/** The effective entry of i if fresh (try_number >= since), else null. */
function effective(c: TaskCtx, i: number): Entry | null {
  if (!c.trusted || c.earlier === null) return null;
  const e = pget(c.earlier, i);
  return e !== null && e.t >= c.since ? e : null;
}

function pull(s: Step): void {
  const { cfg } = s;
  if (s.c.phase !== 'looping') return;
  while (s.c.stop === 'none' && s.c.next < cfg.items && s.c.co.length < cfg.W) {
    const i = s.c.next;
    s.set({ next: i + 1 });
    const e = effective(s.c, i);
    if (e?.s === 'success') replay(s, i);
    else if (e?.s === 'skipped') {
      s.set({ skipped: s.c.skipped + 1 });
      s.emit({ type: 'Skip', a: s.c.a, i, replayed: true });
    } else if (cfg.design === 'per-index' && cfg.oldReads === 'in-coroutine' && s.c.trusted) {
      s.set({ co: [...s.c.co, { i, stage: 'read', holdsWrite: false, replay: false }] });
      s.async(s.req('get', indexKey(i), 'index-read', false, { i }));
    } else run(s, i);
  }
}

/** Replays index i: its coroutine starts on the loop (a zero-delay timer, its CPU slice), then re-pushes its XCom. */
function replay(s: Step, i: number, replaceCo = false): void {
  const co: Co = { i, stage: 'run', holdsWrite: false, replay: true };
  s.set({ co: replaceCo ? s.c.co.map((x) => (x.i === i ? co : x)) : [...s.c.co, co] });
  s.out.push({ to: 'self', msg: { type: 'Replay', a: s.c.a, i }, delay: 0, id: runTimer(s.c.a, i) });
}

export function onReplay(c: TaskCtx, cfg: AirflowConfig, msg: { a: number; i: number }): { c: TaskCtx; out: Out[] } {
  const x = c.co.find((y) => y.i === msg.i && y.stage === 'run' && y.replay);
  if (msg.a !== c.a || c.phase !== 'looping' || x === undefined) return { c, out: [] };
  const s = new Step(c, cfg);
  s.emit({ type: 'Replay', a: c.a, i: msg.i });
  updateCo(s, msg.i, { stage: 'push' });
  s.async(s.req('xcom', `return_value_${msg.i}`, 'push', false, { i: msg.i, value: { i: msg.i, t: c.a }, bytes: cfg.entryBytes }));
  return { c: s.c, out: s.out };
}

/** Runs index i's operator: its end is a timer of the process (operator I/O is a pure delay), so a kill cancels it. */
function run(s: Step, i: number, replaceCo = false): void {
  const co: Co = { i, stage: 'run', holdsWrite: false, replay: false };
  s.set({ co: replaceCo ? s.c.co.map((x) => (x.i === i ? co : x)) : [...s.c.co, co] });
  const o = outcomeOf(s.cfg, s.c.a, i);
  s.emit({ type: 'Run', a: s.c.a, i });
  s.out.push({ to: 'self', msg: { type: 'RunEnd', a: s.c.a, i, o }, delay: s.cfg.opMs, id: runTimer(s.c.a, i) });
}

/** The timer of index i's operator end (or replay start): a kill or a stop cancels it. */
const runTimer = (a: number, i: number): string => `run:${a}:${i}`;

function entryOf(o: Outcome, i: number, t: number): Entry {
  return { i, s: o === 's' ? 'success' : o === 'k' ? 'skipped' : 'up_for_retry', t };
}

function updateCo(s: Step, i: number, p: Partial<Co>): void {
  s.set({ co: s.c.co.map((x) => (x.i === i ? { ...x, ...p } : x)) });
}

/** A coroutine finished its stage: it ends unless it still awaits the round it closed. */
function settle(s: Step, i: number): void {
  const x = s.c.co.find((y) => y.i === i);
  if (x === undefined) return;
  if (x.holdsWrite) updateCo(s, i, { stage: 'idle' });
  else s.set({ co: s.c.co.filter((y) => y.i !== i) });
}

function startWrite(s: Step, start: Write | null): void {
  if (start === null) return;
  const key = s.cfg.design === 'overwrite-one-key' ? ALL_KEY : batchKey(start.n);
  const closer = s.cfg.writeAwait === 'closing-slot' ? start.closer : -1;
  if (closer >= 0) updateCo(s, closer, { holdsWrite: true });
  s.async(s.req('set', key, 'round', false, { n: start.n, value: start.value, bytes: entryBytesOf(s.cfg, start.value), i: closer }));
}

function recordEntry(s: Step, e: Entry, canWrite = true): void {
  s.set({ records: s.c.records + 1 });
  s.emit({ type: 'Record', a: s.c.a, i: e.i, s: e.s });
  if (s.cfg.design === 'per-index') return;
  const r = record(s.c.w, e, canWrite ? s.cfg.W : Number.MAX_SAFE_INTEGER, e.i);
  s.set({ w: r.w });
  startWrite(s, r.start);
}

/** The report of an index that finished (callbacks fire at once; failures are held). */
function report(s: Step, i: number, o: Outcome): void {
  if (o === 's') s.emit({ type: 'Report', a: s.c.a, i, cb: 'success' });
  else if (o === 'k') {
    s.emit({ type: 'Report', a: s.c.a, i, cb: 'skip' });
    s.set({ skipped: s.c.skipped + 1 });
  } else s.set({ failed: [...s.c.failed, i], noRetry: s.c.noRetry || o === 'n' });
}

export function onRunEnd(c: TaskCtx, cfg: AirflowConfig, msg: { a: number; i: number; o: Outcome }): { c: TaskCtx; out: Out[] } {
  const s = new Step(c, cfg);
  const x = c.co.find((y) => y.i === msg.i && y.stage === 'run');
  if (msg.a !== c.a || c.phase !== 'looping' || x === undefined) return { c, out: [] }; // cancelled or from a dead attempt
  updateCo(s, msg.i, { stage: 'idle', o: msg.o });
  s.emit({ type: 'RunEnd', a: c.a, i: msg.i, o: msg.o });
  const e = entryOf(msg.o, msg.i, c.a);
  if (isFailFast(msg.o)) {
    recordEntry(s, e, false);
    s.set({ failed: [...s.c.failed, msg.i], noRetry: true });
    settle(s, msg.i);
    stopLoop(s, 'failfast');
  } else if (cfg.design === 'per-index') {
    recordEntry(s, e);
    updateCo(s, msg.i, { stage: 'ckpt' });
    s.async(s.req('set', indexKey(msg.i), 'ckpt', false, { i: msg.i, value: [e], bytes: cfg.entryBytes }));
  } else {
    if (cfg.recordFirst || msg.o !== 's') recordEntry(s, e);
    report(s, msg.i, msg.o);
    if (msg.o === 's') {
      updateCo(s, msg.i, { stage: 'push' });
      s.async(s.req('xcom', `return_value_${msg.i}`, 'push', false, { i: msg.i, value: { i: msg.i, t: c.a }, bytes: cfg.entryBytes }));
    } else settle(s, msg.i);
  }
  pull(s);
  maybeClose(s);
  return { c: s.c, out: s.out };
}

/** Stop flag: no new pulls; in-flight indexed tasks are cancelled and record nothing. */
function stopLoop(s: Step, why: TaskCtx['stop']): void {
  if (s.c.stop !== 'none') return;
  const live = new Set(s.c.co.map((x) => x.i));
  for (const x of s.c.co) {
    if (x.stage !== 'run') continue;
    s.emit({ type: 'Cancel', a: s.c.a, i: x.i });
    s.out.push({ to: 'self', msg: { type: 'Cancel' }, cancel: runTimer(s.c.a, x.i) });
  }
  const ch = cancel(s.c.ch, (r) => (r.i !== undefined && live.has(r.i)) || r.role === 'round', s.cfg.h5Guard);
  s.set({ stop: why, co: [], w: cancelWrites(s.c.w), ch });
}

export function onSigTerm(c: TaskCtx, cfg: AirflowConfig, msg: { a: number; kind: 'sigterm' | 'timeout' }): { c: TaskCtx; out: Out[] } {
  if (msg.a !== c.a || (c.phase !== 'looping' && c.phase !== 'reading')) return { c, out: [] };
  const s = new Step(c, cfg);
  s.emit({ type: 'Kill', a: c.a, kind: msg.kind });
  if (c.phase === 'reading') s.set({ stop: msg.kind });
  else stopLoop(s, msg.kind);
  maybeClose(s);
  return { c: s.c, out: s.out };
}

// ---------- responses ----------

export interface Resp {
  readonly a: number;
  readonly rid: number;
  readonly value?: unknown;
  readonly error?: string;
}

export function onResponse(c: TaskCtx, cfg: AirflowConfig, resp: Resp): { c: TaskCtx; out: Out[] } {
  if (resp.a !== c.a || c.phase === 'exited' || c.phase === 'idle' || c.ch.holder === null) return { c, out: [] };
  const s = new Step(c, cfg);
  const r = c.ch.holder;
  if (r.rid !== resp.rid) s.log('response crossed with another request (H5)', { expected: r.rid, got: resp.rid });
  const orphan = c.ch.orphan;
  const rel = release(c.ch);
  s.set({ ch: rel.ch });
  if (rel.out) s.wire(rel.out);
  if (!orphan) dispatch(s, r, resp);
  maybeClose(s);
  return { c: s.c, out: s.out };
}

function dispatch(s: Step, r: Req, resp: Resp): void {
  const { cfg } = s;
  switch (r.role) {
    case 'marker-read':
    case 'since-set':
    case 'probe-read':
    case 'batch-read':
    case 'all-read':
      onReadResp(s, r, resp);
      return;
    case 'index-read':
      if (s.c.phase === 'reading') return onReadResp(s, r, resp);
      if (resp.error !== undefined) {
        s.log('checkpoint read failed', { i: r.i });
        report(s, r.i!, 'f');
        settle(s, r.i!);
      } else {
        const e = (resp.value as Entry[] | undefined)?.[0];
        if (e !== undefined && e.t >= s.c.since && e.s === 'success') replay(s, r.i!, true);
        else if (e !== undefined && e.t >= s.c.since && e.s === 'skipped') {
          s.set({ skipped: s.c.skipped + 1 });
          s.emit({ type: 'Skip', a: s.c.a, i: r.i!, replayed: true });
          settle(s, r.i!);
        } else run(s, r.i!, true);
      }
      break;
    case 'ckpt': {
      const x = s.c.co.find((y) => y.i === r.i)!;
      if (resp.error !== undefined) {
        // Old protocol: a failed checkpoint write fails its indexed task.
        s.log('checkpoint write failed: the indexed task fails', { i: r.i });
        report(s, r.i!, 'f');
        settle(s, r.i!);
      } else {
        report(s, r.i!, x.o!);
        if (x.o === 's') {
          updateCo(s, r.i!, { stage: 'push' });
          s.async(s.req('xcom', `return_value_${r.i}`, 'push', false, { i: r.i!, value: { i: r.i, t: s.c.a }, bytes: cfg.entryBytes }));
        } else settle(s, r.i!);
      }
      break;
    }
    case 'push': {
      const x = s.c.co.find((y) => y.i === r.i);
      s.emit({ type: 'Pushed', a: s.c.a, i: r.i!, replay: x?.replay ?? false });
      if (x !== undefined && !x.replay && !cfg.recordFirst && cfg.design !== 'per-index') recordEntry(s, entryOf('s', r.i!, s.c.a));
      settle(s, r.i!);
      break;
    }
    case 'round': {
      const res = resp.error === undefined ? writeOk(s.c.w) : writeErr(s.c.w);
      if (resp.error !== undefined) s.log('round write failed: entries carried to the next write', { n: r.n, entries: (r.value as Entry[]).length });
      s.set({ w: res.w });
      if (r.i !== undefined && r.i >= 0) {
        updateCo(s, r.i, { holdsWrite: false });
        const x = s.c.co.find((y) => y.i === r.i);
        if (x?.stage === 'idle') settle(s, r.i);
      }
      startWrite(s, res.start);
      break;
    }
    case 'rest':
      if (resp.error === undefined) s.set({ w: { ...s.c.w, nextN: s.c.w.nextN + 1, carried: [], pending: [] } });
      else s.log('rest write failed: these indexed tasks run again on a retry', { n: r.n, entries: (r.value as Entry[]).length });
      marker(s);
      break;
    case 'marker-set':
      if (resp.error !== undefined) {
        s.log('marker write failed', { error: resp.error });
        if (cfg.markerFailureFails) s.set({ markerFailed: true });
      }
      conclude(s);
      break;
  }
  pull(s);
}

// ---------- phases C and D ----------

function maybeClose(s: Step): void {
  const c = s.c;
  if (c.phase !== 'looping') return;
  if (c.co.length > 0 || (c.stop === 'none' && c.next < s.cfg.items)) return;
  if (c.w.inflight !== null || c.w.waiting.length > 0 || !isIdle(c.ch)) return;
  s.set({ phase: 'closing' });
  s.emit({ type: 'Phase', a: c.a, phase: 'closed' });
  const rest = s.cfg.design === 'per-index' ? [] : restOf(c.w);
  if (rest.length === 0) return marker(s);
  const key = s.cfg.design === 'overwrite-one-key' ? ALL_KEY : batchKey(c.w.nextN);
  if (!s.sync(s.req('set', key, 'rest', true, { n: c.w.nextN, value: rest, bytes: entryBytesOf(s.cfg, rest) }))) marker(s);
}

function fateOf(c: TaskCtx, cfg: AirflowConfig): Fate {
  if (c.stop === 'sigterm') return 'terminated';
  if (c.stop === 'timeout') return 'up_for_retry';
  if (c.stop === 'failfast') return 'failed';
  if (c.readFailed || c.markerFailed) return 'up_for_retry';
  if (c.failed.length > 0) return c.noRetry ? 'failed' : 'up_for_retry';
  if (cfg.items === 0 || c.skipped === cfg.items) return 'skipped';
  return 'success';
}

function completedMarker(s: Step): Marker {
  return s.cfg.markerGuard ? { completed: true, try_number: s.c.a, since: s.c.since } : { completed: true, try_number: s.c.a };
}

function marker(s: Step): void {
  const fate = fateOf(s.c, s.cfg);
  if (fate !== 'success' && fate !== 'skipped') return conclude(s);
  if (!s.sync(s.req('set', MARKER_KEY, 'marker-set', true, { value: completedMarker(s), bytes: 32 }))) {
    if (s.cfg.markerFailureFails) s.set({ markerFailed: true });
    conclude(s);
  }
}

/** Read failure before anything ran: straight to the conclusion. */
function fail(s: Step): void {
  s.set({ readFailed: true, phase: 'closing' });
  conclude(s);
}

function conclude(s: Step): void {
  const fate = fateOf(s.c, s.cfg);
  // Held failure and retry callbacks fire now, all announcing the same fate.
  for (const i of s.c.failed) s.emit({ type: 'Report', a: s.c.a, i, cb: fate === 'up_for_retry' ? 'retry' : 'failure' });
  s.set({ phase: 'exited', fate });
  s.emit({ type: 'End', a: s.c.a, state: fate });
  s.out.push({ to: 'runner', msg: { type: 'End', a: s.c.a, state: fate } });
}
