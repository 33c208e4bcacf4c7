// Fault outcomes of the simulated stores: which are offered, what each does, and
// that the kernel explores them as steps within the scenario's fault budget.
import { describe, expect, it } from 'vitest';
import { apply, enabled, initialWorld } from 'interleave/kernel';
import { defineScenario, queryOf, type Step, type World, type Message, type TraceEvent, type ReducerLogic } from 'interleave';
import {
  ErrorCode,
  docCommit,
  docCreate,
  docDrop,
  docReadNext,
  docReadOpen,
  objectStore,
  peekStash,
  stashUpload,
  s3Delete,
  s3Get,
  s3Head,
  s3List,
  s3Put,
  scriptClient,
  simClient,
  taskStateStore,
  tsClear,
  tsDelete,
  tsGet,
  tsSet,
  type TaskScope,
} from 'interleave/storage';

const b = (...xs: number[]) => new Uint8Array(xs);
const scope: TaskScope = { dagId: 'd', runId: 'r', taskId: 't', mapIndex: 3 };

describe('object store fault outcomes', () => {
  it('offers 403, 503 on reads and also ambiguous on writes; 500 only when asked', () => {
    const c = simClient(objectStore());
    expect(c.faults(s3Get('k'))).toEqual(['403', '503']);
    expect(c.faults(s3Head('k'))).toEqual(['403', '503']);
    expect(c.faults(s3List(''))).toEqual(['403', '503']);
    expect(c.faults(s3Put('k', b(1)))).toEqual(['403', '503', 'ambiguous']);
    expect(c.faults(s3Delete('k'))).toEqual(['403', '503', 'ambiguous']);
    expect(c.faults({ type: 'something.else' })).toEqual([]);
    const all = simClient(objectStore({ faults: { outcomes: ['403', '503', '500', 'ambiguous'] } }));
    expect(all.faults(s3Put('k', b(1)))).toEqual(['403', '503', '500', 'ambiguous']);
  });

  it('narrows offers by op, by key prefix, or by a chooser', () => {
    const byOp = simClient(objectStore({ faults: { ops: ['s3.get'], outcomes: ['403'] } }));
    expect(byOp.faults(s3Get('k'))).toEqual(['403']);
    expect(byOp.faults(s3Put('k', b(1)))).toEqual([]);
    const byPrefix = simClient(objectStore({ faults: { prefixes: ['tmp/'] } }));
    expect(byPrefix.faults(s3Get('tmp/x'))).toEqual(['403', '503']);
    expect(byPrefix.faults(s3Get('data/x'))).toEqual([]);
    const chosen = simClient(objectStore({ faults: { choose: (m, from) => (from === 'reader' && m.type === 's3.get' ? ['403', 'ambiguous'] : []) } }));
    expect(chosen.faults(s3Get('k'), 'reader')).toEqual(['403']); // ambiguous does not apply to a read
    expect(chosen.faults(s3Get('k'), 'writer')).toEqual([]);
  });

  it('403, 503 and 500 fail without effect; ambiguous takes effect and answers InternalError', () => {
    for (const [outcome, code, status] of [
      ['403', ErrorCode.AccessDenied, 403],
      ['503', ErrorCode.SlowDown, 503],
      ['500', ErrorCode.InternalError, 500],
    ] as const) {
      const c = simClient(objectStore({ faults: { outcomes: ['403', '503', '500', 'ambiguous'] } }));
      c.request(s3Put('k', b(1)));
      const r = c.call(s3Put('k', b(2), 'q'), { outcome });
      expect(r.replies).toEqual([expect.objectContaining({ type: 's3.put.error', key: 'k', code, status, req: 'q' })]);
      expect(r.events).toEqual([expect.objectContaining({ kind: 'io', op: 's3.put', key: 'k', outcome })]);
      expect(Array.from(c.request(s3Get('k')).body as Uint8Array)).toEqual([1]);
      expect(c.request(s3Delete('k'), { outcome }).code).toBe(code);
      expect(c.request(s3Get('k')).type).toBe('s3.get.ok');
      expect(c.request(s3Get('k'), { outcome }).code).toBe(code);
    }
    const c = simClient(objectStore());
    const amb = c.call(s3Put('k', b(7)), { outcome: 'ambiguous' });
    expect(amb.replies[0]).toEqual(expect.objectContaining({ type: 's3.put.error', code: ErrorCode.InternalError, status: 500, key: 'k' }));
    expect(amb.events[0]).toEqual(expect.objectContaining({ op: 's3.put', outcome: 'ambiguous', bytes: 1 }));
    expect(Array.from(c.request(s3Get('k')).body as Uint8Array)).toEqual([7]);
    expect(c.request(s3Delete('k'), { outcome: 'ambiguous' }).code).toBe(ErrorCode.InternalError);
    expect(c.request(s3Get('k')).code).toBe(ErrorCode.AccessDenied);
  });

  it('every operation is one io event with key, outcome and bytes', () => {
    const c = simClient(objectStore({ bucket: 'warehouse' }));
    const evs: TraceEvent[] = [];
    for (const m of [s3Put('a', b(1, 2, 3)), s3Get('a'), s3Get('a', { start: 1 }), s3Head('a'), s3List(''), s3Delete('a'), s3Get('a')]) evs.push(...c.call(m).events);
    expect(evs.map((e) => (e.kind === 'io' ? [e.op, e.key, e.outcome, e.bytes] : e.kind))).toEqual([
      ['s3.put', 'a', 'ok', 3],
      ['s3.get', 'a', 'ok', 3],
      ['s3.get', 'a', 'ok', 2],
      ['s3.head', 'a', 'ok', undefined],
      ['s3.list', '', 'ok', undefined],
      ['s3.delete', 'a', 'ok', undefined],
      ['s3.get', 'a', '403', undefined],
    ]);
    expect(evs.every((e) => e.kind === 'io' && e.actor === 'store' && e.detail?.bucket === 'warehouse')).toBe(true);
  });

  it('shares payloads by reference: the stored object is the put body, get returns it without copying', () => {
    const c = simClient(objectStore());
    const body = new Uint8Array(1 << 20);
    c.request(s3Put('big', body));
    expect(c.state.objects.big).toBe(body);
    expect(c.request(s3Get('big')).body).toBe(body);
  });
});

