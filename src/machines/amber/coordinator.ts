// The coordinator: fully materialized mode (every operator its own region), a
// level-set schedule with a cursor, region (re)execution (create or reuse output
// docs, start workers), PortCompleted -> EndWorker (with the 200 ms retry, up to a
// budget), JumpToOperatorRegion moving the cursor, and advancing when a region has
// completed (all ports done, all workers terminated).
import type { Message } from '../../actors/index.ts';
import type { InputChannel } from './messages.ts';
import { phaseMachine, type Out, type StepOut } from './phase-machine.ts';
import { COORDINATOR, STORE } from './worker.ts';

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
  readonly phase: 'idle' | 'creating' | 'running' | 'done' | 'failed';
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

function levelOf(plan: Plan, op: string): number {
  return plan.levels.findIndex((l) => l.includes(op));
}

export function coordinatorStep(plan: Plan, opts: CoordinatorOptions, c: CoordinatorContext, ev: Message): StepOut<CoordinatorContext> {
  const out: Out[] = [];
  const runLevel = (ctx: CoordinatorContext): CoordinatorContext => {
    const ops = plan.levels[ctx.cursor]!;
    for (const op of ops) out.push({ to: STORE, msg: { type: 'CreatePort', base: plan.outBase[op]!, reuse: plan.reuse[op] ?? false } });
    out.push({ emit: { type: 'amber.region', level: ctx.cursor, ops } });
    return { ...ctx, phase: 'creating', pendingCreates: ops.length, running: Object.fromEntries(ops.map((o) => [o, false])), attempts: {} };
  };
  const reply = (op: string, rpc: string) => {
    if (opts.endWorkerRace) out.push({ to: op, msg: { type: 'RpcReply', rpc } });
  };
  switch (ev.type) {
    case 'StartWorkflow':
      if (c.phase !== 'idle') break;
      return { ctx: runLevel(c), out };
    case 'PortCreated': {
      const pending = c.pendingCreates - 1;
      if (pending > 0) return { ctx: { ...c, pendingCreates: pending }, out };
      const execs = { ...c.execs };
      for (const op of plan.levels[c.cursor]!) {
        execs[op] = (execs[op] ?? 0) + 1;
        out.push({ to: op, msg: { type: 'Start', exec: execs[op], loopStartPortUris: plan.loopStartPortUris, inputs: plan.inputs[op] ?? [], outBase: plan.outBase[op]! } });
      }
      return { ctx: { ...c, phase: 'running', pendingCreates: 0, execs }, out };
    }
    case 'PortCompleted': {
      const op = String(ev.op);
      // The last port of the worker completed: terminate it (EndWorker goes out before the RPC's reply).
      if (ev.input === false) {
        out.push({ to: op, msg: { type: 'EndWorker', attempt: 1 } });
        reply(op, 'PortCompleted');
        return { ctx: { ...c, attempts: { ...c.attempts, [op]: 1 } }, out };
      }
      reply(op, 'PortCompleted');
      return { ctx: c, out };
    }
    case 'JumpToOperatorRegion': {
      reply(String(ev.op), 'JumpToOperatorRegion');
      const lvl = levelOf(plan, String(ev.target));
      if (lvl < 0) return { ctx: c, out };
      return { ctx: { ...c, jumpTo: lvl, jumps: { ...c.jumps, [String(ev.target)]: (c.jumps[String(ev.target)] ?? 0) + 1 } }, out };
    }
    case 'WorkerExecutionCompleted':
      reply(String(ev.op), 'WorkerExecutionCompleted');
      return { ctx: c, out };
    case 'ConsoleMessage':
      return { ctx: { ...c, errors: [...c.errors, `${String(ev.op)}: ${String(ev.title)}`] }, out };
    case 'EndWorkerFailed': {
      const op = String(ev.op);
      const n = c.attempts[op] ?? 1;
      if (n >= opts.endWorkerAttempts) {
        out.push({ emit: { type: 'amber.gave-up', op, attempts: n } });
        return { ctx: { ...c, phase: 'failed', errors: [...c.errors, `${op}: EndWorker failed ${n} times (${String(ev.reason)})`] }, out };
      }
      out.push({ to: COORDINATOR, msg: { type: 'RetryEndWorker', op }, delay: opts.retryMs, id: `retry:${op}` });
      return { ctx: c, out };
    }
    case 'RetryEndWorker': {
      const op = String(ev.op);
      const n = (c.attempts[op] ?? 1) + 1;
      out.push({ to: op, msg: { type: 'EndWorker', attempt: n } });
      return { ctx: { ...c, attempts: { ...c.attempts, [op]: n } }, out };
    }
    case 'EndWorkerAck': {
      const running = { ...c.running, [String(ev.op)]: true };
      if (!Object.values(running).every(Boolean)) return { ctx: { ...c, running }, out };
      // Region completed: advance (to the jump target if a jump arrived).
      const cursor = c.jumpTo ?? c.cursor + 1;
      const next = { ...c, running, cursor, jumpTo: null };
      if (cursor >= plan.levels.length) {
        out.push({ to: 'env', msg: { type: 'WorkflowCompleted' } });
        return { ctx: { ...next, phase: 'done' }, out };
      }
      return { ctx: runLevel(next), out };
    }
  }
  return { ctx: c, out };
}

/** The coordinator; `input` seeds its context (a materialized start: cursor at the Loop End region). */
export function coordinatorMachine(plan: Plan, opts: CoordinatorOptions) {
  return phaseMachine<CoordinatorContext, CoordinatorContext | undefined>(
    'coordinator',
    ['idle', 'creating', 'running', 'done', 'failed'],
    (seed) => seed ?? { phase: 'idle', cursor: 0, jumpTo: null, pendingCreates: 0, running: {}, attempts: {}, execs: {}, jumps: {}, errors: [] },
    (ctx, ev) => coordinatorStep(plan, opts, ctx, ev),
  );
}
