// A swarm worker thread: rebuilds the scenario from its source, checks it matches
// the coordinator's (same initial fingerprint), runs the blocks of run indices the
// coordinator hands it and reports progress, the failing run (if any) and what it
// reached. See distributed/swarm.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { initialWorld } from '../../actors/index.ts';
import { Sampler } from '../search/sample.ts';
import { SLICE_MS, Session, yieldToLoop } from '../search/session.ts';
import { initialFingerprint, type WorkerInit } from './swarm.ts';
import type { FromWorker, ToWorker } from './swarm-coordinator.ts';
import { resolveSource } from '../resolve-source.ts';

const init = workerData as WorkerInit;
const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);

async function main(): Promise<void> {
  const sc = await resolveSource(init.source);
  if (sc.name !== init.scenarioName) throw new Error(`source built scenario '${sc.name}', expected '${init.scenarioName}'`);
  const fp = initialFingerprint(sc, init.opts.symmetry);
  if (fp !== init.initialFp) throw new Error(`the rebuilt scenario '${sc.name}' starts from a different world than the coordinator's (check its parameters; an initial context or entry action that reads a clock, randomness or module state differs too)`);
  // Thread created to here: the worker's start-up (module load and scenario build), reported
  // once. Absolute times: a Node 20 worker's performance.now() counts from the process's start.
  post({ type: 'ready', ms: performance.timeOrigin + performance.now() - init.createdAt });
  const s = new Session(sc, init.opts, false);
  // This thread imported the user's modules afresh: its initial world is re-built too, clocks shifted.
  s.determinism?.checkInitial(initialWorld(sc, { detail: false }).world);
  const sampler = new Sampler(s, init.cfg, init.runs, init.first, init.stride);
  // Nothing to run until the coordinator hands out a block.
  sampler.assign(init.first, init.first);
  let answer: ((b: { from: number; to: number }) => void) | undefined;
  port.on('message', (m: ToWorker) => {
    if (m.type === 'stop') s.stopped = true;
    if (m.type === 'bound') sampler.bound = Math.min(sampler.bound, m.index);
    if (m.type === 'block') answer?.(m);
  });
  const nextBlock = () =>
    new Promise<{ from: number; to: number }>((resolve) => {
      answer = resolve;
      post({ type: 'more' });
    });
  const stats = () => ({ states: s.states, transitions: s.transitions, runs: s.runs, distinct: s.visited.size, maxDepth: s.maxDepth });
  for (;;) {
    const fin = sampler.step(performance.now() + SLICE_MS);
    post({ type: 'progress', ...stats() });
    if (s.found) {
      post({ type: 'found', index: sampler.foundIndex, seed: s.found.seed!, property: s.found.property, schedule: s.found.schedule });
      // Keep going below the failing index: a lower one may fail too.
      sampler.bound = Math.min(sampler.bound, sampler.foundIndex - 1);
      s.found = undefined;
      s.cutBy = undefined;
      continue;
    }
    if (fin) {
      // Out of budget or stopped: done. Its block finished: ask for the next one.
      if (s.cutBy !== undefined && s.cutBy !== 'runs') break;
      const b = await nextBlock();
      if (b.to <= b.from) break;
      s.cutBy = undefined;
      sampler.assign(b.from, b.to);
      continue;
    }
    await yieldToLoop();
  }
  post({ type: 'done', ...stats(), unreached: s.reach.unreached(), ...(s.cutBy && s.cutBy !== 'runs' ? { cutBy: s.cutBy } : {}) });
}

main().then(
  () => port.close(),
  (e) => {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
    port.close();
  },
);
