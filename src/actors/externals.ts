// Swapping a scenario's modelled actors (a simulated store, say) for external
// ones, so the scenario that was checked runs live against real I/O unchanged.
import { ScenarioError, defineScenario, type ActorLogic, type ActorSpec, type Scenario } from './scenario.ts';
import type { Message } from './types.ts';

/** One message an external handler sends back: to whom, and what. */
export interface Reply {
  /** The receiver (usually the sender of the handled message). */
  readonly to: string;
  /** The reply message. */
  readonly msg: Message;
}

/** Does the work of an external actor: gets each message delivered to it, returns the replies. */
export type ExternalHandler = (msg: Message, from: string) => Promise<readonly Reply[]> | readonly Reply[];

/** The scenario with the named actors swapped for external ones (those already external stay). */
export function withExternals(sc: Scenario, ids: readonly string[]): Scenario {
  const swap = ids.filter((id) => {
    const i = sc.index.get(id);
    if (i === undefined) throw new ScenarioError(`live run of '${sc.name}': options.externals names '${id}', which is not an actor; actors: ${sc.ids.join(', ')}`);
    return sc.actorList[i]!.kind !== 'external';
  });
  if (swap.length === 0) return sc;
  const actors: Record<string, ActorLogic | ActorSpec> = { ...sc.actors };
  for (const id of swap) {
    const old = actors[id]!;
    const parent = typeof old === 'object' && 'logic' in old ? old.parent : undefined;
    actors[id] = parent === undefined ? { kind: 'external', describe: `live '${id}'` } : { logic: { kind: 'external', describe: `live '${id}'` }, parent };
  }
  // Faults belong to the model; a live run takes none, so drop ones naming swapped actors.
  let faults: Record<string, unknown> | undefined;
  if (sc.faults) {
    faults = { ...sc.faults };
    for (const k of ['crash', 'restart', 'outcomes'] as const) {
      const list = sc.faults[k];
      if (list) faults[k] = list.filter((a) => !swap.includes(a));
    }
    if (sc.faults.drop) faults.drop = sc.faults.drop.filter(([f, t]) => !swap.includes(f) && !swap.includes(t));
  }
  const { compiled: _c, ids: _i, index: _x, actorList: _l, envIndex: _e, budget: _b, crashable: _cr, restartable: _r, ...def } = sc as Scenario & Record<string, unknown>;
  const keep: Record<string, unknown> = {};
  for (const k of ['name', 'description', 'start', 'unhandled', 'timers', 'invariants', 'monitors', 'atEnd', 'reachable', 'acceptEnd', 'symmetry', 'params'] as const) {
    if ((def as Record<string, unknown>)[k] !== undefined) keep[k] = (def as Record<string, unknown>)[k];
  }
  return defineScenario({ ...(keep as { name: string }), actors, ...(faults ? { faults } : {}) });
}

/** The fields `defineScenario` adds to a definition: dropped before defining a changed copy. */
const COMPILED = new Set(['compiled', 'ids', 'index', 'actorList', 'envIndex', 'budget', 'crashable', 'restartable', 'droppable', 'faultyOutcomes', 'monitorNames', 'monitorDefs', 'inputList', 'inputSlots']);

/**
 * The scenario with the named actors starting from other inputs (a live run's storage
 * contents, recorded at its start): `inputs` maps an actor id to the input its machine's
 * `context` factory or reducer's `init` gets instead of the scenario's. Every other part
 * of the definition is kept.
 */
export function withInputs(sc: Scenario, inputs: Readonly<Record<string, unknown>>): Scenario {
  const ids = Object.keys(inputs);
  if (ids.length === 0) return sc;
  const actors: Record<string, ActorLogic | ActorSpec> = { ...sc.actors };
  for (const id of ids) {
    const old = actors[id];
    if (old === undefined) throw new ScenarioError(`scenario '${sc.name}' has no actor '${id}' to start from a recorded input; actors: ${sc.ids.join(', ')}`);
    const spec: ActorSpec = typeof old === 'object' && 'logic' in old ? old : { logic: old };
    actors[id] = { ...spec, input: inputs[id] };
  }
  const def: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sc)) if (!COMPILED.has(k)) def[k] = v;
  return defineScenario({ ...(def as { name: string }), actors });
}
