// Checker-sized setups: the family's default configuration and the test
// scenarios 1, 2, 6 and 8-15 of docs/materialize.md, each with its expected outcome as properties.
import type { Predicate, WorldQuery } from '../../actors/scenario.ts';
import type { ClientCtx } from './client.ts';
import { config, lookup, rows, scan } from './config.ts';
import type { WorkerCtx } from './worker-ctx.ts';
import type { PoolCtx } from './pool.ts';
import type { Setup } from './scenario.ts';
import { arrangement, compactionError } from './trace.ts';
import { referenceAnswer, sameResponse } from './walk.ts';
import { reads } from '../../actors/index.ts';
import { CLIENT, POOL, workerId, type Design, type PeekResponse, type PeekSpec, type SlotRelease, type StashConfig, type Update, type WorkerConfig } from './types.ts';

export interface CaseOptions {
  readonly design?: Design;
  readonly slotRelease?: SlotRelease;
  readonly countAt?: WorkerConfig['countAt'];
  readonly cmdVisibility?: WorkerConfig['cmdVisibility'];
  readonly faults?: number;
  readonly resourceForm?: boolean;
  readonly fuel?: WorkerConfig['fuel'];
}

const w0 = (q: WorldQuery): WorkerCtx => q.context(workerId(0)) as WorkerCtx;
const merged = (q: WorldQuery, uuid: string): PeekResponse | undefined => (q.context(CLIENT) as ClientCtx).merged[uuid];
const keep = { keep: true };

function cfgOf(o: CaseOptions, extra: Partial<WorkerConfig> = {}): WorkerConfig {
  return config({
    design: o.design ?? 'offload',
    slotRelease: o.slotRelease ?? 'retire',
    countAt: o.countAt ?? 'dispatch',
    cmdVisibility: o.cmdVisibility ?? 'current',
    ...(o.fuel ? { fuel: o.fuel } : {}),
    ...extra,
  });
}

/** The merged answer of `uuid` equals `want` (compared like invariant 1). */
function answers(uuid: string, want: PeekResponse | ((r: PeekResponse) => true | string)): Predicate {
  return (q) => {
    const got = merged(q, uuid);
    if (!got) return `${uuid} has no merged response`;
    if (typeof want === 'function') return want(got);
    return sameResponse(got, want) ? true : `${uuid} answered ${JSON.stringify(got).slice(0, 200)}, expected ${JSON.stringify(want).slice(0, 200)}`;
  };
}

const SMALL = [...rows('a', ['1', '2']), ...rows('b', ['3']), ...rows('c', ['4', '5'])];

/** Scenarios 1 and 2: one idle worker, one point lookup; flag off (inline) or on (offload). */
export function idleLookup(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o);
  const trace = arrangement({ updates: SMALL, upper: 2 });
  const p = lookup('p1', 'a', 1);
  const want = referenceAnswer(trace, p, cfg.stash);
  const placement = cfg.design === 'offload' || cfg.design === 'offload-yield' ? 'offloaded' : 'inline';
  return {
    name: `spec-1-2-idle-lookup-${cfg.design}`,
    cfg,
    traces: [trace],
    client: { peeks: [p], ...keep },
    extraEventually: {
      'answers-the-rows': answers('p1', want),
      'counted-once-on-its-substrate': (q) => (w0(q).counters[placement] === 1 && w0(q).walks.started === 1 ? true : `counters ${JSON.stringify(w0(q).counters)}`),
    },
    reachable: placement === 'offloaded' ? { 'in-flight-reaches-1': (q) => w0(q).inFlight === 1 } : {},
    params: { case: 'idle-lookup', design: cfg.design },
  };
}

/** Scenario 6: cap 2, `n` (five) concurrent scans arriving together. */
export function capSaturation(o: CaseOptions = {}, n = 5): Setup {
  const cfg = cfgOf(o, { cap: 2 });
  const trace = arrangement({ updates: SMALL, upper: 2 });
  const peeks = Array.from({ length: n }, (_, i) => scan(`p${i + 1}`, 1));
  return {
    name: `spec-6-cap-saturation-${cfg.slotRelease}-${n}`,
    cfg,
    traces: [trace],
    client: { peeks, ...keep },
    extraEventually: {
      'every-walk-counted': (q) => {
        const c = w0(q).counters;
        return c.inline + c.offloaded + c.capped === n && c.inline === 0 ? true : `counters ${JSON.stringify(c)}`;
      },
      'at-least-two-offloaded': (q) => (w0(q).counters.offloaded >= 2 ? true : `only ${w0(q).counters.offloaded} offloaded`),
    },
    reachable: {
      'two-offloaded-rest-capped': (q) => w0(q).counters.offloaded === 2 && w0(q).counters.capped === n - 2,
      'more-than-two-offloaded': (q) => w0(q).counters.offloaded > 2,
    },
    params: { case: 'cap-saturation', slotRelease: cfg.slotRelease },
  };
}

