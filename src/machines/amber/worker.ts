// One worker per operator: its main loop M as a pure step function. M is the
// single consumer of the worker's internal queue: control before data; StateFrame
// routing by envelope; PORT_ALIGNMENT of EndChannel over every channel of the
// port; the loop bookkeeping; and every storage call M makes is blocking (M waits
// for the store's reply, while its readers keep streaming into the queue). The
// DataProcessor runs as a coroutine of M, so operator code is called inline.
import type { Message } from '../../actors/index.ts';
import { batchOfTable, tableOf, type Batch } from './data.ts';
import { resultUri, stateUri, type InputChannel, type StartMsg, type StateRow } from './messages.ts';
import { FRESH_LOOP_END, attachLoopTable, evalCondition, parseState, produceLoopStartState, runUpdate, stateContent, type Design, type LoopEndState } from './operators.ts';
import { phaseMachine, type Out, type StepOut } from './phase-machine.ts';
import type { LoopEndCode, LoopStartCode, Vars } from './user-code.ts';

export const COORDINATOR = 'coordinator';
export const STORE = 'store';

export type OpKind = 'source' | 'loopStart' | 'loopEnd' | 'python' | 'jvm';

export interface OpSpec {
  readonly id: string;
  readonly kind: OpKind;
  readonly start?: LoopStartCode;
  readonly end?: LoopEndCode;
  /** Source: the table it emits (TextInput "1\n2\n3"). */
  readonly source?: Batch;
  /** Body UDF that emits its own unstamped state (scenario 13). */
  readonly bodyState?: 'before' | 'after';
  /** A hop that blanks the envelope it forwards (scenario 13, lost envelope). */
  readonly blanksEnvelope?: boolean;
}

export interface WorkerOptions {
  readonly design: Design;
  /** [open] §9.3: the has-exception hold runs after the deferred consume (as reviewed) or before it. */
  readonly holdOrder: 'consume-first' | 'hold-first';
  /** Model the RPC replies whose late arrival makes EndWorker fail (#6960). */
  readonly endWorkerRace: boolean;
}

type Phase = 'idle' | 'running' | 'held' | 'completed' | 'terminated';

/** The storage call M is blocked on, and what to do when it answers. */
type Wait =
  | { readonly k: 'read'; readonly uri: string; readonly then: 'consume-now' | 'consume-deferred'; readonly files: readonly string[]; readonly gen: number; readonly idx: number; readonly got: readonly Batch[] }
  | { readonly k: 'reset'; readonly forward: StateRow }
  | { readonly k: 'commitPort' }
  | { readonly k: 'backEdge' };

/** Where the EndChannel handler resumes after a blocking call. */
type Stage = 'consume' | 'hold' | 'finish';

export interface WorkerContext {
  readonly op: string;
  readonly kind: OpKind;
  readonly exec: number;
  readonly phase: Phase;
  readonly lsUris: Readonly<Record<string, string>>;
  readonly inputs: readonly InputChannel[];
  readonly outBase: string;
  /** The internal queue: control (coordinator) and data (readers), control first. */
  readonly ctrl: readonly Message[];
  readonly data: readonly Message[];
  readonly wait: Wait | null;
  readonly stage: Stage | null;
  readonly ended: readonly string[];
  readonly inRows: readonly Batch[];
  readonly outRows: readonly Batch[];
  readonly outStates: readonly StateRow[];
  /** Loop Start: its loop variables. */
  readonly vars: Vars;
  readonly le: LoopEndState;
  /** Loop End: the stashed matching state, the dedup flag, the captured Loop Start id. */
  readonly stash: StateRow | null;
  readonly dedup: boolean;
  readonly lsId: string;
  readonly fwdUnstamped: boolean;
  readonly error: string | null;
  /** The jump RPC went out (so a later back-edge failure is not a silent success). */
  readonly jumped: boolean;
  readonly reads: number;
  readonly rpcOut: number;
  readonly rpcIn: number;
}

const CONTROL = new Set(['EndWorker', 'RpcReply']);
const DATA = new Set(['StartChannel', 'StateFrame', 'DataFrame', 'EndChannel']);

export function freshWorker(op: OpSpec): WorkerContext {
  return {
    op: op.id,
    kind: op.kind,
    exec: 0,
    phase: 'idle',
    lsUris: {},
    inputs: [],
    outBase: '',
    ctrl: [],
    data: [],
    wait: null,
    stage: null,
    ended: [],
    inRows: [],
    outRows: [],
    outStates: [],
    vars: {},
    le: FRESH_LOOP_END,
    stash: null,
    dedup: false,
    lsId: '',
    fwdUnstamped: false,
    error: null,
    jumped: false,
    reads: 0,
    rpcOut: 0,
    rpcIn: 0,
  };
}

