// The swarm coordinator's state and decisions, apart from the threads that carry its
// messages, so that every order the messages may arrive in can be tested. runSwarm
// (swarm.ts) feeds it each worker's messages and posts what it returns.
import type { PropertyRef } from '../types.ts';
import type { SwarmBlocks } from './swarm-blocks.ts';

/** Messages between the coordinator and workers. */
export type ToWorker = { type: 'bound'; index: number } | { type: 'stop' } | { type: 'block'; from: number; to: number };
export type FromWorker =
  | { type: 'ready'; ms: number }
  | { type: 'more' }
  | { type: 'progress'; states: number; transitions: number; runs: number; distinct: number; maxDepth: number }
  | { type: 'found'; index: number; seed: number; property: PropertyRef; schedule: string[] }
  | { type: 'done'; states: number; transitions: number; runs: number; distinct: number; maxDepth: number; unreached: string[]; cutBy?: string }
  | { type: 'error'; message: string };

/** A message for one worker (by its number). */
export interface Outgoing {
  to: number;
  msg: ToWorker;
}

/** One worker's last reported counts. */
export interface WorkerStats {
  states: number;
  transitions: number;
  runs: number;
  distinct: number;
  maxDepth: number;
}

export type SwarmFound = Extract<FromWorker, { type: 'found' }>;

/**
 * Keeps the lowest failing run reported, hands out blocks of run indices until a run
 * fails or the swarm is stopped, tells every worker the bound, and collects each worker's
 * counts, start-up time and unreached goals.
 */
export class SwarmCoordinator {
  private found: SwarmFound | undefined;
  private error: string | undefined;
  private stopped = false;
  private cut: 'timeLimit' | 'maxStates' | 'stopped' | undefined;
  private readonly per: WorkerStats[];
  private readonly unreachedBy: string[][] = [];
  private readonly readyMs: number[] = [];
  private readonly taken: number[];

  constructor(
    private readonly dealer: SwarmBlocks,
    /** How many workers there are, numbered 0 to workers - 1. */
    readonly workers: number,
  ) {
    this.per = Array.from({ length: workers }, () => ({ states: 0, transitions: 0, runs: 0, distinct: 0, maxDepth: 0 }));
    this.taken = Array.from({ length: workers }, () => 0);
  }

  /** Takes one message from worker `w`; returns the messages to post in reply. */
  receive(w: number, m: FromWorker): Outgoing[] {
    if (w < 0 || w >= this.workers || !Number.isInteger(w)) throw new Error(`swarm worker ${w} is not one of 0..${this.workers - 1}`);
    switch (m.type) {
      case 'ready':
        this.readyMs[w] = m.ms;
        return [];
      case 'more': {
        // After a failure every block left lies above it; after stop() none is wanted.
        const b = this.found || this.stopped ? undefined : this.dealer.take();
        if (b) this.taken[w]!++;
        return [{ to: w, msg: { type: 'block', from: b?.from ?? 0, to: b?.to ?? 0 } }];
      }
      case 'progress':
        this.per[w] = { states: m.states, transitions: m.transitions, runs: m.runs, distinct: m.distinct, maxDepth: m.maxDepth };
        return [];
      case 'found':
        if (this.found && m.index >= this.found.index) return [];
        this.found = m;
        return this.toAll({ type: 'bound', index: m.index });
      case 'done':
        this.per[w] = { states: m.states, transitions: m.transitions, runs: m.runs, distinct: m.distinct, maxDepth: m.maxDepth };
        this.unreachedBy.push(m.unreached);
        if (m.cutBy === 'timeLimit' || m.cutBy === 'maxStates' || m.cutBy === 'stopped') this.cut ??= m.cutBy;
        return [];
      case 'error':
        this.error ??= m.message;
        return [];
    }
  }

  /** A worker thread failed outside its messages (its 'error' event): the first failure is kept. */
  fail(message: string): void {
    this.error ??= message;
  }

  /** Stops the swarm: no block is handed out from now on; returns the stop message for every worker. */
  stop(): Outgoing[] {
    this.stopped = true;
    return this.toAll({ type: 'stop' });
  }

  /** The lowest failing run reported so far. */
  get best(): SwarmFound | undefined {
    return this.found;
  }

  /** The first error a worker reported. */
  get failure(): string | undefined {
    return this.error;
  }

  /** The first limit a finished worker was cut by (time, states, or stopped). */
  get cutBy(): 'timeLimit' | 'maxStates' | 'stopped' | undefined {
    return this.cut;
  }

  /** Each worker's last reported counts. */
  get stats(): readonly Readonly<WorkerStats>[] {
    return this.per;
  }

  /** The counts of all workers: sums, and the deepest run. */
  get totals(): WorkerStats {
    const t = { states: 0, transitions: 0, runs: 0, distinct: 0, maxDepth: 0 };
    for (const p of this.per) {
      t.states += p.states;
      t.transitions += p.transitions;
      t.runs += p.runs;
      t.distinct += p.distinct;
      t.maxDepth = Math.max(t.maxDepth, p.maxDepth);
    }
    return t;
  }

  /** How many non-empty blocks each worker was handed. */
  get blocks(): readonly number[] {
    return this.taken;
  }

  /** Reachable goals no finished worker reached: the intersection of the finished workers' lists (none when none finished). */
  get unreached(): string[] {
    return this.unreachedBy.length ? this.unreachedBy.reduce((a, b) => a.filter((x) => b.includes(x))) : [];
  }

  /** Each worker's start-up in ms (thread start to its scenario rebuilt), undefined until it is ready. */
  get startup(): readonly (number | undefined)[] {
    return Array.from({ length: this.workers }, (_, w) => this.readyMs[w]);
  }

  /** Mean and largest start-up of the workers that got ready, or undefined when none did. */
  get startupMs(): { mean: number; max: number } | undefined {
    const ms = this.readyMs.filter((x) => x !== undefined);
    if (ms.length === 0) return undefined;
    return { mean: Math.round(ms.reduce((a, b) => a + b, 0) / ms.length), max: Math.round(Math.max(...ms)) };
  }

  private toAll(msg: ToWorker): Outgoing[] {
    return Array.from({ length: this.workers }, (_, to) => ({ to, msg }));
  }
}
