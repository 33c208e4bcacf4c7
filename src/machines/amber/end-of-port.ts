// The worker's EndChannel handler and complete(), on the main loop M: the stamp
// check, the deferred consume (D2: read R_in, attach, run_update, once, after every
// reader of the port finished), the hold, on_finish, PortCompleted, the port writers'
// close, the condition, the jump RPC and the back-edge write. Every storage call is
// blocking: M parks in `wait` and `resume` continues when the store answers.
import type { Message } from '../../actors/index.ts';
import { batchOfTable, tableOf, type Batch } from './data.ts';
import { resultUri, stateUri, type StateRow } from './messages.ts';
import { attachLoopTable, evalCondition, parseState, produceLoopStartState, runUpdate, stateContent } from './operators.ts';
import { STORE, type M, type Stage } from './worker-context.ts';

/** Emits a routed State on the worker's own output (written at the port's close). */
export function forward(m: M, row: StateRow, action: string, input: StateRow): void {
  m.set({ outStates: [...m.c.outStates, row] });
  m.emit('amber.route', { kind: m.op.kind, action, in: [input.counter, input.lsId], out: [row.counter, row.lsId] });
}

/** `_read_loop_input_table`: fail loud before storage when the base is not configured; else open, pin, fetch. */
export function startRead(m: M, then: 'consume-now' | 'consume-deferred'): void {
  const base = m.c.lsUris[m.c.lsId];
  if (base === undefined) {
    m.report(`RuntimeError: no loop bookkeeping URI configured for LoopStart '${m.c.lsId}' (have: [${Object.keys(m.c.lsUris).join(', ')}])`, 'read');
    if (then === 'consume-now') m.hold();
    return;
  }
  const uri = resultUri(base);
  m.set({ wait: { k: 'read', uri, then, files: [], gen: 0, idx: -1, got: [] }, reads: m.c.reads + 1 });
  m.emit('amber.read-start', { uri });
  m.send(STORE, { type: 'Open', uri, worker: m.c.op });
}

/** attach_loop_table + process_state (run_update); clears the stash and re-arms the flag on success. */
export function consume(m: M, table: Batch): void {
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

export function resume(m: M, ev: Message): void {
  const w = m.c.wait;
  if (w === null) return;
  switch (w.k) {
    case 'read': {
      if (ev.type === 'Opened') {
        if (!ev.ok) return readFailed(m, w.then, String(ev.error));
        m.set({ wait: { ...w, idx: 0 } });
        m.send(STORE, { type: 'Pin', uri: w.uri, worker: m.c.op });
        return;
      }
      if (ev.type === 'Pinned') {
        const files = ev.files as string[];
        if (files.length === 0) return readDone(m, w.then, []);
        m.set({ wait: { ...w, files, gen: Number(ev.gen), idx: 0 } });
        m.send(STORE, { type: 'Fetch', uri: w.uri, key: files[0]!, gen: ev.gen, last: files.length === 1, worker: m.c.op });
        return;
      }
      if (ev.type === 'Fetched') {
        const got = [...w.got, ev.batch as Batch];
        const idx = w.idx + 1;
        if (idx >= w.files.length) return readDone(m, w.then, got);
        m.set({ wait: { ...w, got, idx } });
        m.send(STORE, { type: 'Fetch', uri: w.uri, key: w.files[idx]!, gen: w.gen, last: idx === w.files.length - 1, worker: m.c.op });
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
export function endOfPort(m: M): void {
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

export function closePort(m: M): void {
  m.set({ wait: { k: 'commitPort' } });
  m.send(STORE, { type: 'CommitPort', base: m.c.outBase, rows: m.c.outRows, states: m.c.outStates });
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
  m.send(STORE, { type: 'CreateDoc', uri });
  m.send(STORE, { type: 'Commit', uri, states: [{ content: JSON.stringify(m.c.le.vars), counter: 0, lsId: '' }], purpose: 'back-edge' });
}

function finishComplete(m: M): void {
  m.set({ phase: 'completed' });
  m.rpc({ type: 'WorkerExecutionCompleted', op: m.c.op });
  m.emit('amber.completed');
}
