// The operator workload as a statechart: insert cycles at fixed virtual times,
// each handing every worker a chain of merge activations (one per step). `cycling`
// waits for the next cycle (an `after` timer); `done` when the last one went out.
// Drawn from the seed before the run, so every design sees the same activation trace.
import { setup } from 'xstate';
import { act, type Fx } from './effects.ts';
import { workerId, type Activation } from './types.ts';

export interface Cycle {
  readonly at: number;
  /** Per worker: its chain (empty for none). */
  readonly chains: readonly (readonly Activation[])[];
}

export interface WorkloadCtx {
  readonly cycles: readonly Cycle[];
  readonly next: number;
}

/** The next cycle is due: every worker with a chain gets it. */
function insert(c: WorkloadCtx): { ctx: WorkloadCtx; fx: Fx[] } {
  const fx: Fx[] = [];
  c.cycles[c.next]!.chains.forEach((chain, w) => {
    if (chain.length > 0) fx.push({ kind: 'send', to: workerId(w), msg: { type: 'InsertCycle', chain } });
  });
  return { ctx: { ...c, next: c.next + 1 }, fx };
}

type Args = { readonly context: WorkloadCtx };

export const workloadMachine = setup({
  types: {} as { context: WorkloadCtx; input: { cycles: readonly Cycle[] }; events: { type: string; [k: string]: unknown } },
  guards: {
    cyclesLeft: ({ context }: Args) => context.next < context.cycles.length,
    moreCycles: ({ context }: Args) => context.next + 1 < context.cycles.length,
  },
  actions: { insert: act(insert) },
  delays: {
    /** Virtual ms from the last cycle (or the start) to the next one. */
    nextCycle: ({ context }: Args) => context.cycles[context.next]!.at - (context.next > 0 ? context.cycles[context.next - 1]!.at : 0),
  },
}).createMachine({
  id: 'workload',
  context: ({ input }) => ({ cycles: input.cycles, next: 0 }),
  initial: 'ready',
  states: {
    ready: { on: { Start: [{ guard: 'cyclesLeft', target: 'cycling' }, { target: 'done' }] } },
    /** A cycle is due after `nextCycle`. */
    cycling: {
      after: {
        nextCycle: [
          { guard: 'moreCycles', target: 'cycling', reenter: true, actions: 'insert' },
          { target: 'done', actions: 'insert' },
        ],
      },
    },
    done: {},
  },
});
