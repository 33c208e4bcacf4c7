// The task process (child) as a statechart. Its states are the protocol's phases:
// idle (announced, waiting for a try; with the lease, asking for it or waiting it
// out), reading (phase A, the startup reads), looping (phase B), closing (phase C:
// the rest write, then the marker write), exited (phase D concluded, or a try never
// begun), and leaseLost (a write was fenced: the process stopped). The chart moves
// between them on named events and named conditions (reads done or failed, loop
// drained, a sync write still unanswered); the data work of each transition is a
// pure step of attempt.ts whose new context and messages the machine commits.
// Every state names the events it takes; any other is unhandled and the kernel
// reports it. Answers of a dead try (the supervisor outlives a killed child, O6)
// are expected in every state and ignored by try number.
import { enqueueActions, setup } from 'xstate';
import { send } from '../../actors/index.ts';
import type { AirflowConfig, Outcome } from './config.ts';
import { awaiting, beginTry, conclude, drained, enterLoop, initialTask, onReplay, onResponse, onRunEnd, onSigTerm, respOf, writeMarker, writeRest, type Out, type TaskCtx, type Where } from './attempt.ts';
import { firstMessage, isLeaseLost, onGranted, onLeaseLost, poll, startsHere } from './task-lease.ts';

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
  | { type: 'LeaseHeld'; token: number };

type Args = { context: TaskCtx; event: any };
type StepFn = (c: TaskCtx, e: any) => { c: TaskCtx; out: Out[] };
const RESPONSES = ['TaskStateStoreResult', 'OKResponse', 'ErrorResponse'] as const;

