// Scenarios T01-T14 (docs/airflow.md), each with its
// expected counts of writes, reads, runs and callbacks. Seeded choices among the
// normal steps; faults injected at the point each scenario names.
import { describe, expect, it } from 'vitest';
import { MARKER_KEY, batchKey } from '../../../src/machines/airflow/config.ts';
import { killWindow } from '../../../src/machines/airflow/round-writer.ts';
import {
  deliverStep, endOf, markers, outsOf, problems, reads, runAirflow, runScenario as runAirflowWith, runner, runs, scenario, stored, successCallbacks, writes,
} from '../../helpers/airflow.ts';

const isTask = (s: any, sc: any) => s.kind === 'crash' && s.actor === sc.index.get('task');

describe('T01 happy path, N = 1000, try 1', () => {
  const o = runAirflow({ items: 1000, W: 16, tries: 1 });
  it('writes 62 async rounds of the next 16 in completion order, then the sync rest of 8, then the marker last', () => {
    const w = writes(o, 1);
    expect(w).toHaveLength(63);
    expect(w.slice(0, 62).every((m, n) => m.role === 'round' && !m.sync && m.key === batchKey(n) && m.value.length === 16)).toBe(true);
    expect(w[62]).toMatchObject({ role: 'rest', sync: true, key: batchKey(62) });
    expect(w[62].value).toHaveLength(8);
    // Round n holds the (16n+1)th to 16(n+1)th outcomes recorded, kept in index order inside the round.
    const recorded = outsOf(o, 'Record', 1).map((m) => m.i as number);
    const byIndex = (xs: number[]) => [...xs].sort((p, q) => p - q);
    expect(w.map((m) => m.value.map((e: any) => e.i))).toEqual(w.map((_, n) => byIndex(recorded.slice(16 * n, 16 * (n + 1)))));
    expect(recorded).not.toEqual(byIndex(recorded)); // completion order is not index order: the rounds above are its cuts
    const sets = o.reqs.filter((m) => m.type === 'SetTaskStateStore');
    expect(sets.at(-1)).toMatchObject({ key: MARKER_KEY, role: 'marker-set', value: { completed: true, try_number: 1 } });
  });
  it('reads nothing, pushes 1000 XComs, fires each success callback once, and succeeds', () => {
    expect(reads(o, 1)).toHaveLength(0);
    expect(o.reqs.filter((m) => m.type === 'SetXCom')).toHaveLength(1000);
    const cb = successCallbacks(o);
    expect(cb.size).toBe(1000);
    expect([...cb.values()].every((n) => n === 1)).toBe(true);
    expect(runner(o).final).toBe('success');
    expect(problems(o)).toEqual([]);
  });
});

describe('T02 edge sizes', () => {
  it('N = 32: two rounds, no rest, then the marker', () => {
    const o = runAirflow({ items: 32, W: 16, tries: 1 });
    expect(writes(o, 1).map((m) => m.role)).toEqual(['round', 'round']);
    expect(markers(o, 1)).toHaveLength(1);
    expect(problems(o)).toEqual([]);
  });
  it('N = 0: SKIPPED, no batch write, the marker written', () => {
    const o = runAirflow({ items: 0, W: 16, tries: 1 });
    expect(writes(o, 1)).toHaveLength(0);
    expect(markers(o, 1)).toHaveLength(1);
    expect(runner(o).final).toBe('skipped');
  });
  it('every index skipped (N = 5): one rest write of 5 skipped entries, the marker, SKIPPED', () => {
    const o = runAirflow({ items: 5, W: 16, tries: 1, outcomes: 'kkkkk' });
    const w = writes(o, 1);
    expect(w).toHaveLength(1);
    expect(w[0].role).toBe('rest');
    expect(w[0].value.map((e: any) => e.s)).toEqual(Array(5).fill('skipped'));
    expect(markers(o, 1)).toHaveLength(1);
    expect(runner(o).final).toBe('skipped');
    expect(problems(o)).toEqual([]);
  });
});