describe('fault outcomes under the kernel', () => {
  const build = (budget: number) =>
    defineScenario({
      name: 'store-faults',
      actors: { client: scriptClient('store', [s3Put('k', b(1)), s3Get('k')]), store: objectStore() },
      start: [{ to: 'client', msg: { type: 'go' } }],
      faults: { budget },
    });

  function explore(sc: ReturnType<typeof build>): { ends: string[][]; ids: Set<string> } {
    const ends: string[][] = [];
    const ids = new Set<string>();
    const go = (w: World, depth: number) => {
      const steps = enabled(sc, w);
      if (steps.length === 0 || depth > 10) {
        ends.push((queryOf(sc, w).context('client').replies as Message[]).map((m) => `${m.type}${m.code ? `:${String(m.code)}` : ''}`));
        return;
      }
      for (const s of steps as Step[]) {
        ids.add(s.id);
        go(apply(sc, w, s).world, depth + 1);
      }
    };
    go(initialWorld(sc).world, 0);
    return { ends, ids };
  }

  it('with no budget only normal deliveries are enabled', () => {
    const { ends, ids } = explore(build(0));
    expect([...ids].some((id) => id.includes('!'))).toBe(false);
    expect(ends).toEqual([['s3.put.ok', 's3.get.ok']]);
  });

  it('with a budget of one the checker reaches every single-fault outcome, and never two faults', () => {
    const { ends, ids } = explore(build(1));
    expect(ids).toContain('deliver:client->store:s3.put!403');
    expect(ids).toContain('deliver:client->store:s3.put!ambiguous');
    expect(ids).toContain('deliver:client->store:s3.get!503');
    const set = new Set(ends.map((e) => e.join(' ')));
    expect([...set].sort()).toEqual(
      [
        's3.put.ok s3.get.ok',
        's3.put.error:AccessDenied s3.get.error:AccessDenied',
        's3.put.error:SlowDown s3.get.error:AccessDenied',
        's3.put.error:InternalError s3.get.ok',
        's3.put.ok s3.get.error:AccessDenied',
        's3.put.ok s3.get.error:SlowDown',
      ].sort(),
    );
  });
});

