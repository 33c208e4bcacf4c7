// The differential fuzzer's machinery (test/check-differential.test.ts): the plainest
// search of a system (dfs, no reduction, no symmetry, no step memo, worlds hashed
// afresh one by one), the option combinations drawn against it, and one observed run
// of a combination: what it visited, the quiescent worlds, every violated property,
// and the verdict of a normal run.
import { vi } from 'vitest';
import { StepMemo, defineScenario, rng, type Scenario, type World } from '../../src/actors/index.ts';
import { check, checkRun, reads, replayLasso, type CheckOptions, type CheckResult } from 'interleave';
import { WorldHasher, fpHex, runSchedule } from 'interleave/kernel';
import { randomCyclicSystem } from '../liveness-reference.ts';

/** One point of the option grid. */
export interface Combo {
  strategy: 'dfs' | 'bfs' | 'random' | 'pct';
  por: boolean;
  symmetry: boolean;
  frontier: 'compact' | 'worlds';
  leanHeap: boolean;
  memo: boolean;
  determinism: boolean;
  liveness: boolean;
  shrink: boolean;
  shard?: { count: number; prefix: number; lookahead: number };
  maxStates?: number;
  maxDepth?: number;
  timeLimitMs?: number;
  /** `CheckRun.stop()` called as soon as the check starts (Ctrl-C). */
  stop?: boolean;
}

export const PLAIN: Combo = { strategy: 'dfs', por: false, symmetry: false, frontier: 'worlds', leanHeap: false, memo: false, determinism: true, liveness: false, shrink: false };

/** True when the combination may stop before it has seen everything. */
export const budgeted = (c: Combo): boolean => c.maxStates !== undefined || c.maxDepth !== undefined || c.timeLimitMs !== undefined || c.stop === true || c.strategy === 'random' || c.strategy === 'pct';

export function describeCombo(c: Combo): string {
  const on = (k: keyof Combo, txt = k as string) => (c[k] ? txt : `no-${txt}`);
  const parts = [c.strategy, on('por'), on('symmetry'), c.strategy === 'bfs' ? c.frontier : '', on('leanHeap', 'lean'), on('memo'), c.determinism ? '' : 'no-determinism', c.liveness ? 'liveness' : '', c.shrink ? 'shrink' : ''];
  if (c.shard) parts.push(`shards=${c.shard.count}/prefix=${c.shard.prefix}/lookahead=${c.shard.lookahead}`);
  for (const k of ['maxStates', 'maxDepth', 'timeLimitMs'] as const) if (c[k] !== undefined) parts.push(`${k}=${c[k]}`);
  if (c.stop) parts.push('stopped');
  return parts.filter(Boolean).join(' ');
}

/**
 * A random combination. `states` and `depth` are the plain search's, so budgets fall
 * inside the reachable space. Liveness is on whenever the system has some, except
 * when drawn off.
 */
export function drawCombo(r: ReturnType<typeof rng>, sys: { symmetric: boolean; live: boolean; states: number; depth: number }): Combo {
  const roll = r.int(20);
  const strategy = roll === 0 ? 'random' : roll === 1 ? 'pct' : r.int(2) === 0 ? 'dfs' : 'bfs';
  const c: Combo = {
    strategy,
    por: r.int(3) > 0,
    symmetry: sys.symmetric && r.int(3) > 0,
    frontier: r.int(3) > 0 ? 'compact' : 'worlds',
    leanHeap: r.int(2) === 0,
    memo: r.int(4) > 0,
    determinism: r.int(4) > 0,
    liveness: sys.live && r.int(4) > 0,
    shrink: r.int(3) === 0,
  };
  if (strategy === 'random' || strategy === 'pct') return c;
  const b = r.int(10);
  if (b === 0) c.maxStates = 1 + r.int(Math.max(1, sys.states));
  if (b === 1) c.maxDepth = r.int(sys.depth + 2);
  if (b === 2) c.timeLimitMs = 0;
  if (b === 3) c.stop = true;
  if (r.int(4) === 0) c.shard = { count: 2 + r.int(2), prefix: 1 + r.int(4), lookahead: r.int(4) };
  return c;
}

