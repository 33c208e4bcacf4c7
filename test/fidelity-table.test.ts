// The fidelity table's builder on its cheapest rows (Airflow at N = 1,000):
// every row is complete, and the exact checkpoint counts the source states hold.
import { describe, expect, it } from 'vitest';
import { fidelityTable } from '../bench/fidelity-rows.ts';

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
