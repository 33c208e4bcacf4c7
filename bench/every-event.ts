// "One machine, every event": checking a single xstate machine against every
// sequence of its events, as @xstate/graph's getAdjacencyMap does, with the events
// offered as scenario inputs (no driver actor, so one world per machine state).
// Used by checker.bench.ts; a module of its own so the comparison is easy to find.
// Two machines: an elevator (in-process, three sizes) and a parallel statechart with two
// bounded counters up to N = 150, each tool in a child process of its own per size
// (bench/every-event-child.mjs) so that each one's peak RSS is its own.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
    // Three runs of each, alternating, median CPU: the first runs pay for JIT warm-up, and
    // the tool that runs first warms xstate for the other, so the order alternates too.
    const oursMs: number[] = [],
      theirsMs: number[] = [];
    let r: Awaited<ReturnType<typeof check>> | undefined;
    let graphStates = 0;
    const ours = async () => {
      const c0 = cpuMs();
      r = await check(sc, { strategy: 'bfs', shrink: false });
      oursMs.push(cpuMs() - c0);
    };
    const theirs = () => {
      const c0 = cpuMs();
      graphStates = Object.keys(getAdjacencyMap(machine, { events: EVENTS })).length;
      theirsMs.push(cpuMs() - c0);
    };
    for (let k = 0; k < 3; k++) {
      if (k % 2 === 0) {
        await ours();
        theirs();
      } else {
        theirs();
        await ours();
      }
    }
    const oursMedian = median(oursMs),
      theirsMedian = median(theirsMs);
    rows.push([
      `${floors} floors x ${capacity + 1} loads`,
      r!.stats.distinctStates!,
      graphStates,
      r!.complete && r!.ok ? 'yes' : 'NO',
      Math.round(oursMedian),
      Math.round(theirsMedian),
      Number((theirsMedian / oursMedian).toFixed(2)),
    ]);
  }
  return rows;
}

export const EVERY_EVENT_HEADER = ['elevator machine', 'interleave distinct', '@xstate/graph states', 'complete', 'interleave CPU ms', '@xstate/graph CPU ms', 'speed-up'];
export const EVERY_EVENT_NOTE =
  'One xstate machine (hierarchy, guards, context) checked against every sequence of its 8 events. interleave: bfs over\n' +
  'scenario inputs (each event a step of its own, no driver actor). @xstate/graph: getAdjacencyMap with the same events.\n' +
  'Both count a state as (state value, context); the two counts must be equal. CPU ms: median of 3 alternating runs (the first\nof each pair alternates too).\nspeed-up = @xstate/graph CPU / interleave CPU (above 1: interleave is faster).';

type CounterEvent = { type: 'ON' } | { type: 'OFF' } | { type: 'UP' } | { type: 'DOWN' } | { type: 'ADD' } | { type: 'START' } | { type: 'TAKE' } | { type: 'PAUSE' } | { type: 'RESUME' } | { type: 'SPEED' };
/** The two-counter statechart's 10 events. */
export const COUNTER_EVENTS: CounterEvent[] = ['ON', 'OFF', 'UP', 'DOWN', 'ADD', 'START', 'TAKE', 'PAUSE', 'RESUME', 'SPEED'].map((type) => ({ type }) as CounterEvent);

/**
 * A parallel statechart with two counters bounded by `n`: region `power` (off / on; UP and
 * DOWN move a volume in 0..n, only when on) and region `job` (idle / running.{slow, fast}
 * / paused; START needs items, TAKE takes one and the last one returns to idle, ADD adds
 * up to n in any state). 2(n + 1)(4n + 1) states.
 */
