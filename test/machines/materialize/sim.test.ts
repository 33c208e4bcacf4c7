// The experiments of docs/materialize.md in virtual time: every design runs
// on the same seed (the same peeks and the same activation trace), and the tests
// assert relations between numbers of one seeded run, never wall-clock time.
import { describe, expect, it } from 'vitest';
import { simulate, type RecordedEvent } from 'interleave';
import { config, lookup, rows, scan, SIM_COSTS } from '../../../src/machines/materialize/config.ts';
import { buildScenario, type Setup } from '../../../src/machines/materialize/scenario.ts';
import { costModel, runSim, simulateReport, summarize } from '../../../src/machines/materialize/simulation.ts';
import { arrangement } from '../../../src/machines/materialize/trace.ts';
import type { Design, SlotRelease } from '../../../src/machines/materialize/types.ts';
import { WAKE_MS, simFixture } from '../../../src/machines/materialize/fixtures.ts';

describe('E12: a peek queued behind a chain of merge activations', () => {
  const seeds = [1, 2, 3];
  // One run per (design, seed, chain), shared by the tests below: a run is deterministic.
  const runs = new Map<string, ReturnType<typeof runSim>>();
  const e12 = (design: Design, seed: number, chain: 'merge' | 'single' = 'merge') => {
    const k = `${design}/${seed}/${chain}`;
    let r = runs.get(k);
    if (!r) runs.set(k, (r = runSim({ fixture: 'e12', design, seconds: 60, chain }, seed)));
    return r;
  };

  it('offload p90 sits above inline p90 by more than the seed-to-seed spread; yield = inline, offload-yield = offload', () => {
    const inline = seeds.map((s) => e12('inline', s));
    const offload = seeds.map((s) => e12('offload', s));
    const ip90 = inline.map((r) => r.latency.p90);
    const op90 = offload.map((r) => r.latency.p90);
    // Same peeks and the same operator trace per seed: the only difference is the substrate.
    inline.forEach((r, i) => expect(r.latency.n).toBe(offload[i]!.latency.n));
    for (let i = 0; i < seeds.length; i++) expect(op90[i]!).toBeGreaterThan(ip90[i]! * 1.1);
    expect(Math.min(...op90)).toBeGreaterThan(Math.max(...ip90));
    // E12 (docs/materialize.md): offload - inline ~ the length of the step after a long one (retirement waits for it).
    for (let i = 0; i < seeds.length; i++) {
      const gap = op90[i]! - ip90[i]!;
      const next = inline[i]!.steps.nextAfterLong;
      expect(gap).toBeGreaterThan(next / 2);
      expect(gap).toBeLessThan(next * 2);
    }
    // The cost is retirement waiting for the next step: offload has a retirement delay, inline has none.
    expect(offload[0]!.retirement.max).toBeGreaterThan(100);
    expect(inline[0]!.retirement.n).toBe(0);
    const y = e12('yield', 1);
    const oy = e12('offload-yield', 1);
    expect(Math.abs(y.latency.p90 - ip90[0]!) / ip90[0]!).toBeLessThan(0.05);
    expect(Math.abs(oy.latency.p90 - op90[0]!) / op90[0]!).toBeLessThan(0.05);
    expect(offload[0]!.counters).toEqual({ inline: 0, offloaded: offload[0]!.latency.n * 8, capped: 0 });
  }, 300_000);

  it("the merge steps follow the PR's histogram: about 206 over 128 ms and 25 over 512 ms in two minutes", () => {
    const over128: number[] = [],
      over512: number[] = [];
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const f = simFixture({ fixture: 'e12', design: 'inline', seconds: 120 } as never, seed);
      const ms = (f.setup.cycles ?? []).flatMap((c) => c.chains.flat()).map((a) => a.ms);
      over128.push(ms.filter((x) => x > 128).length);
      over512.push(ms.filter((x) => x > 512).length);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(Math.abs(mean(over128) - 206) / 206).toBeLessThan(0.1);
    expect(Math.abs(mean(over512) - 25) / 25).toBeLessThan(0.25);
  });

  it('ablation: with chain length 1 the gap shrinks to the overhead of the offload', () => {
    const gapMerge = e12('offload', 2).latency.p90 - e12('inline', 2).latency.p90;
    const a = e12('inline', 2, 'single');
    const b = e12('offload', 2, 'single');
    const gapSingle = b.latency.p90 - a.latency.p90;
    expect(gapMerge).toBeGreaterThan(20);
    expect(gapSingle).toBeGreaterThanOrEqual(0);
    expect(gapSingle).toBeLessThan(1);
    expect(gapSingle * 20).toBeLessThan(gapMerge);
  });

  it('simulateReport prints percentiles, delays and counters for every design', () => {
    const rep = simulateReport({ fixture: 'e12', seconds: 10 }, 1);
    expect(rep.tables.map((t) => t.columns[0])).toEqual(['design', 'design', 'design']);
    expect(rep.tables[0]!.rows.map((r) => r[0])).toEqual(['inline', 'offload', 'yield', 'offload-yield']);
    expect(rep.tables[0]!.columns).toEqual(['design', 'n', 'p50', 'p90', 'p99', 'max', '> 200 ms']);
    expect(rep.tables[1]!.columns).toContain('retire p90');
    expect(rep.tables[2]!.columns).toEqual(expect.arrayContaining(['inline', 'offloaded', 'capped']));
  });

  it('invariants 1-11 hold through a simulation (monitors on every event, the rest at the end)', () => {
    for (const design of ['offload', 'yield', 'offload-yield'] as const) {
      const r = runSim({ fixture: 'e12', design, seconds: 10, properties: true }, 4);
      expect(r.monitorFailure).toBeUndefined();
      expect(r.latency.n).toBeGreaterThan(20);
    }
  });
});

