// `process_peek` for the peek at the head of the sweep (in step 3 the peek just
// admitted, in step 4 the next uuid of the pending map): what the protocol does
// with it, as data the worker chart's guards read (`caseOf`), and the actions
// that do it. A case is computed once per context (contexts are immutable), so a
// guard and the action it selects see the same walk.
import { gate } from './trace.ts';
import { offload, offloadMs, placementOf, reject, slice, slicedEntry, sliceStep, startSlices, walkInline, workerWalk, type SliceStep, type WorkerWalk } from './placement.ts';
import { oneshotOf, retireOffload, retireStash, uploadReplyOf } from './retire.ts';
import type { PeekSpec, Placement } from './types.ts';
import { turn, update, type Pending, type Turn, type WorkerCtx } from './worker-ctx.ts';

type Sliced = Pending & { kind: 'sliced' };

export type PeekCase =
  /** The sweep is over (or step 3 admitted nothing). */
  | { readonly kind: 'none' }
  /** No pending entry: cancelled since the sweep began. */
  | { readonly kind: 'cancelled' }
  /** Gates 1-2: an upper has not passed t; stays pending, holding t. */
  | { readonly kind: 'not-ready' }
  /** Gate 3: the compaction frontier is beyond t. */
  | { readonly kind: 'compacted'; readonly peek: PeekSpec; readonly message: string }
  /** Placement Offloaded: a slot is free. */
  | { readonly kind: 'offload'; readonly peek: PeekSpec; readonly ms: number }
  /** C2: placed inline, walked in slices. */
  | { readonly kind: 'slices'; readonly entry: Sliced; readonly step: SliceStep; readonly ms: number }
  /** Placement Inline or Capped: walked on the worker to completion (or until it diverts to the stash). */
  | { readonly kind: 'walk'; readonly peek: PeekSpec; readonly placement: Placement; readonly walk: WorkerWalk; readonly ms: number }
  /** The offloaded walk's answer is in the oneshot. */
  | { readonly kind: 'answered'; readonly entry: Pending & { kind: 'offload' } }
  /** The offloaded walk is still on the pool. */
  | { readonly kind: 'walk-running' }
  /** The inline stash upload replied. */
  | { readonly kind: 'uploaded'; readonly entry: Pending & { kind: 'stash' } }
  /** The inline stash upload is still running. */
  | { readonly kind: 'uploading' }
  /** C2: the next slice of a parked walk. */
  | { readonly kind: 'resume'; readonly entry: Sliced; readonly step: SliceStep; readonly ms: number }
  /** C2: the pass's fuel is spent; the walk waits for the next sweep. */
  | { readonly kind: 'out-of-fuel' };

const cases = new WeakMap<WorkerCtx, PeekCase>();

/** What process_peek does with the head of the sweep. */
export function caseOf(c: WorkerCtx): PeekCase {
  let k = cases.get(c);
  if (k === undefined) cases.set(c, (k = classify(c)));
  return k;
}

function classify(c: WorkerCtx): PeekCase {
  const uuid = c.serve.queue[0];
  if (uuid === undefined) return { kind: 'none' };
  const p = c.pending.find((x) => x.peek.uuid === uuid);
  if (!p) return { kind: 'cancelled' };
  switch (p.kind) {
    case 'index': {
      const peek = p.peek;
      const g = gate(c.trace, peek.t);
      if (g.kind === 'not-ready') return { kind: 'not-ready' };
      if (g.kind === 'compacted') return { kind: 'compacted', peek, message: g.message };
      const placement = placementOf(c);
      if (placement === 'offloaded') return { kind: 'offload', peek, ms: offloadMs(c, peek) };
      const ww = workerWalk(c, peek);
      if (c.cfg.design === 'yield' && ww.report.outcome.kind !== 'divert') {
        const entry = slicedEntry(c, peek, ww);
        const step = sliceStep(c, entry);
        return { kind: 'slices', entry, step, ms: step.ms };
      }
      return { kind: 'walk', peek, placement, walk: ww, ms: ww.ms };
    }
    case 'offload':
      return oneshotOf(c, uuid) ? { kind: 'answered', entry: p } : { kind: 'walk-running' };
    case 'stash':
      return uploadReplyOf(c, uuid) ? { kind: 'uploaded', entry: p } : { kind: 'uploading' };
    case 'sliced': {
      const step = sliceStep(c, p);
      return step.outOfFuel ? { kind: 'out-of-fuel' } : { kind: 'resume', entry: p, step, ms: step.ms };
    }
  }
}

/** The guard that names each case in the chart. */
export const CASE_GUARD = {
  none: 'sweepOver',
  cancelled: 'cancelledMeanwhile',
  'not-ready': 'notReady',
  compacted: 'compacted',
  offload: 'placedOffloaded',
  slices: 'walkedInSlices',
  walk: 'placedOnWorker',
  answered: 'answerInOneshot',
  'walk-running': 'walkStillRunning',
  uploaded: 'uploadReplied',
  uploading: 'uploadStillRunning',
  resume: 'sliceLeft',
  'out-of-fuel': 'outOfFuel',
} as const satisfies Record<PeekCase['kind'], string>;

type Args = { readonly context: WorkerCtx };

/** Guards: one per case of the head; `takesTime` when its unit of work takes time (the worker then waits for its `Loop`). */
export const peekGuards: Record<string, (a: Args) => boolean> = {
  ...Object.fromEntries((Object.keys(CASE_GUARD) as PeekCase['kind'][]).map((kind) => [CASE_GUARD[kind], ({ context }: Args) => caseOf(context).kind === kind])),
  takesTime: ({ context }: Args) => {
    const k = caseOf(context);
    return 'ms' in k && k.ms > 0;
  },
};

/** Takes the head off the sweep, then does what its case says. */
function onHead<K extends PeekCase['kind']>(kind: K, body: (t: Turn, k: PeekCase & { kind: K }) => void): any {
  return turn((t) => {
    const k = caseOf(t.c);
    if (k.kind !== kind) throw new Error(`process_peek: the head's case is '${k.kind}', the chart chose '${kind}'`);
    t.set({ serve: { ...t.c.serve, queue: t.c.serve.queue.slice(1) } });
    body(t, k as PeekCase & { kind: K });
  });
}

export const peekActions = {
  /** Nothing to do for it this sweep (cancelled, not ready, still walking or uploading, out of fuel). */
  passPeek: update((c) => ({ serve: { ...c.serve, queue: c.serve.queue.slice(1) } })),
  rejectPeek: onHead('compacted', (t, k) => reject(t, k.peek, k.message)),
  offloadPeek: onHead('offload', (t, k) => offload(t, k.peek)),
  startSlices: onHead('slices', (t, k) => startSlices(t, k.entry, k.step)),
  walkPeek: onHead('walk', (t, k) => walkInline(t, k.peek, k.placement, k.walk)),
  retireOffloaded: onHead('answered', (t, k) => retireOffload(t, k.entry)),
  retireStashed: onHead('uploaded', (t, k) => retireStash(t, k.entry)),
  resumeSlice: onHead('resume', (t, k) => slice(t, k.entry, k.step)),
};
