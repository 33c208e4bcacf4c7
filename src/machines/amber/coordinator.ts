// The coordinator as a statechart: fully materialized mode (every operator its own
// region), a level-set schedule with a cursor. Its states are the schedule's
// phases: idle (before StartWorkflow), creatingPorts (a region's output docs created
// or reused), executing (the region's workers run; one parallel region per operator
// follows its termination: EndWorker, and on EndWorkerFailed a 200 ms `after` timer
// and the next attempt, up to a budget), completed and failed. JumpToOperatorRegion
// moves the cursor; a region completes when all its workers are terminated, and the
// schedule then advances (to the jump target if a jump arrived).
import { enqueueActions, setup } from 'xstate';
import { send as sendTo, type Message } from '../../actors/index.ts';
import type { InputChannel } from './messages.ts';
import { STORE } from './worker.ts';

export interface Plan {
  /** Operators per level, in schedule order. */
  readonly levels: readonly (readonly string[])[];
  readonly inputs: Readonly<Record<string, readonly InputChannel[]>>;
  readonly outBase: Readonly<Record<string, string>>;
  /** LE outputs are reused across iterations (reuseStorage = true). */
  readonly reuse: Readonly<Record<string, boolean>>;
  /** What InitializeExecutor ships as loopStartPortUris. */
  readonly loopStartPortUris: Readonly<Record<string, string>>;
}

export interface CoordinatorOptions {
  readonly endWorkerRace: boolean;
  readonly endWorkerAttempts: number;
  readonly retryMs: number;
}

export interface CoordinatorContext {
  readonly cursor: number;
  readonly jumpTo: number | null;
  readonly pendingCreates: number;
  /** Workers of the running region, and whether each is terminated. */
  readonly running: Readonly<Record<string, boolean>>;
  readonly attempts: Readonly<Record<string, number>>;
  readonly execs: Readonly<Record<string, number>>;
  readonly jumps: Readonly<Record<string, number>>;
  readonly errors: readonly string[];
}

/** The coordinator's top-level states. */
export type CoordinatorState = 'idle' | 'creatingPorts' | 'executing' | 'completed' | 'failed';

export const FRESH_COORDINATOR: CoordinatorContext = { cursor: 0, jumpTo: null, pendingCreates: 0, running: {}, attempts: {}, execs: {}, jumps: {}, errors: [] };

type Out = { readonly to: string; readonly msg: Message } | { readonly emit: Message };
type Args = { context: CoordinatorContext; event: Message };
type Effect = (c: CoordinatorContext, ev: Message, out: Out[]) => CoordinatorContext;

/** An action: `f` computes the next context and what to send or emit, in order. */
function act(f: Effect): any {
  return enqueueActions(({ context, event, enqueue }: { context: CoordinatorContext; event: Message; enqueue: any }) => {
    const out: Out[] = [];
    const next = f(context, event, out);
    if (next !== context) enqueue.assign(() => next);
    for (const o of out) {
      if ('emit' in o) enqueue.emit(o.emit);
      else enqueue(sendTo(o.to, o.msg));
    }
  });
}

function levelOf(plan: Plan, op: string): number {
  return plan.levels.findIndex((l) => l.includes(op));
}

