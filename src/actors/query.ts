// A read-only view of a world for properties, monitors and reports.
import type { AnyMachineSnapshot } from 'xstate';
import { ScenarioError, isMachineSnapshot, type Scenario, type WorldQuery } from './scenario.ts';
import type { ActorId, Message, World } from './types.ts';

export function queryOf(sc: Scenario, world: World): WorldQuery {
  const at = (id: ActorId): number => {
    const i = sc.index.get(id);
    if (i === undefined) throw new ScenarioError(`property asked for unknown actor '${id}'; known actors: ${sc.ids.join(', ')}`);
    return i;
  };
  return {
    world,
    now: world.now,
    snapshot: (id) => world.snaps[at(id)],
    context: (id) => {
      const s = world.snaps[at(id)];
      return isMachineSnapshot(s) ? s.context : s;
    },
    value: (id) => {
      const s = world.snaps[at(id)];
      return isMachineSnapshot(s) ? s.value : undefined;
    },
    matches: (id, state) => {
      const s = world.snaps[at(id)];
      return isMachineSnapshot(s) ? (s as AnyMachineSnapshot).matches(state) : false;
    },
    status: (id) => world.status[at(id)]!,
    pending: (to, from) => {
      const chs = world.inbox[at(to)]!;
      if (from === undefined) return chs.flatMap((c) => c.queue as Message[]);
      const f = from === 'env' ? sc.envIndex : at(from);
      return chs.find((c) => c.from === f)?.queue ?? [];
    },
    idle: () => world.timers.length === 0 && world.inbox.every((c) => c.length === 0),
  };
}
