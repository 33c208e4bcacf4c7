// "One machine, every event": checking a single xstate machine against every
// sequence of its events, as @xstate/graph's getAdjacencyMap does, with the events
// offered as scenario inputs (no driver actor, so one world per machine state).
// Used by checker.bench.ts; a module of its own so the comparison is easy to find.
import { getAdjacencyMap } from '@xstate/graph';
import { assign, setup, type AnyStateMachine } from 'xstate';
import { defineScenario } from '../src/actors/index.ts';
import { check } from '../src/check/index.ts';
import { median } from './table.ts';

type ElevatorEvent = { type: 'UP' } | { type: 'DOWN' } | { type: 'ARRIVE' } | { type: 'STOP' } | { type: 'OPEN' } | { type: 'ENTER' } | { type: 'LEAVE' } | { type: 'CLOSE' };
const EVENTS: ElevatorEvent[] = ['UP', 'DOWN', 'ARRIVE', 'STOP', 'OPEN', 'ENTER', 'LEAVE', 'CLOSE'].map((type) => ({ type }) as ElevatorEvent);

/** An elevator with `floors` floors and room for `capacity` people: about 4 x floors x (capacity + 1) states. */
export function elevator(floors: number, capacity: number): AnyStateMachine {
  return setup({
    types: { context: {} as { floor: number; load: number }, events: {} as ElevatorEvent },
    guards: {
      notTop: ({ context }) => context.floor < floors - 1,
      notBottom: ({ context }) => context.floor > 0,
      notFull: ({ context }) => context.load < capacity,
      notEmpty: ({ context }) => context.load > 0,
    },
    actions: {
      floorUp: assign({ floor: ({ context }) => context.floor + 1 }),
      floorDown: assign({ floor: ({ context }) => context.floor - 1 }),
      enter: assign({ load: ({ context }) => context.load + 1 }),
      leave: assign({ load: ({ context }) => context.load - 1 }),
    },
  }).createMachine({
    id: 'elevator',
    context: { floor: 0, load: 0 },
    initial: 'idle',
    states: {
      idle: { on: { UP: { guard: 'notTop', target: 'moving.up' }, DOWN: { guard: 'notBottom', target: 'moving.down' }, OPEN: 'doors' } },
      moving: {
        initial: 'up',
        states: {
          up: { on: { ARRIVE: { target: '#elevator.idle', actions: 'floorUp' } } },
          down: { on: { ARRIVE: { target: '#elevator.idle', actions: 'floorDown' } } },
        },
        on: { STOP: 'idle' },
      },
      doors: { on: { ENTER: { guard: 'notFull', actions: 'enter' }, LEAVE: { guard: 'notEmpty', actions: 'leave' }, CLOSE: 'idle' } },
    },
  });
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Rows: per size, distinct states and CPU ms of interleave (bfs, inputs) and of @xstate/graph. */
export async function everyEventRows(quick: boolean): Promise<(string | number)[][]> {
  const sizes: [number, number][] = quick ? [[8, 7], [20, 19]] : [[10, 9], [30, 29], [100, 99]];
  const rows: (string | number)[][] = [];
  for (const [floors, capacity] of sizes) {
    const machine = elevator(floors, capacity);
    const sc = defineScenario({ name: `elevator-${floors}x${capacity}`, actors: { elevator: machine }, unhandled: 'trace', inputs: [{ to: 'elevator', events: EVENTS }] });
    // Three runs of each, alternating, median CPU: the first runs pay for JIT warm-up.
    const oursMs: number[] = [],
      theirsMs: number[] = [];
    let r: Awaited<ReturnType<typeof check>> | undefined;
    let graphStates = 0;
    for (let k = 0; k < 3; k++) {
      let c0 = cpuMs();
      r = await check(sc, { strategy: 'bfs', shrink: false });
      oursMs.push(cpuMs() - c0);
      c0 = cpuMs();
      graphStates = Object.keys(getAdjacencyMap(machine, { events: EVENTS })).length;
      theirsMs.push(cpuMs() - c0);
    }
    const ours = median(oursMs),
      theirs = median(theirsMs);
    rows.push([
      `${floors} floors x ${capacity + 1} loads`,
      r!.stats.distinctStates,
      graphStates,
      r!.complete && r!.ok ? 'yes' : 'NO',
      Math.round(ours),
      Math.round(theirs),
      Number((theirs / ours).toFixed(2)),
    ]);
  }
  return rows;
}

export const EVERY_EVENT_HEADER = ['elevator machine', 'interleave distinct', '@xstate/graph states', 'complete', 'interleave CPU ms', '@xstate/graph CPU ms', 'speed-up'];
export const EVERY_EVENT_NOTE =
  'One xstate machine (hierarchy, guards, context) checked against every sequence of its 8 events. interleave: bfs over\n' +
  'scenario inputs (each event a step of its own, no driver actor). @xstate/graph: getAdjacencyMap with the same events.\n' +
  'Both count a state as (state value, context); the two counts must be equal. CPU ms: median of 3 alternating runs.\nspeed-up = @xstate/graph CPU / interleave CPU (above 1: interleave is faster).';
