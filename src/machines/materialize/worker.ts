// The timely worker as a statechart (docs/materialize.md, "The worker chart"):
// parked in step_or_park, stepping (operators run; arrivals are only buffered),
// or serving: step 3 (handle_pending_commands) then step 4 (process_peeks), each
// choosing what process_peek does with a peek by guards, and waiting in a unit of
// work (an inline walk, a slice, the cursor setup of an offload) for its `Loop`.
// The actions are the loop's pure bodies (loop.ts, process-peek.ts).
import { and, not, setup } from 'xstate';
import { allowCompactionCmd, addChain, admitPeek, beginSweep, bufferCommand, cancelPeek, dropCommand, endStep, endUnit, keepUploadReply, keepWalkResult, loopGuards, maintainTrace, setCap, setWake, stepOperators, stepShort } from './loop.ts';
import { CASE_GUARD, peekActions, peekGuards, type PeekCase } from './process-peek.ts';
import { initWorker, type WorkerCtx, type WorkerInput } from './worker-ctx.ts';

type WorkerEvent = { type: string; [k: string]: unknown };

const COMMANDS = ['PeekCmd', 'CancelPeekCmd', 'AllowCompaction', 'SetCap'] as const;
const UPLOAD_REPLIES = ['stash.upload.ok', 'stash.upload.error'] as const;

/** While the worker is busy (stepping, or serving): an arrival is buffered and sets the sticky unpark token. */
function buffered(duringStep: boolean) {
  const on: Record<string, { actions: any[] }> = {};
  for (const e of COMMANDS) on[e] = { actions: [{ type: 'bufferCommand', params: { duringStep } }, 'setWake'] };
  on.InsertCycle = { actions: ['addChain', 'setWake'] };
  on.WalkResult = { actions: ['keepWalkResult', 'setWake'] };
  for (const e of UPLOAD_REPLIES) on[e] = { actions: ['keepUploadReply', 'setWake'] };
  return on;
}

/** While parked: an arrival is buffered and unparks the worker into an iteration (maintenance, then a step). */
function unparking() {
  const on: Record<string, { target: string; actions: any[] }> = {};
  const wake = (first: any, step = 'stepShort') => ({ target: 'stepping', actions: [first, 'maintainTrace', step] });
  for (const e of COMMANDS) on[e] = wake({ type: 'bufferCommand', params: { duringStep: false } });
  on.InsertCycle = wake('addChain', 'stepOperators');
  on.WalkResult = wake('keepWalkResult');
  for (const e of UPLOAD_REPLIES) on[e] = wake('keepUploadReply');
  return on;
}

const is = (kind: PeekCase['kind']) => CASE_GUARD[kind];

/** process_peek on the head of the sweep: one transition per case, back to `next`, or into the unit of work it starts. */
const processPeek = [
  { guard: is('cancelled'), target: 'next', actions: 'passPeek' },
  { guard: is('not-ready'), target: 'next', actions: 'passPeek' },
  { guard: is('compacted'), target: 'next', actions: 'rejectPeek' },
  { guard: and([is('offload'), 'takesTime']), target: 'takingCursors', actions: 'offloadPeek' },
  { guard: is('offload'), target: 'next', actions: 'offloadPeek' },
  { guard: and([is('slices'), 'takesTime']), target: 'slicing', actions: 'startSlices' },
  { guard: is('slices'), target: 'next', actions: 'startSlices' },
  { guard: and([is('walk'), 'takesTime']), target: 'walking', actions: 'walkPeek' },
  { guard: is('walk'), target: 'next', actions: 'walkPeek' },
  { guard: is('answered'), target: 'next', actions: 'retireOffloaded' },
  { guard: is('walk-running'), target: 'next', actions: 'passPeek' },
  { guard: is('uploaded'), target: 'next', actions: 'retireStashed' },
  { guard: is('uploading'), target: 'next', actions: 'passPeek' },
  { guard: and([is('resume'), 'takesTime']), target: 'slicing', actions: 'resumeSlice' },
  { guard: is('resume'), target: 'next', actions: 'resumeSlice' },
  { guard: is('out-of-fuel'), target: 'next', actions: 'passPeek' },
] as const;

/** A unit of work on the worker: nothing else runs on it until its `Loop` comes back. */
const unitOfWork = { on: { Loop: { target: 'next', actions: 'endUnit' } } } as const;

/** One of steps 3 and 4: `next` picks the next thing to do, `processPeek` does it for one peek, the rest wait for a unit's end. */
function stage(next: readonly unknown[]): any {
  return {
    initial: 'next',
    states: {
      next: { always: next },
      processPeek: { always: processPeek },
      /** An inline or capped walk (to completion, or until it diverts to the stash). */
      walking: unitOfWork,
      /** The cursor setup of an offload (only when cursors cost time: the simulator's cost model). */
      takingCursors: unitOfWork,
      /** C2: one slice of a walk. */
      slicing: unitOfWork,
    },
  };
}


export const workerMachine = setup({
  types: {} as { context: WorkerCtx; input: WorkerInput; events: WorkerEvent },
  guards: { ...loopGuards, ...peekGuards } as any,
  actions: {
    bufferCommand, addChain, keepWalkResult, keepUploadReply, setWake, maintainTrace, stepOperators, stepShort, endStep, endUnit,
    cancelPeek, allowCompactionCmd, setCap, dropCommand, admitPeek, beginSweep, ...peekActions,
  },
}).createMachine({
  id: 'worker',
  context: ({ input }) => initWorker(input),
  initial: 'parked',
  on: {
    // The worker never waits for the reply to a cancelled upload.
    'stash.cancel.ok': {},
    'stash.cancel.error': {},
  },
  states: {
    /** Parked in step_or_park: any arrival unparks it. */
    parked: { on: unparking() },
    /** Inside step_or_park: operators run to completion; arrivals are only buffered. */
    stepping: { on: { ...buffered(true), Loop: { target: 'serving', actions: 'endStep' } } },
    /** Steps 3 and 4: the only place dispatch and retirement happen. */
    serving: {
      on: buffered(false),
      initial: 'commands',
      states: {
        /** Step 3, handle_pending_commands: drain every visible command; a peek is admitted and processed at once. */
        commands: stage([
          { guard: not('commandVisible'), target: '#worker.serving.peeks', actions: 'beginSweep' },
          { guard: 'nextIsCancel', actions: 'cancelPeek' },
          { guard: 'nextIsAllowCompaction', actions: 'allowCompactionCmd' },
          { guard: 'nextIsSetCap', actions: 'setCap' },
          { guard: 'repeatedPeek', actions: 'dropCommand' },
          { guard: 'nextIsPeek', target: 'processPeek', actions: 'admitPeek' },
        ]),
        /** Step 4, process_peeks: process_peek on every pending peek in uuid order, then the next iteration. */
        peeks: stage([
          { guard: not('sweepOver'), target: 'processPeek' },
          { guard: 'operatorWork', target: '#worker.stepping', actions: ['maintainTrace', 'stepOperators'] },
          { guard: 'mustStep', target: '#worker.stepping', actions: ['maintainTrace', 'stepShort'] },
          { target: '#worker.parked', actions: 'maintainTrace' },
        ]),
      },
    },
  },
});