describe('task state store fault outcomes', () => {
  it('offers fail/ambiguous on writes, fail on a read of a missing key and fail/vanished on a present one', () => {
    const c = simClient(taskStateStore());
    expect(c.faults(tsSet(scope, 'k', '1'))).toEqual(['fail', 'ambiguous']);
    expect(c.faults(tsDelete(scope, 'k'))).toEqual(['fail', 'ambiguous']);
    expect(c.faults(tsClear(scope))).toEqual(['fail', 'ambiguous']);
    expect(c.faults(tsGet(scope, 'k'))).toEqual(['fail']);
    c.request(tsSet(scope, 'k', '1'));
    expect(c.faults(tsGet(scope, 'k'))).toEqual(['fail', 'vanished']);
    expect(simClient(taskStateStore({ faults: { outcomes: ['ambiguous'] } })).faults(tsSet(scope, 'k', '1'))).toEqual(['ambiguous']);
  });

  it('fail writes nothing; ambiguous writes and answers WriteFailed, the same error the caller cannot tell apart', () => {
    const c = simClient(taskStateStore());
    const f = c.request(tsSet(scope, '_iterable_batch_0', '[1]', null, 1), { outcome: 'fail' });
    expect(f).toEqual(expect.objectContaining({ type: 'ts.set.error', code: ErrorCode.WriteFailed, status: 500, key: '_iterable_batch_0', req: 1 }));
    expect(c.request(tsGet(scope, '_iterable_batch_0')).found).toBe(false);
    const a = c.request(tsSet(scope, '_iterable_batch_0', '[1]', null, 2), { outcome: 'ambiguous' });
    expect([a.type, a.code, a.status]).toEqual([f.type, f.code, f.status]);
    expect(c.request(tsGet(scope, '_iterable_batch_0')).value).toBe('[1]');
    expect(c.request(tsDelete(scope, '_iterable_batch_0'), { outcome: 'fail' }).code).toBe(ErrorCode.WriteFailed);
    expect(c.request(tsGet(scope, '_iterable_batch_0')).found).toBe(true);
    expect(c.request(tsClear(scope), { outcome: 'ambiguous' }).code).toBe(ErrorCode.WriteFailed);
    expect(c.request(tsGet(scope, '_iterable_batch_0')).found).toBe(false);
  });

  it('a failed read is ReadFailed (not "missing"); vanished removes the row and reads as none', () => {
    for (const backend of ['database', 'object-storage'] as const) {
      const c = simClient(taskStateStore({ backend }));
      c.request(tsSet(scope, 'm', '{"completed":true}'));
      expect(c.request(tsGet(scope, 'm'), { outcome: 'fail' })).toEqual(expect.objectContaining({ type: 'ts.get.error', code: ErrorCode.ReadFailed }));
      const v = c.call(tsGet(scope, 'm'), { outcome: 'vanished' });
      expect(v.replies[0]).toEqual(expect.objectContaining({ type: 'ts.get.ok', found: false, value: null }));
      expect(v.events[0]).toEqual(expect.objectContaining({ op: 'ts.get', outcome: 'vanished' }));
      expect(c.request(tsGet(scope, 'm')).found).toBe(false);
    }
  });

  it('the size warning is a log event (database backend) and the value is written', () => {
    const c = simClient(taskStateStore({ maxValueStorageBytes: 10 }));
    const r = c.call(tsSet(scope, 'k', '0123456789!'));
    expect(r.replies[0]).toEqual(expect.objectContaining({ type: 'ts.set.ok', warned: true, bytes: 11 }));
    expect(r.events[1]).toEqual(expect.objectContaining({ kind: 'log', data: expect.objectContaining({ level: 'warning', key: 'k', bytes: 11, limit: 10 }) }));
    const o = simClient(taskStateStore({ backend: 'object-storage', maxValueStorageBytes: 10 })).call(tsSet(scope, 'k', '0123456789!'));
    expect(o.events.filter((e) => e.kind === 'log')).toEqual([]);
  });

  it('the object-storage backend stores values at <base>/<dag>/<run>/<task>/<mapIndex>/<key>', () => {
    const c = simClient(taskStateStore({ backend: 'object-storage', base: 'airflow/state' }));
    const r = c.call(tsSet(scope, '_iterable_batch_2', '[]', 123));
    expect(Object.keys(c.state.rows)).toEqual(['airflow/state/d/r/t/3/_iterable_batch_2']);
    expect(r.events[0]).toEqual(expect.objectContaining({ op: 'ts.set', key: '_iterable_batch_2' }));
    const bad = c.request(tsSet({ ...scope, runId: '..' }, 'k', '1'));
    expect([bad.type, bad.code]).toEqual(['ts.set.error', ErrorCode.InvalidKey]);
  });
});

