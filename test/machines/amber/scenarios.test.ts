// The scenarios 1-17 of docs/amber.md, each with its expected outcome: a fault-free run is
// inspected figure by figure, and the scenario's properties are checked
// exhaustively (bfs) where the expected outcome is encoded as a property.
import { describe, expect, it } from 'vitest';
import { check, expectHolds } from 'interleave';
import { portBase, resultUri, stateUri } from '../../../src/machines/amber/messages.ts';
import { FRESH_LOOP_END, attachLoopTable, evalCondition, runUpdate } from '../../../src/machines/amber/operators.ts';
import { STARTS, amberScenario, type AmberParams } from '../../../src/machines/amber/scenario.ts';
import { batchOfTable, inputTable } from '../../../src/machines/amber/data.ts';
import { countingEnd } from '../../../src/machines/amber/user-code.ts';
import { MachineStepper } from '../../../src/actors/xstate-adapter.ts';
import { workerMachine, type OpSpec, type WorkerContext } from '../../../src/machines/amber/worker.ts';
import { failures, runOnce as runOnceAt, verdicts } from '../../helpers/amber.ts';

const R_IN = resultUri(portBase('Src'));
const S_IN = stateUri(portBase('Src'));

async function holdsAt(p: Partial<AmberParams>) {
  const r = await check(amberScenario({ overlapFault: false, ...p }), { strategy: 'bfs' });
  expectHolds(r);
  expect(r.complete).toBe(true);
  return r;
}

