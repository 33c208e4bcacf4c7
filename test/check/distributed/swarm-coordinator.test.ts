// The swarm coordinator reports the lowest failing run whatever order its workers'
// messages arrive in. Worker threads happen to deliver the lowest failure first, so the
// threaded tests (test/check/search/swarm-blocks.test.ts) cannot tell; here seeded
// interleavings of simulated workers (the protocol of swarm-worker.ts) drive the
// coordinator, and every message it posts is checked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SwarmBlocks } from '../../../src/check/distributed/swarm-blocks.ts';
import type { PropertyRef } from '../../../src/check/types.ts';
import { SwarmCoordinator, type FromWorker, type Outgoing, type ToWorker } from '../../../src/check/distributed/swarm-coordinator.ts';

const property: PropertyRef = { kind: 'invariant', name: 'bad', message: 'bad world' };
const found = (index: number): FromWorker => ({ type: 'found', index, seed: index * 7, property, schedule: [`run ${index}`] });

// Mulberry32: the interleaving's choices, from one seed.
function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) >>> 0;
  };
}

interface Sim {
  runs: number;
  first: number;
  stride: number;
  workers: number;
  failing: Set<number>;
  goals: string[][];
  stopAt: number | undefined;
  /** Each worker's weight in the choice of what happens next: how fast it runs and talks. */
  speeds: number[];
  seed: number;
}

/** A worker as swarm-worker.ts runs it: ask for a block, run its indices in order up to its bound, report. */
class FakeWorker {
  phase: 'start' | 'running' | 'waiting' | 'exited' = 'start';
  inbox: ToWorker[] = [];
  outbox: FromWorker[] = [];
  ran: number[] = [];
  private i: number;
  private end: number;
  private bound = Infinity;
  private stopped = false;
  private stats = { states: 0, transitions: 0, runs: 0, distinct: 0, maxDepth: 0 };
  constructor(
    private readonly w: number,
    private readonly sim: Sim,
  ) {
    this.i = this.end = sim.first;
  }

  /** One slice of work: one run, or the end of the block (ask for more, or finish when stopped). */
  step(): void {
    const { sim } = this;
    if (this.phase === 'start') {
      this.outbox.push({ type: 'ready', ms: 10 + this.w });
      this.phase = 'running';
      return;
    }
    if (this.i >= sim.runs || this.i >= this.end || this.i > this.bound) {
      this.outbox.push({ type: 'progress', ...this.stats });
      this.outbox.push({ type: 'more' });
      this.phase = 'waiting';
      return;
    }
    if (this.stopped) return this.finish('stopped');
    const i = this.i;
    this.ran.push(i);
    this.i += sim.stride;
    this.stats.runs++;
    this.stats.states += 1 + (i % 5);
    this.stats.transitions += i % 5;
    this.stats.distinct += i % 3;
    this.stats.maxDepth = Math.max(this.stats.maxDepth, i % 5);
    this.outbox.push({ type: 'progress', ...this.stats });
    if (sim.failing.has(i)) {
      this.outbox.push(found(i));
      // Keep going below the failing index: a lower one may fail too.
      this.bound = Math.min(this.bound, i - 1);
    }
  }

  deliver(m: ToWorker): void {
    if (m.type === 'stop') this.stopped = true;
    if (m.type === 'bound') this.bound = Math.min(this.bound, m.index);
    if (m.type === 'block' && this.phase === 'waiting') {
      if (m.to <= m.from) return this.finish(undefined);
      this.i = m.from;
      this.end = m.to;
      this.phase = 'running';
    }
  }

  private finish(cutBy: string | undefined): void {
    this.outbox.push({ type: 'done', ...this.stats, unreached: this.sim.goals[this.w]!, ...(cutBy ? { cutBy } : {}) });
    this.phase = 'exited';
  }
}

interface Received {
  w: number;
  m: FromWorker;
  out: Outgoing[];
  afterFound: boolean;
  afterStop: boolean;
}

