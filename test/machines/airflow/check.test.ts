// The model checker over airflow-checkpoints: complete exploration of the per-round
// design at small N with faults, the kill window at every step, INV-2 in every
// interleaving, and the hazards the checker must find (H1, H2, H6) as documented,
// expected findings with the property each breaks.
import { describe, expect, it } from 'vitest';
import { check, queryOf, rng, type World } from 'interleave';
import { apply, enabled, initialWorld } from 'interleave/kernel';
import { buildAirflow } from '../../../src/machines/airflow/scenario.ts';
import { type AirflowConfig, parseOutcomes, batchKey } from '../../../src/machines/airflow/config.ts';
import { killWindow } from '../../../src/machines/airflow/round-writer.ts';
import { storedEntries, prefixLength } from '../../../src/machines/airflow/properties.ts';
import type { TaskCtx } from '../../../src/machines/airflow/attempt.ts';

const LONG = 900_000;
const exhaustive = (over: Partial<AirflowConfig>) => check(buildAirflow(over), { strategy: 'dfs', maxStates: 5_000_000, shrink: false });

describe('complete exploration, per round, N = 5, W = 2', () => {
  it('no fault: every property holds and the task always succeeds', async () => {
    const r = await exhaustive({ items: 5, W: 2 });
    expect(r.violation?.property).toBeUndefined();
    expect(r.complete).toBe(true);
    expect(r.unreached).toEqual([]);
  }, LONG);

  it('one write fault and one hard kill anywhere (H6 guard on): complete, every property holds', async () => {
    const r = await exhaustive({ items: 5, W: 2, faultBudget: 2, writeError: true, hardKill: true, markerGuard: true });
    expect(r.violation?.property).toBeUndefined();
    expect(r.ok).toBe(true);
    expect(r.complete).toBe(true);
    expect(r.stats.distinctStates).toBeGreaterThan(10_000);
  }, LONG);
});

describe('INV-2: the marker never precedes a write it covers, in every interleaving with faults', () => {
  for (const design of ['per-round', 'overwrite-one-key', 'per-index'] as const) {
    it(`${design}: write errors, ambiguous writes and a hard kill`, async () => {
      const r = await exhaustive({ design, items: 4, W: 2, faultBudget: 2, writeError: true, ambiguousWrite: true, hardKill: true, only: ['INV-2'] });
      expect(r.violation?.property).toBeUndefined();
      expect(r.complete).toBe(true);
    }, LONG);
  }
});