/** The task process `id`: 'task', or 'task2', a second process started on the same task (cfg.processes = 2). */
export function taskProcessMachine(cfg: AirflowConfig, id = 'task') {
  const first = firstMessage(cfg, id);
  /** Commits a pure step: its context, then its messages, timers (operators ending) and timer cancellations. */
  const step = (f: StepFn): any =>
    enqueueActions(({ context, event, enqueue }: { context: TaskCtx; event: any; enqueue: any }) => {
      const r = f(context, event);
      if (r.c !== context) enqueue.assign(() => r.c);
      for (const o of r.out) {
        if (o.cancel !== undefined) enqueue.cancel(o.cancel);
        else if (o.delay !== undefined) enqueue.raise(o.msg, { delay: o.delay, id: o.id });
        else enqueue(send(o.to, o.msg));
      }
    });
  const byCfg = (f: (c: TaskCtx, cfg: AirflowConfig) => { c: TaskCtx; out: Out[] }) => step((c) => f(c, cfg));

  // A response in phase `where` answers the request holding the channel; with the lease, a refused write stops the process.
  const responses = (where: Where) =>
    Object.fromEntries(
      RESPONSES.map((t) => [
        t,
        [
          ...(cfg.lease ? [{ guard: ({ context, event }: Args) => isLeaseLost(context, respOf(event)), target: `#${id}.leaseLost`, actions: byCfg(onLeaseLost) }] : []),
          { actions: step((c, e) => onResponse(c, cfg, respOf(e), where)) },
        ],
      ]),
    );
  // Where no request of this try can be open (idle, exited, stopped): the answer of a dead try's request.
  const staleAnswers = Object.fromEntries(RESPONSES.map((t) => [t, {}]));
  // A try begins: in `idle`, in `exited` (the runner's retry in the same process), or over a try
  // still running when a restarted process's Hello and its dead predecessor's were both
  // answered: the later Start abandons the earlier try (its operators' ends then come stale).
  const start = {
    Start: [
      { guard: ({ context, event }: Args) => startsHere(context, cfg, event), target: `#${id}.reading`, actions: step((c, e) => beginTry(c, cfg, e.a, e.afterClear === true)) },
      // With the lease: a Start answering a dead predecessor's Hello (same actor, restarted) is not run.
      ...(cfg.lease ? [{}] : []),
    ],
  };
  // An operator end or replay start of an abandoned try (the guard); one of the current try outside the loop is unhandled.
  const stale = (c: TaskCtx, e: any): boolean => e.a !== c.a;
  const staleRun = { RunEnd: { guard: ({ context, event }: Args) => stale(context, event) }, Replay: { guard: ({ context, event }: Args) => stale(context, event) } };
  // With the lease: answers to a dead predecessor's lease request reach its restarted successor anywhere; they change nothing.
  const staleLease = cfg.lease ? { LeaseGranted: {}, LeaseHeld: {} } : {};
  // SIGTERM or execution_timeout sent with a try that has ended already (or was never begun here).
  const lateSigTerm = cfg.softKill === 'none' ? {} : { SigTerm: {} };

  // idle: the process announced itself (Hello) and waits for its try. With the lease it
  // asks for the lease first, and while another process holds it, waits it out: the
  // after-timer's end may come at any moment, a holder that missed its heartbeats.
  const idle = cfg.lease
    ? {
        tags: ['idle'],
        entry: send(first.to, first.msg),
        initial: 'asking',
        // A Start is taken only once announced (the guard checks the lease); before, it answers a dead predecessor's Hello.
        on: { ...start, ...staleAnswers, ...staleRun, ...lateSigTerm },
        states: {
          asking: {
            on: {
              LeaseGranted: { target: 'announced', actions: step((c, e) => onGranted(c, id, e.token)) },
              LeaseHeld: { target: 'waiting', actions: step((c, e) => ({ c: { ...c, waitedOn: e.token }, out: [] })) },
            },
          },
          waiting: {
            after: { 0: { target: 'asking', actions: step((c) => ({ c: { ...c, waitedOn: 0 }, out: [poll(c)] })) } },
            on: {
              // A dead predecessor's request answered: its grant is this process's lease now.
              LeaseGranted: { target: 'announced', actions: step((c, e) => onGranted(c, id, e.token)) },
              LeaseHeld: { target: 'waiting', reenter: true, actions: step((c, e) => ({ c: { ...c, waitedOn: e.token }, out: [] })) },
            },
          },
          announced: { on: { LeaseGranted: {}, LeaseHeld: {} } },
        },
      }
    : { tags: ['idle'], entry: send(first.to, first.msg), on: { ...start, ...staleAnswers, ...staleRun, ...lateSigTerm } };

  return setup({ types: {} as { context: TaskCtx; events: TaskEvent } }).createMachine({
    id,
    context: () => initialTask(),
    initial: 'idle',
    states: {
      idle,
      // Phase A: the marker, then the checkpoints, with sync calls; a SIGTERM only sets the stop flag.
      reading: {
        always: [
          { guard: ({ context }: Args) => context.readFailed, target: 'exited' },
          { guard: ({ context }: Args) => context.readDone, target: 'looping' },
        ],
        on: { ...start, ...responses('reading'), SigTerm: { actions: step((c, e) => onSigTerm(c, cfg, e, false)) }, ...staleRun, ...staleLease },
      },
      // Phase B: operators end (timers of the process), replays start, responses come back; drained, it closes.
      looping: {
        entry: byCfg(enterLoop),
        always: { guard: ({ context }: Args) => drained(context, cfg), target: 'closing' },
        on: {
          ...start,
          RunEnd: { actions: step((c, e) => onRunEnd(c, cfg, e)) },
          Replay: { actions: step((c, e) => onReplay(c, cfg, e)) },
          SigTerm: { actions: step((c, e) => onSigTerm(c, cfg, e, true)) },
          ...responses('looping'),
          ...staleLease,
        },
      },
      // Phase C: the rest with a sync call, then the marker (a success or skip only).
      closing: {
        initial: 'rest',
        on: { ...start, ...responses('closing'), ...staleRun, ...lateSigTerm, ...staleLease },
        states: {
          rest: { entry: byCfg(writeRest), always: { guard: ({ context }: Args) => !awaiting(context, 'rest'), target: 'marker' } },
          marker: { entry: byCfg(writeMarker), always: { guard: ({ context }: Args) => !awaiting(context, 'marker-set'), target: `#${id}.exited` } },
        },
      },
      // Phase D: the try's fate is out. The runner may start the next try here; with the lease it asks for a relaunch.
      exited: {
        entry: byCfg(conclude),
        on: {
          ...start,
          ...staleAnswers,
          ...staleRun,
          ...lateSigTerm,
          ...(cfg.lease ? { Relaunch: { target: 'idle' }, ...staleLease } : {}),
        },
      },
      // A write was refused: another process took the lease over. The process has stopped (exit 75).
      leaseLost: { tags: ['idle'], on: { ...staleAnswers, ...staleRun, ...lateSigTerm, ...staleLease } },
    },
  });
}
