// An iterable task with checkpoint rounds (the shape of Airflow's AIP-104 iterable
// tasks): run items 0..n-1 with `w` in flight, record each round of `w` outcomes as
// one key `_iterable_batch_<k>` in the task state store, write the rest after the
// loop, then the completion marker. On a re-run, read the marker and the batches
// first and run only what no durable checkpoint covers.
//
// Minimal on purpose (src/machines/airflow/ models the full protocol); it talks to
// the store with the real `ts.*` messages, so it runs on the simulated store, in
// the checker, and live on SQLite unchanged. `perIndex` writes one key per index
// instead (the protocol before the batching change), for the benchmark.
import { assign, enqueueActions, setup } from 'xstate';
import { send } from 'interleave';
import { tsGet, tsSet, type TaskScope } from 'interleave/storage';

export const SCOPE: TaskScope = { dagId: 'example', runId: 'run-1', taskId: 'iterable', mapIndex: -1 };
export const MARKER = '_iterable_complete';
export const batchKey = (k: number): string => `_iterable_batch_${k}`;
export const indexKey = (i: number): string => `_iterable_index_${i}`;

/** One outcome: the index and what its run returned. */
export type Outcome = readonly [index: number, value: string];
/** Immutable list, so a step copies nothing when it adds one (contexts are values). */
type List<T> = { readonly head: T; readonly tail: List<T> } | null;

export interface TaskInput {
  readonly n: number;
  readonly w: number;
  readonly perIndex?: boolean;
  /** Send a `progress` output every this many outcomes (default: every round). */
  readonly progressEvery?: number;
}

interface Ctx {
  readonly n: number;
  readonly w: number;
  readonly perIndex: boolean;
  readonly progressEvery: number;
  /** Reading: next batch (or index) to read; values found so far. */
  readonly readAt: number;
  readonly loaded: List<string>;
  /** Running: indices still to run (computed once), next position, runs in flight. */
  readonly todo: readonly number[];
  readonly cursor: number;
  readonly inflight: number;
  /** Outcomes not yet in a write, the next batch number, writes not yet acknowledged. */
  readonly buffer: readonly Outcome[];
  readonly nextBatch: number;
  readonly writing: number;
  readonly done: number;
  readonly resumed: number;
}

type Ev =
  | { type: 'start' }
  | { type: 'ts.get.ok'; key: string; found: boolean; value: string | null }
  | { type: 'ts.set.ok'; key: string }
  | { type: 'ts.get.error' | 'ts.set.error'; key?: string; message: string }
  | { type: 'ran'; index: number; value: string };

function listToArray<T>(l: List<T>): T[] {
  const out: T[] = [];
  for (let p = l; p; p = p.tail) out.push(p.head);
  return out.reverse();
}

/** The indices no loaded checkpoint covers. */
function todoFrom(n: number, perIndex: boolean, loaded: List<string>): { todo: number[]; resumed: number } {
  const covered = new Uint8Array(n);
  let resumed = 0;
  for (const v of listToArray(loaded)) {
    const outs = perIndex ? [JSON.parse(v) as Outcome] : (JSON.parse(v) as Outcome[]);
    for (const [i] of outs) {
      if (i >= n || covered[i]) continue;
      covered[i] = 1;
      resumed++;
    }
  }
  const todo: number[] = [];
  for (let i = 0; i < n; i++) if (!covered[i]) todo.push(i);
  return { todo, resumed };
}

const readKey = (c: Ctx, k: number): string => (c.perIndex ? indexKey(k) : batchKey(k));
const fail: any = send('env', ({ event }: { event: any }) => ({ type: 'failed', why: String(event.message ?? event.type) }));

/** Dispatches runs until `w` are in flight or nothing is left: one `run` message per index. */
const startRuns: any = enqueueActions(({ context: c, enqueue }: { context: Ctx; enqueue: any }) => {
  const k = Math.min(c.w - c.inflight, c.todo.length - c.cursor);
  if (k <= 0) return;
  for (let j = 0; j < k; j++) enqueue(send('work', { type: 'run', index: c.todo[c.cursor + j]! }));
  enqueue(assign({ cursor: c.cursor + k, inflight: c.inflight + k }));
});