/** Scenario 8 (scaled to checker size): two walks in flight under cap 2, the cap lowered to 1, a third peek. */
export function capLowered(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o, { cap: 2 });
  const trace = arrangement({ updates: SMALL, upper: 2 });
  return {
    name: `spec-8-cap-lowered-${cfg.slotRelease}`,
    cfg,
    traces: [trace],
    client: { peeks: [scan('p1', 1), scan('p2', 1)], ...keep },
    env: [
      { to: workerId(0), msg: { type: 'SetCap', cap: 1 } },
      { to: CLIENT, msg: { type: 'Issue', peek: lookup('p3', 'a', 1) } },
    ],
    extraEventually: {
      'no-walk-interrupted': (q) => {
        for (const u of ['p1', 'p2', 'p3']) if (merged(q, u)?.kind !== 'rows') return `${u} answered ${merged(q, u)?.kind}`;
        return true;
      },
    },
    reachable: {
      'capped-below-old-cap': (q) => w0(q).cap === 1 && w0(q).counters.capped > 0,
      'two-in-flight-under-cap-1': (q) => w0(q).cap === 1 && w0(q).inFlight === 2,
    },
    params: { case: 'cap-lowered', slotRelease: cfg.slotRelease },
  };
}

/** Scenario 9: since {5}, a peek at t = 1. */
export function compactionGate(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o);
  const trace = arrangement({ updates: SMALL, upper: 10, since: 5 });
  const msg = compactionError(5, 1);
  return {
    name: `spec-9-compaction-gate-${cfg.design}`,
    cfg,
    traces: [trace],
    client: { peeks: [lookup('p1', 'a', 1)], ...keep },
    extraEventually: {
      'answers-the-compaction-error': answers('p1', { kind: 'error', message: msg }),
      'nothing-counted-no-slot-no-cursor': (q) => {
        const c = w0(q);
        const p = q.context(POOL) as PoolCtx;
        return c.walks.started === 0 && c.counters.inline + c.counters.offloaded + c.counters.capped === 0 && p.peak[0] === 0 ? true : `walks ${c.walks.started}, counters ${JSON.stringify(c.counters)}, pool peak ${p.peak[0]}`;
      },
    },
    params: { case: 'compaction-gate', design: cfg.design },
  };
}

/** Scenario 10: offloaded at t = 5, AllowCompaction to {9} and a merge while it walks. */
export function compactionAfterDispatch(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o);
  const updates: Update[] = [
    { key: 'a', val: 'v1', time: 3, diff: 1 },
    { key: 'a', val: 'v1', time: 6, diff: -1 },
    { key: 'a', val: 'v2', time: 6, diff: 1 },
    { key: 'a', val: 'v3', time: 8, diff: 1 },
  ];
  const trace = arrangement({ updates, upper: 10 });
  const p = lookup('p1', 'a', 5);
  const want = referenceAnswer(trace, p, cfg.stash);
  return {
    name: `spec-10-compaction-after-dispatch-${cfg.design}`,
    cfg,
    traces: [trace],
    client: { peeks: [p], ...keep },
    env: [{ to: workerId(0), msg: { type: 'AllowCompaction', frontier: 9 } }],
    extraEventually: {
      'answers-as-inline-at-t-or-the-gate-error': answers('p1', (r) =>
        sameResponse(r, want) || (r.kind === 'error' && r.message === compactionError(9, 5)) ? true : `answered ${JSON.stringify(r)}`),
    },
    reachable: {
      'since-passes-t-while-walking': (q) => (q.context(POOL) as PoolCtx).running[0]! > 0 && w0(q).trace.oksSince >= 9 && w0(q).trace.oks[0]?.id !== trace.oks[0]!.id,
      'rows-answer-after-compaction': (q) => merged(q, 'p1')?.kind === 'rows' && w0(q).trace.oksSince >= 9,
    },
    params: { case: 'compaction-after-dispatch', design: cfg.design },
  };
}

