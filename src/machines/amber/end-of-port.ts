// What the worker's actions compute (data only; the chart in worker.ts decides when
// each runs): the StateFrame routing by envelope, the loop table read and the
// consume (attach_loop_table + run_update), the EndChannel handler's steps (stamp
// check, on_finish, PortCompleted, the port writers' close), and complete()'s
// condition, jump RPC and back-edge write.
import type { Message } from '../../actors/index.ts';
import { batchOfTable, tableOf, type Batch } from './data.ts';
import { resultUri, stateUri, type StateRow } from './messages.ts';
import { attachLoopTable, evalCondition, parseState, produceLoopStartState, runUpdate, stateContent, type LoopEndState } from './operators.ts';
import type { LoopEndCode } from './user-code.ts';
import { STORE, freshWorker, type Effect, type M, type WorkerContext } from './worker-context.ts';
import type { StartMsg } from './messages.ts';

const rowOf = (ev: Message) => ev.row as StateRow;

// ---- start and the data channel -------------------------------------------------------

/** A region (re)execution recreates the worker: fresh state, readers started (a source emits its table at once). */
export const start: Effect = (m, ev) => {
  const s = ev as unknown as StartMsg;
  const op = m.op;
  m.c = { ...freshWorker(op), exec: s.exec, lsUris: s.loopStartPortUris, inputs: s.inputs, outBase: s.outBase, vars: op.kind === 'loopStart' ? op.start!.init() : {} };
  m.emit('amber.start');
  if (op.bodyState === 'before') m.set({ outStates: [{ content: '{"udf":"before"}', counter: 0, lsId: '' }] });
  if (op.kind === 'source') {
    m.set({ outRows: [op.source!] });
    closePort(m, ev);
    return;
  }
  for (const ch of s.inputs) m.send(ch.reader, { type: 'Run', exec: s.exec, base: ch.base });
};

export const queueControl: Effect = (m, ev) => m.set({ ctrl: [...m.c.ctrl, ev] });
export const queueData: Effect = (m, ev) => m.set({ data: [...m.c.data, ev] });
export const countReply: Effect = (m) => m.set({ rpcIn: m.c.rpcIn + 1 });
export const buffer: Effect = (m, ev) => m.set({ inRows: [...m.c.inRows, ev.batch as Batch] });
export const markEnded: Effect = (m, ev) => m.set({ ended: [...m.c.ended, String(ev.ch)] });

/** PORT_ALIGNMENT: this EndChannel is the last the port waits for. */
export const aligns = (c: WorkerContext, ev: Message) => c.inputs.every((i) => i.reader === ev.ch || c.ended.includes(i.reader));

export function endWorkerFailed(reason: string): Effect {
  return (m) => m.send('coordinator', { type: 'EndWorkerFailed', op: m.c.op, exec: m.c.exec, reason });
}

/** EndWorker acknowledged: only once complete() has returned and (with the #6960 race) no reply is still owed. */
export const canTerminate = (c: WorkerContext, endWorkerRace: boolean) => !endWorkerRace || c.rpcIn >= c.rpcOut;

export const terminate: Effect = (m) => {
  m.send('coordinator', { type: 'EndWorkerAck', op: m.c.op, exec: m.c.exec });
  m.emit('amber.terminated');
};

// ---- StateFrame routing by envelope (spec I9) -----------------------------------------

/** Emits a routed State on the worker's own output (written at the port's close). */
export function forward(m: M, row: StateRow, action: string, input: StateRow): void {
  m.set({ outStates: [...m.c.outStates, row] });
  m.emit('amber.route', { kind: m.op.kind, action, in: [input.counter, input.lsId], out: [row.counter, row.lsId] });
}

export const isStamped = (ev: Message) => rowOf(ev).lsId !== '';
export const enclosingLoop = (ev: Message) => rowOf(ev).counter > 0;

/** Loop Start, stamped: an enclosing loop's state bypasses with counter + 1. */
export const bypass: Effect = (m, ev) => forward(m, { ...rowOf(ev), counter: rowOf(ev).counter + 1 }, 'bypass', rowOf(ev));

/** Loop Start, unstamped: merged into the loop variables (the back-edge overrides init). */
export const merge: Effect = (m, ev) => {
  const row = rowOf(ev);
  m.set({ vars: { ...m.c.vars, ...parseState(row).vars } });
  m.emit('amber.route', { kind: m.op.kind, action: 'merge', in: [row.counter, row.lsId], out: null });
};

/** Loop End, counter > 0: reset_output_storage, then (when it answers) forward with counter - 1. */
export const resetOutput: Effect = (m, ev) => {
  const row = rowOf(ev);
  m.emit('amber.route', { kind: m.op.kind, action: 'reset-forward', in: [row.counter, row.lsId], out: [row.counter - 1, row.lsId] });
  m.set({ resetForward: { ...row, counter: row.counter - 1 } });
  m.send(STORE, { type: 'ResetPort', base: m.c.outBase });
};

