// One worker per operator: its main loop M as a statechart. The states are the
// worker's lifecycle (READY, RUNNING, PAUSED on an exception, COMPLETED,
// TERMINATED) and, while running, where M is: taking input from its internal queue,
// blocked on a storage call (reset_output_storage, the loop table read, the port
// writers' close, the back-edge write) or in the EndChannel handler and
// complete(). Every storage call is blocking: while M waits, what its readers and the
// coordinator send is queued, and M takes the queue (control first) when it is free
// again. A message no state of the chart expects is unhandled and the kernel reports it.
// The DataProcessor runs as a coroutine of M, so operator code is called inline.
import { enqueueActions, setup, type StateMachine } from 'xstate';
import type { Message } from '../../actors/index.ts';
import * as e from './end-of-port.ts';
import { act, freshWorker, type Effect, type OpSpec, type WorkerContext, type WorkerOptions } from './worker-context.ts';

export { COORDINATOR, STORE, freshWorker, type OpKind, type OpSpec, type WorkerContext, type WorkerOptions } from './worker-context.ts';

/** The worker's top-level states (its WorkerState). */
export type WorkerState = 'ready' | 'running' | 'paused' | 'completed' | 'terminated';

const DATA = ['StartChannel', 'StateFrame', 'DataFrame', 'EndChannel'] as const;

type Ev = Message;
type Args = { context: WorkerContext; event: Ev };

/**
 * Takes the internal queue: control first, then (when running) data, each handled as if it
 * arrived now. xstate drops a raised event no state takes without telling the kernel, so
 * every state a queued message can reach takes all six kinds: `running` (queued again while
 * M is blocked), `paused` and `completed`. The one exit, `terminated`, follows an
 * acknowledged EndWorker, after which the queue holds nothing: the coordinator sends the next
 * EndWorker only after a failure, and the acknowledgement waits for every RPC reply.
 */
function takeQueue(withData: boolean): any {
  return enqueueActions(({ context, enqueue }: { context: WorkerContext; enqueue: any }) => {
    const items = withData ? [...context.ctrl, ...context.data] : context.ctrl;
    if (items.length === 0) return;
    enqueue.assign(withData ? { ctrl: [], data: [] } : { ctrl: [] });
    for (const m of items) enqueue.raise(m);
  });
}

/**
 * A worker machine: its context, events and input. The rest stays open: the inferred
 * state schema has optional states (those of some topologies only), which a consumer
 * compiling with `exactOptionalPropertyTypes` would reject in the `.d.ts`.
 */
export type WorkerMachine = StateMachine<WorkerContext, Message, any, any, any, any, any, any, any, WorkerContext, any, any, any, any>;

/**
 * One worker; `input` seeds its context and `initial` its state (a materialized
 * start boots an earlier region's worker as it ended, or a later one as ready).
 */