describe("T03 the seed's end-to-end test: N = 100, one retry, index 37 fails on try 1", () => {
  const o = runAirflow({ items: 100, W: 16, tries: 2, outcomes: '37s f' });
  it('try 1: 7 writes (6 rounds + rest of 4 holding 37 as up_for_retry), no marker, retry callback after every index ended', () => {
    const w = writes(o, 1);
    expect(w.map((m) => m.role)).toEqual([...Array(6).fill('round'), 'rest']);
    expect(w[6].value).toHaveLength(4);
    expect(w.flatMap((m) => m.value).find((e: any) => e.i === 37)).toMatchObject({ s: 'up_for_retry', t: 1 });
    expect(markers(o, 1)).toHaveLength(0);
    expect(endOf(o, 1)).toBe('up_for_retry');
    const try1 = o.outs.filter((m) => m.a === 1);
    const retryCb = try1.findIndex((m) => m.type === 'Report' && m.cb === 'retry' && m.i === 37);
    const lastRunEnd = try1.map((m) => m.type).lastIndexOf('RunEnd');
    expect(retryCb).toBeGreaterThan(lastRunEnd);
  });
  it('try 2: 9 reads, 99 replays (push only), only 37 runs, its entry in key 7, then the marker', () => {
    expect(reads(o, 2)).toHaveLength(9);
    expect(outsOf(o, 'Replay', 2)).toHaveLength(99);
    expect(runs(o, 2)).toEqual([37]);
    expect(o.reqs.filter((m) => m.a === 2 && m.type === 'SetXCom')).toHaveLength(100);
    const w = writes(o, 2);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ role: 'rest', key: batchKey(7), value: [{ i: 37, s: 'success', t: 2 }] });
    expect(markers(o, 2)).toHaveLength(1);
    expect(runner(o).final).toBe('success');
  });
  it('downstream reads 100 values and every success callback fired exactly once over both tries', () => {
    const xcom = o.q.context('supervisor').xcom;
    const keys = xcom.keys.buckets.flatMap((b: any) => Object.entries(b)).filter(([, a]: any) => a === 2);
    expect(keys).toHaveLength(100);
    const cb = successCallbacks(o);
    expect(cb.size).toBe(100);
    expect([...cb.values()].every((n) => n === 1)).toBe(true);
    expect(problems(o)).toEqual([]);
  });
});

describe('T04 a transient write error on the round for key 1, N = 64', () => {
  const sc64 = scenario({ items: 64, W: 16, tries: 1, faultBudget: 1, writeError: true });
  const o = runAirflowWith(sc64, {
    inject: (w, steps) => (w.faults === 0 ? deliverStep(steps, w, sc64, 'task', 'supervisor', (m) => m.key === batchKey(1), 'fail') : undefined),
  });
  it('makes 4 write attempts and leaves 3 durable keys: 16, 32 (the carry plus round 3), 16', () => {
    expect(writes(o, 1)).toHaveLength(4);
    expect([0, 1, 2].map((n) => stored(o, batchKey(n))?.length)).toEqual([16, 32, 16]);
    expect(stored(o, batchKey(3))).toBeUndefined();
  });
  it('fails no indexed task, leaves no gap, writes the marker and succeeds', () => {
    expect(o.outs.filter((m) => m.type === 'Report' && m.cb !== 'success')).toHaveLength(0);
    expect(markers(o, 1)).toHaveLength(1);
    expect(runner(o).final).toBe('success');
    expect(problems(o)).toEqual([]);
  });
});

