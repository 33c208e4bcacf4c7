// The task process (child) as an xstate machine. Its phases are the machine's
// states; the work of each event is done by the pure functions of attempt.ts
// (the attempt driver, with the checkpoint writer, reader and request channel as
// its components), whose new context and messages the machine commits.
import { enqueueActions, setup } from 'xstate';
import { send } from '../../actors/index.ts';
import type { AirflowConfig, Outcome } from './config.ts';
import { initialTask, onReplay, onResponse, onRunEnd, onSigTerm, type Out, type Phase, type TaskCtx } from './attempt.ts';
import { firstMessage, onGranted, onHeld, onRelaunch, onStartTry, onWaitOver } from './task-lease.ts';

type TaskEvent =
  | { type: 'Start'; a: number; afterClear?: boolean; token?: number }
  | { type: 'RunEnd'; a: number; i: number; o: Outcome }
  | { type: 'Replay'; a: number; i: number }
  | { type: 'SigTerm'; a: number; kind: 'sigterm' | 'timeout' }
  | { type: 'TaskStateStoreResult'; a: number; rid: number; value: unknown }
  | { type: 'OKResponse'; a: number; rid: number }
  | { type: 'ErrorResponse'; a: number; rid: number; error: string }
  | { type: 'Relaunch' }
  | { type: 'LeaseGranted'; token: number }
  | { type: 'LeaseHeld'; token: number }
  | { type: 'LeaseWaitOver'; token: number };

const PHASES: readonly Phase[] = ['idle', 'reading', 'looping', 'closing', 'exited'];

/** The task process `id`: 'task', or 'task2', a second process started on the same task (cfg.processes = 2). */
export function taskProcessMachine(cfg: AirflowConfig, id = 'task') {
  const first = firstMessage(cfg, id);
  const commit = (f: (c: TaskCtx, e: any) => { c: TaskCtx; out: Out[] }): any =>
    enqueueActions(({ context, event, enqueue }: { context: TaskCtx; event: any; enqueue: any }) => {
      const r = f(context, event);
      if (r.c !== context) enqueue.assign(() => r.c);
      for (const o of r.out) {
        if (o.cancel !== undefined) enqueue.cancel(o.cancel);
        else if (o.delay !== undefined) enqueue.raise(o.msg, { delay: o.delay, id: o.id });
        else enqueue(send(o.to, o.msg));
      }
    });
  const respond = commit((c, e) => {
    const resp = e.type === 'TaskStateStoreResult' ? { a: e.a, rid: e.rid, value: e.value }
      : e.type === 'ErrorResponse' && e.error === 'TASK_STORE_NOT_FOUND' ? { a: e.a, rid: e.rid }
      : e.type === 'ErrorResponse' ? { a: e.a, rid: e.rid, error: String(e.error) }
      : { a: e.a, rid: e.rid };
    return onResponse(c, cfg, resp);
  });
  const route = (here: Phase) => PHASES.filter((p) => p !== here).map((p) => ({ guard: ({ context }: { context: TaskCtx }) => context.phase === p, target: p }));
  return setup({ types: {} as { context: TaskCtx; events: TaskEvent } }).createMachine({
    id,
    context: () => initialTask(),
    initial: 'idle',
    on: {
      Start: { actions: commit((c, e) => onStartTry(c, cfg, e)) },
      RunEnd: { actions: commit((c, e) => onRunEnd(c, cfg, e)) },
      Replay: { actions: commit((c, e) => onReplay(c, cfg, e)) },
      SigTerm: { actions: commit((c, e) => onSigTerm(c, cfg, e)) },
      TaskStateStoreResult: { actions: respond },
      OKResponse: { actions: respond },
      ErrorResponse: { actions: respond },
      Relaunch: { actions: commit((c) => onRelaunch(c)) },
      LeaseGranted: { actions: commit((c, e) => onGranted(c, id, e.token)) },
      LeaseHeld: { actions: commit((c, e) => onHeld(c, e.token)) },
      LeaseWaitOver: { actions: commit((c, e) => onWaitOver(c, e.token)) },
    },
    states: {
      // A (re)started process announces itself (with the lease, it asks for the lease
      // first); the runner answers with the try to run.
      // Tagged `idle`: a process whose Hello goes unanswered (no try left to run) rests
      // here, it is not deadlocked (the runner's properties judge the run).
      idle: { tags: ['idle'], entry: send(first.to, first.msg), always: route('idle') },
      reading: { always: route('reading') },
      looping: { always: route('looping') },
      closing: { always: route('closing') },
      exited: { always: route('exited') },
    },
  });
}