describe('purity', () => {
  // Deep-freezes every state a reducer returns (typed arrays cannot be frozen and are
  // shared by reference): a reducer that mutated its input state would throw.
  function deepFreeze<T>(x: T): T {
    if (x && typeof x === 'object' && !ArrayBuffer.isView(x) && !Object.isFrozen(x)) {
      Object.freeze(x);
      for (const v of Object.values(x)) deepFreeze(v);
    }
    return x;
  }
  function frozen<S>(logic: ReducerLogic<S>): ReducerLogic<S> {
    return { ...logic, init: (i) => deepFreeze(logic.init(i)), receive: (s, m, c) => { const r = logic.receive(s, m, c); deepFreeze(r.state); return r; } };
  }

  it('no store mutates its state: every operation and fault runs on deep-frozen states', () => {
    const o = simClient(frozen(objectStore()));
    const uri = 'docs/t';
    for (const [m, outcome] of [
      [s3Put('a', b(1)), undefined], [s3Put('a', b(2)), 'ambiguous'], [s3Get('a'), undefined], [s3Delete('a'), 'ambiguous'], [s3Delete('zz'), undefined],
      [docCreate(uri, {}), undefined], [docCommit(uri, b(1), 1), undefined], [docCommit(uri, b(2), 1), 'ambiguous'], [docReadOpen(uri, 'r'), undefined],
      [docReadNext('r'), undefined], [docCreate(uri, {}), undefined], [docReadNext('r'), undefined], [docDrop(uri), undefined],
    ] as const) o.call(m, { outcome });
    expect(o.state.docs[uri]!.exists).toBe(false);
    for (const backend of ['database', 'object-storage'] as const) {
      const t = simClient(frozen(taskStateStore({ backend })));
      t.call(tsSet(scope, 'k', '1', 5));
      t.call(tsSet(scope, 'j', '1'), { outcome: 'ambiguous' });
      t.call(tsGet(scope, 'k'), { outcome: 'vanished' });
      t.call(tsDelete(scope, 'j'));
      t.call(tsClear(scope));
      t.call({ type: 'ts.cleanup', before: 10 });
      expect(t.state.rows).toEqual({});
    }
    const st = simClient(frozen(peekStash({ partBytes: 1 })));
    st.call(stashUpload('p', 3, 1));
    st.call(stashUpload('q', 3, 1), { selfOutcome: (_m, n) => (n === 1 ? 'fail' : undefined) });
    expect([Object.keys(st.state.shards), st.state.leakedParts]).toEqual([['sp'], 1]);
  });
});