describe('T05 index 5 fails and the sync rest write (8 entries, 5 among them) fails, N = 40', () => {
  const sc = scenario({ items: 40, W: 16, tries: 2, faultBudget: 1, writeError: true, outcomes: '5s f' });
  const o = runAirflowWith(sc, {
    // Index 5 finishes last, so it lands in the rest.
    hold: (st, q, ctx) => st.kind === 'timer' && ctx?.a === 1 && q.world.timers[(st as any).timer]?.id === 'run:1:5',
    inject: (w, steps) => (w.faults === 0 ? deliverStep(steps, w, sc, 'task', 'supervisor', (m) => m.role === 'rest', 'fail') : undefined),
  });
  it('logs the failed rest, ends UP_FOR_RETRY because of index 5, and writes no marker', () => {
    const rest = writes(o, 1).find((m) => m.role === 'rest');
    expect(rest.value).toHaveLength(8);
    expect(rest.value.some((e: any) => e.i === 5)).toBe(true);
    expect(outsOf(o, 'Log', 1).some((m) => /rest write failed/.test(m.text))).toBe(true);
    expect(endOf(o, 1)).toBe('up_for_retry');
    expect(markers(o, 1)).toHaveLength(0);
  });
  it('retry: 4 reads, the 8 rest indices run again, the 7 successes fire their callback a second time; key 2, then the marker', () => {
    expect(reads(o, 2)).toHaveLength(4);
    const rest = writes(o, 1).find((m) => m.role === 'rest').value.map((e: any) => e.i).sort((a: number, b: number) => a - b);
    expect([...runs(o, 2)].sort((a, b) => a - b)).toEqual(rest);
    const cb = successCallbacks(o);
    expect([...cb].filter(([, n]) => n === 2).map(([i]) => i).sort((a, b) => a - b)).toEqual(rest.filter((i: number) => i !== 5));
    expect(writes(o, 2).map((m) => m.key)).toEqual([batchKey(2)]);
    expect(markers(o, 2)).toHaveLength(1);
    expect(runner(o).final).toBe('success');
    expect(problems(o)).toEqual([]);
  });
});

describe('T06 SIGKILL with keys 0-4 durable and 9 outcomes reported but not durable, N = 200', () => {
  const sc = scenario({ items: 200, W: 16, tries: 2, faultBudget: 1, hardKill: true });
  let window: number[] = [];
  let inFlight = 0;
  const o = runAirflowWith(sc, {
    // Operators end only while no write is in flight, so a round's write returns before the next outcomes pile up.
    hold: (s, _q, ctx) => s.kind === 'timer' && ctx?.w.inflight !== null,
    inject: (w, steps, q, ctx) => {
      if (w.faults > 0 || ctx?.a !== 1 || !q.matches('task', 'looping')) return undefined;
      if (ctx.w.nextN !== 5 || ctx.w.inflight !== null || ctx.w.waiting.length > 0 || ctx.w.pending.length !== 9) return undefined;
      window = killWindow(ctx.w).map((e) => e.i);
      inFlight = ctx.co.length;
      return steps.find((s) => isTask(s, sc));
    },
  });
  it('kills with 80 durable entries, a window of 9, at most 16 indexed tasks in flight', () => {
    expect(window).toHaveLength(9);
    expect(inFlight).toBeLessThanOrEqual(16);
    expect(outsOf(o, 'End', 1)).toHaveLength(0);
    expect(markers(o, 1)).toHaveLength(0);
  });
  it('retry: 7 reads, 80 replays, 120 runs including the 9 whose callbacks fire again; nothing of keys 0-4 reruns', () => {
    expect(reads(o, 2)).toHaveLength(7);
    expect(outsOf(o, 'Replay', 2)).toHaveLength(80);
    const again = runs(o, 2);
    expect(again).toHaveLength(120);
    for (const i of window) expect(again).toContain(i);
    const durable = [0, 1, 2, 3, 4].flatMap((n) => writes(o, 1).filter((m) => m.key === batchKey(n)).flatMap((m) => m.value.map((e: any) => e.i)));
    expect(durable).toHaveLength(80);
    for (const i of durable) expect(again).not.toContain(i);
    const cb = successCallbacks(o);
    expect([...cb].filter(([, n]) => n === 2).map(([i]) => i).sort((a, b) => a - b)).toEqual([...window].sort((a, b) => a - b));
    expect(runner(o).final).toBe('success');
    expect(problems(o)).toEqual([]);
  });
  it('SIGTERM variant: phase C flushes the 9, the task ends terminated with no marker and no retry', () => {
    const st = scenario({ items: 200, W: 16, tries: 2, softKill: 'sigterm' });
    let flushed: number[] = [];
    const sigterm = (s: any) => s.kind === 'deliver' && s.from === st.index.get('runner') && s.id.endsWith(':SigTerm');
    const t = runAirflowWith(st, {
      hold: (s, _q, ctx) => (s.kind === 'timer' && ctx?.w.inflight !== null) || sigterm(s),
      inject: (_w, steps, q, ctx) =>
        q.matches('task', 'looping') && ctx.w.nextN === 5 && ctx.w.pending.length === 9 && ctx.w.inflight === null ? steps.find(sigterm) : undefined,
    });
    flushed = writes(t, 1).filter((m) => m.role === 'rest').flatMap((m) => m.value.map((e: any) => e.i));
    expect(flushed).toHaveLength(9);
    expect(endOf(t, 1)).toBe('terminated');
    expect(markers(t, 1)).toHaveLength(0);
    expect(outsOf(t, 'Begin', 2)).toHaveLength(0);
    expect(problems(t)).toEqual([]);
  });
});