export const forwardAfterReset: Effect = (m) => {
  const row = m.c.resetForward!;
  m.set({ resetForward: null });
  forward(m, row, 'forwarded-after-reset', { ...row, counter: row.counter + 1 });
};

/** Loop End, unstamped: forwarded downstream unchanged, never consumed (#6913). */
export const forwardUnstamped: Effect = (m, ev) => {
  m.set({ fwdUnstamped: true });
  forward(m, rowOf(ev), 'forward-unstamped', rowOf(ev));
};

/** Loop End, a second copy of the matching state (fan-in, #7246). */
export const dropDuplicate: Effect = (m, ev) => m.emit('amber.route', { kind: m.op.kind, action: 'drop-duplicate', in: [rowOf(ev).counter, rowOf(ev).lsId], out: null });

/** Loop End, the matching state: set the flag, capture the Loop Start id, stash it. */
export const stash: Effect = (m, ev) => {
  const row = rowOf(ev);
  m.set({ dedup: true, lsId: row.lsId, stash: row });
  m.emit('amber.route', { kind: m.op.kind, action: 'consume', in: [row.counter, row.lsId], out: null });
  m.emit('amber.stash', { lsId: row.lsId });
};

/** A body hop: Python pass-through re-emits the envelope; a JVM hop forwards it unchanged (#6661). */
export const hop: Effect = (m, ev) => {
  const row = rowOf(ev);
  const out = m.op.blanksEnvelope ? { ...row, counter: 0, lsId: '' } : row;
  forward(m, out, m.op.blanksEnvelope ? 'blank' : 'pass', row);
};

// ---- the loop table and the consume --------------------------------------------------

/** D0: the State carries the table (or, without one, the consume fails with a KeyError). */
export const stateHasTable = (ev: Message) => Boolean(parseState(rowOf(ev)).table);
export const reportNoTable: Effect = (m) => m.report("KeyError: 'table' (state carries no loop table)", 'consume');
export const consumeStateTable: Effect = (m, ev) => consume(m, parseState(rowOf(ev)).table!);

/** The base URI shipped for the captured Loop Start id, if any. */
export const loopBase = (c: WorkerContext) => c.lsUris[c.lsId];

export function reportNoBase(where: string): Effect {
  return (m) => m.report(`RuntimeError: no loop bookkeeping URI configured for LoopStart '${m.c.lsId}' (have: [${Object.keys(m.c.lsUris).join(', ')}])`, where);
}

/** `_read_loop_input_table`: open result_uri(base) (the base exists: the chart checked it first). */
export const openTable: Effect = (m) => {
  const uri = resultUri(loopBase(m.c)!);
  m.set({ read: { uri, files: [], gen: 0, idx: 0, got: [] }, reads: m.c.reads + 1 });
  m.emit('amber.read-start', { uri });
  m.send(STORE, { type: 'Open', uri, worker: m.c.op });
};

export const pinTable: Effect = (m) => m.send(STORE, { type: 'Pin', uri: m.c.read!.uri, worker: m.c.op });

function fetch(m: M, idx: number): void {
  const r = m.c.read!;
  m.send(STORE, { type: 'Fetch', uri: r.uri, key: r.files[idx]!, gen: r.gen, last: idx === r.files.length - 1, worker: m.c.op });
}

export const fetchFirst: Effect = (m, ev) => {
  m.set({ read: { ...m.c.read!, files: ev.files as string[], gen: Number(ev.gen), idx: 0 } });
  fetch(m, 0);
};

export const fetchNext: Effect = (m, ev) => {
  const r = m.c.read!;
  m.set({ read: { ...r, got: [...r.got, ev.batch as Batch], idx: r.idx + 1 } });
  fetch(m, r.idx + 1);
};

export const lastFile = (c: WorkerContext) => c.read!.idx + 1 >= c.read!.files.length;

/** The read returned every pinned file (`batch` with the last): attach and run the update. */
export const tableRead: Effect = (m, ev) => {
  const got = ev.type === 'Fetched' ? [...m.c.read!.got, ev.batch as Batch] : m.c.read!.got;
  m.set({ read: null });
  const table = got.length === 1 ? got[0]! : batchOfTable(tableOf(got));
  m.emit('amber.read', { rows: table.rows });
  consume(m, table);
};

/** A read failure is reported like a UDF error. */
export const readFailed: Effect = (m, ev) => {
  m.set({ read: null });
  m.report(String(ev.error), 'read');
};

