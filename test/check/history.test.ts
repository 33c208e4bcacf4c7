// Fingerprints must see everything in a world that decides its future (issue 13,
// defect 1): xstate history values included. A regression model whose violation
// needs a re-entry through history, and a completeness test on random machines
// (hierarchy, parallel regions, shallow and deep history, guards, `after`): the
// fingerprint-keyed search finds exactly the worlds and violations a search keyed
// by a full canonical serialisation of every snapshot finds.
import { assign, createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { apply, canonicalJson, enabled, initialWorld, isQuiescent, WorldHasher, fpHex, runSchedule } from 'interleave/kernel';
import { defineScenario, check, type Scenario, type World } from 'interleave';
import { stepViolation } from '../../src/check/properties.ts';
import { randomMachineSystem } from '../fixtures/check/random-machines.ts';

const reducer = { kind: 'reducer' as const, init: () => 0, receive: (s: number) => ({ state: s, unhandled: true }) };

/**
 * `m` walks a -> b -> c on `next`; `pause` leaves `on` (remembering where), `resume`
 * returns through history and zeroes `k`, which each later `next` increments. The
 * invariant fails when `c` is reached by one `next` after a resume: only the run
 * next, pause, resume, next does it. After [pause, next (ignored while off)] and
 * [next, pause] the worlds differ only in the history value (a vs b).
 */
export function historyModel(): Scenario {
  const m = createMachine({
    id: 'm',
    context: { k: -1 },
    initial: 'on',
    states: {
      on: {
        initial: 'a',
        states: {
          a: { on: { next: { target: 'b', actions: assign({ k: ({ context }) => (context.k < 0 ? context.k : context.k + 1) }) } } },
          b: { on: { next: { target: 'c', actions: assign({ k: ({ context }) => (context.k < 0 ? context.k : context.k + 1) }) } } },
          c: {},
          h: { type: 'history' },
        },
        on: { pause: 'off' },
      },
      off: { on: { next: {}, resume: { target: 'on.h', actions: assign({ k: 0 }) } } },
    },
  });
  return defineScenario({
    name: 'history-reentry',
    actors: { pauser: reducer, m, nexter: reducer },
    start: [
      { from: 'nexter', to: 'm', msg: { type: 'next' } },
      { from: 'nexter', to: 'm', msg: { type: 'next' } },
      { from: 'pauser', to: 'm', msg: { type: 'pause' } },
      { from: 'pauser', to: 'm', msg: { type: 'resume' } },
    ],
    acceptEnd: () => true,
    invariants: { notCAfterOneNext: (q) => !(q.matches('m', { on: 'c' }) && q.context('m').k === 1) },
  });
}

describe('history states in fingerprints', () => {
  it('the violation reachable only through a history re-entry is found by bfs and dfs, POR on and off', async () => {
    const sc = historyModel();
    // The violating run replays to the failure.
    const replay = runSchedule(sc, ['deliver:nexter->m:next', 'deliver:pauser->m:pause', 'deliver:pauser->m:resume', 'deliver:nexter->m:next'], { detail: false, lenient: false });
    expect(replay.property?.name).toBe('notCAfterOneNext');
    for (const strategy of ['bfs', 'dfs'] as const) {
      for (const por of [true, false]) {
        const r = await check(sc, { strategy, por });
        expect(r.ok, `${strategy} por=${por}`).toBe(false);
        expect(r.violation?.property.name).toBe('notCAfterOneNext');
      }
    }
  });

  it('snapshots that differ only in their history value hash differently', () => {
    const sc = historyModel();
    const h = new WorldHasher(sc, false);
    const run = (ids: string[]): World => runSchedule(sc, ids, { detail: false, lenient: false }).world;
    const viaA = run(['deliver:pauser->m:pause', 'deliver:nexter->m:next']);
    const viaB = run(['deliver:nexter->m:next', 'deliver:pauser->m:pause']);
    expect(canonical(sc, viaA)).not.toBe(canonical(sc, viaB));
    expect(fpHex(h.fp(viaA))).not.toBe(fpHex(h.fp(viaB)));
  });
});

/** Every world as canonical JSON: persisted snapshots (history as sorted id sets), statuses, channels, clock, timers, faults, monitors. */
function canonical(sc: Scenario, w: World): string {
  const snaps = w.snaps.map((s, i) => {
    const a = sc.actorList[i]!;
    if (a.kind !== 'machine') return s;
    const p = a.machine.getPersistedSnapshot(s as never) as Record<string, unknown>;
    const hv = p.historyValue as Record<string, { id: string }[]>;
    return { ...p, historyValue: Object.fromEntries(Object.entries(hv).map(([k, v]) => [k, v.map((x) => x.id).sort()])) };
  });
  // Anonymous delayed-send ids are names, not state (src/check/README.md).
  const timers = w.timers.map((t) => ({ ...t, id: t.id.startsWith('anon:') ? 'anon' : t.id }));
  return canonicalJson({ snaps, status: w.status, inbox: w.inbox, now: w.now, timers, faults: w.faults, monitors: w.monitors, failure: w.failure ?? null });
}

interface Reference {
  worlds: number;
  violations: Set<string>;
  quiescent: number;
  /** Two canonically different worlds with one fingerprint, if any. */
  collision?: string;
  /** Worlds where some machine remembers a configuration in a history value. */
  withHistory: number;
}

/** Breadth-first search keyed by the canonical serialisation (no fingerprints, no memo). */
function referenceSearch(sc: Scenario): Reference {
  const h = new WorldHasher(sc, false);
  const init = initialWorld(sc, { detail: false }).world;
  const seen = new Map<string, World>([[canonical(sc, init), init]]);
  const byFp = new Map<string, string>();
  const violations = new Set<string>();
  let quiescent = 0;
  let withHistory = 0;
  let collision: string | undefined;
  const queue: World[] = [init];
  for (let i = 0; i < queue.length; i++) {
    const w = queue[i]!;
    const key = canonical(sc, w);
    const fp = fpHex(h.fp(w));
    const other = byFp.get(fp);
    if (other !== undefined && other !== key) collision ??= `${other}\n  vs\n${key}`;
    byFp.set(fp, key);
    if (w.snaps.some((s) => Object.keys((s as { historyValue?: object })?.historyValue ?? {}).length > 0)) withHistory++;
    const steps = enabled(sc, w);
    if (isQuiescent(steps)) quiescent++;
    for (const t of steps) {
      const r = apply(sc, w, t, { detail: false });
      const v = stepViolation(sc, r.world, r.events);
      if (v) violations.add(`${v.kind}:${v.name}`);
      const k = canonical(sc, r.world);
      if (!seen.has(k)) {
        seen.set(k, r.world);
        queue.push(r.world);
      }
    }
  }
  return { worlds: seen.size, violations, quiescent, withHistory, ...(collision ? { collision } : {}) };
}

describe('fingerprint completeness on random machines', () => {
  it('the regression model: fingerprints separate every canonically distinct world', () => {
    const ref = referenceSearch(historyModel());
    expect(ref.collision).toBeUndefined();
  });

  it('hierarchy, parallel regions, shallow and deep history, guards and after: same worlds, same violations as a canonical-keyed search', async () => {
    let histories = 0;
    let violating = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const sc = randomMachineSystem(seed);
      const ref = referenceSearch(sc);
      expect(ref.collision, `seed ${seed}`).toBeUndefined();
      for (const por of [false, true]) {
        const found = new Set<string>();
        let quiescent = 0;
        const r = await check(sc, {
          strategy: 'bfs',
          por,
          shrink: false,
          inspect: {
            violation: (p) => {
              found.add(`${p.kind}:${p.name}`);
              return true;
            },
            quiescent: () => quiescent++,
          },
        });
        expect(r.stats.distinctStates, `seed ${seed} por=${por}`).toBe(ref.worlds);
        expect([...found].sort(), `seed ${seed} por=${por}`).toEqual([...ref.violations].sort());
        expect(quiescent, `seed ${seed} por=${por}`).toBe(ref.quiescent);
      }
      if (ref.violations.size > 0) violating++;
      // The sample must exercise history: some world remembers a configuration.
      if (ref.withHistory > 0) histories++;
    }
    expect(histories).toBeGreaterThan(12);
    expect(violating).toBeGreaterThan(0);
  });
});

