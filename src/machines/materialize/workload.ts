// The operator workload: insert cycles at fixed virtual times, each handing every
// worker a chain of merge activations (one per step). Drawn from the seed before
// the run, so every design sees the same activation trace.
import { setup } from 'xstate';
import { reactWith, type Fx } from './effects.ts';
import { workerId, type Activation } from './types.ts';
import type { Message } from '../../actors/types.ts';

export interface Cycle {
  readonly at: number;
  /** Per worker: its chain (empty for none). */
  readonly chains: readonly (readonly Activation[])[];
}

export interface WorkloadCtx {
  readonly cycles: readonly Cycle[];
  readonly next: number;
}

export function workloadReact(c: WorkloadCtx, ev: Message): { ctx: WorkloadCtx; fx: Fx[] } {
  const fx: Fx[] = [];
  if (ev.type === 'Start') {
    if (c.cycles.length > 0) fx.push({ kind: 'after', msg: { type: 'Cycle' }, delay: c.cycles[0]!.at, id: 'cycle' });
    return { ctx: c, fx };
  }
  if (ev.type !== 'Cycle') throw new Error(`the workload has no case for '${ev.type}'`);
  const cur = c.cycles[c.next]!;
  cur.chains.forEach((chain, w) => {
    if (chain.length > 0) fx.push({ kind: 'send', to: workerId(w), msg: { type: 'InsertCycle', chain } });
  });
  const next = c.next + 1;
  if (next < c.cycles.length) fx.push({ kind: 'after', msg: { type: 'Cycle' }, delay: c.cycles[next]!.at - cur.at, id: 'cycle' });
  return { ctx: { ...c, next }, fx };
}

export const workloadMachine = setup({
  types: {} as { context: WorkloadCtx; input: { cycles: readonly Cycle[] }; events: { type: string; [k: string]: unknown } },
  actions: { react: reactWith(workloadReact) },
}).createMachine({
  id: 'workload',
  context: ({ input }) => ({ cycles: input.cycles, next: 0 }),
  on: { Start: { actions: 'react' }, Cycle: { actions: 'react' } },
});