describe('E1: a point lookup behind three concurrent 2170 ms scans', () => {
  it('inline max tracks the scans; offload is flat at about the round trip, about 30x better; yield waits one pass', () => {
    const inline = runSim({ fixture: 'e1', design: 'inline', seconds: 30 }, 1);
    const offload = runSim({ fixture: 'e1', design: 'offload', seconds: 30 }, 1);
    const yielding = runSim({ fixture: 'e1', design: 'yield', seconds: 30 }, 1);
    expect(inline.latency.max).toBeGreaterThanOrEqual(2170);
    expect(inline.latency.max).toBeLessThanOrEqual(3 * 2170 + 105 + 50);
    // The scans are issued once: most lookups never meet one, so p50 is the round trip
    // (the source: "p50 is bound by the round trip (about 105 ms)"), not a scan.
    expect(inline.latency.p50).toBeLessThan(105 + 5);
    expect(offload.latency.max).toBeLessThan(105 + 5);
    expect(offload.latency.max).toBeGreaterThanOrEqual(105);
    expect(inline.latency.max / offload.latency.max).toBeGreaterThan(20);
    expect(offload.counters.capped).toBe(0);
    // Invariant 9: a walk finishing while the worker is parked is retired within the wake latency plus one short step.
    expect(offload.retirement.max).toBeLessThanOrEqual(WAKE_MS + SIM_COSTS.shortStepMs + 1e-6);
    expect(yielding.latency.max).toBeLessThan(inline.latency.max / 10);
    expect(yielding.latency.max).toBeGreaterThan(offload.latency.max);
  });
});

describe('E11: a hot key of 2020 ms on one worker', () => {
  it('inline shows the staircase (about 20% over 200 ms, finishing together); offload has none over 200 ms', () => {
    const inline = runSim({ fixture: 'e11', design: 'inline' }, 1);
    const offload = runSim({ fixture: 'e11', design: 'offload' }, 1);
    expect(inline.latency.over200).toBeGreaterThan(0.1);
    expect(inline.latency.over200).toBeLessThan(0.35);
    expect(offload.latency.over200).toBe(0);
    expect(offload.latency.max).toBeLessThan(110);
    expect(offload.byClass.hot!.max).toBeGreaterThan(2020);
    // The staircase: lookups that waited behind one hot walk complete within a few ms of each other.
    const slow = inline.samples.filter(([, l]) => l > 200).map(([at, l]) => at + l);
    const first = slow.filter((d) => d < slow[0]! + 2000);
    expect(first.length).toBeGreaterThan(5);
    expect(Math.max(...first) - Math.min(...first)).toBeLessThan(5);
  });
});