/** Scenario 11: a peek at t = 10 while the upper is {10}; a batch moves it to {11}. */
export function notReadyThenReady(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o, { cap: 1 });
  const trace = arrangement({ updates: SMALL, upper: 10 });
  return {
    name: `spec-11-not-ready-then-ready-${cfg.design}`,
    cfg,
    traces: [trace],
    client: { peeks: [scan('p0', 5), lookup('p1', 'a', 10)], ...keep },
    env: [{ to: workerId(0), msg: { type: 'InsertCycle', chain: [{ ms: 1, batch: { upper: 11, updates: [{ key: 'a', val: 'new', time: 10, diff: 1 }] } }] } }],
    extraEventually: {
      'sees-the-new-row': answers('p1', (r) => (r.kind === 'rows' && r.rows.some(([x]) => x === 'a,new') ? true : `answered ${JSON.stringify(r)}`)),
    },
    reachable: {
      'pending-not-ready-holding-t': (q) => w0(q).pending.some((p) => p.peek.uuid === 'p1' && p.kind === 'index') && w0(q).trace.oksUpper === 10 && w0(q).trace.holds.includes(10),
      ...(cfg.design === 'offload' || cfg.design === 'offload-yield' ? { 'dispatched-capped-against-in-flight': (q: WorldQuery) => w0(q).counters.capped > 0 } : {}),
    },
    params: { case: 'not-ready-then-ready', design: cfg.design },
  };
}

