// The worker's data (its context) and the scratch its actions compute with. The
// control flow (which phase M is in, what it waits for) is the chart in worker.ts;
// the functions here only compute data: the next context, the messages to send and
// the observation events to emit, in the order they happen.
import { enqueueActions } from 'xstate';
import { send as sendTo, type Message } from '../../actors/index.ts';
import type { Batch } from './data.ts';
import type { InputChannel, StateRow } from './messages.ts';
import { FRESH_LOOP_END, type Design, type LoopEndState } from './operators.ts';
import type { LoopEndCode, LoopStartCode, Vars } from './user-code.ts';

export const COORDINATOR = 'coordinator';
export const STORE = 'store';

export type OpKind = 'source' | 'loopStart' | 'loopEnd' | 'python' | 'jvm';

export interface OpSpec {
  readonly id: string;
  readonly kind: OpKind;
  readonly start?: LoopStartCode;
  readonly end?: LoopEndCode;
  /** Source: the table it emits (TextInput "1\n2\n3"). */
  readonly source?: Batch;
  /** Body UDF that emits its own unstamped state (scenario 13). */
  readonly bodyState?: 'before' | 'after';
  /** A hop that blanks the envelope it forwards (scenario 13, lost envelope). */
  readonly blanksEnvelope?: boolean;
}

export interface WorkerOptions {
  readonly design: Design;
  /** Open point (docs/amber.md): the has-exception hold runs after the deferred consume (as reviewed) or before it. */
  readonly holdOrder: 'consume-first' | 'hold-first';
  /** Model the RPC replies whose late arrival makes EndWorker fail (#6960). */
  readonly endWorkerRace: boolean;
}

/** The loop table read M is blocked on (`_read_loop_input_table`): the pinned files and what came back so far. */
export interface TableRead {
  readonly uri: string;
  readonly files: readonly string[];
  readonly gen: number;
  /** Index of the file being fetched. */
  readonly idx: number;
  readonly got: readonly Batch[];
}

export interface WorkerContext {
  readonly op: string;
  readonly kind: OpKind;
  readonly exec: number;
  readonly lsUris: Readonly<Record<string, string>>;
  readonly inputs: readonly InputChannel[];
  readonly outBase: string;
  /** The internal queue while M is blocked or paused: control (coordinator) and data (readers); control is taken first. */
  readonly ctrl: readonly Message[];
  readonly data: readonly Message[];
  /** The loop table read in progress, or null. */
  readonly read: TableRead | null;
  /** Loop End: the enclosing loop's state to forward once its output reset answers. */
  readonly resetForward: StateRow | null;
  readonly ended: readonly string[];
  readonly inRows: readonly Batch[];
  readonly outRows: readonly Batch[];
  readonly outStates: readonly StateRow[];
  /** Loop Start: its loop variables. */
  readonly vars: Vars;
  readonly le: LoopEndState;
  /** Loop End: the stashed matching state, the dedup flag, the captured Loop Start id. */
  readonly stash: StateRow | null;
  readonly dedup: boolean;
  readonly lsId: string;
  readonly fwdUnstamped: boolean;
  readonly error: string | null;
  /** The jump RPC went out (so a later back-edge failure is not a silent success). */
  readonly jumped: boolean;
  readonly reads: number;
  readonly rpcOut: number;
  readonly rpcIn: number;
}

export function freshWorker(op: OpSpec): WorkerContext {
  return {
    op: op.id,
    kind: op.kind,
    exec: 0,
    lsUris: {},
    inputs: [],
    outBase: '',
    ctrl: [],
    data: [],
    read: null,
    resetForward: null,
    ended: [],
    inRows: [],
    outRows: [],
    outStates: [],
    vars: {},
    le: FRESH_LOOP_END,
    stash: null,
    dedup: false,
    lsId: '',
    fwdUnstamped: false,
    error: null,
    jumped: false,
    reads: 0,
    rpcOut: 0,
    rpcIn: 0,
  };
}

/** A message to send, or an observation event to emit; kept in the order they happened. */
export type Out = { readonly to: string; readonly msg: Message } | { readonly emit: Message };

/** Mutable scratch for one action (the context itself stays immutable). */
export class M {
  c: WorkerContext;
  readonly out: Out[] = [];
  constructor(
    readonly op: OpSpec,
    readonly opts: WorkerOptions,
    c: WorkerContext,
  ) {
    this.c = c;
  }
  set(p: Partial<WorkerContext>): void {
    this.c = { ...this.c, ...p };
  }
  send(to: string, msg: Message): void {
    this.out.push({ to, msg });
  }
  emit(type: string, extra: Record<string, unknown> = {}): void {
    this.out.push({ emit: { type, op: this.c.op, exec: this.c.exec, ...extra } });
  }
  rpc(msg: Message): void {
    this.send(COORDINATOR, msg);
    this.set({ rpcOut: this.c.rpcOut + 1 });
  }
  /** report_exception: an ERROR console message to the coordinator; the chart then holds the worker. */
  report(error: string, where: string): void {
    this.set({ error: this.c.error ?? error });
    this.send(COORDINATOR, { type: 'ConsoleMessage', level: 'ERROR', op: this.c.op, title: error });
    this.emit('amber.error', { where, error });
  }
}

/** What an action computes: from the context and the event, through the scratch. */
export type Effect = (m: M, ev: Message) => void;

/**
 * An xstate action running `effects` in order over one scratch, then assigning the
 * context it ended with and sending and emitting what they produced, in order.
 */
export function act(op: OpSpec, opts: WorkerOptions, ...effects: Effect[]): any {
  return enqueueActions(({ context, event, enqueue }: { context: WorkerContext; event: Message; enqueue: any }) => {
    const m = new M(op, opts, context);
    for (const f of effects) f(m, event);
    if (m.c !== context) enqueue.assign(() => m.c);
    for (const o of m.out) {
      if ('emit' in o) enqueue.emit(o.emit);
      else enqueue(sendTo(o.to, o.msg));
    }
  });
}