/** Runs the swarm's message exchange in the interleaving sim.seed picks; returns the coordinator and what passed through it. */
function simulate(sim: Sim) {
  const coord = new SwarmCoordinator(new SwarmBlocks(sim.runs, sim.first, sim.stride, sim.workers), sim.workers);
  const workers = Array.from({ length: sim.workers }, (_, w) => new FakeWorker(w, sim));
  const pick = rng(sim.seed);
  const log: Received[] = [];
  const stopOut: Outgoing[] = [];
  let anyFound = false;
  let stopped = false;
  const post = (out: Outgoing[]) => {
    for (const o of out) {
      expect(o.to).toBeGreaterThanOrEqual(0);
      expect(o.to).toBeLessThan(sim.workers);
      workers[o.to]!.inbox.push(o.msg);
    }
  };
  for (let t = 0; ; t++) {
    if (t === sim.stopAt) {
      stopped = true;
      const out = coord.stop();
      stopOut.push(...out);
      post(out);
    }
    // Every action that could happen next: a worker's slice, a message to it, a message from it.
    const actions: (() => void)[] = [];
    workers.forEach((wk, w) => {
      // A fast worker's actions are listed more times, so they happen more often.
      for (let k = 0; k < sim.speeds[w]!; k++) {
        if (wk.phase === 'start' || wk.phase === 'running') actions.push(() => wk.step());
        if (wk.inbox.length) actions.push(() => wk.deliver(wk.inbox.shift()!));
      }
    });
    workers.forEach((wk, w) => {
      if (wk.outbox.length)
        actions.push(() => {
          const m = wk.outbox.shift()!;
          const entry = { w, m, afterFound: anyFound, afterStop: stopped };
          const out = coord.receive(w, m);
          log.push({ ...entry, out });
          if (m.type === 'found') anyFound = true;
          post(out);
        });
    });
    if (actions.length === 0) break;
    actions[pick(actions.length)]!();
  }
  return { coord, workers, log, stopOut };
}

const simArb = fc
  .record({
    workers: fc.integer({ min: 1, max: 4 }),
    runs: fc.integer({ min: 0, max: 300 }),
    count: fc.integer({ min: 1, max: 3 }),
    index: fc.nat(),
    // Failing runs as fractions of `runs`, so they fall inside it.
    failing: fc.array(fc.nat({ max: 999 }), { maxLength: 8 }),
    speeds: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 4, maxLength: 4 }),
    goals: fc.array(fc.subarray(['g0', 'g1', 'g2', 'g3']), { minLength: 4, maxLength: 4 }),
    stopAt: fc.option(fc.nat({ max: 400 }), { nil: undefined, freq: 4 }),
    seed: fc.integer(),
  })
  .map(
    (r): Sim => ({
      runs: r.runs,
      first: r.index % r.count,
      stride: r.count,
      workers: r.workers,
      failing: new Set(r.failing.map((f) => Math.floor((f * r.runs) / 1000))),
      goals: r.goals,
      stopAt: r.stopAt,
      speeds: r.speeds,
      seed: r.seed,
    }),
  );

/** The run indices of the shard. */
const shardIndices = (sim: Sim) => Array.from({ length: sim.runs }, (_, i) => i).filter((i) => i >= sim.first && i % sim.stride === sim.first);

/** How often the interleavings met the cases that matter, so the test shows it exercised them. */
const seen = { outOfOrder: 0, moreAfterFound: 0, moreAfterStop: 0 };

