// Defaults: the dyncfgs and the cost model of docs/materialize.md.
import type { Costs, Design, PeekSpec, Time, Update, WorkerConfig } from './types.ts';

export const DEFAULT_CAP = 16;
export const STASH_THRESHOLD = 10 * 1024;
/** #38040's budgets (work half): positions per peek per activation, and per pass. */
export const DEFAULT_FUEL = { perPeek: 100_000, perPass: 1_000_000 };

/** Checker costs: every walk and step takes time (so arrivals can interleave with it); cursors are free. */
export const CHECK_COSTS: Costs = { posMs: 1, rowMs: 0, cursorMs: 0, shortStepMs: 1, batchStepMs: 1 };

/** Simulation costs (virtual ms): 0.36 us a position (2170 ms scans of ~6M positions), a few us a cursor. */
export const SIM_COSTS: Costs = { posMs: 0.00036, rowMs: 0.0002, cursorMs: 0.005, shortStepMs: 0.05, batchStepMs: 1 };

export function config(o: Partial<WorkerConfig> & { readonly design: Design }): WorkerConfig {
  return {
    cap: DEFAULT_CAP,
    slotRelease: 'retire',
    countAt: 'dispatch',
    cmdVisibility: 'current',
    stash: { enabled: true, threshold: STASH_THRESHOLD },
    costs: CHECK_COSTS,
    fuel: DEFAULT_FUEL,
    workers: 1,
    ...o,
  };
}

/** A point lookup (streamable, no limit). */
export function lookup(uuid: string, key: string, t: Time, extra: Partial<PeekSpec> = {}): PeekSpec {
  return { uuid, t, key, finishing: { orderBy: false, offset: 0 }, maxResultSize: 1 << 30, cls: 'lookup', ...extra };
}

/** A full scan; `ORDER BY ... LIMIT n` when `limit` is given (not streamable). */
export function scan(uuid: string, t: Time, extra: Partial<PeekSpec> & { limit?: number } = {}): PeekSpec {
  const { limit, ...rest } = extra;
  return { uuid, t, finishing: limit === undefined ? { orderBy: false, offset: 0 } : { orderBy: true, limit, offset: 0 }, maxResultSize: 1 << 30, cls: 'scan', ...rest };
}

/** Rows `key,val` inserted at `time`. */
export function rows(key: string, vals: readonly string[], time: Time = 0): Update[] {
  return vals.map((val) => ({ key, val, time, diff: 1 }));
}
