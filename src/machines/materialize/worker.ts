// The timely worker as an xstate machine. Its states are the loop's phases; the
// loop itself (loop.ts) is a pure function the one `react` action runs.
import { setup } from 'xstate';
import { reactWith } from './effects.ts';
import { react } from './loop.ts';
import { initWorker, type WorkerCtx, type WorkerInput } from './worker-ctx.ts';

const EVENTS = [
  'PeekCmd', 'CancelPeekCmd', 'AllowCompaction', 'SetCap', 'InsertCycle', 'WalkResult',
  'stash.upload.ok', 'stash.upload.error', 'stash.cancel.ok', 'stash.cancel.error', 'Loop',
] as const;

const on = Object.fromEntries(EVENTS.map((e) => [e, { actions: 'react' }]));
const to = (phase: WorkerCtx['phase']) => ({ guard: ({ context }: { context: WorkerCtx }) => context.phase === phase, target: phase });

export const workerMachine = setup({
  types: {} as { context: WorkerCtx; input: WorkerInput; events: { type: (typeof EVENTS)[number]; [k: string]: unknown } },
  actions: { react: reactWith(react) },
}).createMachine({
  id: 'worker',
  context: ({ input }) => initWorker(input),
  initial: 'parked',
  states: {
    /** Parked in step_or_park: any arrival unparks it. */
    parked: { on, always: [to('stepping'), to('serving')] },
    /** Inside step_or_park: operators run to completion; arrivals are only buffered. */
    stepping: { on, always: [to('serving'), to('parked')] },
    /** Steps 3 and 4 (commands, process_peeks): the only place dispatch and retirement happen. */
    serving: { on, always: [to('stepping'), to('parked')] },
  },
});