/** Runs `f` with the step memo's lookups always missing (the memo then only stores). */
export async function withoutMemo<T>(f: () => Promise<T>): Promise<T> {
  const a = vi.spyOn(StepMemo.prototype, 'get').mockReturnValue(undefined);
  const b = vi.spyOn(StepMemo.prototype, 'getReduced').mockReturnValue(undefined);
  const c = vi.spyOn(StepMemo.prototype, 'getSame').mockReturnValue(undefined);
  const d = vi.spyOn(StepMemo.prototype, 'getStart').mockReturnValue(undefined);
  try {
    return await f();
  } finally {
    a.mockRestore();
    b.mockRestore();
    c.mockRestore();
    d.mockRestore();
  }
}

export function optionsOf(c: Combo, extra: CheckOptions = {}): CheckOptions {
  return {
    strategy: c.strategy,
    por: c.por,
    symmetry: c.symmetry,
    frontier: c.frontier,
    leanHeap: c.leanHeap,
    determinism: c.determinism,
    liveness: c.liveness,
    shrink: c.shrink,
    seed: 7,
    ...(c.strategy === 'random' || c.strategy === 'pct' ? { runs: 40, maxDepth: 60 } : {}),
    ...(c.maxStates === undefined ? {} : { maxStates: c.maxStates }),
    ...(c.maxDepth === undefined ? {} : { maxDepth: c.maxDepth }),
    ...(c.timeLimitMs === undefined ? {} : { timeLimitMs: c.timeLimitMs }),
    ...extra,
  };
}

/** What one exploring run (every violation recorded, the search going on) saw. */
export interface Observed {
  r: CheckResult;
  /** The visited set (`inspect.fingerprints`; not with liveness, whose explorer keeps a graph). */
  fps: Set<bigint> | undefined;
  /** Quiescent worlds by fingerprint: plain (`raw`) and canonical under symmetry (`canon`). */
  quiescent: { raw: Set<string>; canon: Set<string> };
  /** Violated properties, `kind:name`. */
  violated: Set<string>;
  /** Plain only: every visited world hashed afresh, plain and canonical. */
  fresh?: { raw: Set<bigint>; canon: Set<bigint> };
}

const fpBig = (fp: ReturnType<WorldHasher['fp']>): bigint => BigInt(`0x${fpHex(fp)}`);

/** Explores under `c` recording everything; `fresh` also hashes every visited world with new hashers. */
export async function observe(sc: Scenario, c: Combo, opts: { fresh?: boolean; shard?: number } = {}): Promise<Observed> {
  const raw = new WorldHasher(sc, false);
  const canonOf = (w: World) => fpHex(new WorldHasher(sc, true).fp(w));
  const quiescent = { raw: new Set<string>(), canon: new Set<string>() };
  const violated = new Set<string>();
  const fresh = opts.fresh ? { raw: new Set<bigint>(), canon: new Set<bigint>() } : undefined;
  let fps: Set<bigint> | undefined;
  const run = () =>
    start(
      sc,
      c,
      optionsOf(c, {
        ...(c.shard ? { shard: { index: opts.shard ?? 0, count: c.shard.count }, shardPrefix: c.shard.prefix, shardLookahead: c.shard.lookahead } : {}),
        inspect: {
          ...(fresh
            ? {
                state: (w: World) => {
                  fresh.raw.add(fpBig(new WorldHasher(sc, false).fp(w)));
                  fresh.canon.add(fpBig(new WorldHasher(sc, true).fp(w)));
                },
              }
            : {}),
          quiescent: (w: World) => {
            quiescent.raw.add(fpHex(raw.fp(w)));
            quiescent.canon.add(canonOf(w));
          },
          violation: (p) => {
            violated.add(`${p.kind}:${p.name}`);
            return true;
          },
          fingerprints: (f) => void (fps = new Set(f)),
        },
      }),
    );
  const r = c.memo ? await run() : await withoutMemo(run);
  return { r, fps, quiescent, violated, ...(fresh ? { fresh } : {}) };
}