/** Mutable scratch for one step (the context itself stays immutable). */
class M {
  c: WorkerContext;
  readonly out: Out[] = [];
  constructor(
    readonly op: OpSpec,
    readonly opts: WorkerOptions,
    c: WorkerContext,
  ) {
    this.c = c;
  }
  set(p: Partial<WorkerContext>): void {
    this.c = { ...this.c, ...p };
  }
  send(to: string, msg: Message): void {
    this.out.push({ to, msg });
  }
  emit(type: string, extra: Record<string, unknown> = {}): void {
    this.out.push({ emit: { type, op: this.c.op, exec: this.c.exec, ...extra } });
  }
  rpc(msg: Message): void {
    this.send(COORDINATOR, msg);
    this.set({ rpcOut: this.c.rpcOut + 1 });
  }
  /** report_exception: an ERROR console message to the coordinator; the worker will hold. */
  report(error: string, where: string): void {
    this.set({ error: this.c.error ?? error });
    this.send(COORDINATOR, { type: 'ConsoleMessage', level: 'ERROR', op: this.c.op, title: error });
    this.emit('amber.error', { where, error });
  }
  hold(): void {
    this.set({ phase: 'held', wait: null, stage: null });
    this.emit('amber.held');
  }
}

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

function forward(m: M, row: StateRow, action: string, input: StateRow): void {
  m.set({ outStates: [...m.c.outStates, row] });
  m.emit('amber.route', { kind: m.op.kind, action, in: [input.counter, input.lsId], out: [row.counter, row.lsId] });
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
      m.send(STORE_ID, { type: 'ResetPort', base: m.c.outBase });
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

const STORE_ID = STORE;

/** `_read_loop_input_table`: fail loud before storage when the base is not configured; else open, pin, fetch. */
function startRead(m: M, then: 'consume-now' | 'consume-deferred'): void {
  const base = m.c.lsUris[m.c.lsId];
  if (base === undefined) {
    m.report(`RuntimeError: no loop bookkeeping URI configured for LoopStart '${m.c.lsId}' (have: [${Object.keys(m.c.lsUris).join(', ')}])`, 'read');
    if (then === 'consume-now') m.hold();
    return;
  }
  const uri = resultUri(base);
  m.set({ wait: { k: 'read', uri, then, files: [], gen: 0, idx: -1, got: [] }, reads: m.c.reads + 1 });
  m.emit('amber.read-start', { uri });
  m.send(STORE_ID, { type: 'Open', uri, worker: m.c.op });
}

/** attach_loop_table + process_state (run_update); clears the stash and re-arms the flag on success. */
function consume(m: M, table: Batch): void {
  const stash = m.c.stash!;
  let le = attachLoopTable(m.c.le, table);
  m.emit('amber.attach', { rows: table.rows });
  const r = runUpdate(le, m.op.end!, parseState(stash).vars);
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

function resume(m: M, ev: Message): void {
  const w = m.c.wait;
  if (w === null) return;
  switch (w.k) {
    case 'read': {
      if (ev.type === 'Opened') {
        if (!ev.ok) return readFailed(m, w.then, String(ev.error));
        m.set({ wait: { ...w, idx: 0 } });
        m.send(STORE_ID, { type: 'Pin', uri: w.uri, worker: m.c.op });
        return;
      }
      if (ev.type === 'Pinned') {
        const files = ev.files as string[];
        if (files.length === 0) return readDone(m, w.then, []);
        m.set({ wait: { ...w, files, gen: Number(ev.gen), idx: 0 } });
        m.send(STORE_ID, { type: 'Fetch', uri: w.uri, key: files[0]!, gen: ev.gen, last: files.length === 1, worker: m.c.op });
        return;
      }
      if (ev.type === 'Fetched') {
        const got = [...w.got, ev.batch as Batch];
        const idx = w.idx + 1;
        if (idx >= w.files.length) return readDone(m, w.then, got);
        m.set({ wait: { ...w, got, idx } });
        m.send(STORE_ID, { type: 'Fetch', uri: w.uri, key: w.files[idx]!, gen: w.gen, last: idx === w.files.length - 1, worker: m.c.op });
        return;
      }
      if (ev.type === 'FetchFailed') return readFailed(m, w.then, String(ev.error));
      return;
    }
    case 'reset':
      if (ev.type !== 'PortReset') return;
      m.set({ wait: null });
      forward(m, w.forward, 'forwarded-after-reset', { ...w.forward, counter: w.forward.counter + 1 });
      return;
    case 'commitPort':
      if (ev.type === 'CommitFailed') {
        m.set({ wait: null });
        m.report(String(ev.error), 'commit');
        return m.hold();
      }
      if (ev.type !== 'PortCommitted') return;
      m.set({ wait: null });
      m.rpc({ type: 'PortCompleted', op: m.c.op, input: false });
      complete(m);
      return;
    case 'backEdge':
      if (ev.type === 'CommitFailed') {
        m.set({ wait: null });
        m.report(`${String(ev.error)} (back-edge write after the jump RPC was sent)`, 'back-edge');
        return m.hold();
      }
      if (ev.type !== 'Committed') return;
      m.set({ wait: null });
      m.emit('amber.back-edge-committed');
      finishComplete(m);
      return;
  }
}

function readDone(m: M, then: 'consume-now' | 'consume-deferred', got: readonly Batch[]): void {
  m.set({ wait: null });
  const table = got.length === 1 ? got[0]! : batchOfTable(tableOf(got));
  m.emit('amber.read', { rows: table.rows });
  consume(m, table);
  if (then === 'consume-now') {
    if (m.c.error) m.hold();
    return;
  }
  endOfPortFrom(m, 'hold');
}

function readFailed(m: M, then: 'consume-now' | 'consume-deferred', error: string): void {
  m.set({ wait: null });
  m.report(error, 'read');
  if (then === 'consume-now') return m.hold();
  endOfPortFrom(m, 'hold');
}

/** The EndChannel handler, once aligned on the port. */
function endOfPort(m: M): void {
  m.emit('amber.aligned');
  const kind = m.op.kind;
  if (kind === 'loopStart') {
    const p = produceLoopStartState(m.c.vars);
    if (p.error) {
      m.report(p.error, 'produce_state_on_finish');
      return m.hold();
    }
    const table = batchOfTable(tableOf(m.c.inRows));
    m.set({ outStates: [...m.c.outStates, { content: stateContent(p.vars!, m.opts.design, table), counter: 0, lsId: m.c.op }] });
  }
  if (m.op.bodyState === 'after') m.set({ outStates: [...m.c.outStates, { content: '{"udf":"after"}', counter: 0, lsId: '' }] });
  if (kind === 'loopEnd' && m.c.fwdUnstamped && m.c.lsId === '') {
    m.report('RuntimeError: the loop envelope was lost upstream (only unstamped states arrived at the Loop End)', 'stamp-check');
  }
  endOfPortFrom(m, 'consume');
}

function endOfPortFrom(m: M, stage: Stage): void {
  let s: Stage | null = stage;
  while (s !== null) {
    m.set({ stage: s });
    switch (s) {
      case 'consume':
        s = 'hold';
        if (m.op.kind !== 'loopEnd') break;
        if (m.opts.holdOrder === 'hold-first' && m.c.error) break;
        if (m.opts.design === 'read-at-endchannel' && m.c.stash !== null) {
          startRead(m, 'consume-deferred');
          if (m.c.wait !== null) return; // resumes at 'hold' when the read answers
        }
        break;
      case 'hold':
        if (m.c.error) return m.hold();
        s = 'finish';
        break;
      case 'finish':
        m.set({ stage: null });
        finish(m);
        s = null;
        break;
    }
  }
}

/** on_finish, PortCompleted(input), close the port writers. */
function finish(m: M): void {
  const kind = m.op.kind;
  if (kind === 'loopStart') {
    const body = m.op.start!.output(m.c.vars, tableOf(m.c.inRows));
    m.set({ outRows: [batchOfTable(body)] });
  } else m.set({ outRows: m.c.inRows.length <= 1 ? m.c.inRows : [batchOfTable(tableOf(m.c.inRows))] });
  m.rpc({ type: 'PortCompleted', op: m.c.op, input: true });
  closePort(m);
}

function closePort(m: M): void {
  m.set({ wait: { k: 'commitPort' } });
  m.send(STORE_ID, { type: 'CommitPort', base: m.c.outBase, rows: m.c.outRows, states: m.c.outStates });
}

/** complete(): condition, then the jump and the back-edge write, then WorkerExecutionCompleted. */
function complete(m: M): void {
  if (m.op.kind !== 'loopEnd') return finishComplete(m);
  const cond = evalCondition(m.c.le, m.op.end!);
  m.emit('amber.condition', { value: cond.value, consumed: m.c.le.loopTable !== null });
  if (cond.error) {
    m.report(cond.error, 'condition');
    return m.hold();
  }
  if (!cond.value) return finishComplete(m);
  const base = m.c.lsUris[m.c.lsId];
  if (base === undefined) {
    m.report(`RuntimeError: no loop bookkeeping URI configured for LoopStart '${m.c.lsId}' (have: [${Object.keys(m.c.lsUris).join(', ')}])`, 'jump');
    return m.hold();
  }
  // _jump_to_loop_start: the RPC first, then truncate S_in and write one unstamped row.
  m.rpc({ type: 'JumpToOperatorRegion', op: m.c.op, target: m.c.lsId });
  m.set({ jumped: true, wait: { k: 'backEdge' } });
  m.emit('amber.jump', { target: m.c.lsId });
  const uri = stateUri(base);
  m.send(STORE_ID, { type: 'CreateDoc', uri });
  m.send(STORE_ID, { type: 'Commit', uri, states: [{ content: JSON.stringify(m.c.le.vars), counter: 0, lsId: '' }], purpose: 'back-edge' });
}

function finishComplete(m: M): void {
  m.set({ phase: 'completed' });
  m.rpc({ type: 'WorkerExecutionCompleted', op: m.c.op });
  m.emit('amber.completed');
}

export function workerMachine(op: OpSpec, opts: WorkerOptions) {
  return phaseMachine<WorkerContext, undefined>(
    `worker:${op.id}`,
    ['idle', 'running', 'held', 'completed', 'terminated'],
    () => freshWorker(op),
    (ctx, ev) => workerStep(op, opts, ctx, ev),
  );
}
