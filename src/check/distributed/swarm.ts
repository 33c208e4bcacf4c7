// Swarm: many random/pct runs over worker threads. Run i always draws from
// deriveSeed(root, i), whichever worker or shard runs it, so a failing run replays
// alone. `shard {index, count}` keeps the run indices i with i % count == index,
// so n machines (a CI matrix, Kubernetes indexed jobs) cover disjoint slices with no
// coordinator. Within a shard, workers take blocks of those indices from the
// coordinator as they finish their last one (blocks shrink toward the end), so runs of
// uneven length do not leave one thread idle while another finishes. Blocks are handed
// out in index order. When a run fails, every worker is told to skip indices above it
// but finish those below, and no further block is handed out (all lie above it), so the
// reported run is the lowest failing index: the result does not depend on thread timing.
//
// Scenarios hold functions and machines, so they cannot be sent to a thread; a
// worker rebuilds its scenario from a source (CheckOptions.source, resolve-source.ts):
// `{ module, export, params? }`, a module exporting a Scenario or a family (the CLI passes
// the user's './module.ts#export', or the bundled family's module); a function export is
// called with `args`. The worker checks that its rebuilt scenario starts from the same world
// fingerprint; without a source, or if it does not fit, the swarm runs in this thread
// (workers: 0), says so in result.options.swarmNote and warns on stderr.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Subject } from 'rxjs';
import { initialWorld, type Scenario } from '../../actors/index.ts';
import { WorldHasher, fpHex } from '../fingerprint/fingerprint.ts';
import { Sampler, type SampleConfig } from '../search/sample.ts';
import { SwarmBlocks } from './swarm-blocks.ts';
import { SLICE_MS, yieldToLoop, type Session } from '../search/session.ts';
import type { CheckOptions, Progress, PropertyRef, ScenarioSource } from '../types.ts';

export interface SwarmHandle {
  readonly done: Promise<{ options: Record<string, unknown> }>;
  stop(): void;
}

/** Messages between the coordinator and workers. */
export type ToWorker = { type: 'bound'; index: number } | { type: 'stop' } | { type: 'block'; from: number; to: number };
export type FromWorker =
  | { type: 'ready'; ms: number }
  | { type: 'more' }
  | { type: 'progress'; states: number; transitions: number; runs: number; distinct: number; maxDepth: number }
  | { type: 'found'; index: number; seed: number; property: PropertyRef; schedule: string[] }
  | { type: 'done'; states: number; transitions: number; runs: number; distinct: number; maxDepth: number; unreached: string[]; cutBy?: string }
  | { type: 'error'; message: string };

export interface WorkerInit {
  source: ScenarioSource;
  scenarioName: string;
  initialFp: string;
  cfg: SampleConfig;
  runs: number;
  first: number;
  stride: number;
  opts: { maxStates?: number; timeLimitMs?: number; symmetry: boolean };
}

export function initialFingerprint(sc: Scenario, symmetry: boolean): string {
  return fpHex(new WorldHasher(sc, symmetry).fp(initialWorld(sc, { detail: false }).world));
}