/** The coordinator; `input` seeds its context and `initial` its state (a materialized start: the Loop End region's ports being created). */
export function coordinatorMachine(plan: Plan, opts: CoordinatorOptions, initial: CoordinatorState = 'idle') {
  const ops = [...new Set(plan.levels.flat())];
  /** Schedule the region at the cursor: create or reuse its output docs. */
  const runLevel: Effect = (c, _ev, out) => {
    const level = plan.levels[c.cursor]!;
    for (const op of level) out.push({ to: STORE, msg: { type: 'CreatePort', base: plan.outBase[op]!, reuse: plan.reuse[op] ?? false } });
    out.push({ emit: { type: 'amber.region', level: c.cursor, ops: level } });
    return { ...c, pendingCreates: level.length, running: Object.fromEntries(level.map((o) => [o, false])), attempts: {} };
  };
  const reply = (ev: Message, rpc: string, out: Out[]) => {
    if (opts.endWorkerRace) out.push({ to: String(ev.op), msg: { type: 'RpcReply', rpc } });
  };
  /** Start every worker of the region (InitializeExecutor … StartWorker). */
  const startWorkers: Effect = (c, _ev, out) => {
    const execs = { ...c.execs };
    for (const op of plan.levels[c.cursor]!) {
      execs[op] = (execs[op] ?? 0) + 1;
      out.push({ to: op, msg: { type: 'Start', exec: execs[op], loopStartPortUris: plan.loopStartPortUris, inputs: plan.inputs[op] ?? [], outBase: plan.outBase[op]! } });
    }
    return { ...c, pendingCreates: 0, execs };
  };
  const endWorker = (op: string, attempt: number): Effect => (c, ev, out) => {
    out.push({ to: op, msg: { type: 'EndWorker', attempt } });
    if (ev.type === 'PortCompleted') reply(ev, 'PortCompleted', out);
    return { ...c, attempts: { ...c.attempts, [op]: attempt } };
  };
  /** The last worker of the region terminated: the cursor moves on (to the jump target if a jump arrived). */
  const advance: Effect = (c, ev) => ({ ...c, running: { ...c.running, [String(ev.op)]: true }, cursor: c.jumpTo ?? c.cursor + 1, jumpTo: null });
  const regionDone = ({ context, event }: Args) => Object.entries(context.running).every(([op, t]) => t || op === event.op);
  const lastRegion = ({ context }: Args) => (context.jumpTo ?? context.cursor + 1) >= plan.levels.length;
  const giveUp = (op: string): Effect => (c, ev, out) => {
    const n = c.attempts[op] ?? 1;
    out.push({ emit: { type: 'amber.gave-up', op, attempts: n } });
    return { ...c, errors: [...c.errors, `${op}: EndWorker failed ${n} times (${String(ev.reason)})`] };
  };

  /** Per operator: the termination of its worker (EndWorker, retried every retryMs on EndWorkerFailed). */
  const termination = (op: string) => {
    const mine = ({ event }: Args) => event.op === op;
    return {
      initial: 'running',
      states: {
        /** Not asked to end (its worker runs, or is not in this region). */
        running: { on: { PortCompleted: { guard: ({ event }: Args) => mine({ event } as Args) && event.input === false, target: 'ending', actions: act(endWorker(op, 1)) } } },
        /** EndWorker sent; waiting for the acknowledgement. */
        ending: {
          on: {
            EndWorkerAck: [
              { guard: (x: Args) => mine(x) && regionDone(x) && lastRegion(x), target: '#coordinator.completed', actions: act((c, ev, out) => (out.push({ to: 'env', msg: { type: 'WorkflowCompleted' } }), advance(c, ev, out))) },
              { guard: (x: Args) => mine(x) && regionDone(x), target: '#coordinator.creatingPorts', actions: act((c, ev, out) => runLevel(advance(c, ev, out), ev, out)) },
              { guard: mine, target: 'terminated', actions: act((c) => ({ ...c, running: { ...c.running, [op]: true } })) },
            ],
            EndWorkerFailed: [
              { guard: (x: Args) => mine(x) && (x.context.attempts[op] ?? 1) >= opts.endWorkerAttempts, target: '#coordinator.failed', actions: act(giveUp(op)) },
              { guard: mine, target: 'retrying' },
            ],
          },
        },
        /** EndWorker failed ("unprocessed messages", or paused): the next attempt after retryMs. */
        retrying: { after: { [opts.retryMs]: { target: 'ending', actions: act((c, ev, out) => endWorker(op, (c.attempts[op] ?? 1) + 1)(c, ev, out)) } } },
        /** Its worker acknowledged EndWorker; the region waits for the others. */
        terminated: {},
      },
    };
  };

  return setup({ types: {} as { context: CoordinatorContext; input: CoordinatorContext | undefined; events: Message } }).createMachine({
    id: 'coordinator',
    context: ({ input }) => input ?? FRESH_COORDINATOR,
    initial,
    // A worker's error reaches the coordinator whatever it is doing.
    on: { ConsoleMessage: { actions: act((c, ev) => ({ ...c, errors: [...c.errors, `${String(ev.op)}: ${String(ev.title)}`] })) } },
    states: {
      idle: { on: { StartWorkflow: { target: 'creatingPorts', actions: act(runLevel) } } },
      /** createOrReuseDocument for each output port of the region at the cursor. */
      creatingPorts: {
        on: {
          PortCreated: [
            { guard: ({ context }: Args) => context.pendingCreates > 1, actions: act((c) => ({ ...c, pendingCreates: c.pendingCreates - 1 })) },
            { target: 'executing', actions: act(startWorkers) },
          ],
        },
      },
      /** The region at the cursor runs: its workers report, jump, complete and are terminated one by one. */
      executing: {
        type: 'parallel',
        on: {
          PortCompleted: { guard: ({ event }: Args) => event.input !== false, actions: act((c, ev, out) => (reply(ev, 'PortCompleted', out), c)) },
          JumpToOperatorRegion: {
            actions: act((c, ev, out) => {
              reply(ev, 'JumpToOperatorRegion', out);
              const target = String(ev.target);
              const lvl = levelOf(plan, target);
              return lvl < 0 ? c : { ...c, jumpTo: lvl, jumps: { ...c.jumps, [target]: (c.jumps[target] ?? 0) + 1 } };
            }),
          },
          WorkerExecutionCompleted: { actions: act((c, ev, out) => (reply(ev, 'WorkerExecutionCompleted', out), c)) },
        },
        states: Object.fromEntries(ops.map((op) => [op, termination(op)])),
      },
      /** Every region ran: WorkflowCompleted went to the environment. */
      completed: {},
      /** A worker could not be terminated within the attempt budget. */
      failed: {},
    },
  });
}