describe('the kill window under a hard kill at every step', () => {
  it('exhaustively (N = 4, W = 2): durable outcomes never rerun; callbacks at most 1 + non-durable ends', async () => {
    const r = await exhaustive({ items: 4, W: 2, faultBudget: 1, hardKill: true, markerGuard: true, only: ['INV-12'] });
    expect(r.violation?.property).toBeUndefined();
    expect(r.complete).toBe(true);
  }, LONG);

  it('at each step of seeded runs (N = 8, W = 2): what reruns is exactly the window, less a write already sent', () => {
    const cfg = { items: 8, W: 2, tries: 2, faultBudget: 1, hardKill: true, markerGuard: true, properties: false } as const;
    const sc = buildAirflow(cfg);
    const task = sc.index.get('task')!;
    const sup = sc.index.get('supervisor')!;
    let checked = 0;
    for (const seed of [1, 2, 3]) {
      for (let k = 0; ; k++) {
        // Run k normal steps with this seed, then kill the task process, then finish.
        const r = rng(seed);
        let w: World = initialWorld(sc, { detail: false }).world;
        let killedAt: { window: number[]; sent: number[]; durable: number[]; recorded: number[]; failed: number[] } | undefined;
        const outs: any[] = [];
        let n = 0;
        let idle = false;
        for (;;) {
          const steps = enabled(sc, w);
          const ctx = (w.snaps[task] as any).context as TaskCtx;
          let step;
          if (killedAt === undefined && n === k && !idle && ctx.a !== 1) idle = ctx.a === 0;
          if (killedAt === undefined && n === k && !idle) {
            if (ctx.a !== 1 || queryOf(sc, w).matches('task', 'exited')) break;
            const q = queryOf(sc, w);
            const durable: number[] = [];
            const failed: number[] = [];
            for (let b = 0; b < prefixLength(q); b++) {
              for (const e of storedEntries(q, sc.params as any, batchKey(b)) ?? []) (e.s === 'up_for_retry' ? failed : durable).push(e.i);
            }
            const sent = w.inbox[sup]!.flatMap((c) => c.queue).filter((m: any) => m.a === 1 && Array.isArray(m.value)).flatMap((m: any) => m.value.map((e: any) => e.i));
            killedAt = { window: killWindow(ctx.w).map((e) => e.i), sent, durable, recorded: outs.filter((m) => m.type === 'Record').map((m) => m.i), failed };
            step = steps.find((s) => s.kind === 'crash');
          } else {
            const normal = steps.filter((s) => (s.kind === 'deliver' && s.outcome === undefined) || s.kind === 'timer' || s.kind === 'restart');
            if (normal.length === 0) break;
            step = r.pick(normal);
          }
          const res = apply(sc, w, step!, { detail: false });
          w = res.world;
          n++;
          for (const e of res.events) if (e.kind === 'output' && e.from === 'task') outs.push(e.msg);
        }
        if (idle) continue;
        if (killedAt === undefined) break;
        const rerun = new Set(outs.filter((m) => m.type === 'Run' && m.a === 2).map((m) => m.i as number));
        const replayed = new Set(outs.filter((m) => m.type === 'Replay' && m.a === 2).map((m) => m.i as number));
        const { window, sent, durable, recorded, failed } = killedAt;
        // Indices in the durable prefix never rerun.
        for (const i of durable) expect(rerun.has(i)).toBe(false);
        // Every index of the window reruns, unless its write had already landed (its response still on the way)
        // or its frame had reached the supervisor (then it lands after the kill).
        for (const i of window) if (!sent.includes(i) && !durable.includes(i)) expect(rerun.has(i)).toBe(true);
        // Nothing else reruns: only the window, what never finished, and durable failures.
        for (const i of rerun) expect(window.includes(i) || !recorded.includes(i) || failed.includes(i)).toBe(true);
        // Callbacks: at most 1 + 1 for what was in the window.
        const cb = new Map<number, number>();
        for (const m of outs) if (m.type === 'Report' && m.cb === 'success') cb.set(m.i, (cb.get(m.i) ?? 0) + 1);
        for (const [i, c] of cb) expect(c).toBeLessThanOrEqual(1 + (window.includes(i) ? 1 : 0));
        for (const i of replayed) expect(rerun.has(i)).toBe(false);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

describe('hazards the checker finds (documented, expected findings)', () => {
  it('H1 poison carry: a round over the row cap is carried into ever larger writes; LIV-2 breaks', async () => {
    const r = await check(buildAirflow({ items: 4, W: 2, tries: 2, entryBytes: 600, rowCapBytes: 1000, markerGuard: true }), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.name).toBe('LIV-2');
    expect(r.violation!.property.message).toMatch(/not durable/);
  }, LONG);

  it('H1 is gone with the object-storage backend (and with one key per index)', async () => {
    for (const over of [{ backend: 'object-storage' as const }, { design: 'per-index' as const }]) {
      const r = await check(buildAirflow({ items: 4, W: 2, tries: 2, entryBytes: 600, rowCapBytes: 1000, markerGuard: true, ...over }), { strategy: 'bfs' });
      expect(r.violation?.property).toBeUndefined();
      expect(r.complete).toBe(true);
    }
  }, LONG);

  it('H2 stale batch beyond a gap: a retry replays an older entry over a newer durable success; INV-13 breaks', async () => {
    const h2 = { items: 3, W: 2, tries: 3, faultBudget: 2, hardKill: true, externalDelete: true, markerGuard: true, script: parseOutcomes('ssf') };
    const r = await check(buildAirflow(h2), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.name).toBe('INV-12');
    expect(r.violation!.property.message).toMatch(/^INV-1[23]: try 3 reran index \d, whose outcome of try 2 is durable/);
    expect(r.violation!.schedule.some((s) => s.endsWith('!vanished'))).toBe(true);
    expect(r.violation!.schedule).toContain('crash:task');
    // The guard (ignore a batch written by an older try than a lower key) closes it.
    const guarded = await check(buildAirflow({ ...h2, staleGuard: true }), { strategy: 'dfs', shrink: false });
    expect(guarded.violation?.property).toBeUndefined();
    expect(guarded.complete).toBe(true);
  }, LONG);

  it('H6 kill after the marker: the retry takes the completed marker for a clear and reruns everything; INV-14 breaks', async () => {
    const r = await check(buildAirflow({ items: 3, W: 2, faultBudget: 1, hardKill: true }), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.message).toMatch(/^INV-14: success callback of index \d fired more often than 1 \+ the tries/);
    const marker = r.violation!.trace.findIndex((e: any) => e.kind === 'io' && e.key === '_iterable_completed');
    const kill = r.violation!.trace.findIndex((e: any) => e.kind === 'fault' && e.fault === 'crash');
    expect(marker).toBeGreaterThanOrEqual(0);
    expect(kill).toBeGreaterThan(marker);
  }, LONG);

  it('H5 without the guard: a cancelled request hands the channel on before its response; INV-1 breaks', async () => {
    const r = await check(buildAirflow({ items: 4, W: 2, h5Guard: false, script: parseOutcomes('sx') }), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.name).toBe('INV-1');
  }, LONG);
});
