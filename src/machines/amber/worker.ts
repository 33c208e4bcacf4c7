// One worker per operator: its main loop M as a pure step function. M is the
// single consumer of the worker's internal queue: control before data; StateFrame
// routing by envelope; PORT_ALIGNMENT of EndChannel over every channel of the
// port; the loop bookkeeping; and every storage call M makes is blocking (M waits
// for the store's reply, while its readers keep streaming into the queue). The
// DataProcessor runs as a coroutine of M, so operator code is called inline.
import type { Message } from '../../actors/index.ts';
import type { Batch } from './data.ts';
import type { StartMsg, StateRow } from './messages.ts';
import { parseState } from './operators.ts';
import { phaseMachine, type StepOut } from './phase-machine.ts';
import { closePort, consume, endOfPort, forward, resume, startRead } from './end-of-port.ts';
import { COORDINATOR, M, STORE, freshWorker, type OpSpec, type WorkerContext, type WorkerOptions } from './worker-context.ts';

export { COORDINATOR, STORE, freshWorker, type OpKind, type OpSpec, type WorkerContext, type WorkerOptions } from './worker-context.ts';

const CONTROL = new Set(['EndWorker', 'RpcReply']);
const DATA = new Set(['StartChannel', 'StateFrame', 'DataFrame', 'EndChannel']);

export function workerStep(op: OpSpec, opts: WorkerOptions, ctx: WorkerContext, ev: Message): StepOut<WorkerContext> {
  const m = new M(op, opts, ctx);
  if (ev.type === 'Start') start(m, ev as unknown as StartMsg);
  else if (CONTROL.has(ev.type)) m.set({ ctrl: [...m.c.ctrl, ev] });
  else if (DATA.has(ev.type)) m.set({ data: [...m.c.data, ev] });
  else resume(m, ev);
  drain(m);
  return { ctx: m.c, out: m.out };
}

/** A region (re)execution recreates the worker: fresh state, readers started. */
function start(m: M, s: StartMsg): void {
  const op = m.op;
  m.c = {
    ...freshWorker(op),
    exec: s.exec,
    phase: 'running',
    lsUris: s.loopStartPortUris,
    inputs: s.inputs,
    outBase: s.outBase,
    vars: op.kind === 'loopStart' ? op.start!.init() : {},
  };
  m.emit('amber.start');
  if (op.bodyState === 'before') m.set({ outStates: [{ content: '{"udf":"before"}', counter: 0, lsId: '' }] });
  if (op.kind === 'source') {
    m.set({ outRows: [op.source!] });
    closePort(m);
    return;
  }
  for (const ch of s.inputs) m.send(ch.reader, { type: 'Run', exec: s.exec, base: ch.base });
}

/** Runs queued work until M blocks on storage, holds, or the queue is empty. Control first. */
function drain(m: M): void {
  for (;;) {
    const c = m.c;
    if (c.ctrl.length > 0 && c.wait === null) {
      const [head, ...rest] = c.ctrl;
      m.set({ ctrl: rest });
      control(m, head!);
      continue;
    }
    if (c.phase !== 'running' || c.wait !== null || c.data.length === 0) return;
    const [head, ...rest] = c.data;
    m.set({ data: rest });
    data(m, head!);
  }
}

function control(m: M, ev: Message): void {
  if (ev.type === 'RpcReply') {
    m.set({ rpcIn: m.c.rpcIn + 1 });
    return;
  }
  // EndWorker: acknowledged only once complete() has returned and no reply is still owed.
  const c = m.c;
  if (c.phase === 'completed' && (!m.opts.endWorkerRace || c.rpcIn >= c.rpcOut)) {
    m.set({ phase: 'terminated' });
    m.send(COORDINATOR, { type: 'EndWorkerAck', op: c.op, exec: c.exec });
    m.emit('amber.terminated');
    return;
  }
  const why = c.phase === 'held' ? 'worker is paused on an exception' : 'worker still has unprocessed messages';
  m.send(COORDINATOR, { type: 'EndWorkerFailed', op: c.op, exec: c.exec, reason: why });
}

function data(m: M, ev: Message): void {
  switch (ev.type) {
    case 'StartChannel':
      return;
    case 'DataFrame':
      m.set({ inRows: [...m.c.inRows, ev.batch as Batch] });
      return;
    case 'StateFrame':
      route(m, ev.row as StateRow);
      return;
    case 'EndChannel': {
      const ended = [...m.c.ended, String(ev.ch)];
      m.set({ ended });
      // PORT_ALIGNMENT: the handler runs once EndChannel arrived on every channel of the port.
      if (m.c.inputs.every((i) => ended.includes(i.reader))) endOfPort(m);
      return;
    }
  }
}

/** StateFrame routing by envelope (spec I9). */
function route(m: M, row: StateRow): void {
  const kind = m.op.kind;
  const stamped = row.lsId !== '';
  if (kind === 'loopStart') {
    if (stamped) return forward(m, { ...row, counter: row.counter + 1 }, 'bypass', row);
    // Unstamped: merged into the loop variables (the back-edge overrides init).
    m.set({ vars: { ...m.c.vars, ...parseState(row).vars } });
    m.emit('amber.route', { kind, action: 'merge', in: [row.counter, row.lsId], out: null });
    return;
  }
  if (kind === 'loopEnd') {
    if (row.counter > 0) {
      // An enclosing loop's state: reset_output_storage, then forward with counter - 1.
      m.emit('amber.route', { kind, action: 'reset-forward', in: [row.counter, row.lsId], out: [row.counter - 1, row.lsId] });
      m.set({ wait: { k: 'reset', forward: { ...row, counter: row.counter - 1 } } });
      m.send(STORE, { type: 'ResetPort', base: m.c.outBase });
      return;
    }
    if (!stamped) {
      m.set({ fwdUnstamped: true });
      return forward(m, row, 'forward-unstamped', row);
    }
    if (m.c.dedup) {
      m.emit('amber.route', { kind, action: 'drop-duplicate', in: [row.counter, row.lsId], out: null });
      return;
    }
    m.set({ dedup: true, lsId: row.lsId, stash: row });
    m.emit('amber.route', { kind, action: 'consume', in: [row.counter, row.lsId], out: null });
    m.emit('amber.stash', { lsId: row.lsId });
    if (m.opts.design === 'read-at-consume') startRead(m, 'consume-now');
    else if (m.opts.design === 'table-in-state') {
      const { table } = parseState(row);
      if (!table) {
        m.report("KeyError: 'table' (state carries no loop table)", 'consume');
        return m.hold();
      }
      consume(m, table);
      if (m.c.error) m.hold();
    }
    return;
  }
  // A body hop: Python pass-through re-emits the envelope; a JVM hop forwards it unchanged (#6661).
  const out = m.op.blanksEnvelope ? { ...row, counter: 0, lsId: '' } : row;
  forward(m, out, m.op.blanksEnvelope ? 'blank' : 'pass', row);
}


/** One worker; `input` seeds its context (a materialized start: an earlier region's worker, already ended). */
export function workerMachine(op: OpSpec, opts: WorkerOptions) {
  return phaseMachine<WorkerContext, WorkerContext | undefined>(
    `worker:${op.id}`,
    ['idle', 'running', 'held', 'completed', 'terminated'],
    (seed) => seed ?? freshWorker(op),
    (ctx, ev) => workerStep(op, opts, ctx, ev),
  );
}
