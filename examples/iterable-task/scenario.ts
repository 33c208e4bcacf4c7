// The iterable task as a scenario: the task machine, a `work` actor that runs one
// index per `run` message, and the task state `store`. In the checker and the
// simulator `work` and `store` are models (the store is src/storage's task state
// store); live they are real I/O: SQLite through src/storage/live (see live.ts).
import { defineScenario, type MonitorDef, type ReducerLogic, type Scenario, type TraceEvent } from 'interleave';
import { taskStateStore } from 'interleave/storage';
import { iterableTask, MARKER, type TaskInput } from './machine.ts';

/** What running index `i` returns (the live worker computes the same value, for real). */
export function outcomeOf(i: number): string {
  let h = 0x811c9dc5 ^ i;
  for (let k = 0; k < 4; k++) h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The model of the worker: replies at once with the outcome. */
export const workModel: ReducerLogic<number> = {
  kind: 'reducer',
  init: () => 0,
  receive: (runs, msg, ctx) =>
    msg.type === 'run' ? { state: runs + 1, send: [{ to: ctx.from, msg: { type: 'ran', index: msg.index, value: outcomeOf(msg.index as number) } }] } : { state: runs, unhandled: true },
};

/** O4 as a monitor: the marker is written only after every batch write was acknowledged. */
export const markerAfterCoverage: MonitorDef<{ open: number }> = {
  init: { open: 0 },
  observe(s, e: TraceEvent) {
    if (e.kind === 'deliver' && e.to === 'store' && e.msg.type === 'ts.set') {
      if (e.msg.key === MARKER && s.open > 0) return { fail: `marker written with ${s.open} checkpoint write(s) not yet acknowledged` };
      if (e.msg.key !== MARKER) return { open: s.open + 1 };
    }
    if (e.kind === 'deliver' && e.from === 'store' && e.msg.type === 'ts.set.ok' && e.msg.key !== MARKER) return { open: s.open - 1 };
    return s;
  },
};

export function iterableTaskScenario(input: TaskInput): Scenario {
  return defineScenario({
    name: 'example-iterable-task',
    description: 'an iterable task with checkpoint rounds on a task state store (examples/iterable-task)',
    actors: { task: { logic: iterableTask, input }, work: workModel, store: taskStateStore() },
    start: [{ to: 'task', msg: { type: 'start' } }],
    monitors: { markerAfterCoverage },
    atEnd: { complete: (q) => q.matches('task', 'complete') || `task ended in '${String(q.value('task'))}'` },
    params: { ...input },
  });
}
