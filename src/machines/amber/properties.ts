// The invariants I1–I13 of docs/amber.md as invariants, monitors and atEnd
// checks over the model's world and trace. Monitors see every trace event: the
// workers emit `amber.*` observation events (start, aligned, stash, read, attach,
// update, route, condition, jump, error), the store emits `io` events.
import { formatStateValue, eventually as livenessEventually, type MonitorDef, type Predicate, type ScenarioDef, type TraceEvent, type WorldQuery } from '../../actors/index.ts';
import { valuesOf } from './data.ts';
import { resultUri, shortUri, stateUri } from './messages.ts';
import type { ReaderContext } from './reader.ts';
import { expectsHold, type AmberParams } from './params.ts';
import { docGen, resultBatchesOf, stateRowsOf, type StoreState } from './store.ts';
import type { Workflow } from './topology.ts';
import { COORDINATOR, STORE, type WorkerContext } from './worker.ts';

/** A monitor that names the events it reacts to (so the checker's partial-order reduction stays on). */
type WatchedMonitor = MonitorDef & { readonly watches: (e: TraceEvent) => boolean };

type Props = Pick<ScenarioDef, 'invariants' | 'monitors' | 'atEnd' | 'reachable' | 'acceptEnd' | 'liveness'>;

const fail = (message: string) => ({ fail: message });
const LE_EMITS = new Set(['amber.start', 'amber.aligned', 'amber.stash', 'amber.read-start', 'amber.update']);

function emitOf(e: TraceEvent): { type: string; op: string; exec: number; [k: string]: any } | undefined {
  return e.kind === 'emit' && typeof e.msg.type === 'string' && e.msg.type.startsWith('amber.') ? (e.msg as any) : undefined;
}

/** Why the run is stuck, in the words of docs/amber.md (the hang CI saw). */
export function diagnoseHang(q: WorldQuery, wf: Workflow): string {
  const parts: string[] = [];
  for (const r of wf.readers) {
    const c = q.context(r.id) as ReaderContext;
    if (q.matches(r.id, 'failed')) {
      const w = q.context(r.worker) as WorkerContext;
      parts.push(
        `reader ${r.id} failed (${c.error}) and exited without EndChannel; worker ${r.worker} (execution ${w.exec}) waits for EndChannel on its port, so it never sends PortCompleted and its region never completes`,
      );
    }
  }
  const held = wf.ops.filter((o) => q.matches(o.id, 'paused')).map((o) => `${o.id} is held on '${(q.context(o.id) as WorkerContext).error}'`);
  parts.push(...held);
  const c = q.context(COORDINATOR);
  if (parts.length === 0) parts.push(`coordinator is '${formatStateValue(q.value(COORDINATOR))}' at level ${c.cursor} and nothing can move`);
  return `hang: ${parts.join('; ')}; no error reached the coordinator${c.errors.length ? ` except: ${c.errors.join(' | ')}` : ''}`;
}

