// The status line of synchronous commands (simulate, show, merge) and the simulation's
// progress calls that feed it.
import { describe, expect, it } from 'vitest';
import { statusLine } from '../../src/cli/progress.ts';
import { CALIBRATION_C, simulateDesign } from '../../src/machines/airflow/simulation.ts';

function fakeStream(columns = 80) {
  const writes: string[] = [];
  return { writes, stream: { columns, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream };
}

describe('statusLine', () => {
  it('writes nothing when not enabled (piped, or --json)', () => {
    const f = fakeStream();
    const s = statusLine(false, 'simulating x', f.stream);
    s.update('design A', true);
    s.stop();
    expect(f.writes).toEqual([]);
  });

  it('rewrites one line with the label, the seconds elapsed and the text, cut to the width, and clears it', () => {
    const f = fakeStream(50);
    const s = statusLine(true, 'simulating x', f.stream);
    s.update('design A · 10,000 steps', true);
    s.update('design A · 20,000 steps'); // within 100 ms of the last: skipped
    s.update('design B · 10,000 steps · virtual 12.5s', true);
    s.stop();
    expect(f.writes).toHaveLength(3);
    // eslint-disable-next-line no-control-regex -- the line starts with the erase-line sequence
    expect(f.writes[0]).toMatch(/^\r\u001b\[2Ksimulating x · \d+\.\ds · design A · 10,000 steps$/);
    expect(f.writes[1]!.length).toBeLessThanOrEqual('\r\u001b[2K'.length + 50);
    expect(f.writes[1]).toMatch(/…$/);
    expect(f.writes[2]).toBe('\r\u001b[2K');
  });
});

describe('simulation progress', () => {
  it('is told every 10,000 steps which design runs, the steps taken and the virtual time', () => {
    const calls: [string, number, number][] = [];
    const run = simulateDesign('per-index', 1200, CALIBRATION_C, 7, {}, (what, steps, now) => calls.push([what, steps, now]));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.map((c) => c[1])).toEqual(calls.map((_, k) => (k + 1) * 10_000));
    expect(calls.every((c) => c[0] === 'per-index')).toBe(true);
    expect(calls.map((c) => c[2])).toEqual([...calls.map((c) => c[2])].sort((a, b) => a - b));
    // The same run as without the callback.
    expect(simulateDesign('per-index', 1200, CALIBRATION_C, 7).retry.wallMs).toBe(run.retry.wallMs);
  });
});
