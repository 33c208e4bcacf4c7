// The discrete-event simulation (docs/airflow.md) through the kernel's `simulate`: the
// seed's request counts exactly, its wall-time ratios within ±0.01 at the three sizes
// (calibration C; the retry at N = 1,000 is the one exception, see below), channel-only
// time near 2/(1 + 1/16), and about 5x
// for the real run. Ratios and counts come
// from one run each; no wall-clock time is asserted.
import { describe, expect, it } from 'vitest';
import { parseParams } from 'interleave';
import { airflowFamily } from '../../../src/machines/airflow/family.ts';
import { CALIBRATION_C, CALIBRATION_CHANNEL_ONLY, CALIBRATION_REAL, compareDesigns, simulateDesign, type Comparison } from '../../../src/machines/airflow/simulation.ts';

const LONG = 300_000;

// Both designs at N = 1,000 under calibration C, seed 7: several tests below read this one
// comparison (a run is deterministic), so it is simulated once.
let at1000: Comparison | undefined;
const compare1000 = (): Comparison => (at1000 ??= compareDesigns(1000, CALIBRATION_C, 7));

describe('calibration C, W = 16, one failing index on try 1', () => {
  for (const n of [1000, 5000, 16194]) {
    it(`N = ${n}: writes N vs ceil(N/16), retry reads N+1 vs ceil(N/16)+2, ratios 1.56 and 1.80`, () => {
      const c = n === 1000 ? compare1000() : compareDesigns(n, CALIBRATION_C, 7);
      const b = Math.ceil(n / 16);
      expect(c.old.first.writes).toBe(n);
      expect(c.new.first.writes).toBe(b);
      expect(c.old.retry.reads).toBe(n + 1);
      expect(c.new.retry.reads).toBe(b + 2);
      // The retry replays N - 1 indices (XCom re-push only) and runs the one that failed.
      for (const d of [c.old, c.new]) {
        expect(d.retry.runs).toBe(1);
        expect(d.retry.replays).toBe(n - 1);
        expect(d.first.pushes).toBe(n - 1);
        expect(d.retry.pushes).toBe(n);
      }
      // The PR's ratios, with the tolerance T15 asks for (±0.01).
      expect(Math.abs(c.ratioFirst - 1.56)).toBeLessThanOrEqual(0.01);
      // At N = 1,000 the retry's fixed costs weigh more: the source's own calibration-C
      // model gives 1.789 there (docs/airflow.md), and this one must agree with it to
      // two decimals. From 5,000 on, both are within ±0.01 of 1.80.
      if (n === 1000) expect(Math.abs(c.ratioRetry - 1.789)).toBeLessThanOrEqual(0.005);
      else expect(Math.abs(c.ratioRetry - 1.8)).toBeLessThanOrEqual(0.01);
      // A run of one try gives the first attempt of two (the real run below simulates only that).
      if (n === 1000) expect(simulateDesign('per-round', n, CALIBRATION_C, 7, { tries: 1 }).first).toEqual(c.new.first);
    }, LONG);
  }
});

describe('where the retry ratio at N = 1,000 comes from', () => {
  it('the per-index retry reading its keys inside each coroutine hides the loop start-up backlog: same counts, 1.776 instead of 1.789', () => {
    // Calibration C reads up front: its per-index run is the comparison's old design.
    expect(CALIBRATION_C.oldReads).toBe('upfront');
    const { old: upfront, new: neu } = compare1000();
    const inCo = simulateDesign('per-index', 1000, CALIBRATION_C, 7, { oldReads: 'in-coroutine' });
    expect(inCo.retry.reads).toBe(upfront.retry.reads);
    expect(inCo.retry.pushes).toBe(upfront.retry.pushes);
    // Up front: N + 1 reads of 2 ms, then the same loop as per-round, start-up backlog included.
    const loopNew = neu.retry.wallMs - 65 * 2;
    expect(upfront.retry.wallMs - 1001 * 2).toBeCloseTo(loopNew, 6);
    // In-coroutine the reads pace the replays, so the loop never builds the backlog (about 30 ms).
    const hidden = upfront.retry.wallMs - inCo.retry.wallMs;
    expect(hidden).toBeGreaterThan(20);
    expect(hidden).toBeLessThan(40);
    expect(Math.abs(inCo.retry.wallMs / neu.retry.wallMs - 1.776)).toBeLessThanOrEqual(0.002);
  }, LONG);
});

describe('channel-only time (no loop CPU): both ratios approach 2/(1 + 1/16) = 1.882', () => {
  it('N = 1,000', () => {
    const c = compareDesigns(1000, CALIBRATION_CHANNEL_ONLY, 7);
    const bound = 2 / (1 + 1 / 16);
    expect(Math.abs(c.ratioFirst - bound)).toBeLessThanOrEqual(0.01);
    expect(Math.abs(c.ratioRetry - bound)).toBeLessThanOrEqual(0.01);
    // Every ms is a request: try 1 of the old design is N pushes (one fails) plus N writes, 2 ms each.
    expect(c.old.first.wallMs).toBeCloseTo((999 + 1000) * 2, 0);
  }, LONG);
});