export function workerMachine(op: OpSpec, opts: WorkerOptions, initial: WorkerState = 'ready'): WorkerMachine {
  const a = (...fx: Effect[]) => act(op, opts, ...fx);
  const le = op.kind === 'loopEnd';
  const queueData = Object.fromEntries(DATA.map((t) => [t, { actions: a(e.queueData) }]));

  /** `_read_loop_input_table` as a sub-chart: look the base up (fail loud before storage), open, pin, fetch file by file. */
  const tableRead = (done: string, failed: string, noBase: string) => ({
    initial: 'lookup',
    states: {
      lookup: {
        always: [
          { guard: ({ context }: Args) => e.loopBase(context) === undefined, target: noBase, actions: a(e.reportNoBase('read')) },
          { target: 'opening', actions: a(e.openTable) },
        ],
      },
      opening: {
        on: {
          Opened: [
            { guard: ({ event }: Args) => !event.ok, target: failed, actions: a(e.readFailed) },
            { target: 'pinning', actions: a(e.pinTable) },
          ],
        },
      },
      pinning: {
        on: {
          Pinned: [
            { guard: ({ event }: Args) => (event.files as string[]).length === 0, target: done, actions: a(e.tableRead) },
            { target: 'fetching', actions: a(e.fetchFirst) },
          ],
        },
      },
      fetching: {
        on: {
          Fetched: [{ guard: ({ context }: Args) => e.lastFile(context), target: done, actions: a(e.tableRead) }, { actions: a(e.fetchNext) }],
          FetchFailed: { target: failed, actions: a(e.readFailed) },
        },
      },
    },
  });

  // The StateFrame routing by envelope (spec I9), for this operator's kind.
  const stamped = ({ event }: Args) => e.isStamped(event);
  const stateFrame =
    op.kind === 'loopStart'
      ? [{ guard: stamped, actions: a(e.bypass) }, { actions: a(e.merge) }]
      : le
        ? [
            { guard: ({ event }: Args) => e.enclosingLoop(event), target: 'resettingOutput', actions: a(e.resetOutput) },
            { guard: ({ event }: Args) => !e.isStamped(event), actions: a(e.forwardUnstamped) },
            { guard: ({ context }: Args) => context.dedup, actions: a(e.dropDuplicate) },
            ...(opts.design === 'read-at-consume'
              ? [{ target: 'consumingNow', actions: a(e.stash) }]
              : opts.design === 'table-in-state'
                ? [
                    { guard: ({ event }: Args) => !e.stateHasTable(event), target: '#paused', actions: a(e.stash, e.reportNoTable) },
                    { target: 'consumed', actions: a(e.stash, e.consumeStateTable) },
                  ]
                : [{ actions: a(e.stash) }]),
          ]
        : [{ actions: a(e.hop) }];

  // EndChannel: PORT_ALIGNMENT over every channel of the port, then the handler.
  const endChannel = [
    { guard: ({ context, event }: Args) => !e.aligns(context, event), actions: a(e.markEnded) },
    ...(op.kind === 'loopStart' ? [{ guard: ({ context }: Args) => e.produceFails(context), target: '#paused', actions: a(e.markEnded, e.emitAligned, e.reportProduce) }] : []),
    { target: 'endOfPort', actions: a(e.markEnded, e.emitAligned, e.aligned) },
  ];

  const hasError = ({ context }: Args) => context.error !== null;

  // The EndChannel handler after alignment: (Loop End) the deferred consume, the hold, on_finish and the port's close.
  const endOfPort = {
    initial: le ? 'consume' : 'holdCheck',
    states: {
      ...(le
        ? {
            /** _consume_pending_loop_state: D2 reads the table now, if a state is stashed (and, hold-first, no error yet). */
            consume: {
              always: [
                {
                  guard: ({ context }: Args) => opts.design === 'read-at-endchannel' && context.stash !== null && !(opts.holdOrder === 'hold-first' && context.error !== null),
                  target: 'readingLoopTable',
                },
                { target: 'holdCheck' },
              ],
            },
            readingLoopTable: tableRead('#holdCheck', '#holdCheck', '#holdCheck'),
          }
        : {}),
      /** Hold: an exception was reported, so M returns: no PortCompleted, no complete(). */
      holdCheck: {
        id: 'holdCheck',
        always: [{ guard: hasError, target: '#paused' }, { target: '#closingPort', actions: a(e.finish) }],
      },
    },
  };

  // complete() on a Loop End: the condition, then the jump RPC and the back-edge write.
  const completing = {
    initial: 'condition',
    states: {
      condition: {
        always: [
          { guard: ({ context }: Args) => e.conditionOf(context, op.end!).error !== undefined, target: '#paused', actions: a(e.emitCondition, e.reportCondition) },
          { guard: ({ context }: Args) => !e.conditionOf(context, op.end!).value, target: '#completed', actions: a(e.emitCondition, e.workerCompleted) },
          { guard: ({ context }: Args) => e.loopBase(context) === undefined, target: '#paused', actions: a(e.emitCondition, e.reportNoBase('jump')) },
          { target: 'writingBackEdge', actions: a(e.emitCondition, e.jump) },
        ],
      },
      writingBackEdge: {
        on: {
          Committed: { target: '#completed', actions: a(e.backEdgeCommitted, e.workerCompleted) },
          CommitFailed: { target: '#paused', actions: a(e.reportEvent('back-edge', ' (back-edge write after the jump RPC was sent)')) },
        },
      },
    },
  };

  const startRun = [
    ...(op.kind === 'source' ? [{ target: '#closingPort', actions: a(e.start) }] : []),
    { target: 'running', actions: a(e.start) },
  ];

  return setup({ types: {} as { context: WorkerContext; input: WorkerContext | undefined; events: Ev } }).createMachine({
    id: `worker:${op.id}`,
    context: ({ input }) => input ?? freshWorker(op),
    initial,
    states: {
      /** Not started in this region execution. */
      ready: { on: { Start: startRun } },
      running: {
        initial: 'awaitingInput',
        // While M is blocked on storage, control and data wait in the internal queue.
        on: { EndWorker: { actions: a(e.queueControl) }, RpcReply: { actions: a(e.queueControl) }, ...queueData },
        states: {
          /** M takes its internal queue (control first) and then each message as it arrives. */
          awaitingInput: {
            id: 'awaitingInput',
            entry: takeQueue(true),
            on: {
              EndWorker: { actions: a(e.endWorkerFailed('worker still has unprocessed messages')) },
              RpcReply: { actions: a(e.countReply) },
              StartChannel: {},
              DataFrame: { actions: a(e.buffer) },
              StateFrame: stateFrame,
              EndChannel: endChannel,
            },
          },
          ...(le
            ? {
                /** reset_output_storage of an inner Loop End, before forwarding the enclosing loop's state. */
                resettingOutput: { on: { PortReset: { target: 'awaitingInput', actions: a(e.forwardAfterReset) } } },
                ...(opts.design === 'read-at-consume' ? { consumingNow: tableRead('#consumed', '#paused', '#paused') } : {}),
                /** After an immediate consume (D0, D1): an update error holds the worker. */
                ...(opts.design !== 'read-at-endchannel' ? { consumed: { id: 'consumed', always: [{ guard: hasError, target: '#paused' }, { target: 'awaitingInput' }] } } : {}),
              }
            : {}),
          endOfPort,
          /** close_port_storage_writers: the result and state writers commit. */
          closingPort: {
            id: 'closingPort',
            on: {
              PortCommitted: le ? { target: 'completing', actions: a(e.portCompleted) } : { target: '#completed', actions: a(e.portCompleted, e.workerCompleted) },
              CommitFailed: { target: '#paused', actions: a(e.reportEvent('commit')) },
            },
          },
          ...(le ? { completing } : {}),
        },
      },
      /** Held on a reported exception: control is still answered, data stays queued. */
      paused: {
        id: 'paused',
        entry: [a(e.held), takeQueue(false)],
        on: {
          EndWorker: { actions: a(e.endWorkerFailed('worker is paused on an exception')) },
          RpcReply: { actions: a(e.countReply) },
          ...queueData,
        },
      },
      /** complete() returned: EndWorker is acknowledged once no reply is owed. */
      completed: {
        id: 'completed',
        entry: takeQueue(false),
        on: {
          EndWorker: [
            { guard: ({ context }: Args) => e.canTerminate(context, opts.endWorkerRace), target: 'terminated', actions: a(e.terminate) },
            { actions: a(e.endWorkerFailed('worker still has unprocessed messages')) },
          ],
          RpcReply: { actions: a(e.countReply) },
          ...queueData,
        },
      },
      /** Ended; the next execution of its region starts it again. */
      terminated: { on: { Start: startRun } },
    },
  });
}