describe('T07 SIGKILL while the write of key 3 is in flight (ambiguous), both ways', () => {
  const sc = scenario({ items: 100, W: 16, tries: 2, faultBudget: 2, hardKill: true, writeError: true });
  const inFlight = (w: any) => w.inbox[sc.index.get('supervisor')!]!.some((c: any) => c.queue.some((m: any) => m.key === batchKey(3) && m.a === 1));
  const kill = (w: any, steps: readonly any[]) => (w.faults === 0 && inFlight(w) ? steps.find((s) => isTask(s, sc)) : undefined);
  it('persisted: the retry replays those 16 and writes on from n = 4', () => {
    const o = runAirflowWith(sc, { inject: kill });
    expect(reads(o, 2)).toHaveLength(1 + 4 + 1);
    expect(outsOf(o, 'Replay', 2)).toHaveLength(64);
    expect(writes(o, 2)[0].key).toBe(batchKey(4));
    expect(problems(o)).toEqual([]);
  });
  it('not persisted: the retry runs them and writes on from n = 3', () => {
    const o = runAirflowWith(sc, {
      inject: (w, steps) => kill(w, steps) ?? (w.faults === 1 ? deliverStep(steps, w, sc, 'task', 'supervisor', (m) => m.key === batchKey(3) && m.a === 1, 'fail') : undefined),
    });
    expect(reads(o, 2)).toHaveLength(1 + 3 + 1);
    expect(outsOf(o, 'Replay', 2)).toHaveLength(48);
    expect(writes(o, 2)[0].key).toBe(batchKey(3));
    expect(problems(o)).toEqual([]);
  });
});

describe('T08 try 2: the read of key 3 returns an error', () => {
  const sc = scenario({ items: 100, W: 16, tries: 3, faultBudget: 1, readError: true, outcomes: '99s f' });
  const o = runAirflowWith(sc, {
    inject: (w, steps) => (w.faults === 0 ? deliverStep(steps, w, sc, 'task', 'supervisor', (m) => m.a === 2 && m.key === batchKey(3), 'fail') : undefined),
  });
  it('fails before running anything: 0 runs, 0 pushes, 0 writes, no marker', () => {
    expect(reads(o, 2)).toHaveLength(1 + 4);
    expect(runs(o, 2)).toHaveLength(0);
    expect(o.reqs.filter((m) => m.a === 2 && m.type !== 'GetTaskStateStore')).toHaveLength(0);
    expect(endOf(o, 2)).toBe('up_for_retry');
  });
  it('the next try reads again and proceeds', () => {
    expect(reads(o, 3)).toHaveLength(1 + 7 + 1);
    expect(runs(o, 3)).toEqual([99]);
    expect(runner(o).final).toBe('success');
    expect(problems(o)).toEqual([]);
  });
});

