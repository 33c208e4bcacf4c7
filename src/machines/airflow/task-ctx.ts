// The task process's context (one attempt: phases A-D, the loop's coroutines, the
// writer and the channel) and the step under construction that every phase writes
// into: a new context plus the messages to send.
import type { Message } from '../../actors/index.ts';
import type { AirflowConfig, Entry, Outcome } from './config.ts';
import { IDLE, asend, syncSend, type ChannelState, type Req, type Role } from './channel.ts';
import { newWriter, type WriterState } from './round-writer.ts';
import type { PVec } from './pstore.ts';

export type Fate = 'success' | 'skipped' | 'up_for_retry' | 'failed' | 'terminated';

/** A live coroutine of the loop: one index. */
export interface Co {
  readonly i: number;
  readonly stage: 'run' | 'read' | 'ckpt' | 'push' | 'idle';
  /** Its outcome, once the operator ended. */
  readonly o?: Outcome;
  /** It closed a round and awaits that write (writeAwait = closing-slot). */
  readonly holdsWrite: boolean;
  readonly replay: boolean;
}

export interface TaskCtx {
  readonly a: number;
  /** The lease token this process holds (0: none, or the model without a lease). */
  readonly lease: number;
  /** With the lease: the token of the lease this process waits out (LeaseHeld), named in its next poll. */
  readonly waitedOn: number;
  /** The runner started this try after a clear of a successful run. */
  readonly afterClear: boolean;
  /** Phase A is over: the loop may start (the chart leaves `reading`). */
  readonly readDone: boolean;
  readonly seq: number;
  readonly ch: ChannelState;
  // phase A
  readonly trusted: boolean;
  readonly since: number;
  readonly readN: number;
  readonly maxT: number;
  readonly earlier: PVec<Entry | null> | null;
  readonly readFailed: boolean;
  // phase B
  readonly next: number;
  readonly co: readonly Co[];
  readonly w: WriterState;
  readonly stop: 'none' | 'failfast' | 'sigterm' | 'timeout';
  readonly failed: readonly number[];
  readonly noRetry: boolean;
  readonly skipped: number;
  readonly records: number;
  // phase C
  readonly markerFailed: boolean;
  readonly fate: Fate | null;
}

/** A message to send; or, to `self`, a delayed event (an operator finishing); or a timer to cancel. */
export interface Out {
  readonly to: string;
  readonly msg: Message;
  readonly delay?: number;
  readonly id?: string;
  readonly cancel?: string;
}

export function initialTask(): TaskCtx {
  return {
    a: 0, lease: 0, waitedOn: 0, afterClear: false, readDone: false, seq: 0, ch: IDLE,
    trusted: false, since: 0, readN: 0, maxT: 0, earlier: null, readFailed: false,
    next: 0, co: [], w: newWriter(0), stop: 'none',
    failed: [], noRetry: false, skipped: 0, records: 0, markerFailed: false, fate: null,
  };
}

/** A response delivered to the process: the answer to the channel's holder. */
export interface Resp {
  readonly a: number;
  readonly rid: number;
  readonly value?: unknown;
  readonly error?: string;
}

/** A step under construction: the context so far and the messages to send. */
export class Step {
  out: Out[] = [];
  /** Whether `c` is this step's own copy (made by the first `set`), which later sets may write. */
  private own = false;
  constructor(
    public c: TaskCtx,
    readonly cfg: AirflowConfig,
  ) {}
  /** The step as the machine commits it. */
  done(): { c: TaskCtx; out: Out[] } {
    this.own = false;
    return { c: this.c, out: this.out };
  }
  set(p: Partial<TaskCtx>): void {
    // The context given to the step is never written: the first set copies it, and a step
    // sets several fields one after another, so later sets write that copy in place.
    if (this.own) Object.assign(this.c, p);
    else {
      this.c = { ...this.c, ...p };
      this.own = true;
    }
  }
  emit(msg: Message): void {
    this.out.push({ to: 'env', msg });
  }
  log(text: string, extra: Record<string, unknown> = {}): void {
    this.emit({ type: 'Log', a: this.c.a, text, ...extra });
  }
  req(op: Req['op'], key: string, role: Role, sync: boolean, more: Partial<Req> = {}): Req {
    const rid = this.c.seq + 1;
    this.set({ seq: rid });
    return { rid, op, key, role, sync, bytes: 0, ...more };
  }
  wire(r: Req): void {
    const type = r.op === 'get' ? 'GetTaskStateStore' : r.op === 'set' ? 'SetTaskStateStore' : 'SetXCom';
    const msg: Record<string, unknown> = { type, a: this.c.a, rid: r.rid, key: r.key, role: r.role, sync: r.sync, bytes: r.bytes };
    if (this.cfg.lease && r.op !== 'get') msg.token = this.c.lease; // the store fences writes by it (lease.ts)
    if (r.value !== undefined) msg.value = r.value;
    if (r.i !== undefined) msg.i = r.i;
    if (r.n !== undefined) msg.n = r.n;
    this.out.push({ to: 'supervisor', msg: msg as Message });
  }
  async(r: Req): void {
    const { ch, out } = asend(this.c.ch, r);
    this.set({ ch });
    if (out) this.wire(out);
  }
  /** A sync call; false when it raised DeadlockImminentError (logged). */
  sync(r: Req): boolean {
    const res = syncSend(this.c.ch, r);
    if ('error' in res) {
      this.log('DeadlockImminentError', { message: res.error.message });
      return false;
    }
    this.set({ ch: res.ch });
    this.wire(res.out);
    return true;
  }
}

export const entryBytesOf = (cfg: AirflowConfig, entries: readonly Entry[]): number => entries.length * cfg.entryBytes;