export function runSwarm(sc: Scenario, s: Session, cfg: SampleConfig, runs: number, opts: CheckOptions, progress: Subject<Progress>): SwarmHandle {
  let stopped = false;
  let stopAll: () => void = () => {};
  const shard = opts.shard ?? { index: 0, count: 1 };
  if (!Number.isInteger(shard.count) || shard.count < 1 || !Number.isInteger(shard.index) || shard.index < 0 || shard.index >= shard.count) {
    throw new Error(`shard must be index/count with 0 <= index < count, got ${shard.index}/${shard.count}`);
  }
  const done = (async () => {
    const options: Record<string, unknown> = { shard: `${shard.index}/${shard.count}` };
    const symmetry = opts.symmetry ?? (sc.symmetry?.length ?? 0) > 0;
    const wanted = opts.workers ?? availableParallelism();
    const source = wanted > 0 ? opts.source : undefined;
    if (wanted > 0 && !source) {
      options.swarmNote = `no scenario source for '${sc.name}': worker threads cannot rebuild it, so the swarm ran in this thread; pass options.source ({ module, export, params }) or check it with 'interleave check ./module#export'`;
      // Say it where a user sees it, not only in result.options.
      process.emitWarning(options.swarmNote as string, { code: 'INTERLEAVE_SWARM_ONE_THREAD' });
    }
    if (!source || wanted === 0) {
      options.workers = 0;
      const sampler = new Sampler(s, cfg, runs, shard.index, shard.count);
      stopAll = () => (s.stopped = true);
      for (;;) {
        const fin = sampler.step(performance.now() + SLICE_MS);
        progress.next(s.progress());
        if (fin) break;
        await yieldToLoop();
      }
      return { options };
    }
    options.workers = wanted;
    options.source = source;
    const fp = initialFingerprint(sc, symmetry);
    const per: { states: number; transitions: number; runs: number; distinct: number; maxDepth: number }[] = [];
    const unreachedBy: string[][] = [];
    let best: Extract<FromWorker, { type: 'found' }> | undefined;
    let failure: string | undefined;
    const workers: Worker[] = [];
    // Each worker's start-up: thread start to its scenario rebuilt and checked (module load and scenario build).
    const startup: number[] = [];
    const dealer = new SwarmBlocks(runs, shard.index, shard.count, wanted);
    const blocks: number[] = Array.from({ length: wanted }, () => 0);
    const finished = Array.from({ length: wanted }, (_, w) =>
      new Promise<void>((resolve) => {
        const init: WorkerInit = {
          source,
          scenarioName: sc.name,
          initialFp: fp,
          cfg,
          runs,
          first: shard.index,
          stride: shard.count,
          opts: { ...(opts.maxStates !== undefined ? { maxStates: opts.maxStates } : {}), ...(opts.timeLimitMs !== undefined ? { timeLimitMs: opts.timeLimitMs } : {}), symmetry },
        };
        const worker = new Worker(new URL('./swarm-boot.mjs', import.meta.url), { workerData: init });
        workers.push(worker);
        per[w] = { states: 0, transitions: 0, runs: 0, distinct: 0, maxDepth: 0 };
        worker.on('message', (m: FromWorker) => {
          if (m.type === 'ready') startup[w] = m.ms;
          if (m.type === 'more') {
            // After a failure every block left lies above it; after stop() none is wanted.
            const b = best || stopped ? undefined : dealer.take();
            if (b) blocks[w]!++;
            worker.postMessage({ type: 'block', from: b?.from ?? 0, to: b?.to ?? 0 } satisfies ToWorker);
          }
          if (m.type === 'progress' || m.type === 'done') per[w] = { states: m.states, transitions: m.transitions, runs: m.runs, distinct: m.distinct, maxDepth: m.maxDepth };
          if (m.type === 'found' && (!best || m.index < best.index)) {
            best = m;
            for (const o of workers) o.postMessage({ type: 'bound', index: m.index } satisfies ToWorker);
          }
          if (m.type === 'done') {
            unreachedBy.push(m.unreached);
            if (m.cutBy === 'timeLimit' || m.cutBy === 'maxStates' || m.cutBy === 'stopped') s.cutBy ??= m.cutBy;
          }
          if (m.type === 'error') failure ??= m.message;
        });
        worker.on('error', (e) => {
          failure ??= e instanceof Error ? e.message : String(e);
          resolve();
        });
        worker.on('exit', () => resolve());
      }),
    );
    stopAll = () => {
      for (const o of workers) o.postMessage({ type: 'stop' } satisfies ToWorker);
    };
    if (stopped) stopAll();
    const sum = () => {
      s.states = per.reduce((a, p) => a + (p?.states ?? 0), 0);
      s.transitions = per.reduce((a, p) => a + (p?.transitions ?? 0), 0);
      s.runs = per.reduce((a, p) => a + (p?.runs ?? 0), 0);
      s.extraDistinct = per.reduce((a, p) => a + (p?.distinct ?? 0), 0);
      s.maxDepth = per.reduce((a, p) => Math.max(a, p?.maxDepth ?? 0), 0);
    };
    const timer = setInterval(() => {
      sum();
      progress.next(s.progress());
    }, SLICE_MS * 4);
    await Promise.all(finished);
    clearInterval(timer);
    sum();
    progress.next(s.progress());
    if (failure && !best) throw new Error(`swarm worker failed: ${failure}`);
    options.workerBlocks = blocks;
    if (cfg.countDistinct) options.distinctStatesNote = 'distinct states are counted per worker and summed';
    if (startup.length > 0) {
      const ms = startup.filter((x) => x !== undefined);
      options.workerStartupMs = { mean: Math.round(ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length)), max: Math.round(Math.max(...ms)) };
    }
    if (best) s.found = { property: best.property, schedule: best.schedule, seed: best.seed };
    else {
      s.cutBy ??= 'runs';
      // A reachable is unreached when no worker reached it.
      const all = unreachedBy.length ? unreachedBy.reduce((a, b) => a.filter((x) => b.includes(x))) : [];
      s.reach.restrictTo(all);
    }
    if (best) options.failingRun = best.index;
    if (stopped) s.cutBy = 'stopped';
    return { options };
  })();
  return {
    done,
    stop() {
      stopped = true;
      stopAll();
    },
  };
}