describe("T09 a cancellation inside the write of key 2, caused by a sibling's fail-fast", () => {
  const sc = scenario({ items: 64, W: 16, tries: 2, outcomes: '40s x' });
  let cancelled: number[] = [];
  const o = runAirflowWith(sc, {
    // Index 40 (fail-fast) ends only while the write of key 2 is in flight.
    hold: (s, q) => s.kind === 'timer' && q.world.timers[(s as any).timer]?.id === 'run:1:40',
    inject: (_w, steps, q, ctx) => {
      if (ctx?.stop === 'failfast' && cancelled.length === 0) cancelled = ctx.w.carried.map((e) => e.i);
      if (ctx?.ch.holder?.key !== batchKey(2) || ctx.stop !== 'none') return undefined;
      return steps.find((s) => s.kind === 'timer' && q.world.timers[(s as any).timer]?.id === 'run:1:40');
    },
  });
  it('keeps the 16 entries and rewrites key 2 with the rest, a superset', () => {
    const round2 = writes(o, 1).find((m) => m.key === batchKey(2) && m.role === 'round');
    const rest = writes(o, 1).find((m) => m.role === 'rest');
    expect(round2.value).toHaveLength(16);
    expect(rest.key).toBe(batchKey(2));
    const restIds = new Set(rest.value.map((e: any) => e.i));
    for (const e of round2.value) expect(restIds.has(e.i)).toBe(true);
    expect(cancelled.length).toBeGreaterThanOrEqual(16);
  });
  it('loses no recorded outcome, fails without retry, and writes no marker', () => {
    const recorded = outsOf(o, 'Record', 1).map((m) => m.i).sort((a, b) => a - b);
    const durable = [0, 1, 2].flatMap((n) => stored(o, batchKey(n)) ?? []).map((e) => e.i).sort((a, b) => a - b);
    expect(durable).toEqual(recorded);
    expect(endOf(o, 1)).toBe('failed');
    expect(markers(o, 1)).toHaveLength(0);
    expect(outsOf(o, 'Begin', 2)).toHaveLength(0);
    expect(problems(o)).toEqual([]);
  });
});

describe('T10 results of about 5 KB per index', () => {
  const warnings = (o: any) => o.events.filter((e: any) => e.kind === 'log' && e.data?.level === 'warning').length;
  it('per round: every batch is about 80 KB, over 65535: a warning on each write, the writes succeed', () => {
    const o = runAirflow({ items: 64, W: 16, tries: 1, entryBytes: 5000 });
    expect(writes(o, 1)).toHaveLength(4);
    expect(warnings(o)).toBe(4);
    expect(runner(o).final).toBe('success');
  });
  it('per index: no warnings', () => {
    const o = runAirflow({ items: 64, W: 16, tries: 1, entryBytes: 5000, design: 'per-index' });
    expect(writes(o, 1)).toHaveLength(64);
    expect(warnings(o)).toBe(0);
  });
  it('object-storage backend: no warning; objects at .../<map_index>/_iterable_batch_<n>', () => {
    const o = runAirflow({ items: 64, W: 16, tries: 1, entryBytes: 5000, backend: 'object-storage' });
    expect(warnings(o)).toBe(0);
    const rows = Object.keys(o.q.context('supervisor').ts.rows);
    expect(rows).toContain('state/dag/run/iterable/-1/_iterable_batch_3');
  });
});

describe('T11 MySQL row cap, 1.5 MiB per result (a batch is about 24 MiB): H1', () => {
  const big = 1.5 * 1024 * 1024;
  it('per round: every write fails as the carry grows, the rest too; the outcome is unaffected, and the retry reruns everything', () => {
    const o = runAirflow({ items: 32, W: 16, tries: 2, entryBytes: big, outcomes: '31s f' });
    expect(writes(o, 1).map((m) => m.value.length)).toEqual([16, 32, 32]);
    expect(stored(o, batchKey(0))).toBeUndefined();
    expect(endOf(o, 1)).toBe('up_for_retry');
    expect(reads(o, 2)).toHaveLength(2);
    expect(runs(o, 2)).toHaveLength(32);
    expect([...successCallbacks(o).values()].filter((n) => n === 2)).toHaveLength(31);
  });
  it('per index: each 1.5 MiB row fits', () => {
    const o = runAirflow({ items: 8, W: 4, tries: 1, entryBytes: big, design: 'per-index' });
    expect(outsOf(o, 'Log').filter((m) => /failed/.test(m.text))).toHaveLength(0);
    expect(runner(o).final).toBe('success');
  });
  it('object-storage backend: no failure', () => {
    const o = runAirflow({ items: 32, W: 16, tries: 1, entryBytes: big, backend: 'object-storage' });
    expect(outsOf(o, 'Log').filter((m) => /failed/.test(m.text))).toHaveLength(0);
    expect(stored(o, batchKey(1))).toHaveLength(16);
  });
});