export function counters(n: number): AnyStateMachine {
  return setup({
    types: { context: {} as { volume: number; items: number }, events: {} as CounterEvent },
    guards: {
      belowMax: ({ context }) => context.volume < n,
      aboveMin: ({ context }) => context.volume > 0,
      canAdd: ({ context }) => context.items < n,
      hasItems: ({ context }) => context.items > 0,
      lastItem: ({ context }) => context.items === 1,
    },
    actions: {
      up: assign({ volume: ({ context }) => context.volume + 1 }),
      down: assign({ volume: ({ context }) => context.volume - 1 }),
      add: assign({ items: ({ context }) => context.items + 1 }),
      take: assign({ items: ({ context }) => context.items - 1 }),
    },
  }).createMachine({
    id: 'counters',
    type: 'parallel',
    context: { volume: 0, items: 0 },
    states: {
      power: {
        initial: 'off',
        states: {
          off: { on: { ON: 'on' } },
          on: { on: { OFF: 'off', UP: { guard: 'belowMax', actions: 'up' }, DOWN: { guard: 'aboveMin', actions: 'down' } } },
        },
      },
      job: {
        initial: 'idle',
        on: { ADD: { guard: 'canAdd', actions: 'add' } },
        states: {
          idle: { on: { START: { guard: 'hasItems', target: 'running' } } },
          running: {
            initial: 'slow',
            on: { TAKE: [{ guard: 'lastItem', target: 'idle', actions: 'take' }, { actions: 'take' }], PAUSE: 'paused' },
            states: { slow: { on: { SPEED: 'fast' } }, fast: { on: { SPEED: 'slow' } } },
          },
          paused: { on: { RESUME: 'running' } },
        },
      },
    },
  });
}

/** The two-counter statechart as a scenario: its events offered as inputs, no driver actor. */
export function countersScenario(n: number) {
  return defineScenario({ name: `counters-${n}`, actors: { counters: counters(n) }, unhandled: 'trace', inputs: [{ to: 'counters', events: COUNTER_EVENTS }] });
}

/** What a child process measured: one tool on one size. */
export interface CounterRun {
  readonly states: number;
  readonly complete: boolean;
  readonly cpuMs: number;
  readonly wallMs: number;
  /** Peak RSS of the child process (modules of both tools loaded), bytes. */
  readonly peakRss: number;
  /** Peak RSS less the RSS before the exploration, bytes. */
  readonly addedRss: number;
}

const CHILD = fileURLToPath(new URL('./every-event-child.mjs', import.meta.url));

/** Runs one tool on the two-counter statechart of size `n` in a child process. */
export function countersChild(tool: 'interleave' | 'graph', n: number): CounterRun {
  const p = spawnSync(process.execPath, [CHILD, JSON.stringify({ tool, n })], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (p.status !== 0) throw new Error(`every-event child (${tool}, N = ${n}) failed (${p.status}): ${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').at(-1)!) as CounterRun;
}

/** Rows: per N, states, CPU and wall ms, peak and added RSS of interleave (bfs, default options) and @xstate/graph. */
export function countersRows(quick: boolean): (string | number)[][] {
  const sizes = quick ? [10, 30] : [10, 20, 40, 75, 100, 150];
  const mb = (b: number) => Math.round(b / 2 ** 20);
  const rows: (string | number)[][] = [];
  for (const n of sizes) {
    const ours = countersChild('interleave', n);
    const theirs = countersChild('graph', n);
    rows.push([
      n,
      2 * (n + 1) * (4 * n + 1),
      ours.states,
      theirs.states,
      ours.complete ? 'yes' : 'NO',
      Math.round(ours.cpuMs),
      Math.round(theirs.cpuMs),
      Number((theirs.cpuMs / ours.cpuMs).toFixed(2)),
      Math.round(ours.wallMs),
      Math.round(theirs.wallMs),
      mb(ours.peakRss),
      mb(theirs.peakRss),
      mb(ours.addedRss),
      mb(theirs.addedRss),
    ]);
  }
  return rows;
}

export const COUNTERS_HEADER = [
  'N',
  'states 2(N+1)(4N+1)',
  'interleave distinct',
  '@xstate/graph states',
  'complete',
  'interleave CPU ms',
  '@xstate/graph CPU ms',
  'speed-up (CPU)',
  'interleave wall ms',
  '@xstate/graph wall ms',
  'interleave peak RSS MB',
  '@xstate/graph peak RSS MB',
  'interleave added MB',
  '@xstate/graph added MB',
];
export const COUNTERS_NOTE =
  'A parallel statechart with two bounded counters (bench/every-event.ts counters(N)), 10 events. interleave: check(scenario with the events as\n' +
  "inputs, { strategy: 'bfs' }) with default options; @xstate/graph: getAdjacencyMap(machine, { events }). Each tool and size runs once in a child\n" +
  'process of its own (both tools loaded in each), so CPU, wall and RSS are its own. speed-up = @xstate/graph CPU / interleave CPU (above 1:\n' +
  'interleave is faster). added = peak RSS - RSS before the exploration. Wall time measures the machine\'s load too; CPU time is the fair measure.';
