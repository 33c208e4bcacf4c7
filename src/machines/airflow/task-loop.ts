// Phase B, the event loop: at most W indexed tasks in flight (results in completion
// order, fail-fast, stop flag), each a coroutine that runs or replays its index,
// records its outcome with the round writer, and pushes its XCom; plus the loop's
// own responses (in-coroutine reads, per-index checkpoints, pushes, round writes).
import { ALL_KEY, batchKey, indexKey, isFailFast, outcomeOf, type AirflowConfig, type Entry, type Outcome } from './config.ts';
import { cancel, type Req } from './channel.ts';
import { cancelWrites, newWriter, record, writeErr, writeOk, type Write } from './round-writer.ts';
import { pget } from './pstore.ts';
import { Step, entryBytesOf, type Co, type Out, type Resp, type TaskCtx } from './task-ctx.ts';

/** The loop starts (the chart enters `looping`): it pulls up to W indexes, unless a SIGTERM came during the reads. */
export function enterLoop(c: TaskCtx, cfg: AirflowConfig): { c: TaskCtx; out: Out[] } {
  const s = new Step(c, cfg);
  const w = s.c.w.all === null && s.cfg.design === 'overwrite-one-key' ? newWriter(0, []) : s.c.w;
  s.set({ w });
  s.emit({ type: 'Phase', a: s.c.a, phase: 'loop', trusted: s.c.trusted, since: s.c.since, batches: s.c.readN });
  if (s.c.stop === 'none') pull(s);
  return s.done();
}

/** The effective entry of i if fresh (try_number >= since), else null. */
function effective(c: TaskCtx, i: number): Entry | null {
  if (!c.trusted || c.earlier === null) return null;
  const e = pget(c.earlier, i);
  return e !== null && e.t >= c.since ? e : null;
}


export function pull(s: Step): void {
  const { cfg } = s;
  while (s.c.stop === 'none' && s.c.next < cfg.items && s.c.co.length < cfg.W) {
    const i = s.c.next;
    s.set({ next: i + 1 });
    const e = effective(s.c, i);
    if (e?.s === 'success') replay(s, i);
    else if (e?.s === 'skipped') skipReplayed(s, i);
    else if (cfg.design === 'per-index' && cfg.oldReads === 'in-coroutine' && s.c.trusted) {
      s.set({ co: [...s.c.co, { i, stage: 'read', holdsWrite: false, replay: false }] });
      s.async(s.req('get', indexKey(i), 'index-read', false, { i }));
    } else run(s, i);
  }
}

/** Index i's coroutine starts, or takes over the one its in-coroutine read held (`replace`). */
function startCo(s: Step, co: Co, replace: boolean): void {
  s.set({ co: replace ? s.c.co.map((x) => (x.i === co.i ? co : x)) : [...s.c.co, co] });
}

/** Index i's fresh checkpoint says skipped: it counts as skipped and does not run. */
function skipReplayed(s: Step, i: number): void {
  s.set({ skipped: s.c.skipped + 1 });
  s.emit({ type: 'Skip', a: s.c.a, i, replayed: true });
}

/** Index i pushes its XCom `return_value_<i>` (after a success, or re-pushed on a replay). */
function pushXCom(s: Step, i: number): void {
  updateCo(s, i, { stage: 'push' });
  s.async(s.req('xcom', `return_value_${i}`, 'push', false, { i, value: { i, t: s.c.a }, bytes: s.cfg.entryBytes }));
}

/** Replays index i: its coroutine starts on the loop (a zero-delay timer, its CPU slice), then re-pushes its XCom. */
function replay(s: Step, i: number, replaceCo = false): void {
  startCo(s, { i, stage: 'run', holdsWrite: false, replay: true }, replaceCo);
  s.out.push({ to: 'self', msg: { type: 'Replay', a: s.c.a, i }, delay: 0, id: runTimer(s.c.a, i) });
}

export function onReplay(c: TaskCtx, cfg: AirflowConfig, msg: { a: number; i: number }): { c: TaskCtx; out: Out[] } {
  const x = c.co.find((y) => y.i === msg.i && y.stage === 'run' && y.replay);
  if (msg.a !== c.a || x === undefined) return { c, out: [] };
  const s = new Step(c, cfg);
  s.emit({ type: 'Replay', a: c.a, i: msg.i });
  pushXCom(s, msg.i);
  return { c: s.c, out: s.out };
}

/** Runs index i's operator: its end is a timer of the process (operator I/O is a pure delay), so a kill cancels it. */
function run(s: Step, i: number, replaceCo = false): void {
  startCo(s, { i, stage: 'run', holdsWrite: false, replay: false }, replaceCo);
  const o = outcomeOf(s.cfg, s.c.a, i);
  s.emit({ type: 'Run', a: s.c.a, i });
  s.out.push({ to: 'self', msg: { type: 'RunEnd', a: s.c.a, i, o }, delay: s.cfg.opMs, id: runTimer(s.c.a, i) });
}

/** The timer of index i's operator end (or replay start): a kill or a stop cancels it. */
export const runTimer = (a: number, i: number): string => `run:${a}:${i}`;

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
  if (msg.a !== c.a || x === undefined) return { c, out: [] }; // cancelled or from a dead attempt
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
    if (msg.o === 's') pushXCom(s, msg.i);
    else settle(s, msg.i);
  }
  pull(s);
  return s.done();
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

/** SIGTERM or execution_timeout of this try: during the reads it only sets the stop flag; in the loop it stops the loop. */
export function onSigTerm(c: TaskCtx, cfg: AirflowConfig, msg: { a: number; kind: 'sigterm' | 'timeout' }, looping: boolean): { c: TaskCtx; out: Out[] } {
  if (msg.a !== c.a) return { c, out: [] };
  const s = new Step(c, cfg);
  s.emit({ type: 'Kill', a: c.a, kind: msg.kind });
  if (looping) stopLoop(s, msg.kind);
  else s.set({ stop: msg.kind });
  return s.done();
}

/** A response to one of the loop's requests (the caller pulls afterwards). */
export function onLoopResp(s: Step, r: Req, resp: Resp): void {
  const { cfg } = s;
  switch (r.role) {
    case 'index-read':
      if (resp.error !== undefined) {
        s.log('checkpoint read failed', { i: r.i });
        report(s, r.i!, 'f');
        settle(s, r.i!);
      } else {
        const e = (resp.value as Entry[] | undefined)?.[0];
        if (e !== undefined && e.t >= s.c.since && e.s === 'success') replay(s, r.i!, true);
        else if (e !== undefined && e.t >= s.c.since && e.s === 'skipped') {
          skipReplayed(s, r.i!);
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
        if (x.o === 's') pushXCom(s, r.i!);
        else settle(s, r.i!);
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
    default:
      return;
  }
}