/** Starts a check; `c.stop` stops it at once (as Ctrl-C would). */
function start(sc: Scenario, c: Combo, opts: CheckOptions): Promise<CheckResult> {
  if (!c.stop) return check(sc, opts);
  const run = checkRun(sc, opts);
  run.stop();
  return run.result;
}

/** A normal run of `c` (stops at the first violation). */
export async function verdict(sc: Scenario, c: Combo, shard?: number): Promise<CheckResult> {
  const run = () => start(sc, c, optionsOf(c, c.shard ? { shard: { index: shard ?? 0, count: c.shard.count }, shardPrefix: c.shard.prefix, shardLookahead: c.shard.lookahead } : {}));
  return c.memo ? run() : withoutMemo(run);
}

/**
 * Why a reported counterexample does not stand, or undefined when it does: it replays
 * strictly from the initial world to a world violating the reported property (a
 * liveness lasso through `replayLasso`), and shrinking did not lengthen it.
 */
export function counterexampleProblem(sc: Scenario, r: CheckResult): string | undefined {
  const v = r.violation;
  if (!v) return undefined;
  if (v.schedule.length > v.originalLength) return `shrunk schedule (${v.schedule.length}) longer than the original (${v.originalLength})`;
  try {
    if (v.property.kind === 'liveness') {
      const re = replayLasso(sc, v.schedule, v.cycleStart, v.property.name);
      if (re.property?.kind !== 'liveness' || re.property.name !== v.property.name) return `lasso replays to ${JSON.stringify(re.property ?? re.note)}`;
      return undefined;
    }
    const out = runSchedule(sc, v.schedule, { detail: false, lenient: false });
    if (!out.property) return 'the schedule replays without a violation';
    if (out.property.kind !== v.property.kind || out.property.name !== v.property.name) return `replays to ${out.property.kind}:${out.property.name}, reported ${v.property.kind}:${v.property.name}`;
    if (out.schedule.length !== v.schedule.length) return `replay stops after ${out.schedule.length} of ${v.schedule.length} steps`;
  } catch (e) {
    return `replay threw: ${(e as Error).message}`;
  }
  return undefined;
}

/**
 * A cyclic system (messages circulate forever, test/liveness-reference.ts) with safety
 * properties declared for the reduction: the partial-order reduction's cycle proviso
 * (a step postponed around a cycle forever) only matters where the state graph has
 * cycles, which the hop-bounded random systems never do. A third of them keep their
 * liveness properties.
 */
export function cyclicSystem(seed: number): { sc: Scenario; info: Record<string, boolean> } {
  const r = rng(seed * 13 + 1);
  const fairness = (['none', 'actors', 'channels'] as const)[r.int(3)]!;
  const { sc: base, props } = randomCyclicSystem(seed, fairness);
  const ids = ['p0', 'p1', 'sleeper'];
  const x = ids[r.int(3)]!;
  const y = ids[r.int(3)]!;
  const cx = x === 'sleeper' ? 1 : r.int(3);
  const cy = r.int(3);
  const live = r.int(3) === 0;
  const sc = defineScenario({
    name: `cyclic-safety-${seed}`,
    actors: base.actors as never,
    start: base.start ?? [],
    ...(base.fairness ? { fairness: base.fairness } : {}),
    invariants: {
      local: reads([x], (q) => q.context(x) !== cx || `${x} reached ${cx}`),
      pair: reads([x, y], (q) => !(x !== y && q.context(x) === cy && q.context(y) === cx) || `${x} = ${cy} while ${y} = ${cx}`),
    },
    reachable: { yIs: reads([y], (q) => q.context(y) === cy) },
    ...(live ? { liveness: props } : {}),
  });
  return { sc, info: { cyclic: true, liveness: live } };
}
