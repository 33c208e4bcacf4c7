// "One machine, every event": checking a single xstate machine against every
// sequence of its events, as @xstate/graph's getAdjacencyMap does, with the events
// offered as scenario inputs (no driver actor, so one world per machine state).
// Used by checker.bench.ts; a module of its own so the comparison is easy to find.
// Two machines, an elevator and a parallel statechart with two bounded counters up to
// N = 150; each tool explores each size in a child process of its own
// (bench/every-event-child.mjs), so that its CPU, warm-up and peak RSS are its own.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assign, setup, type AnyStateMachine } from 'xstate';
import { defineScenario } from '../src/actors/index.ts';
import { median } from './table.ts';

type ElevatorEvent = { type: 'UP' } | { type: 'DOWN' } | { type: 'ARRIVE' } | { type: 'STOP' } | { type: 'OPEN' } | { type: 'ENTER' } | { type: 'LEAVE' } | { type: 'CLOSE' };
/** The elevator's 8 events. */
export const ELEVATOR_EVENTS: ElevatorEvent[] = ['UP', 'DOWN', 'ARRIVE', 'STOP', 'OPEN', 'ENTER', 'LEAVE', 'CLOSE'].map((type) => ({ type }) as ElevatorEvent);

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

/** The elevator as a scenario: its events offered as inputs, no driver actor. */
export function elevatorScenario(floors: number, capacity: number) {
  return defineScenario({ name: `elevator-${floors}x${capacity}`, actors: { elevator: elevator(floors, capacity) }, unhandled: 'trace', inputs: [{ to: 'elevator', events: ELEVATOR_EVENTS }] });
}

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

/** What a child process measured: one tool on one machine. */
export interface ChildRun {
  readonly states: number;
  readonly complete: boolean;
  readonly cpuMs: number;
  readonly wallMs: number;
  /** Peak RSS of the child process (modules of both tools loaded), bytes. */
  readonly peakRss: number;
  /** Peak RSS less the RSS before the exploration, bytes. */
  readonly addedRss: number;
}

/** Who explores (see bench/every-event-child.mjs): the checker, @xstate/graph, or one of interleave's layers on its own. */
export type EveryEventTool = 'interleave' | 'graph' | 'kernel' | 'stepper';
/** Which machine: the two-counter statechart of size `n`, or the elevator. */
export type EveryEventModel = { readonly model: 'counters'; readonly n: number } | { readonly model: 'elevator'; readonly floors: number; readonly capacity: number };

const CHILD = fileURLToPath(new URL('./every-event-child.mjs', import.meta.url));

