// A read-only view of a world for properties, monitors and reports.
//
// A class rather than an object of closures: the checker builds one per step (for
// monitors and invariants), and allocating a view's closures (each renamed by the
// loader's keepNames helper under tsx) per step costs a visible share of a check.
import type { AnyMachineSnapshot } from 'xstate';
import { ModelError } from './model-error.ts';
import { isMachineSnapshot, type ActorMap, type Scenario, type WorldQuery } from './scenario.ts';
import { stateValueProblem } from './state-values.ts';
import type { ActorId, Message, World } from './types.ts';

class Query implements WorldQuery {
  readonly now: number;
  constructor(
    private readonly sc: Scenario,
    readonly world: World,
  ) {
    this.now = world.now;
  }

  private at(id: ActorId): number {
    const i = this.sc.index.get(id);
    if (i === undefined) throw new ModelError(`unknown actor '${String(id)}'; the actors of scenario '${this.sc.name}' are ${this.sc.ids.map((x) => `'${x}'`).join(', ')}`, { actor: String(id) });
    return i;
  }

  snapshot(id: ActorId): any {
    return this.world.snaps[this.at(id)];
  }

  context(id: ActorId): any {
    const s = this.world.snaps[this.at(id)];
    return isMachineSnapshot(s) ? s.context : s;
  }

  value(id: ActorId): unknown {
    const s = this.world.snaps[this.at(id)];
    return isMachineSnapshot(s) ? s.value : undefined;
  }

  matches(id: ActorId, state: any): boolean {
    const s = this.world.snaps[this.at(id)];
    if (!isMachineSnapshot(s)) throw new ModelError(`matches('${id}', ${JSON.stringify(state)}): '${id}' is not a state machine (it has no states); read it with q.context('${id}')`, { actor: id, value: state });
    const problem = stateValueProblem((s as AnyMachineSnapshot).machine, state);
    if (problem) throw new ModelError(`matches('${id}', ${JSON.stringify(state)}): ${problem}, so the test could never be true`, { actor: id, value: state });
    return (s as AnyMachineSnapshot).matches(state);
  }

  status(id: ActorId): World['status'][number] {
    return this.world.status[this.at(id)]!;
  }

  pending(to: ActorId, from?: ActorId): readonly Message[] {
    const chs = this.world.inbox[this.at(to)]!;
    if (from === undefined) return chs.flatMap((c) => c.queue as Message[]);
    const f = from === 'env' ? this.sc.envIndex : this.at(from);
    return chs.find((c) => c.from === f)?.queue ?? [];
  }

  idle(): boolean {
    return this.world.timers.length === 0 && this.world.inbox.every((c) => c.length === 0);
  }
}

/**
 * A read-only view of a world (as properties get it), for inspecting a world returned by
 * replay, simulation or a live run. Typed like the scenario's own predicates.
 */
export function queryOf<A extends ActorMap = any>(sc: Scenario<A>, world: World): WorldQuery<A> {
  return new Query(sc as unknown as Scenario, world) as unknown as WorldQuery<A>;
}