/** attach_loop_table + process_state (run_update); clears the stash and re-arms the flag on success. */
function consume(m: M, table: Batch): void {
  const stashed = m.c.stash!;
  let le = attachLoopTable(m.c.le, table);
  m.emit('amber.attach', { rows: table.rows });
  const r = runUpdate(le, m.op.end!, parseState(stashed).vars);
  le = r.state;
  m.set({ le });
  if (r.error) {
    m.report(r.error, 'update');
    return;
  }
  // The deferred consume re-arms the fan-in dedup flag; an immediate consume (D0, D1) leaves
  // it set for the rest of the execution, or the second copy would be consumed again (#7246).
  m.set({ stash: null, dedup: m.opts.design === 'read-at-endchannel' ? false : m.c.dedup });
  m.emit('amber.update', { vars: le.vars });
}

// ---- the EndChannel handler, once aligned ---------------------------------------------

/** Loop Start: produce_state_on_finish fails (scenario 11, the reserved name). */
export const produceFails = (c: WorkerContext) => produceLoopStartState(c.vars).error !== undefined;
export const reportProduce: Effect = (m) => m.report(produceLoopStartState(m.c.vars).error!, 'produce_state_on_finish');

export const emitAligned: Effect = (m) => m.emit('amber.aligned');

/** process_input_state (Loop Start: its stamped state), a body UDF's own state, the stamp check. */
export const aligned: Effect = (m) => {
  const kind = m.op.kind;
  if (kind === 'loopStart') {
    const p = produceLoopStartState(m.c.vars);
    const table = batchOfTable(tableOf(m.c.inRows));
    m.set({ outStates: [...m.c.outStates, { content: stateContent(p.vars!, m.opts.design, table), counter: 0, lsId: m.c.op }] });
  }
  if (m.op.bodyState === 'after') m.set({ outStates: [...m.c.outStates, { content: '{"udf":"after"}', counter: 0, lsId: '' }] });
  if (kind === 'loopEnd' && m.c.fwdUnstamped && m.c.lsId === '') {
    m.report('RuntimeError: the loop envelope was lost upstream (only unstamped states arrived at the Loop End)', 'stamp-check');
  }
};

/** on_finish, PortCompleted(input), close the port writers. */
export const finish: Effect = (m, ev) => {
  if (m.op.kind === 'loopStart') {
    const body = m.op.start!.output(m.c.vars, tableOf(m.c.inRows));
    m.set({ outRows: [batchOfTable(body)] });
  } else m.set({ outRows: m.c.inRows.length <= 1 ? m.c.inRows : [batchOfTable(tableOf(m.c.inRows))] });
  m.rpc({ type: 'PortCompleted', op: m.c.op, input: true });
  closePort(m, ev);
};

export const closePort: Effect = (m) => m.send(STORE, { type: 'CommitPort', base: m.c.outBase, rows: m.c.outRows, states: m.c.outStates });

export const reportEvent = (where: string, suffix = ''): Effect => (m, ev) => m.report(`${String(ev.error)}${suffix}`, where);

export const portCompleted: Effect = (m) => m.rpc({ type: 'PortCompleted', op: m.c.op, input: false });

// ---- complete() ------------------------------------------------------------------------

const conditions = new WeakMap<LoopEndState, ReturnType<typeof evalCondition>>();
/** condition() of this Loop End state (memoised: the chart's guards and the action ask the same). */
export function conditionOf(c: WorkerContext, end: LoopEndCode): ReturnType<typeof evalCondition> {
  let r = conditions.get(c.le);
  if (r === undefined) conditions.set(c.le, (r = evalCondition(c.le, end)));
  return r;
}

export const emitCondition: Effect = (m) => m.emit('amber.condition', { value: conditionOf(m.c, m.op.end!).value, consumed: m.c.le.loopTable !== null });
export const reportCondition: Effect = (m) => m.report(conditionOf(m.c, m.op.end!).error!, 'condition');

/** _jump_to_loop_start: the RPC first, then truncate S_in and write one unstamped row. */
export const jump: Effect = (m) => {
  m.rpc({ type: 'JumpToOperatorRegion', op: m.c.op, target: m.c.lsId });
  m.set({ jumped: true });
  m.emit('amber.jump', { target: m.c.lsId });
  const uri = stateUri(loopBase(m.c)!);
  m.send(STORE, { type: 'CreateDoc', uri });
  m.send(STORE, { type: 'Commit', uri, states: [{ content: JSON.stringify(m.c.le.vars), counter: 0, lsId: '' }], purpose: 'back-edge' });
};

export const held: Effect = (m) => m.emit('amber.held');

export const backEdgeCommitted: Effect = (m) => m.emit('amber.back-edge-committed');

/** Close the executor, move to COMPLETED, WorkerExecutionCompleted. */
export const workerCompleted: Effect = (m) => {
  m.rpc({ type: 'WorkerExecutionCompleted', op: m.c.op });
  m.emit('amber.completed');
};