/** Per round: a full round of `w` outcomes becomes one batch write. Per index: every outcome is written. */
const flush = (final: boolean): any =>
  enqueueActions(({ context: c, enqueue }: { context: Ctx; enqueue: any }) => {
    if (c.buffer.length === 0) return;
    if (c.perIndex) {
      for (const o of c.buffer) enqueue(send('store', tsSet(SCOPE, indexKey(o[0]), JSON.stringify(o))));
      enqueue(assign({ buffer: [], writing: c.writing + c.buffer.length }));
    } else if (final || c.buffer.length >= c.w) {
      enqueue(send('store', tsSet(SCOPE, batchKey(c.nextBatch), JSON.stringify(c.buffer))));
      enqueue(assign({ buffer: [], writing: c.writing + 1, nextBatch: c.nextBatch + 1 }));
    }
  });

const progress: any = enqueueActions(({ context: c, enqueue }: { context: Ctx; enqueue: any }) => {
  if (c.done % c.progressEvery === 0 || c.done === c.n) enqueue(send('env', { type: 'progress', done: c.done, n: c.n }));
});

const acked: any = assign(({ context: c }: { context: Ctx }) => ({ writing: c.writing - 1 }));

export const iterableTask = setup({
  types: {} as { context: Ctx; events: Ev; input: TaskInput },
}).createMachine({
  id: 'iterable-task',
  context: ({ input }) => ({
    n: input.n,
    w: input.w,
    perIndex: input.perIndex ?? false,
    progressEvery: input.progressEvery ?? input.w,
    readAt: 0,
    loaded: null,
    todo: [],
    cursor: 0,
    inflight: 0,
    buffer: [],
    nextBatch: 0,
    writing: 0,
    done: 0,
    resumed: 0,
  }),
  initial: 'idle',
  states: {
    idle: { on: { start: { target: 'marker', actions: send('store', tsGet(SCOPE, MARKER)) } } },
    // O5: every read completes before the first run starts.
    marker: {
      on: {
        'ts.get.ok': [
          { guard: ({ event }) => event.found, target: 'complete', actions: send('env', ({ context }) => ({ type: 'already-complete', n: context.n })) },
          { target: 'reading', actions: send('store', ({ context }) => tsGet(SCOPE, readKey(context, 0))) },
        ],
        'ts.get.error': { target: 'failed', actions: fail },
      },
    },
    reading: {
      on: {
        'ts.get.ok': [
          // Per index: read every key. Per round: batches are dense, stop at the first gap.
          {
            guard: ({ context, event }) => (context.perIndex ? context.readAt + 1 < context.n : event.found),
            actions: [
              assign(({ context: c, event }) => ({ readAt: c.readAt + 1, loaded: event.found ? { head: event.value!, tail: c.loaded } : c.loaded })),
              send('store', ({ context }) => tsGet(SCOPE, readKey(context, context.readAt))),
            ],
          },
          {
            target: 'running',
            actions: [
              assign(({ context: c, event }) => {
                const loaded = event.found ? { head: event.value!, tail: c.loaded } : c.loaded;
                const { todo, resumed } = todoFrom(c.n, c.perIndex, loaded);
                return { loaded: null, todo, resumed, done: resumed, nextBatch: c.perIndex ? 0 : c.readAt + (event.found ? 1 : 0) };
              }),
              send('env', ({ context }) => ({ type: 'resumed', covered: context.resumed, todo: context.todo.length, batches: context.nextBatch })),
            ],
          },
        ],
        'ts.get.error': { target: 'failed', actions: fail },
      },
    },
    running: {
      entry: startRuns,
      always: { guard: ({ context: c }) => c.cursor >= c.todo.length && c.inflight === 0, target: 'rest' },
      on: {
        ran: {
          actions: [
            assign(({ context: c, event }) => ({ inflight: c.inflight - 1, done: c.done + 1, buffer: [...c.buffer, [event.index, event.value] as Outcome] })),
            flush(false),
            progress,
            startRuns,
          ],
        },
        'ts.set.ok': { actions: acked },
        'ts.set.error': { target: 'failed', actions: fail },
      },
    },
    // After the loop: the rest, then (once every write is acknowledged) the marker (O4).
    rest: {
      entry: flush(true),
      always: { guard: ({ context }) => context.writing === 0, target: 'marking' },
      on: {
        'ts.set.ok': { actions: acked },
        'ts.set.error': { target: 'failed', actions: fail },
      },
    },
    marking: {
      entry: send('store', ({ context: c }) => tsSet(SCOPE, MARKER, JSON.stringify({ items: c.n, batches: c.nextBatch, perIndex: c.perIndex }))),
      on: {
        'ts.set.ok': { target: 'complete', actions: send('env', ({ context: c }) => ({ type: 'complete', n: c.n, resumed: c.resumed, batches: c.nextBatch })) },
        'ts.set.error': { target: 'failed', actions: fail },
      },
    },
    complete: { type: 'final' },
    failed: { type: 'final' },
  },
});
