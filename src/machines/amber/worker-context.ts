// The worker's state and the scratch its main loop steps with (shared by the main
// loop in worker.ts and the EndChannel / complete() path in end-of-port.ts).
import type { Message } from '../../actors/index.ts';
import type { Batch } from './data.ts';
import type { InputChannel, StateRow } from './messages.ts';
import { FRESH_LOOP_END, type Design, type LoopEndState } from './operators.ts';
import type { Out } from './phase-machine.ts';
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

export type Phase = 'idle' | 'running' | 'held' | 'completed' | 'terminated';

/** The storage call M is blocked on, and what to do when it answers. */
export type Wait =
  | { readonly k: 'read'; readonly uri: string; readonly then: 'consume-now' | 'consume-deferred'; readonly files: readonly string[]; readonly gen: number; readonly idx: number; readonly got: readonly Batch[] }
  | { readonly k: 'reset'; readonly forward: StateRow }
  | { readonly k: 'commitPort' }
  | { readonly k: 'backEdge' };

/** Where the EndChannel handler resumes after a blocking call. */
export type Stage = 'consume' | 'hold' | 'finish';

export interface WorkerContext {
  readonly op: string;
  readonly kind: OpKind;
  readonly exec: number;
  readonly phase: Phase;
  readonly lsUris: Readonly<Record<string, string>>;
  readonly inputs: readonly InputChannel[];
  readonly outBase: string;
  /** The internal queue: control (coordinator) and data (readers), control first. */
  readonly ctrl: readonly Message[];
  readonly data: readonly Message[];
  readonly wait: Wait | null;
  readonly stage: Stage | null;
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
    phase: 'idle',
    lsUris: {},
    inputs: [],
    outBase: '',
    ctrl: [],
    data: [],
    wait: null,
    stage: null,
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

/** Mutable scratch for one step (the context itself stays immutable). */
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
  /** report_exception: an ERROR console message to the coordinator; the worker will hold. */
  report(error: string, where: string): void {
    this.set({ error: this.c.error ?? error });
    this.send(COORDINATOR, { type: 'ConsoleMessage', level: 'ERROR', op: this.c.op, title: error });
    this.emit('amber.error', { where, error });
  }
  hold(): void {
    this.set({ phase: 'held', wait: null, stage: null });
    this.emit('amber.held');
  }
}