export function amberProperties(p: AmberParams, wf: Workflow): Props {
  const hold = expectsHold(p);
  const les = wf.ops.filter((o) => o.kind === 'loopEnd').map((o) => o.id);
  const lsOfLe: Record<string, string> = Object.fromEntries(wf.loops.map((l) => [l.le, l.ls]));
  const readerWorker: Record<string, string> = Object.fromEntries(wf.readers.map((r) => [r.id, r.worker]));
  const readersOf = (w: string) => wf.readers.filter((r) => r.worker === w).map((r) => r.id);
  // Loop levels: the base URI each Loop Start reads (R_in, S_in), whatever the shipped config says.
  const levelBase: Record<string, string> = Object.fromEntries(wf.loops.map((l) => [l.ls, wf.plan.inputs[l.ls]![0]!.base]));
  const producerOf = (base: string) => Object.entries(wf.plan.outBase).find(([, b]) => b === base)?.[0];

  const invariants: Record<string, Predicate> = {
    'I1 no stale pinned read': (q) => {
      const store = q.context(STORE) as StoreState;
      for (const r of wf.readers) {
        const c = q.context(r.id) as ReaderContext;
        if (!c.streaming || !c.pin || c.pin.next >= c.pin.files.length) continue;
        const gen = docGen(store, c.pin.uri);
        if (gen !== c.pin.gen) return `I1: ${r.id} is mid-stream on ${shortUri(c.pin.uri)} pinned at generation ${c.pin.gen} with ${c.pin.files.length - c.pin.next} unfetched file(s), but the doc is now generation ${gen ?? '(dropped)'}: its next fetch gets ${p.missingKey}`;
      }
      return true;
    },
    'I4 consume marker': (q) => {
      for (const le of les) {
        const c = q.context(le) as WorkerContext;
        if ((c.le.loopTable !== null) !== c.le.updates > 0) return `I4: ${le} has _loop_table ${c.le.loopTable ? 'set' : 'None'} after ${c.le.updates} successful update(s)`;
        if (c.le.updates > c.le.attaches) return `I5: ${le} ran ${c.le.updates} update(s) with only ${c.le.attaches} attach(es)`;
      }
      return true;
    },
  };
  // I13: a failed reader says nothing more: its worker never gets (or has in flight) an EndChannel from it.
  invariants['I13 reader failure is silent'] = (q) => {
    for (const r of wf.readers) {
      if (!q.matches(r.id, 'failed')) continue;
      const w = q.context(r.worker) as WorkerContext;
      const rc = q.context(r.id) as ReaderContext;
      if (w.exec !== rc.exec) continue;
      if (w.ended.includes(r.id) || q.pending(r.worker, r.id).some((m) => m.type === 'EndChannel')) return `I13: reader ${r.id} failed but its worker ${r.worker} got an EndChannel from it`;
    }
    return true;
  };
  if (p.designChecks) {
    invariants['I2 no main-loop read overlapping its readers'] = (q) => {
      for (const w of les) {
        const c = q.context(w) as WorkerContext;
        if (c.read === null) continue;
        const busy = readersOf(w).filter((r) => (q.context(r) as ReaderContext).streaming);
        if (busy.length > 0) return `I2: ${w}'s main loop is reading ${shortUri(c.read.uri)} while its reader ${busy.join(', ')} is still streaming`;
      }
      return true;
    };
  }

  const monitors: Record<string, WatchedMonitor> = {
    // I3 + I10: the read and run_update at most once per LE execution, after alignment, before PortCompleted; one stash.
    'I3/I10 deferred consume placement and dedup': {
      init: {} as Record<string, { exec: number; aligned: boolean; reads: number; updates: number; stashes: number; pc: boolean }>,
      watches: (e: TraceEvent) => (e.kind === 'emit' && les.includes(String(e.msg.op)) && LE_EMITS.has(e.msg.type)) || (e.kind === 'send' && e.msg.type === 'PortCompleted' && les.includes(e.from)),
      observe(s, e) {
        const m = emitOf(e);
        if (!m || !les.includes(m.op)) {
          if (e.kind === 'send' && les.includes(e.from) && e.msg.type === 'PortCompleted' && s[e.from]) return { ...s, [e.from]: { ...s[e.from]!, pc: true } };
          return s;
        }
        const cur = m.type === 'amber.start' ? { exec: m.exec, aligned: false, reads: 0, updates: 0, stashes: 0, pc: false } : s[m.op];
        if (!cur) return s;
        const next = { ...cur };
        if (m.type === 'amber.aligned') next.aligned = true;
        if (m.type === 'amber.stash' && ++next.stashes > 1) return fail(`I10: ${m.op} stashed ${next.stashes} copies of the iteration state in one execution`);
        if (m.type === 'amber.read-start' || m.type === 'amber.update') {
          if (m.type === 'amber.read-start') next.reads++;
          else next.updates++;
          if (next.reads > 1 || next.updates > 1) return fail(`I3/I10: ${m.op} ran ${next.reads} read(s) and ${next.updates} update(s) in execution ${m.exec}`);
          if (p.designChecks && !next.aligned && m.type === 'amber.update') return fail(`I3: ${m.op} ran run_update before EndChannel was aligned on its input port (execution ${m.exec})`);
          if (next.pc) return fail(`I3: ${m.op} consumed after sending PortCompleted`);
        }
        return { ...s, [m.op]: next };
      },
    },
    // I5: each successful update consumes exactly one attach made since the previous update.
    'I5 one attach per update': {
      init: {} as Record<string, boolean>,
      watches: (e: TraceEvent) => e.kind === 'emit' && (e.msg.type === 'amber.start' || e.msg.type === 'amber.attach' || e.msg.type === 'amber.update'),
      observe(s, e) {
        const m = emitOf(e);
        if (!m) return s;
        if (m.type === 'amber.start') return { ...s, [m.op]: false };
        if (m.type === 'amber.attach') return { ...s, [m.op]: true };
        if (m.type === 'amber.update') return s[m.op] ? { ...s, [m.op]: false } : fail(`I5: ${m.op} ran an update without a fresh attach`);
        return s;
      },
    },
    // I4: condition() is False whenever nothing was consumed.
    'I4 condition needs a consume': {
      init: 0,
      watches: (e: TraceEvent) => e.kind === 'emit' && e.msg.type === 'amber.condition',
      observe(s, e) {
        const m = emitOf(e);
        if (m?.type === 'amber.condition' && m.value && !m.consumed) return fail(`I4: ${m.op}'s condition was True with _loop_table None`);
        return s;
      },
    },
    // I6 + I7: jump before truncate; commit before WorkerExecutionCompleted / EndWorker ack; LS replays S_in only after the commit; S_in holds one unstamped row.
    'I6/I7 back-edge order and truncation': {
      init: { jumped: {} as Record<string, boolean>, pending: {} as Record<string, boolean> },
      watches: (e: TraceEvent) =>
        (e.kind === 'send' && (e.msg.type === 'JumpToOperatorRegion' || ((e.msg.type === 'WorkerExecutionCompleted' || e.msg.type === 'EndWorkerAck') && les.includes(e.from)))) ||
        (e.kind === 'emit' && e.msg.type === 'amber.start' && les.includes(String(e.msg.op))) ||
        (e.kind === 'io' && (e.op === 'create' || e.op === 'commit' || e.op === 'drop' || (e.op === 'get' && String(e.key).endsWith('/state')))),
      observe(s, e, q) {
        if (e.kind === 'send' && e.msg.type === 'JumpToOperatorRegion') return { ...s, jumped: { ...s.jumped, [e.from]: true } };
        const m = emitOf(e);
        if (m?.type === 'amber.start' && s.jumped[m.op]) return { ...s, jumped: { ...s.jumped, [m.op]: false } };
        if (e.kind === 'io' && e.op === 'create' && les.includes(String(e.detail?.by))) {
          const le = String(e.detail!.by);
          if (e.key === stateUri(levelBase[lsOfLe[le]!] ?? '')) {
            if (!s.jumped[le]) return fail(`I6: ${le} truncated ${shortUri(String(e.key))} before sending JumpToOperatorRegion`);
            return { ...s, pending: { ...s.pending, [le]: true } };
          }
        }
        if (e.kind === 'io' && e.op === 'commit' && e.detail?.purpose === 'back-edge' && e.outcome === 'ok') {
          const le = String(e.detail.by);
          const rows = stateRowsOf(q.context(STORE) as StoreState, e.key!);
          if (rows.length !== 1 || rows[0]!.counter !== 0 || rows[0]!.lsId !== '') return fail(`I7: after ${le}'s back-edge ${shortUri(String(e.key))} holds ${rows.length} row(s) ${JSON.stringify(rows.map((r) => [r.counter, r.lsId]))}, not one unstamped row`);
          return { ...s, pending: { ...s.pending, [le]: false } };
        }
        if (e.kind === 'send' && les.includes(e.from) && (e.msg.type === 'WorkerExecutionCompleted' || e.msg.type === 'EndWorkerAck') && s.pending[e.from]) {
          return fail(`I6: ${e.from} sent ${e.msg.type} before its back-edge write was committed`);
        }
        if (e.kind === 'io' && e.op === 'get' && String(e.key).endsWith('/state')) {
          const by = String(e.detail?.by);
          for (const [le, pend] of Object.entries(s.pending)) {
            if (pend && e.key === stateUri(levelBase[lsOfLe[le]!]!) && readerWorker[by] === lsOfLe[le]) return fail(`I6: ${by} replayed ${shortUri(String(e.key))} before ${le}'s back-edge write was committed`);
          }
        }
        // I7: R_in is only ever created or written by its producer (or a forced environment fault).
        if (e.kind === 'io' && (e.op === 'create' || e.op === 'commit' || e.op === 'drop')) {
          for (const [ls, base] of Object.entries(levelBase)) {
            if (e.key !== resultUri(base)) continue;
            const by = String(e.detail?.by);
            const producer = producerOf(base);
            if (by !== COORDINATOR && by !== producer && by !== 'environment') return fail(`I7: ${by} ${e.op === 'commit' ? 'wrote' : e.op === 'drop' ? 'dropped' : 'created'} ${ls}'s loop input table ${shortUri(String(e.key))}`);
          }
        }
        return s;
      },
    },
    // I8: the generation of result_uri(base_L) is the same for the LS read and the LE read of one iteration.
    'I8 per-level stability': {
      init: {} as Record<string, number>,
      watches: (e: TraceEvent) => e.kind === 'io' && e.op === 'open' && e.outcome === 'ok',
      observe(s, e) {
        if (e.kind !== 'io' || e.op !== 'open' || e.outcome !== 'ok') return s;
        const by = String(e.detail?.by);
        const gen = Number(e.detail?.gen);
        for (const l of wf.loops) {
          const uri = resultUri(levelBase[l.ls]!);
          if (e.key !== uri) continue;
          if (readerWorker[by] === l.ls) return { ...s, [uri]: gen };
          if (by === l.le && e.detail?.main && s[uri] !== undefined && s[uri] !== gen) return fail(`I8: ${l.le} read ${shortUri(uri)} at generation ${gen} but ${l.ls} read generation ${s[uri]} in the same iteration`);
        }
        return s;
      },
    },
    // I9: envelope routing.
    'I9 envelope routing': {
      init: 0,
      watches: (e: TraceEvent) => e.kind === 'emit' && e.msg.type === 'amber.route',
      observe(s, e) {
        const m = emitOf(e);
        if (m?.type !== 'amber.route') return s;
        const [ic, iid] = m.in as [number, string];
        const out = m.out as [number, string] | null;
        const bad = (why: string) => fail(`I9: ${m.op} (${m.kind}) ${m.action} of (${ic}, '${iid}'): ${why}`);
        switch (m.action) {
          case 'bypass':
            return iid !== '' && out && out[0] === ic + 1 && out[1] === iid ? s : bad('a stamped frame at a Loop Start must get counter + 1 and keep its id');
          case 'merge':
            return iid === '' ? s : bad('only unstamped frames merge into a Loop Start');
          case 'reset-forward':
            return ic > 0 && out && out[0] === ic - 1 && out[1] === iid ? s : bad('counter > 0 at a Loop End forwards with counter - 1');
          case 'consume':
            return ic === 0 && iid === lsOfLe[m.op] ? s : bad(`a Loop End consumes only its own loop's state (0, '${lsOfLe[m.op]}')`);
          case 'pass':
            return out && out[0] === ic && out[1] === iid ? s : bad('a body hop forwards the envelope unchanged');
          default:
            return s;
        }
      },
    },
    // I11: after a read/update/stamp-check failure no PortCompleted or WorkerExecutionCompleted; after a condition/back-edge failure no WorkerExecutionCompleted.
    'I11 no false success': {
      init: {} as Record<string, 'all' | 'wec' | undefined>,
      watches: (e: TraceEvent) => (e.kind === 'emit' && (e.msg.type === 'amber.start' || e.msg.type === 'amber.error')) || (e.kind === 'send' && (e.msg.type === 'WorkerExecutionCompleted' || e.msg.type === 'PortCompleted')),
      observe(s, e) {
        const m = emitOf(e);
        if (m?.type === 'amber.start') return { ...s, [m.op]: undefined };
        if (m?.type === 'amber.error') return { ...s, [m.op]: ['condition', 'back-edge', 'jump'].includes(m.where) ? 'wec' : 'all' };
        if (e.kind === 'send' && s[e.from]) {
          if (e.msg.type === 'WorkerExecutionCompleted' || (s[e.from] === 'all' && e.msg.type === 'PortCompleted')) return fail(`I11: ${e.from} sent ${e.msg.type} after reporting an error`);
        }
        return s;
      },
    },
  };

  const completedOk: Predicate = (q) => {
    const c = q.context(COORDINATOR);
    if (!q.matches(COORDINATOR, 'completed')) return diagnoseHang(q, wf);
    const store = q.context(STORE) as StoreState;
    for (const l of wf.loops) {
      const got = valuesOf(resultBatchesOf(store, resultUri(wf.plan.outBase[l.le]!)));
      if (got.join(',') !== l.outRows.join(',')) return `I12: ${l.le}.out holds [${got.join(', ')}], the reference computed from the input table is [${l.outRows.join(', ')}]`;
      if ((c.execs[l.ls] ?? 0) !== l.lsExecs) return `I12: ${l.ls} executed ${c.execs[l.ls] ?? 0} times, expected ${l.lsExecs}`;
      if ((c.jumps[l.ls] ?? 0) !== l.jumps) return `I12: ${l.jumps} jump(s) to ${l.ls} expected, got ${c.jumps[l.ls] ?? 0}`;
    }
    return true;
  };
  const heldOk: Predicate = (q) => {
    const c = q.context(COORDINATOR);
    if (q.matches(COORDINATOR, 'completed')) return 'I11: the workflow completed although a forced error must hold the region (false success)';
    if (c.errors.length === 0) return `I11: the run stopped without any error reaching the coordinator (${diagnoseHang(q, wf)})`;
    return true;
  };
  const atEnd: Record<string, Predicate> = hold ? { 'I11 held with a reported error': heldOk } : { 'I12 loop completes with the reference output': completedOk };
  const acceptEnd: Predicate = (q) => {
    const c = q.context(COORDINATOR);
    if (!hold) return q.matches(COORDINATOR, 'completed');
    return !q.matches(COORDINATOR, 'completed') && c.errors.length > 0;
  };
  const reachable: Record<string, Predicate> = hold
    ? { 'an error reaches the coordinator': (q) => q.context(COORDINATOR).errors.length > 0 }
    : {
        'the workflow completes': (q) => q.matches(COORDINATOR, 'completed'),
        'a jump back to the Loop Start': (q) => Object.keys(q.context(COORDINATOR).jumps).length > 0,
      };
  // I12 over whole runs (liveness.md): every run, cycles included, reaches the completed workflow.
  const liveness = p.liveness && !hold ? { liveness: { 'I12 every run completes': livenessEventually((q) => q.matches(COORDINATOR, 'completed')) } } : {};
  return { invariants, monitors, atEnd, acceptEnd, reachable, ...liveness };
}
