// Assembles the actors of one replica into a scenario: W workers (each with its
// arrangement), the blocking pool, the peek stash (src/storage), the client and
// aggregator, and, for simulations, the operator workload.
import { defineScenario, type Scenario } from '../../actors/index.ts';
import type { Message } from '../../actors/types.ts';
import { peekStash } from '../../storage/stash.ts';
import type { StashOptions } from '../../storage/messages.ts';
import { clientMachine, type ClientInput } from './client.ts';
import { poolMachine } from './pool.ts';
import { materializeLegend } from './legend.ts';
import { atEnd, invariants, monitors } from './properties.ts';
import { workerMachine } from './worker.ts';
import { workloadMachine, type Cycle } from './workload.ts';
import { CLIENT, POOL, STASH, WORKLOAD, workerId, type Arrangement, type WorkerConfig } from './types.ts';
import type { ClientCtx } from './client.ts';
import type { Predicate } from '../../actors/scenario.ts';

/** One materialize-peeks setup: the workers' configuration and arrangements, the client, the environment's messages, the stash and the properties to check (`buildMaterialize` makes the scenario). */
export interface Setup {
  /** The scenario's name. */
  readonly name: string;
  /** One line on what it shows. */
  readonly description?: string;
  /** The workers' configuration (count, peek design, caps, stash). */
  readonly cfg: WorkerConfig;
  /** One arrangement per worker. */
  readonly traces: readonly Arrangement[];
  /** The client's input (its peeks), without the worker list (filled in). */
  readonly client: Omit<ClientInput, 'workers'>;
  /** Messages from outside, in flight from the start; the checker delivers each at any point (FIFO per channel). */
  readonly env?: readonly {
    /** The receiving actor. */
    readonly to: string;
    /** The message. */
    readonly msg: Message;
  }[];
  /** Operator workload (simulation fixtures). */
  readonly cycles?: readonly Cycle[];
  /** The peek response stash's options. */
  readonly stash?: StashOptions;
  /** Fault budget (stash upload failures). */
  readonly faults?: number;
  /** Check invariants and monitors (default true). Long simulations may turn them off. */
  readonly properties?: boolean;
  /** Include the resource form of invariant 3 (default true). */
  readonly resourceForm?: boolean;
  /** Extra `atEnd` properties (checked where runs end), by name. */
  readonly extraEventually?: Readonly<Record<string, Predicate>>;
  /** Extra invariants, by name. */
  readonly extraInvariants?: Readonly<Record<string, Predicate>>;
  /** `reachable` goals, by name (see `ScenarioDef.reachable`). */
  readonly reachable?: Readonly<Record<string, Predicate>>;
  /** The parameters recorded in traces. */
  readonly params?: Readonly<Record<string, unknown>>;
}

/** The materialize-peeks scenario of a setup: the workers, their arrangements, the client, the stash, and the properties. */
export function buildScenario(s: Setup): Scenario {
  const W = s.cfg.workers;
  if (s.traces.length !== W) throw new Error(`setup '${s.name}': ${W} workers need ${W} arrangements, got ${s.traces.length}`);
  const actors: Record<string, any> = {};
  for (let w = 0; w < W; w++) actors[workerId(w)] = { logic: workerMachine, input: { w, cfg: s.cfg, trace: s.traces[w] } };
  actors[POOL] = { logic: poolMachine, input: { workers: W, slotRelease: s.cfg.slotRelease } };
  actors[STASH] = { logic: peekStash(s.stash ?? {}) };
  actors[CLIENT] = { logic: clientMachine, input: { ...s.client, workers: W } };
  const start: { to: string; msg: Message }[] = [{ to: CLIENT, msg: { type: 'Start' } }];
  if (s.cycles && s.cycles.length > 0) {
    actors[WORKLOAD] = { logic: workloadMachine, input: { cycles: s.cycles } };
    start.push({ to: WORKLOAD, msg: { type: 'Start' } });
  }
  for (const e of s.env ?? []) start.push({ to: e.to, msg: e.msg });
  const props = s.properties ?? true;
  return defineScenario({
    name: s.name,
    description: s.description ?? 'fast-path index peeks on W timely workers, walked inline or on the blocking pool (Materialize #38429)',
    actors,
    start,
    faults: { budget: s.faults ?? 0, outcomes: [STASH] },
    unhandled: 'error',
    invariants: props ? { ...invariants(W, { resourceForm: s.resourceForm ?? true }), ...(s.extraInvariants ?? {}) } : {},
    monitors: props ? monitors() : {},
    atEnd: props ? { ...atEnd(W), ...(s.extraEventually ?? {}) } : {},
    ...(s.reachable ? { reachable: s.reachable } : {}),
    acceptEnd: (q) => {
      const c = q.context(CLIENT) as ClientCtx;
      if (Object.keys(c.open).length > 0) return `peeks still open: ${Object.keys(c.open).join(', ')}`;
      for (let w = 0; w < W; w++) if (!q.matches(workerId(w), 'parked')) return `w${w} is not parked`;
      return true;
    },
    params: s.params ?? {},
    legend: materializeLegend(W),
  });
}