describe('the real run (a state-store write costs about 0.42 s)', () => {
  it('N = 16,194: the first attempt is about 5x faster per round', () => {
    // Only first attempts are compared: one try each (the retry would double the simulation).
    const old = simulateDesign('per-index', 16194, CALIBRATION_REAL, 7, { tries: 1 });
    const neu = simulateDesign('per-round', 16194, CALIBRATION_REAL, 7, { tries: 1 });
    const ratioFirst = old.first.wallMs / neu.first.wallMs;
    expect(ratioFirst).toBeGreaterThan(4.5);
    expect(ratioFirst).toBeLessThan(5.5);
    // The seed's 2 h 14 vs 27 min: the simulated first attempts land within 10% of both.
    expect(old.first.wallMs / 1000 / 8040).toBeGreaterThan(0.9);
    expect(old.first.wallMs / 1000 / 8040).toBeLessThan(1.1);
    expect(neu.first.wallMs / 1000 / 1620).toBeGreaterThan(0.9);
    expect(neu.first.wallMs / 1000 / 1620).toBeLessThan(1.1);
  }, LONG);
});

describe('the overwrite-one-key alternative the seed rejected', () => {
  it('writes as often as per-round but its bytes grow quadratically with N', () => {
    // Per-round and overwrite-one-key only (the per-index design is not compared here), with
    // compareDesigns' seed and calibration.
    const small = { new: compare1000().new, overwrite: simulateDesign('overwrite-one-key', 1000, CALIBRATION_C, 7) };
    const large = { new: simulateDesign('per-round', 2000, CALIBRATION_C, 7), overwrite: simulateDesign('overwrite-one-key', 2000, CALIBRATION_C, 7) };
    expect(small.overwrite.first.writes).toBe(small.new.first.writes);
    // Doubling N doubles per-round bytes and about quadruples overwrite bytes.
    expect(large.new.first.bytes / small.new.first.bytes).toBeCloseTo(2, 1);
    expect(large.overwrite.first.bytes / small.overwrite.first.bytes).toBeGreaterThan(3.8);
    expect(small.overwrite.first.bytes / small.new.first.bytes).toBeGreaterThan(20);
  }, LONG);
});

describe('the family: interleave simulate airflow-checkpoints --param items=N --json', () => {
  it('reports, per design, the writes of try 1, the reads of the retry, both wall times, and the two ratios', () => {
    const f = airflowFamily;
    expect(f.name).toBe('airflow-checkpoints');
    const rep = f.simulate!(parseParams(f, { items: '1000' }), { seed: 3 });
    const data = rep.data as any;
    expect(data.calibration.name).toBe('C');
    expect(data.designs['per-index'].firstAttempt.storeWrites).toBe(1000);
    expect(data.designs['per-round'].firstAttempt.storeWrites).toBe(63);
    expect(data.designs['per-index'].retry.storeReads).toBe(1001);
    expect(data.designs['per-round'].retry.storeReads).toBe(65);
    expect(data.designs['per-round'].firstAttempt.wallMs).toBeGreaterThan(0);
    expect(data.designs['per-round'].retry.wallMs).toBeGreaterThan(0);
    // The PR's figures (1.56 on the first try; on the retry at N = 1,000 the source's own model's 1.789), not a division of the report's own numbers.
    expect(Math.abs(data.ratios.firstAttempt - 1.56)).toBeLessThanOrEqual(0.01);
    expect(Math.abs(data.ratios.retry - 1.789)).toBeLessThanOrEqual(0.005);
    expect(rep.tables[0]!.note).toMatch(/calibration C/i);
    // Said in words for a newcomer: which times are simulated, which ratio is which, no DES or bare symbols.
    expect(rep.tables[0]!.columns).toEqual(['design', 'writes (try 1)', 'reads (retry)', 'try 1 (simulated s)', 'retry (simulated s)', 'bytes written (try 1)', 'simulation took (ms)']);
    expect(rep.tables[0]!.note).toMatch(/^the old design \(per-index\) takes 1\.\d{3}x the new one's simulated time on the first attempt, 1\.\d{3}x on the retry\./);
    expect(rep.tables[0]!.note).not.toMatch(/\bDES\b|\bs = /);
    // Same seed, same figures (the real time it took aside).
    const virtual = (x: unknown) => JSON.stringify(x, (k, v) => (k === 'realMs' ? undefined : v));
    expect(virtual(f.simulate!(parseParams(f, { items: '1000' }), { seed: 3 }).data)).toBe(virtual(data));
  }, LONG);
});