/** 50 rows of about 1 KiB under key `z`: a 50 KiB result. */
export const BIG = rows('z', Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(1000)}`));

/** Scenario 12: a streamable 50 KiB peek with the stash on; optionally a stash failure (fault budget). */
export function offloadedStash(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o);
  const trace = arrangement({ updates: [...SMALL, ...BIG], upper: 2 });
  const p = lookup('p1', 'z', 1);
  const want = referenceAnswer(trace, p, cfg.stash);
  return {
    name: `spec-12-stash-diversion-${cfg.design}`,
    cfg,
    traces: [trace],
    client: { peeks: [p], ...keep },
    stash: { partBytes: 16 * 1024, maxParts: 4 },
    faults: o.faults ?? 0,
    extraEventually: {
      'stashed-as-inline-or-one-error': answers('p1', (r) =>
        (r.kind === 'stashed' && sameResponse(r, want)) || (r.kind === 'error' && r.message.startsWith('peek response stash upload failed')) ? true : `answered ${JSON.stringify(r).slice(0, 200)}`),
    },
    reachable: { stashed: (q) => merged(q, 'p1')?.kind === 'stashed', ...(o.faults ? { 'upload-failed': (q: WorldQuery) => merged(q, 'p1')?.kind === 'error' } : {}) },
    params: { case: 'stash-diversion', design: cfg.design, faults: o.faults ?? 0 },
  };
}

/** Scenario 13: an ORDER BY peek larger than max_result_size. */
export function nonStreamableLarge(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o);
  const trace = arrangement({ updates: BIG, upper: 2 });
  const p: PeekSpec = { ...scan('p1', 1, { limit: 1000 }), maxResultSize: 20 * 1024 };
  return {
    name: `spec-13-non-streamable-large-${cfg.design}`,
    cfg,
    traces: [trace],
    client: { peeks: [p], ...keep },
    extraEventually: { 'answers-max-size-error': answers('p1', { kind: 'error', message: `result exceeds max size of ${20 * 1024} bytes` }) },
    params: { case: 'non-streamable-large', design: cfg.design },
  };
}

/** Scenario 14: cancel during an offloaded walk, then a new peek (cap 1). */
export function cancelDuringWalk(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o, { cap: 1 });
  const c3 = cfg.design === 'offload-yield';
  const early = (q: WorldQuery) => (q.context(POOL) as PoolCtx).stoppedEarly;
  const trace = arrangement({ updates: SMALL, upper: 2 });
  return {
    name: `spec-14-cancel-during-walk-${cfg.design}-${cfg.slotRelease}`,
    cfg,
    traces: [trace],
    client: { peeks: [scan('p1', 1)], ...keep },
    env: [
      { to: CLIENT, msg: { type: 'Cancel', uuid: 'p1' } },
      { to: CLIENT, msg: { type: 'Issue', peek: lookup('p2', 'a', 1) } },
    ],
    resourceForm: o.resourceForm ?? true,
    // C1 cannot abort a started closure; C3 notices the cancel at its next slice boundary.
    extraInvariants: c3 ? {} : { 'started-walks-run-to-the-end': (q) => early(q) === 0 || `${early(q)} walk(s) stopped early` },
    reachable: {
      ...(c3 ? { 'c3-stops-at-a-slice-boundary': (q: WorldQuery) => early(q) > 0 } : {}),
      'canceled-while-walk-runs': (q) => merged(q, 'p1')?.kind === 'canceled' && (q.context(POOL) as PoolCtx).running[0]! > 0,
      ...(cfg.slotRelease === 'walk-end'
        ? { 'slot-still-held-after-cancel': (q: WorldQuery) => merged(q, 'p1')?.kind === 'canceled' && w0(q).held.includes('p1') }
        : { 'slot-returned-while-walk-runs': (q: WorldQuery) => merged(q, 'p1')?.kind === 'canceled' && !w0(q).held.includes('p1') && (q.context(POOL) as PoolCtx).running[0]! > 0 }),
    },
    params: { case: 'cancel-during-walk', slotRelease: cfg.slotRelease, design: cfg.design },
  };
}

/** Scenario 15: worker 1's errs trace holds a positive error at t; worker 0 returns rows. */
export function errorsMerge(o: CaseOptions = {}): Setup {
  const cfg = cfgOf(o, { workers: 2 });
  const t0 = arrangement({ updates: SMALL, upper: 2 });
  const t1 = arrangement({ updates: rows('d', ['6']), errs: [{ key: 'division by zero', time: 0, diff: 1 }], upper: 2 });
  return {
    name: `spec-15-errors-merge-${cfg.design}`,
    cfg,
    traces: [t0, t1],
    client: { peeks: [scan('p1', 1)], ...keep },
    extraEventually: { 'merged-error': answers('p1', { kind: 'error', message: 'division by zero' }) },
    params: { case: 'errors-merge', design: cfg.design },
  };
}

export interface CheckFixtureParams {
  readonly design: Design;
  readonly slotRelease: SlotRelease;
  readonly countAt: WorkerConfig['countAt'];
  readonly cmdVisibility: WorkerConfig['cmdVisibility'];
  readonly workers: number;
  readonly peeks: number;
  readonly cap: number;
  readonly cancel: boolean;
  readonly compaction: boolean;
  readonly stash: boolean;
  readonly threshold: number;
  readonly faults: number;
  readonly resourceForm: boolean;
}

/**
 * The family's checker configuration: a scan (cancelled when `cancel`), a lookup
 * issued after the cancel, a not-ready lookup released by a batch (peeks >= 3) and
 * a 12 KiB streamable lookup that diverts to the stash (peeks >= 4); compaction
 * and the batch arrive from outside at any point.
 */
export function checkFixture(p: CheckFixtureParams): Setup {
  const stash: StashConfig = { enabled: p.stash, threshold: p.threshold };
  const cfg = config({ design: p.design, slotRelease: p.slotRelease, countAt: p.countAt, cmdVisibility: p.cmdVisibility, workers: p.workers, cap: p.cap, stash });
  const medium = rows('m', Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'y'.repeat(600)}`));
  const traces = Array.from({ length: p.workers }, (_, w) =>
    arrangement({ updates: w === 0 ? [...SMALL, ...(p.peeks >= 4 ? medium : [])] : rows('d', ['6', '7']), upper: 2 }));
  const env: { to: string; msg: any }[] = [];
  if (p.cancel) env.push({ to: CLIENT, msg: { type: 'Cancel', uuid: 'p1' } });
  env.push({ to: CLIENT, msg: { type: 'Issue', peek: lookup('p2', 'a', 1) } });
  if (p.peeks >= 3) {
    env.push({ to: CLIENT, msg: { type: 'Issue', peek: lookup('p3', 'b', 3) } });
    for (let w = 0; w < p.workers; w++) env.push({ to: workerId(w), msg: { type: 'InsertCycle', chain: [{ ms: 1, batch: { upper: 4, updates: [{ key: 'b', val: 'new', time: 3, diff: 1 }] } }] } });
  }
  if (p.peeks >= 4) env.push({ to: CLIENT, msg: { type: 'Issue', peek: lookup('p4', 'm', 1) } });
  if (p.compaction) for (let w = 0; w < p.workers; w++) env.push({ to: workerId(w), msg: { type: 'AllowCompaction', frontier: 2 } });
  const offloads = p.design === 'offload' || p.design === 'offload-yield';
  return {
    name: 'materialize-peeks',
    cfg,
    traces,
    client: { peeks: [scan('p1', 1, { limit: 3 })], keep: true },
    env,
    stash: { partBytes: 4 * 1024, maxParts: 4 },
    faults: p.faults,
    resourceForm: p.resourceForm,
    reachable: {
      // Each reads one actor (declared for partial-order reduction).
      ...(offloads ? { 'an-offloaded-walk': reads([workerId(0)], (q: WorldQuery) => w0(q).counters.offloaded > 0), 'a-capped-walk': reads([workerId(0)], (q: WorldQuery) => w0(q).counters.capped > 0) } : {}),
      ...(p.cancel ? { 'a-canceled-answer': reads([CLIENT], (q: WorldQuery) => merged(q, 'p1')?.kind === 'canceled') } : {}),
      ...(p.peeks >= 4 && p.stash ? { 'a-stashed-answer': reads([CLIENT], (q: WorldQuery) => merged(q, 'p4')?.kind === 'stashed') } : {}),
    },
    params: { ...p, fixture: 'check' },
  };
}
