// The fidelity table's builder on its cheapest rows (Airflow at N = 1,000):
// every row is complete, and the exact checkpoint counts the source states hold.
import { describe, expect, it } from 'vitest';
import { fidelityTable } from '../../bench/fidelity-rows.ts';

describe('fidelity table (quick, airflow only)', () => {
  it('has one well-formed row per figure, and the Airflow exact counts hold', async () => {
    const t = await fidelityTable({ quick: true, families: ['airflow'] });
    expect(t.rows.map((r) => r.figure)).toEqual([
      'N=1000 writes try 1, per-index',
      'N=1000 writes try 1, per-round',
      'N=1000 reads retry, per-index',
      'N=1000 reads retry, per-round',
      'N=1000 wall old/new, try 1',
      'N=1000 wall old/new, retry',
      "N=1000 wall old/new try 1 / retry, source's calibration-C model",
      'N=1000 channel-only (c = 0) wall old/new, try 1 / retry',
    ]);
    for (const r of t.rows) {
      expect(r.family).toBe('airflow');
      for (const k of ['source', 'interleave', 'tolerance'] as const) expect(r[k]).not.toBe('');
      expect(typeof r.holds).toBe('boolean');
    }
    const exact = t.rows.filter((r) => r.tolerance === 'exact');
    expect(exact.map((r) => [r.source, r.interleave])).toEqual([['1,000', '1,000'], ['63', '63'], ['1,001', '1,001'], ['65', '65']]);
    expect(exact.every((r) => r.holds)).toBe(true);
    // A ratio row's verdict follows from its own numbers.
    for (const r of t.rows.filter((x) => x.tolerance === '±0.01' && !x.interleave.includes('/'))) expect(r.holds).toBe(Math.abs(Number(r.interleave) - Number(r.source)) <= 0.01);
    // The source's own calibration-C model (1.556 / 1.789 at N = 1,000) and the channel-only bound hold.
    expect(t.rows.filter((r) => r.tolerance === '±0.005' || r.figure.includes('channel-only')).every((r) => r.holds)).toBe(true);
    expect(t.notComputed.join(' ')).toMatch(/quick mode/);
  }, 120_000);
});

describe('fidelity table: the Amber rows (counts and bytes, from fault-free runs)', () => {
  it("reproduces the source's loop counts exactly, D0's state row to the byte, and D0/D2 = (8/3)(k+1) within 5%", async () => {
    const { amberByteRows, amberCountRows } = await import('../../bench/fidelity-amber.ts');
    const counts = amberCountRows();
    expect(counts.map((r) => [r.figure, r.interleave])).toEqual([
      ['single loop: LE.out rows / LS runs / jumps / LE reads of R_in', '3 / 3 / 2 / 3'],
      ['nested 3x3: OE.out / IE.out rows', '9 / 3'],
      ['nested 3x3: inner / outer jumps', '6 / 2'],
      ['nested 3x3: OS / IS runs, IE resets', '3 / 9 / 3'],
      ['nested 3x3: IE reads of R(OS.out) / OE reads of R_in', '9 / 3'],
      ['JVM chain LE.out rows / nested JVM chain OE.out, IE.out rows', '3 / 9 / 3'],
    ]);
    expect(counts.every((r) => r.holds && r.source === r.interleave)).toBe(true);
    const bytes = amberByteRows([0]);
    expect(bytes.map((r) => r.figure)).toEqual(['D0 state row minus loop variables, B=65536', 'D0 state bytes/iter, B=65536, k=0', 'D0 state bytes / D2 read of R_in, k=0']);
    // The table part of a D0 state row is 4⌈B/3⌉ + 49 bytes exactly.
    expect(bytes[0]!.interleave).toBe(String(4 * Math.ceil(65536 / 3) + 49));
    expect(Math.abs(Number(bytes[2]!.interleave) - 8 / 3)).toBeLessThanOrEqual((8 / 3) * 0.05);
    expect(bytes.every((r) => r.holds)).toBe(true);
  }, 120_000);
});

describe('fidelity table: Materialize cap saturation (trends, as the source states them)', () => {
  it('the capped share more than doubles when the load doubles, and the offload p99 converges to inline', async () => {
    const { capSaturationRows } = await import('../../bench/fidelity-rows.ts');
    const rows = capSaturationRows();
    expect(rows.map((r) => r.tolerance)).toEqual(['trend: more than doubles', 'trend: rises to ≥ 0.9']);
    const [share, tail] = rows.map((r) => r.interleave.split(' → ').map((x) => Number.parseFloat(x))) as [number[], number[]];
    expect(share[0]!).toBeGreaterThan(0);
    expect(share[1]!).toBeGreaterThan(2 * share[0]!);
    expect(tail[1]!).toBeGreaterThan(tail[0]!);
    expect(tail[1]!).toBeGreaterThanOrEqual(0.9);
    expect(rows.every((r) => r.holds)).toBe(true);
  }, 180_000);
});