function checkRun(sim: Sim): void {
  const { coord, workers, log, stopOut } = simulate(sim);
  const failingInShard = shardIndices(sim).filter((i) => sim.failing.has(i));
  const reported = log.flatMap((e) => (e.m.type === 'found' ? [e.m.index] : []));
  const best = coord.best;
  if (reported.length > 1 && reported[0] !== Math.min(...reported)) seen.outOfOrder++;

  // The reported run is the lowest failing index reported, and, unless stopped, the lowest of the shard.
  const stopped = stopOut.length > 0;
  if (reported.length === 0) expect(best).toBeUndefined();
  else {
    expect(best?.index).toBe(Math.min(...reported));
    expect(best).toEqual(found(Math.min(...reported)));
  }
  if (!stopped) {
    expect(best?.index).toBe(failingInShard.length ? Math.min(...failingInShard) : undefined);
    // Every index below the failing one ran, once, somewhere; with no failure, every index did.
    const ran = workers.flatMap((wk) => wk.ran).sort((a, b) => a - b);
    expect(new Set(ran).size).toBe(ran.length);
    const limit = best ? best.index : Infinity;
    expect(ran.filter((i) => i <= limit)).toEqual(shardIndices(sim).filter((i) => i <= limit));
  }

  // Blocks: one reply per 'more', to its sender; none non-empty after a failure or stop.
  for (const e of log) {
    if (e.m.type !== 'more') continue;
    expect(e.out).toHaveLength(1);
    expect(e.out[0]!.to).toBe(e.w);
    const b = e.out[0]!.msg;
    expect(b.type).toBe('block');
    if (b.type !== 'block') continue;
    if (e.afterFound || e.afterStop) {
      expect({ after: e.afterFound ? 'found' : 'stop', size: b.to - b.from }).toEqual({ after: e.afterFound ? 'found' : 'stop', size: 0 });
      if (e.afterFound) seen.moreAfterFound++;
      else seen.moreAfterStop++;
    }
  }
  const given = log.flatMap((e) => e.out.flatMap((o) => (o.msg.type === 'block' && o.msg.to > o.msg.from ? [o.to] : [])));
  expect(coord.blocks).toEqual(Array.from({ length: sim.workers }, (_, w) => given.filter((x) => x === w).length));

  // 'bound' goes to every worker, each time a lower failure arrives: a decreasing sequence.
  const bounds: number[][] = Array.from({ length: sim.workers }, () => []);
  let lowest = Infinity;
  for (const e of log) {
    const bs = e.out.filter((o) => o.msg.type === 'bound');
    if (e.m.type === 'found' && e.m.index < lowest) {
      lowest = e.m.index;
      expect(bs.map((o) => o.to).sort()).toEqual(Array.from({ length: sim.workers }, (_, w) => w));
      expect(bs.every((o) => o.msg.type === 'bound' && o.msg.index === lowest)).toBe(true);
    } else expect(bs).toEqual([]);
    for (const o of bs) if (o.msg.type === 'bound') bounds[o.to]!.push(o.msg.index);
  }
  for (const seq of bounds) for (let k = 1; k < seq.length; k++) expect(seq[k]).toBeLessThanOrEqual(seq[k - 1]!);
  if (reported.length) for (const seq of bounds) expect(seq.at(-1)).toBe(best!.index);

  // stop() tells every worker, once.
  if (stopped) {
    expect(stopOut.map((o) => o.to).sort()).toEqual(Array.from({ length: sim.workers }, (_, w) => w));
    expect(stopOut.every((o) => o.msg.type === 'stop')).toBe(true);
  }

  // Unreached: what no finished worker reached, the intersection of their lists.
  const done = log.flatMap((e) => (e.m.type === 'done' ? [e.w] : []));
  expect(done.sort()).toEqual(Array.from({ length: sim.workers }, (_, w) => w));
  const lists = log.flatMap((e) => (e.m.type === 'done' ? [e.m.unreached] : []));
  expect(coord.unreached).toEqual(lists[0]!.filter((g) => lists.every((l) => l.includes(g))));

  // Each worker's counts are those of its last report; start-up from 'ready'.
  workers.forEach((_, w) => {
    const last = log.filter((e) => e.w === w && (e.m.type === 'progress' || e.m.type === 'done')).at(-1)!.m as Extract<FromWorker, { type: 'done' }>;
    expect(coord.stats[w]).toEqual({ states: last.states, transitions: last.transitions, runs: last.runs, distinct: last.distinct, maxDepth: last.maxDepth });
  });
  expect(coord.totals.runs).toBe(workers.reduce((a, wk) => a + wk.ran.length, 0));
  expect(coord.startup).toEqual(Array.from({ length: sim.workers }, (_, w) => 10 + w));
  const stoppedWorker = log.some((e) => e.m.type === 'done' && e.m.cutBy === 'stopped');
  expect(coord.cutBy).toBe(stoppedWorker ? 'stopped' : undefined);
}

