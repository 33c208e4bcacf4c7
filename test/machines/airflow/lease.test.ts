// The task lease in the airflow-checkpoints model (lease.ts, task-lease.ts,
// monitors-lease.ts): two task processes on one task, the lease's expiry as the
// waiter's timer, fenced writes. The correct model holds completely; without the
// lease LEASE-1 breaks, and with a store that does not fence LEASE-2 breaks.
import { describe, expect, it } from 'vitest';
import { check, ScenarioError } from 'interleave';
import { buildAirflow } from '../../../src/machines/airflow/scenario.ts';
import { configOf, type AirflowConfig } from '../../../src/machines/airflow/config.ts';
import { NO_LEASE, fenced, onLease } from '../../../src/machines/airflow/lease.ts';

const LONG = 300_000;
// The tiny fixture: two items, one in flight, two tries, no injected fault.
const TINY: Partial<AirflowConfig> = { items: 2, W: 1, tries: 2 };
const exhaustive = (over: Partial<AirflowConfig>) => check(buildAirflow({ ...TINY, ...over }), { strategy: 'dfs', maxStates: 1_000_000 });

const runs = (trace: readonly any[]) => trace.filter((e) => e.kind === 'output' && e.msg.type === 'Run').map((e) => `${e.from}:${e.msg.i}`);

describe('the lease store (lease.ts)', () => {
  it('grants a free lease with a new token, answers LeaseHeld while held, lets a waiter take over the lease it waited out', () => {
    const g = onLease(NO_LEASE, { type: 'AcquireLease' }, 'task', 'supervisor')!;
    expect(g.lease).toEqual({ token: 1, holder: 'task' });
    expect(g.send).toEqual([{ to: 'task', msg: { type: 'LeaseGranted', token: 1 } }]);
    const h = onLease(g.lease, { type: 'AcquireLease' }, 'task2', 'supervisor')!;
    expect(h.lease).toBe(g.lease);
    expect(h.send).toEqual([{ to: 'task2', msg: { type: 'LeaseHeld', token: 1 } }]);
    // A poll naming an older lease does not take the current one over.
    expect(onLease({ token: 3, holder: 'task' }, { type: 'AcquireLease', after: 2 }, 'task2', 'supervisor')!.lease).toEqual({ token: 3, holder: 'task' });
    const t = onLease(g.lease, { type: 'AcquireLease', after: 1 }, 'task2', 'supervisor')!;
    expect(t.lease).toEqual({ token: 2, holder: 'task2' });
    expect(t.events.map((e: any) => `${e.op} ${e.key} ${e.detail.token}`)).toEqual(['lease.expire task 1', 'lease.grant task2 2']);
  });

  it('a release by the holder frees the lease (the token stays); a stale release changes nothing', () => {
    const l = { token: 2, holder: 'task2' };
    expect(onLease(l, { type: 'ReleaseLease', token: 1 }, 'task', 'supervisor')!.lease).toBe(l);
    expect(onLease(l, { type: 'ReleaseLease', token: 2 }, 'task2', 'supervisor')!.lease).toEqual({ token: 2, holder: null });
    expect(onLease(l, { type: 'GetTaskStateStore' }, 'task', 'supervisor')).toBeUndefined();
  });

  it('fences writes whose token is not the current one, never reads', () => {
    const l = { token: 2, holder: 'task2' };
    expect(fenced(l, { type: 'SetTaskStateStore', token: 1 })).toBe(true);
    expect(fenced(l, { type: 'SetXCom', token: 1 })).toBe(true);
    expect(fenced(l, { type: 'SetTaskStateStore', token: 2 })).toBe(false);
    expect(fenced(l, { type: 'GetTaskStateStore', token: 1 })).toBe(false);
  });

  it('rejects a third process and a timed model with the lease, naming the fix', () => {
    expect(() => configOf({ processes: 3 })).toThrow(ScenarioError);
    expect(() => configOf({ processes: 3 })).toThrow(/processes must be 1 or 2/);
    expect(() => configOf({ lease: true, opMs: 5 })).toThrow(/needs opMs=0/);
  });
});

describe('two processes on one task, checked exhaustively', () => {
  it('with the lease: complete, LEASE-1/2/3 hold, and an index running in both processes (after an expiry) is reached', async () => {
    const r = await exhaustive({ lease: true, processes: 2 });
    expect(r.violation?.property).toBeUndefined();
    expect(r.complete).toBe(true);
    // The takeover happens in the model (else LEASE-1 would hold vacuously).
    expect(r.unreached).toEqual([]);
    expect(Object.keys(buildAirflow({ ...TINY, lease: true, processes: 2 }).reachable ?? {})).toContain('an index runs in both processes');
  }, LONG);

  it('without the lease: LEASE-1 breaks, both processes run index 0 at once', async () => {
    const r = await exhaustive({ processes: 2 });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.name).toBe('LEASE-1');
    expect(r.violation!.property.message).toMatch(/^LEASE-1: index 0 runs in '(task|task2)' and in '(task|task2)' at once, and neither lost its lease/);
    const rs = runs(r.violation!.trace);
    expect(rs).toContain('task:0');
    expect(rs).toContain('task2:0');
  }, LONG);

  it('with a store that does not fence: LEASE-2 breaks, a zombie write lands after its lease expired and was granted again', async () => {
    const r = await exhaustive({ lease: true, processes: 2, fencing: false });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.name).toBe('LEASE-2');
    const ops = r.violation!.trace.filter((e: any) => e.kind === 'io' && e.op.startsWith('lease.')).map((e: any) => `${e.op} ${e.key}`);
    expect(ops).toEqual(['lease.grant task', 'lease.expire task', 'lease.grant task2']);
    // The same model with fencing holds (the previous test): the fencing is what LEASE-2 needs.
  }, LONG);

  it('with the lease and a hard kill anywhere: complete, every lease property holds', async () => {
    const r = await exhaustive({ lease: true, processes: 2, faultBudget: 1, hardKill: true });
    expect(r.violation?.property).toBeUndefined();
    expect(r.complete).toBe(true);
  }, LONG);
});

describe('one process with the lease', () => {
  it('a killed process waits for its own dead lease to expire, then the retry runs: every airflow property and the lease ones hold', async () => {
    const r = await check(buildAirflow({ items: 3, W: 2, lease: true, faultBudget: 1, hardKill: true, markerGuard: true }), { strategy: 'dfs', maxStates: 1_000_000 });
    expect(r.violation?.property).toBeUndefined();
    expect(r.complete).toBe(true);
    expect(r.unreached).toEqual([]);
  }, LONG);
});
