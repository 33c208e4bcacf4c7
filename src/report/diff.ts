// Side-by-side diff of a counterexample and the nearest passing schedule: rows
// aligned by a longest common subsequence, the first divergent step marked.

/** One row of a schedule diff: a step on one side, the other, or both. */
export interface DiffRow {
  /** 1-based step numbers in each schedule (undefined where the step exists on one side only). */
  readonly a?: number;
  /** The step number in the passing schedule (see `a`). */
  readonly b?: number;
  /** The counterexample's step id in this row. */
  readonly aId?: string;
  /** The passing schedule's step id in this row. */
  readonly bId?: string;
  /** True when both sides take the same step. */
  readonly same: boolean;
}

/** A counterexample and a passing schedule aligned row by row (`diffSchedules`). */
export interface ScheduleDiff {
  /** The aligned rows, in order. */
  readonly rows: readonly DiffRow[];
  /** Index into `rows` of the first row that differs, or -1 when the schedules are equal. */
  readonly firstDivergentRow: number;
  /** 1-based step of the counterexample where it first departs from the passing schedule (or -1). */
  readonly firstDivergentStep: number;
}

/** Aligns a counterexample `a` with a passing schedule `b` by their longest common subsequence (by index past 2000 × 2000 steps) and marks where they first differ. */
export function diffSchedules(a: readonly string[], b: readonly string[]): ScheduleDiff {
  // O(n·m) LCS; counterexamples are shrunk to tens of steps. Past 2000x2000 align by index.
  const rows: DiffRow[] = [];
  if (a.length * b.length > 4_000_000) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const same = a[i] !== undefined && a[i] === b[i];
      rows.push({ ...(i < a.length ? { a: i + 1, aId: a[i] } : {}), ...(i < b.length ? { b: i + 1, bId: b[i] } : {}), same });
    }
  } else {
    const m = b.length;
    const L = new Uint32Array((a.length + 1) * (m + 1));
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        L[i * (m + 1) + j] = a[i] === b[j] ? L[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(L[(i + 1) * (m + 1) + j]!, L[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < a.length || j < m) {
      if (i < a.length && j < m && a[i] === b[j]) {
        rows.push({ a: i + 1, b: j + 1, aId: a[i], bId: b[j], same: true });
        i++;
        j++;
      } else if (j >= m || (i < a.length && L[(i + 1) * (m + 1) + j]! >= L[i * (m + 1) + j + 1]!)) {
        rows.push({ a: i + 1, aId: a[i], same: false });
        i++;
      } else {
        rows.push({ b: j + 1, bId: b[j], same: false });
        j++;
      }
    }
  }
  const first = rows.findIndex((r) => !r.same);
  let step = -1;
  if (first >= 0) {
    const withA = rows.slice(first).find((r) => r.a !== undefined);
    step = withA?.a ?? a.length;
  }
  return { rows, firstDivergentRow: first, firstDivergentStep: step };
}