/** Runs one tool on one machine in a child process of its own. */
export function everyEventChild(tool: EveryEventTool, model: EveryEventModel): ChildRun {
  const p = spawnSync(process.execPath, [CHILD, JSON.stringify({ tool, ...model })], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (p.status !== 0) throw new Error(`every-event child (${tool}, ${JSON.stringify(model)}) failed (${p.status}): ${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').at(-1)!) as ChildRun;
}

/**
 * `runs` runs of each tool, alternating which goes first, and per tool the median of each
 * figure (a small check's CPU moves by a tenth from run to run; one run would show that).
 */
function medianRuns<T extends EveryEventTool>(tools: readonly T[], model: EveryEventModel, runs: number): Record<T, ChildRun> {
  const got = new Map<T, ChildRun[]>(tools.map((t) => [t, []]));
  for (let k = 0; k < runs; k++) {
    const order = k % 2 === 0 ? tools : [...tools].reverse();
    for (const t of order) got.get(t)!.push(everyEventChild(t, model));
  }
  const out = {} as Record<T, ChildRun>;
  for (const [t, rs] of got) {
    const states = new Set(rs.map((r) => r.states));
    if (states.size !== 1) throw new Error(`every-event: ${t} counted different states from run to run: ${[...states].join(', ')}`);
    out[t] = {
      states: rs[0]!.states,
      complete: rs.every((r) => r.complete),
      cpuMs: median(rs.map((r) => r.cpuMs)),
      wallMs: median(rs.map((r) => r.wallMs)),
      peakRss: median(rs.map((r) => r.peakRss)),
      addedRss: median(rs.map((r) => r.addedRss)),
    };
  }
  return out;
}

/** Runs per tool and size: three (medians) while a run takes about a second or less, one above. */
const runsFor = (states: number): number => (states <= 15_000 ? 3 : 1);

/** The cells both comparisons share: each tool's states, whether the check completed and held, each tool's CPU, the speed-up. */
function comparedCells(ours: ChildRun, theirs: ChildRun): (string | number)[] {
  return [ours.states, theirs.states, ours.complete ? 'yes' : 'NO', Math.round(ours.cpuMs), Math.round(theirs.cpuMs), Number((theirs.cpuMs / ours.cpuMs).toFixed(2))];
}

/** Rows: per size, distinct states and CPU ms of interleave (bfs, inputs) and of @xstate/graph on the elevator. */
export function everyEventRows(quick: boolean): (string | number)[][] {
  const sizes: [number, number][] = quick ? [[8, 7], [20, 19]] : [[10, 9], [30, 29], [100, 99]];
  return sizes.map(([floors, capacity]) => {
    const m = medianRuns(['interleave', 'graph'], { model: 'elevator', floors, capacity }, 3);
    return [`${floors} floors x ${capacity + 1} loads`, ...comparedCells(m.interleave, m.graph)];
  });
}

export const EVERY_EVENT_HEADER = ['elevator machine', 'interleave distinct', '@xstate/graph states', 'complete', 'interleave CPU ms', '@xstate/graph CPU ms', 'speed-up'];
export const EVERY_EVENT_NOTE =
  'One xstate machine (hierarchy, guards, context) checked against every sequence of its 8 events. interleave: bfs over\n' +
  'scenario inputs (each event a step of its own, no driver actor), no shrink. @xstate/graph: getAdjacencyMap with the same events.\n' +
  'Both count a state as (state value, context); the two counts must be equal. Each run in a child process of its own; CPU ms:\n' +
  'median of 3 runs each, alternating which tool runs first. speed-up = @xstate/graph CPU / interleave CPU (above 1: interleave is faster).';

/** Rows: per N, states, CPU and wall ms, peak and added RSS of interleave (bfs, default options) and @xstate/graph. */
export function countersRows(quick: boolean): (string | number)[][] {
  const sizes = quick ? [10, 30] : [10, 20, 40, 75, 100, 150];
  const mb = (b: number) => Math.round(b / 2 ** 20);
  const rows: (string | number)[][] = [];
  for (const n of sizes) {
    const states = 2 * (n + 1) * (4 * n + 1);
    const m = medianRuns(['interleave', 'graph'], { model: 'counters', n }, runsFor(states));
    const ours = m.interleave,
      theirs = m.graph;
    rows.push([
      n,
      states,
      ...comparedCells(ours, theirs),
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
  "inputs, { strategy: 'bfs' }) with default options; @xstate/graph: getAdjacencyMap(machine, { events }). Each tool and size runs in a child\n" +
  'process of its own (both tools loaded in each), so CPU, wall and RSS are its own: medians of 3 runs each (alternating which tool runs\n' +
  'first) up to 15,000 states, one run above. speed-up = @xstate/graph CPU / interleave CPU (above 1: interleave is faster). added = peak RSS\n' +
  "- RSS before the exploration. Wall time measures the machine's load too; CPU time is the fair measure.";

/**
 * Rows: on small sizes, the CPU of interleave's layers one by one against @xstate/graph:
 * its xstate adapter alone, its step function (kernel) in a plain breadth-first loop, and
 * the whole check. What a small check costs beyond the kernel row is the checker's own
 * machinery (fingerprints, visited set, the re-step sample, properties), paid mostly as
 * warm-up: V8 runs each function of that path unoptimised, then compiles it.
 */
export function layerRows(quick: boolean): (string | number)[][] {
  const sizes = quick ? [10] : [10, 40];
  const rows: (string | number)[][] = [];
  for (const n of sizes) {
    const m = medianRuns(['stepper', 'kernel', 'interleave', 'graph'], { model: 'counters', n }, 5);
    const counts = new Set([m.stepper.states, m.kernel.states, m.interleave.states, m.graph.states]);
    const r = (x: number) => Math.round(x);
    rows.push([
      n,
      counts.size === 1 ? m.graph.states : `differ: ${[...counts].join(' / ')}`,
      r(m.graph.cpuMs),
      r(m.stepper.cpuMs),
      r(m.kernel.cpuMs),
      r(m.interleave.cpuMs),
      r(m.interleave.cpuMs - m.kernel.cpuMs),
      Number((m.graph.cpuMs / m.interleave.cpuMs).toFixed(2)),
    ]);
  }
  return rows;
}

export const LAYER_HEADER = ['N', 'states', '@xstate/graph CPU ms', 'adapter alone', 'kernel loop', 'interleave check', 'check - kernel', 'speed-up (check)'];
export const LAYER_NOTE =
  'The two-counter statechart, CPU ms of a child process per run, medians of 5 runs each (alternating order). adapter alone: a plain\n' +
  "breadth-first loop over interleave's xstate adapter, one machine step per event; kernel loop: the same loop over interleave's step\n" +
  "function (enabled / apply, worlds and trace events); both tell states apart by their JSON, as @xstate/graph does. interleave check:\n" +
  "check(scenario, { strategy: 'bfs' }), default options. check - kernel: what the checker's own machinery costs on this size.";