// Every scenario from both starts: the figures count the whole run (runOnce prepends the
// earlier regions' run to a materialized one), so they must read the same.
describe.each(STARTS)('start=%s', (start) => {
  const runOnce = (p: Partial<AmberParams>) => runOnceAt({ start, ...p });
  const holdsExhaustively = (p: Partial<AmberParams>) => holdsAt({ start, ...p });

  describe('1. single loop Src -> LS -> LE (D2)', () => {
    const run = runOnce({ design: 'read-at-endchannel' });
    it('completes with 3 rows equal to the reference, 3 LS executions, 2 jumps', () => {
      expect(failures(run)).toEqual([]);
      expect(run.q.matches('coordinator', 'completed')).toBe(true);
      expect(run.out('LE')).toEqual([1, 2, 3]);
      expect(run.q.context('coordinator').execs.LS).toBe(3);
      expect(run.sends('LE', 'JumpToOperatorRegion')).toHaveLength(2);
      expect(Object.values(verdicts(run)).every((v) => v === true)).toBe(true);
    });
    it('2 truncate-plus-write pairs of S_in, which holds one row after each', () => {
      expect(run.io('create', S_IN, 'LE')).toHaveLength(2);
      const writes = run.io('commit', S_IN, 'LE');
      expect(writes).toHaveLength(2);
      expect(run.states('Src')).toEqual([{ content: '{"i":2}', counter: 0, lsId: '' }]);
    });
    it('3 reads of result_uri(Src.out) by LE, each after the LE reader\'s EndChannel; R_in is never written by the loop', () => {
      const opens = run.events.filter((e) => e.kind === 'io' && e.op === 'open' && e.key === R_IN && e.detail?.by === 'LE');
      expect(opens).toHaveLength(3);
      for (const o of opens) {
        const before = run.events.slice(0, run.events.indexOf(o));
        const lastIndex = (type: string) => before.map((e) => e.kind === 'deliver' && e.to === 'LE' && e.msg.type === type).lastIndexOf(true);
        const lastEnd = lastIndex('EndChannel');
        const lastStart = lastIndex('Start');
        expect(lastEnd).toBeGreaterThan(lastStart);
      }
      expect(run.io('commit', R_IN).map((e) => e.detail?.by)).toEqual(['Src']);
    });
    it('every property holds over every interleaving', () => holdsExhaustively({ design: 'read-at-endchannel' }));
  });

  describe('2. nested 3x3 Src -> OS -> IS -> IE -> OE', () => {
    const run = runOnce({ design: 'read-at-endchannel', topology: 'nested' });
    it('OE.out 9 and IE.out 3 rows (the reference), 6 inner + 2 outer jumps, OS 3 and IS 9 executions', () => {
      expect(failures(run)).toEqual([]);
      expect(run.out('OE')).toEqual([1, 2, 3, 1, 2, 3, 1, 2, 3]);
      expect(run.out('IE')).toEqual([1, 2, 3]);
      expect(run.q.context('coordinator').jumps).toEqual({ IS: 6, OS: 2 });
      expect(run.q.context('coordinator').execs).toMatchObject({ OS: 3, IS: 9 });
    });
    it('IE resets its output once per outer iteration', () => {
      const resets = run.io('create', resultUri(portBase('IE')), 'IE').filter((e) => e.detail?.reset);
      expect(resets).toHaveLength(3);
    });
    it('IE reads result_uri(OS.out) 9 times, constant generation within each outer iteration, 3 generations overall; OE reads R_in 3 times', () => {
      const gens = run.events.filter((e) => e.kind === 'io' && e.op === 'open' && e.key === resultUri(portBase('OS')) && e.detail?.by === 'IE').map((e: any) => e.detail.gen);
      expect(gens).toHaveLength(9);
      expect(gens).toEqual([gens[0], gens[0], gens[0], gens[3], gens[3], gens[3], gens[6], gens[6], gens[6]]);
      expect(new Set(gens).size).toBe(3);
      expect(run.io('open', R_IN, 'OE')).toHaveLength(3);
    });
    it('envelope counters: IS bypasses (0,OS) as (1,OS); IE resets on it and forwards (0,OS); OE consumes (0,OS)', () => {
      const routes = run.emits('amber.route');
      expect(routes.filter((r) => r.op === 'IS' && r.action === 'bypass').map((r) => [r.in, r.out])).toEqual(Array(3).fill([[0, 'OS'], [1, 'OS']]));
      expect(routes.filter((r) => r.op === 'IE' && r.action === 'reset-forward')).toHaveLength(3);
      expect(routes.filter((r) => r.op === 'IE' && r.action === 'consume').map((r) => r.in)).toEqual(Array(9).fill([0, 'IS']));
      expect(routes.filter((r) => r.op === 'OE' && r.action === 'consume').map((r) => r.in)).toEqual(Array(3).fill([0, 'OS']));
    });
    it('every property holds over every interleaving (3x3)', () => holdsExhaustively({ design: 'read-at-endchannel', topology: 'nested' }));
  });

  describe('3. JVM chain Src -> LS -> Limit -> LE', () => {
    it('3 rows; at Limit the envelope is (0, LS) in and out', async () => {
      const run = runOnce({ design: 'read-at-endchannel', topology: 'jvm-chain' });
      expect(failures(run)).toEqual([]);
      expect(run.out('LE')).toEqual([1, 2, 3]);
      expect(run.emits('amber.route', 'Limit').map((r) => [r.in, r.out])).toEqual(Array(3).fill([[0, 'LS'], [0, 'LS']]));
      await holdsExhaustively({ design: 'read-at-endchannel', topology: 'jvm-chain' });
    });
  });

  describe('4. nested JVM chain (a JVM Limit between IS and IE)', () => {
    it('OE 9, IE 3; counter +1 and -1 survive the JVM hop', () => {
      const run = runOnce({ design: 'read-at-endchannel', topology: 'nested-jvm-chain' });
      expect(failures(run)).toEqual([]);
      expect(run.out('OE')).toHaveLength(9);
      expect(run.out('IE')).toEqual([1, 2, 3]);
      const limit = run.emits('amber.route', 'Limit').map((r) => [r.in, r.out]);
      expect(limit).toContainEqual([[1, 'OS'], [1, 'OS']]);
      expect(limit).toContainEqual([[0, 'IS'], [0, 'IS']]);
      expect(run.emits('amber.route', 'IE').filter((r) => r.action === 'reset-forward').map((r) => r.out)).toEqual(Array(3).fill([0, 'OS']));
    });
  });

  describe('7. deleted key / missing table at the deferred read', () => {
    for (const kind of ['files', 'table'] as const) {
      it(`${kind}: ERROR reported, held, no PortCompleted/WEC/jump, S_in unchanged, _loop_table None`, async () => {
        const run = runOnce({ design: 'read-at-endchannel', deletedInput: true, deletedInputKind: kind });
        expect(failures(run)).toEqual([]);
        const c = run.q.context('coordinator');
        expect(c.errors.join()).toMatch(kind === 'files' ? /403 AccessDenied/ : /no storage is found for the given URI/i);
        const le = run.q.context('LE') as WorkerContext;
        expect(run.q.matches('LE', 'paused')).toBe(true);
        expect(le.le.loopTable).toBeNull();
        expect(run.sends('LE', 'PortCompleted')).toEqual([]);
        expect(run.sends('LE', 'WorkerExecutionCompleted')).toEqual([]);
        expect(run.sends('LE', 'JumpToOperatorRegion')).toEqual([]);
        expect(run.states('Src')).toEqual([]);
        expect(run.q.matches('coordinator', 'completed')).toBe(false);
        await holdsExhaustively({ design: 'read-at-endchannel', deletedInput: true, deletedInputKind: kind });
      });
    }
  });

  describe('8. missing config', () => {
    it('the deferred read raises "no loop bookkeeping URI" with zero storage operations by LE, and holds', async () => {
      const run = runOnce({ design: 'read-at-endchannel', missingConfig: true });
      expect(run.q.context('coordinator').errors.join()).toContain("no loop bookkeeping URI configured for LoopStart 'LS' (have: [])");
      expect(run.events.filter((e) => e.kind === 'io' && e.detail?.by === 'LE')).toEqual([]);
      expect(run.sends('LE', 'PortCompleted')).toEqual([]);
      await holdsExhaustively({ design: 'read-at-endchannel', missingConfig: true });
    });
    it('the jump path raises before the jump RPC and before any write (D0 consumes without a read, then jumps)', () => {
      const run = runOnce({ design: 'table-in-state', missingConfig: true });
      expect(run.q.context('coordinator').errors.join()).toContain('no loop bookkeeping URI');
      expect(run.emits('amber.error', 'LE').map((e) => e.where)).toEqual(['jump']);
      expect(run.sends('LE', 'JumpToOperatorRegion')).toEqual([]);
      expect(run.sends('LE', 'WorkerExecutionCompleted')).toEqual([]);
      expect(run.io('create', S_IN, 'LE')).toEqual([]);
      expect(run.io('commit', S_IN, 'LE')).toEqual([]);
    });
  });

  describe('9. update error', () => {
    it('reported with its message, held, no jump, no LE.out rows for the iteration', async () => {
      const run = runOnce({ design: 'read-at-endchannel', updateError: true });
      expect(run.q.context('coordinator').errors.join()).toContain("name 'undefined_name' is not defined");
      expect(run.q.matches('LE', 'paused')).toBe(true);
      expect(run.sends('LE', 'JumpToOperatorRegion')).toEqual([]);
      expect(run.out('LE')).toEqual([]);
      await holdsExhaustively({ design: 'read-at-endchannel', updateError: true });
    });
  });

  describe('10. attach / update contract (operator level)', () => {
    const t = batchOfTable(inputTable(3));
    const end = countingEnd('i');
    it('update without attach raises "not attached"', () => {
      expect(runUpdate(FRESH_LOOP_END, end, { i: 0 }).error).toMatch(/not attached/);
    });
    it('two updates after one attach: the second raises', () => {
      const once = runUpdate(attachLoopTable(FRESH_LOOP_END, t), end, { i: 0 });
      expect(once.error).toBeUndefined();
      expect(once.state.vars).toEqual({ i: 1 });
      expect(runUpdate(once.state, end, { i: 0 }).error).toMatch(/not attached/);
    });
    it('attach alone does not mark the loop consumed: condition() stays False', () => {
      const s = attachLoopTable(FRESH_LOOP_END, t);
      expect(s.loopTable).toBeNull();
      expect(evalCondition(s, end).value).toBe(false);
    });
  });

  describe('11. reserved `table`', () => {
    for (const how of ['init', 'update-rebind', 'update-delete'] as const) {
      it(`${how}: the reserved-name error, region held`, async () => {
        const run = runOnce({ design: 'read-at-endchannel', reservedTable: how });
        const errs = run.q.context('coordinator').errors.join();
        expect(errs).toContain("'table' is reserved by the loop runtime");
        expect(errs.startsWith(how === 'init' ? 'LS:' : 'LE:')).toBe(true);
        expect(run.q.matches('coordinator', 'completed')).toBe(false);
        await holdsExhaustively({ design: 'read-at-endchannel', reservedTable: how });
      });
    }
  });

  describe('12. fan-in LE (LS -> {Limit, Sleep} -> LE)', () => {
    it('two stamped copies: the first stashed, the second dropped; one read and one update per iteration; 3 iterations', async () => {
      const run = runOnce({ design: 'read-at-endchannel', topology: 'fan-in' });
      expect(failures(run)).toEqual([]);
      const le = run.emits('amber.route', 'LE');
      expect(le.filter((r) => r.action === 'consume')).toHaveLength(3);
      expect(le.filter((r) => r.action === 'drop-duplicate')).toHaveLength(3);
      expect(run.emits('amber.read', 'LE')).toHaveLength(3);
      expect(run.emits('amber.update', 'LE')).toHaveLength(3);
      expect(run.q.context('coordinator').execs.LS).toBe(3);
      expect(run.out('LE')).toEqual([1, 1, 2, 2, 3, 3]);
      expect((run.q.context('LE') as WorkerContext).dedup).toBe(false); // re-armed by the consume
      await holdsExhaustively({ design: 'read-at-endchannel', topology: 'fan-in' });
    });
  });

  describe('13. unstamped body state', () => {
    for (const where of ['before', 'after'] as const) {
      it(`a body UDF's own state (${where} the loop state) is forwarded unchanged, not consumed; 3 iterations`, async () => {
        const run = runOnce({ design: 'read-at-endchannel', bodyState: where });
        expect(failures(run)).toEqual([]);
        expect(run.out('LE')).toEqual([1, 2, 3]);
        expect(run.emits('amber.route', 'LE').filter((r) => r.action === 'forward-unstamped')).toHaveLength(3);
        expect(run.states('LE').filter((s) => s.lsId === '')).toHaveLength(3);
        await holdsExhaustively({ design: 'read-at-endchannel', bodyState: where });
      });
    }
    it('a hop that blanks the envelope: LE raises "loop envelope was lost upstream" before PortCompleted', async () => {
      const run = runOnce({ design: 'read-at-endchannel', bodyState: 'blank' });
      expect(run.q.context('coordinator').errors.join()).toContain('loop envelope was lost upstream');
      expect(run.sends('LE', 'PortCompleted')).toEqual([]);
      await holdsExhaustively({ design: 'read-at-endchannel', bodyState: 'blank' });
    });
  });

  describe('14. no stashed state', () => {
    it('an LE that only forwarded an enclosing loop state: no read, no attach, condition False, no jump', () => {
      const op: OpSpec = { id: 'IE', kind: 'loopEnd', end: countingEnd('j') };
      const opts = { design: 'read-at-endchannel' as const, holdOrder: 'consume-first' as const, endWorkerRace: false };
      // The worker's chart stepped alone, by the kernel's stepper: what it sends and emits, in order.
      const stepper = new MachineStepper(workerMachine(op, opts), 'IE');
      let snap = stepper.initial(undefined).snapshot;
      const out: any[] = [];
      const feed = (ev: any) => {
        const r = stepper.step(snap, ev);
        expect(r.unhandled).toBe(false);
        snap = r.snapshot;
        for (const a of r.actions) {
          if (a.type === 'xstate.sendTo') out.push({ msg: a.params.event });
          if (a.type === 'xstate.emit') out.push({ emit: a.params.event });
        }
      };
      feed({ type: 'Start', exec: 1, loopStartPortUris: { IS: portBase('OS') }, inputs: [{ reader: 'IE.r0', base: portBase('IS') }], outBase: portBase('IE') });
      feed({ type: 'StateFrame', ch: 'IE.r0', row: { content: '{"i":0}', counter: 1, lsId: 'OS' } });
      expect(snap.value).toEqual({ running: 'resettingOutput' });
      feed({ type: 'PortReset', base: portBase('IE') });
      feed({ type: 'EndChannel', ch: 'IE.r0' });
      expect(snap.value).toEqual({ running: 'closingPort' });
      feed({ type: 'PortCommitted', base: portBase('IE') });
      const sent = out.filter((o) => 'msg' in o).map((o) => o.msg.type);
      expect(sent).toEqual(['Run', 'ResetPort', 'PortCompleted', 'CommitPort', 'PortCompleted', 'WorkerExecutionCompleted']);
      const emits = out.filter((o) => 'emit' in o).map((o) => o.emit);
      expect(emits.some((e) => e.type === 'amber.read-start' || e.type === 'amber.attach')).toBe(false);
      expect(emits.find((e) => e.type === 'amber.condition')).toMatchObject({ value: false, consumed: false });
      expect((snap.context as WorkerContext).dedup).toBe(false);
      expect(snap.value).toBe('completed');
    });
  });

  describe('15. back-edge write failure', () => {
    it('error reported after the jump RPC was sent; the worker does not complete; no silent success', async () => {
      const run = runOnce({ design: 'read-at-endchannel', backEdgeWriteError: true, endWorkerAttempts: 3 });
      expect(run.sends('LE', 'JumpToOperatorRegion')).toHaveLength(1);
      expect((run.q.context('LE') as WorkerContext).jumped).toBe(true);
      expect(run.q.context('coordinator').errors.join()).toContain('back-edge write after the jump RPC was sent');
      expect(run.sends('LE', 'WorkerExecutionCompleted')).toEqual([]);
      expect(run.q.matches('coordinator', 'failed')).toBe(true);
      await holdsExhaustively({ design: 'read-at-endchannel', backEdgeWriteError: true, endWorkerAttempts: 3 });
    });
  });

  describe('16. large table', () => {
    it('D0 fails at the first hop that stores the state; D2 completes with state rows of a few bytes', async () => {
      const d0 = runOnce({ design: 'table-in-state', largeTable: true });
      const errs = d0.q.context('coordinator').errors.join();
      expect(errs).toMatch(/^LS: state cell of \d+ bytes exceeds MAX_CELL_BYTES=65536/);
      expect(d0.q.context('coordinator').execs).toEqual({ Src: 1, LS: 1 });
      const d2 = runOnce({ design: 'read-at-endchannel', largeTable: true });
      expect(failures(d2)).toEqual([]);
      expect(d2.q.matches('coordinator', 'completed')).toBe(true);
      expect(d2.out('LE')).toEqual([1, 2, 3]);
      const sizes = d2.events.filter((e) => e.kind === 'send' && e.to === 'store' && (e.msg.type === 'CommitPort' || e.msg.type === 'Commit')).flatMap((e: any) => e.msg.states.map((s: any) => s.content.length));
      expect(sizes.length).toBeGreaterThan(0);
      expect(Math.max(...sizes)).toBeLessThan(16);
      await holdsExhaustively({ design: 'read-at-endchannel', largeTable: true });
    });
  });

  describe('17. EndWorker race (#6960)', () => {
    it('the first termination attempt fails, the retry after 200 ms succeeds, same counts, I6 holds', async () => {
      const run = runOnce({ design: 'read-at-endchannel', endWorkerRace: true });
      expect(failures(run)).toEqual([]);
      expect(run.sends('LE', 'EndWorkerFailed').length).toBeGreaterThan(0);
      const fires = run.events.filter((e) => e.kind === 'timer-fire' && /^xstate\.after\.200\.coordinator\.executing\.\w+\.retrying$/.test(e.id));
      expect(fires.length).toBeGreaterThan(0);
      expect(run.q.matches('coordinator', 'completed')).toBe(true);
      expect(run.out('LE')).toEqual([1, 2, 3]);
      expect(run.q.context('coordinator').jumps).toEqual({ LS: 2 });
      await holdsExhaustively({ design: 'read-at-endchannel', endWorkerRace: true });
    });
  });
});