describe('cap saturation (docs/materialize.md)', () => {
  it('the capped share rises faster than linearly with the rate, and earlier under retire', () => {
    const rates = [4, 6, 8, 10];
    const share = (slotRelease: SlotRelease) =>
      rates.map((rate) => {
        const r = runSim({ fixture: 'cap-saturation', design: 'offload', slotRelease, rate, seconds: 60 }, 1);
        expect(r.counters.inline).toBe(0);
        return r.counters.capped / (r.counters.capped + r.counters.offloaded);
      });
    const a = share('walk-end');
    const b = share('retire');
    for (const s of [a, b]) {
      expect(s[0]!).toBeGreaterThan(0);
      // share / rate grows: faster than linear.
      for (let i = 1; i < rates.length; i++) expect(s[i]! / rates[i]!).toBeGreaterThan(s[i - 1]! / rates[i - 1]!);
    }
    for (let i = 0; i < rates.length; i++) expect(b[i]!).toBeGreaterThanOrEqual(a[i]!);
    expect(b[2]!).toBeGreaterThan(2 * a[2]!);
  });
});

/** Runs a hand-made setup in virtual time; returns per-peek latency and the events. */
function sim(setup: Setup, rtt: number) {
  const issued = new Map<string, number>();
  const lat = new Map<string, number>();
  const evs: { e: RecordedEvent; now: number }[] = [];
  simulate(buildScenario(setup), costModel(rtt), {
    seed: 1,
    record: false,
    tieBreak: 'first',
    onEvent: (e, now) => {
      evs.push({ e, now });
      if (e.kind !== 'emit') return;
      if (e.msg.type === 'Issue') issued.set(String(e.msg.uuid), now);
      if (e.msg.type === 'Merged') lat.set(String(e.msg.uuid), now - issued.get(String(e.msg.uuid))!);
    },
  });
  return { lat, evs };
}

describe('documented scenarios with timing', () => {
  const trace = () => arrangement({ updates: rows('a', ['1']), upper: 1e15 });
  const posFor = (ms: number) => Math.round(ms / SIM_COSTS.posMs);

  it('2: offloading an idle lookup costs a sub-millisecond overhead over scenario 1', () => {
    const one = (design: Design) =>
      sim({ name: 's2', cfg: config({ design, costs: SIM_COSTS }), traces: [trace()], client: { peeks: [lookup('p1', 'a', 1, { positions: 100 })] } }, 3.9).lat.get('p1')!;
    const inline = one('inline');
    const offload = one('offload');
    expect(inline).toBeGreaterThan(3.9);
    expect(offload - inline).toBeGreaterThan(0);
    expect(offload - inline).toBeLessThan(1);
  });

  it('6: cap 2, five 1 s scans together: 2 offloaded, 3 capped inline one after another; a lookup waits about 3 s', () => {
    const scans = [1, 2, 3, 4, 5].map((i) => scan(`s${i}`, 1, { limit: 1, positions: posFor(1000) }));
    const { lat, evs } = sim(
      {
        name: 's6',
        cfg: config({ design: 'offload', cap: 2, slotRelease: 'retire', costs: SIM_COSTS }),
        traces: [trace()],
        client: { peeks: scans, arrivals: [{ at: 1, peek: lookup('q', 'a', 1, { positions: 100 }) }] },
      },
      1,
    );
    const placements = evs.filter(({ e }) => e.kind === 'emit' && e.msg.type === 'Dispatch').map(({ e }) => (e.kind === 'emit' ? `${String(e.msg.uuid)}:${String(e.msg.placement)}` : ''));
    expect(placements.slice(0, 5)).toEqual(['s1:offloaded', 's2:offloaded', 's3:capped', 's4:capped', 's5:capped']);
    expect(lat.get('q')!).toBeGreaterThan(2900);
    expect(lat.get('q')!).toBeLessThan(3200);
  });

  it('15: with one worker stuck in a 500 ms step, the merged latency is that worker\'s', () => {
    const { lat } = sim(
      {
        name: 's15',
        cfg: config({ design: 'inline', workers: 2, costs: SIM_COSTS }),
        traces: [trace(), trace()],
        client: { arrivals: [{ at: 10, peek: lookup('p1', 'a', 1, { positions: 100 }) }] },
        env: [{ to: 'w1', msg: { type: 'InsertCycle', chain: [{ ms: 500 }] } }],
      },
      3.9,
    );
    const l = lat.get('p1')!;
    expect(l).toBeGreaterThan(500 - 10);
    expect(l).toBeLessThan(500 - 10 + 3.9 + 1);
  });

  it('summarize gives nearest-rank percentiles', () => {
    const s = summarize([5, 1, 300, 2, 4]);
    expect([s.p50, s.max, s.over200]).toEqual([4, 300, 0.2]);
  });
});
