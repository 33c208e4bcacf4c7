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
// Those decisions are SwarmCoordinator's (swarm-coordinator.ts); this file runs the threads.
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
import { SwarmCoordinator, type FromWorker, type Outgoing } from './swarm-coordinator.ts';
import { SLICE_MS, yieldToLoop, type Session } from '../search/session.ts';
import type { CheckOptions, Progress, ScenarioSource } from '../types.ts';

/**
 * Each worker's young generation (MB). A run's worlds die young, but with V8's default for
 * a worker enough of them outlive a scavenge to be promoted, and the old generation then
 * grows and is marked over and over: 10-17% more CPU, and more memory, than with this
 * (docs/measurements.md).
 */
export const WORKER_YOUNG_MB = 64;

export interface SwarmHandle {
  readonly done: Promise<{ options: Record<string, unknown> }>;
  stop(): void;
}

export interface WorkerInit {
  source: ScenarioSource;
  scenarioName: string;
  initialFp: string;
  cfg: SampleConfig;
  runs: number;
  first: number;
  stride: number;
  opts: { maxStates?: number; timeLimitMs?: number; symmetry: boolean };
  /** When the coordinator created the thread, in ms since the epoch (`performance.timeOrigin + performance.now()`). */
  createdAt: number;
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
    const cores = availableParallelism();
    if (wanted > cores) {
      options.workersNote = `${wanted} worker threads on ${cores} cores take turns on them: more workers than cores rarely run faster, and each adds its start-up (by default there is one a core)`;
    }
    const fp = initialFingerprint(sc, symmetry);
    const workers: Worker[] = [];
    // Which block goes to whom, the lowest failing run, each worker's counts and start-up.
    const coord = new SwarmCoordinator(new SwarmBlocks(runs, shard.index, shard.count, wanted), wanted);
    const post = (out: Outgoing[]) => {
      for (const o of out) workers[o.to]?.postMessage(o.msg);
    };
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
          createdAt: performance.timeOrigin + performance.now(),
        };
        const worker = new Worker(new URL('./swarm-boot.mjs', import.meta.url), { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
        workers[w] = worker;
        worker.on('message', (m: FromWorker) => {
          post(coord.receive(w, m));
          if (coord.cutBy) s.cutBy ??= coord.cutBy;
        });
        worker.on('error', (e) => {
          coord.fail(e instanceof Error ? e.message : String(e));
          resolve();
        });
        worker.on('exit', () => resolve());
      }),
    );
    stopAll = () => post(coord.stop());
    if (stopped) stopAll();
    const sum = () => {
      const t = coord.totals;
      s.states = t.states;
      s.transitions = t.transitions;
      s.runs = t.runs;
      s.extraDistinct = t.distinct;
      s.maxDepth = t.maxDepth;
    };
    const timer = setInterval(() => {
      sum();
      progress.next(s.progress());
    }, SLICE_MS * 4);
    await Promise.all(finished);
    clearInterval(timer);
    sum();
    progress.next(s.progress());
    const best = coord.best;
    if (coord.failure && !best) throw new Error(`swarm worker failed: ${coord.failure}`);
    options.workerBlocks = [...coord.blocks];
    if (cfg.countDistinct) options.distinctStatesNote = 'distinct states are counted per worker and summed';
    if (coord.startupMs) options.workerStartupMs = coord.startupMs;
    if (best) s.found = { property: best.property, schedule: best.schedule, seed: best.seed };
    else {
      s.cutBy ??= 'runs';
      // A reachable is unreached when no worker reached it.
      s.reach.restrictTo(coord.unreached);
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