describe('SwarmCoordinator', () => {
  it('reports the lowest failing run in every interleaving of the workers, hands out no block after a failure or stop', () => {
    Object.assign(seen, { outOfOrder: 0, moreAfterFound: 0, moreAfterStop: 0 });
    fc.assert(
      fc.property(simArb, (sim) => checkRun(sim)),
      { seed: 20261205, numRuns: 1000 },
    );
    // A higher failure arrived first in many interleavings; 'more' came after a failure, or after a stop, in many.
    expect(seen.outOfOrder).toBeGreaterThan(20);
    expect(seen.moreAfterFound).toBeGreaterThan(100);
    expect(seen.moreAfterStop).toBeGreaterThan(100);
  });

  it('keeps the lowest of failures arriving in any order from several workers', () => {
    // Raw 'found' messages, out of order, with 'more' requests between them.
    const arb = fc.record({
      workers: fc.integer({ min: 1, max: 5 }),
      reports: fc.array(fc.record({ w: fc.nat(), index: fc.nat({ max: 1000 }), more: fc.boolean() }), { minLength: 1, maxLength: 20 }),
    });
    fc.assert(
      fc.property(arb, ({ workers, reports }) => {
        const coord = new SwarmCoordinator(new SwarmBlocks(5000, 0, 1, workers), workers);
        let lowest = Infinity;
        for (const r of reports) {
          const w = r.w % workers;
          const out = coord.receive(w, found(r.index));
          if (r.index < lowest) {
            lowest = r.index;
            expect(out).toEqual(Array.from({ length: workers }, (_, to) => ({ to, msg: { type: 'bound', index: lowest } })));
          } else expect(out).toEqual([]);
          expect(coord.best?.index).toBe(lowest);
          if (r.more) expect(coord.receive(w, { type: 'more' })).toEqual([{ to: w, msg: { type: 'block', from: 0, to: 0 } }]);
        }
        expect(coord.blocks.every((n) => n === 0)).toBe(true);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('deals blocks in order until stopped, then none; keeps the first error', () => {
    const coord = new SwarmCoordinator(new SwarmBlocks(1000, 0, 1, 2), 2);
    expect(coord.receive(1, { type: 'more' })).toEqual([{ to: 1, msg: { type: 'block', from: 0, to: 125 } }]);
    expect(coord.receive(0, { type: 'more' })).toEqual([{ to: 0, msg: { type: 'block', from: 125, to: 235 } }]);
    expect(coord.stop()).toEqual([
      { to: 0, msg: { type: 'stop' } },
      { to: 1, msg: { type: 'stop' } },
    ]);
    expect(coord.receive(1, { type: 'more' })).toEqual([{ to: 1, msg: { type: 'block', from: 0, to: 0 } }]);
    expect(coord.blocks).toEqual([1, 1]);
    expect(coord.failure).toBeUndefined();
    coord.receive(0, { type: 'error', message: 'first' });
    coord.fail('second');
    coord.receive(1, { type: 'error', message: 'third' });
    expect(coord.failure).toBe('first');
    expect(coord.unreached).toEqual([]);
    expect(coord.startupMs).toBeUndefined();
    coord.receive(0, { type: 'ready', ms: 10 });
    coord.receive(1, { type: 'ready', ms: 21 });
    expect(coord.startupMs).toEqual({ mean: 16, max: 21 });
    expect(() => coord.receive(2, { type: 'more' })).toThrow(/swarm worker 2 is not one of 0..1/);
  });
});