describe('T12 index 7 raises a fail-fast exception', () => {
  for (const [name, letter] of [['TaskDeferred', 'x'], ['DeadlockImminentError', 'd']] as const) {
    it(`${name}: fails at once, cancels the in-flight, flushes what was recorded, fails for good`, () => {
      const o = runAirflow({ items: 64, W: 16, tries: 2, outcomes: `7s ${letter}` });
      const try1 = o.outs.filter((m) => m.a === 1);
      const ff = try1.findIndex((m) => m.type === 'RunEnd' && m.i === 7);
      expect(try1.slice(ff + 1).filter((m) => m.type === 'Run')).toHaveLength(0);
      expect(try1.slice(ff + 1).filter((m) => m.type === 'RunEnd')).toHaveLength(0);
      const recorded = outsOf(o, 'Record', 1).map((m) => m.i).sort((a, b) => a - b);
      const durable = [0, 1, 2, 3].flatMap((n) => stored(o, batchKey(n)) ?? []).map((e) => e.i).sort((a, b) => a - b);
      expect(durable).toEqual(recorded);
      expect(markers(o, 1)).toHaveLength(0);
      expect(endOf(o, 1)).toBe('failed');
      expect(runner(o).final).toBe('failed');
      const fails = try1.filter((m) => m.type === 'Report' && m.cb !== 'success' && m.cb !== 'skip');
      expect(fails.map((m) => m.cb)).toEqual(['failure']);
      expect(problems(o)).toEqual([]);
    });
  }
});

describe('T13 a gap: keys 0, 1 and 3 durable, key 2 removed from outside', () => {
  const o = runAirflow({ items: 16, W: 4, tries: 2, outcomes: '15s f', deleteKeys: [2], deleteBeforeTry: 2 });
  it('try 2 reads 0, 1, 2 (missing) and stops; the indices of keys 2 and 3 run again; it writes from key 2', () => {
    expect(reads(o, 2).map((m) => m.key)).toEqual([MARKER_KEY, batchKey(0), batchKey(1), batchKey(2)]);
    const lost = writes(o, 1).filter((m) => m.key === batchKey(2) || m.key === batchKey(3)).flatMap((m) => m.value.map((e: any) => e.i));
    expect([...runs(o, 2)].sort((a, b) => a - b)).toEqual([...lost].sort((a, b) => a - b));
    expect(writes(o, 2)[0].key).toBe(batchKey(2));
    expect(runner(o).final).toBe('success');
  });
});

describe('T14 clear after success', () => {
  it('state kept: try 2 reads the marker, writes since, runs all; killed mid-run, try 3 replays only entries of try >= 2', () => {
    const sc = scenario({ items: 32, W: 4, tries: 3, clear: 'keep', faultBudget: 1, hardKill: true });
    const o = runAirflowWith(sc, {
      inject: (w, steps, _q, ctx) => (w.faults === 0 && ctx?.a === 2 && ctx.w.nextN >= 3 ? steps.find((s) => isTask(s, sc)) : undefined),
    });
    expect(reads(o, 2).map((m) => m.key)).toEqual([MARKER_KEY]);
    expect(o.reqs.find((m) => m.a === 2 && m.role === 'since-set').value).toEqual({ completed: false, since: 2 });
    expect(outsOf(o, 'Replay', 2)).toHaveLength(0);
    const durable2 = writes(o, 2).filter((m) => m.role === 'round').slice(0, 3).flatMap((m) => m.value);
    expect(reads(o, 3)).toHaveLength(1 + 8 + 1);
    const replayed = outsOf(o, 'Replay', 3).map((m) => m.i).sort((a, b) => a - b);
    expect(replayed.length).toBeGreaterThanOrEqual(12);
    const fresh = new Set(durable2.map((e: any) => e.i));
    for (const i of replayed) expect(fresh.has(i)).toBe(true);
    expect(runner(o).final).toBe('success');
    expect(problems(o)).toEqual([]);
  });
  it('state discarded: everything runs and the reads are 2', () => {
    const o = runAirflow({ items: 32, W: 4, tries: 2, clear: 'discard' });
    expect(reads(o, 2)).toHaveLength(2);
    expect(runs(o, 2)).toHaveLength(32);
    expect(runner(o).final).toBe('success');
  });
});
