// The task process's components on their own: the request channel (one request at
// a time, DeadlockImminentError instead of a hang), the round writer (docs/airflow.md), the
// outcome scripts and the configuration's errors.
import { describe, expect, it } from 'vitest';
import { ScenarioError } from 'interleave';
import { IDLE, asend, cancel, release, syncSend, type Req } from '../../../src/machines/airflow/channel.ts';
import { cancelWrites, killWindow, newWriter, record, restOf, writeErr, writeOk } from '../../../src/machines/airflow/round-writer.ts';
import { parseOutcomes, type Entry, configOf } from '../../../src/machines/airflow/config.ts';
import { supervisorApi } from '../../../src/machines/airflow/api.ts';
import { storeFor } from '../../../src/machines/airflow/scenario.ts';
import { mget, mkeys, pmap } from '../../../src/machines/airflow/pstore.ts';

const req = (rid: number, role: Req['role'] = 'push', sync = false): Req => ({ rid, op: 'set', key: `k${rid}`, role, sync, bytes: 0 });
const e = (i: number): Entry => ({ i, s: 'success', t: 1 });

describe('request channel', () => {
  it('sends an async request at once when free, queues the next FIFO, hands over on release', () => {
    let r = asend(IDLE, req(1));
    expect(r.out?.rid).toBe(1);
    r = asend(r.ch, req(2));
    expect(r.out).toBeNull();
    r = asend(r.ch, req(3));
    const a = release(r.ch);
    expect(a.out?.rid).toBe(2);
    const b = release(a.ch);
    expect(b.out?.rid).toBe(3);
    expect(release(b.ch)).toEqual({ ch: IDLE, out: null });
  });
  it('a sync send while an async one holds the channel is DeadlockImminentError, never a wait', () => {
    const held = asend(IDLE, req(1)).ch;
    const r = syncSend(held, req(2, 'rest', true));
    expect('error' in r && r.error.name).toBe('DeadlockImminentError');
    const ok = syncSend(IDLE, req(2, 'rest', true));
    expect('out' in ok && ok.out.rid).toBe(2);
  });
  it('cancelling keeps a sent request holding the channel until its response (H5 guard), or frees it without the guard', () => {
    const held = asend(asend(IDLE, req(1)).ch, req(2)).ch;
    const guarded = cancel(held, () => true, true);
    expect(guarded.holder?.rid).toBe(1);
    expect(guarded.orphan).toBe(true);
    expect(guarded.waiters).toEqual([]);
    const bare = cancel(held, () => true, false);
    expect(bare.holder).toBeNull();
  });
});

describe('round writer', () => {
  it('cuts a round of the next W in completion order (kept in index order) and writes it under the lock; the next cut waits', () => {
    let w = newWriter(0);
    let start = null;
    for (const i of [3, 1]) ({ w, start } = record(w, e(i), 2, i));
    expect(start).toEqual({ n: 0, value: [e(1), e(3)], closer: 1 });
    for (const i of [0, 2]) ({ w, start } = record(w, e(i), 2, i));
    expect(start).toBeNull();
    expect(w.waiting).toHaveLength(1);
    expect(killWindow(w).map((x) => x.i)).toEqual([1, 3, 0, 2]);
    const ok = writeOk(w);
    expect(ok.w.nextN).toBe(1);
    expect(ok.start).toEqual({ n: 1, value: [e(0), e(2)], closer: 2 });
  });
  it('n advances only on a confirmed write; a failed write is carried into the next', () => {
    let w = newWriter(5);
    w = record(w, e(0), 1, 0).w;
    const failed = writeErr(w);
    expect(failed.w.nextN).toBe(5);
    expect(failed.w.carried).toEqual([e(0)]);
    const next = record(failed.w, e(1), 1, 1);
    expect(next.start).toEqual({ n: 5, value: [e(0), e(1)], closer: 1 });
  });
  it('a cancellation keeps the in-flight and waiting entries for the rest', () => {
    let w = newWriter(0);
    for (const i of [0, 1, 2, 3, 4]) w = record(w, e(i), 2, i).w;
    const c = cancelWrites(w);
    expect(c.inflight).toBeNull();
    expect(restOf(c).map((x) => x.i)).toEqual([0, 1, 2, 3, 4]);
  });
  it('the same outcomes recorded in another order make the same writer state', () => {
    const fill = (order: number[]) => order.reduce((w, i) => record(w, e(i), 4, i).w, newWriter(0));
    expect(fill([2, 0, 1])).toEqual(fill([1, 2, 0]));
    expect(() => record({ ...newWriter(0), pending: [e(0), e(1)] }, e(2), 2, 2)).toThrow(/a round is cut at W/);
  });
  it('overwrite-one-key writes every outcome so far', () => {
    let w = newWriter(0, [e(9)]);
    const r = record(w, e(0), 1, 0);
    expect(r.start!.value).toEqual([e(9), e(0)]);
    w = writeOk(r.w).w;
    expect(record(w, e(1), 1, 1).start!.value).toEqual([e(9), e(0), e(1)]);
  });
});

describe('outcome scripts and configuration', () => {
  it('reads letters with counts, tries separated by /', () => {
    expect(parseOutcomes('ssfsk')).toEqual([['s', 's', 'f', 's', 'k']]);
    expect(parseOutcomes('3s x / 2k')).toEqual([['s', 's', 's', 'x'], ['k', 'k']]);
    expect(parseOutcomes('')).toEqual([]);
  });
  it('names what is wrong', () => {
    expect(() => parseOutcomes('ssq')).toThrow(/'q' in attempt 1 is not an outcome/);
    expect(() => parseOutcomes('s-s')).toThrow(ScenarioError);
    expect(() => configOf({ W: 0 })).toThrow(/taskConcurrency must be at least 1/);
    expect(() => configOf({ tries: 0 })).toThrow(/tries must be at least 1/);
  });
});

describe('the supervisor\'s XCom table', () => {
  it("a newer try's first frame finds the older try's XComs deleted; a late push of the older try lands before it", () => {
    const cfg = configOf({ items: 2 });
    const api = supervisorApi(cfg, storeFor(cfg));
    const ctx = { self: 'supervisor', from: 'task', outcome: undefined, now: 0 };
    let s = api.init(undefined);
    const push = (a: number, i: number) => ({ type: 'SetXCom', a, rid: 1, key: `return_value_${i}`, value: { i, t: a } });
    s = api.receive(s, push(1, 0), ctx).state;
    s = api.receive(s, push(1, 1), ctx).state;
    expect(mkeys(s.xcom.keys)).toEqual(['return_value_0', 'return_value_1']);
    // Try 2 starts with its marker read: the table is empty before it pushes anything.
    s = api.receive(s, { type: 'GetTaskStateStore', a: 2, rid: 1, key: '_iterable_completed', role: 'marker-read', sync: true, bytes: 0 }, ctx).state;
    expect(s.xcom).toEqual({ a: 2, keys: pmap() });
    s = api.receive(s, push(2, 1), ctx).state;
    expect(mget(s.xcom.keys, 'return_value_1')).toBe(2);
    expect(mkeys(s.xcom.keys)).toEqual(['return_value_1']);
  });
});
