// tokio's blocking pool, running offloaded walks, as a statechart
// (docs/materialize.md, "The pool chart"): `idle` with no walk on a thread,
// `busy` with at least one. Unbounded threads (about 512, never the bottleneck
// here), so there is no "full" state: each walk is a virtual-time timer
// (`SliceDone`, keyed by the walk), so walks run concurrently with each other and
// with the workers. Where each walk is (walking a slice, uploading its diversion)
// is data per walk: the walks are many and concurrent. A started closure cannot
// be aborted: a cancelled C1 walk runs to its end and its send fails; a C3 walk
// notices at its next slice boundary.
import { and, setup } from 'xstate';
import { act, type Fx } from './effects.ts';
import { stashContent, walk, walkMs, walkPositions } from './walk.ts';
import { STASH, stashKey, workerId, type PeekResponse, type PeekSpec, type SlotRelease, type Snapshot, type SpawnWalk, type StashConfig } from './types.ts';
import type { Message } from '../../actors/types.ts';

interface PoolWalk {
  readonly w: number;
  readonly peek: PeekSpec;
  readonly snap: Snapshot;
  readonly stash: StashConfig;
  /** The answer when the walk ends, unless it diverts (then after the upload). */
  readonly response: PeekResponse;
  readonly diverted: boolean;
  readonly abandoned: boolean;
  readonly slicesLeft: number;
  readonly sliceMs: number;
}

export interface PoolCtx {
  readonly slotRelease: SlotRelease;
  /** Blocking walks running per worker (the resource form of invariant 3 reads this). */
  readonly running: readonly number[];
  /** Most walks ever running at once per worker. */
  readonly peak: readonly number[];
  readonly walks: Readonly<Record<string, PoolWalk>>;
  /** C3 walks that noticed their cancellation at a slice boundary and stopped early. */
  readonly stoppedEarly: number;
}

export interface PoolInput {
  readonly workers: number;
  readonly slotRelease: SlotRelease;
}

export function initPool(input: PoolInput): PoolCtx {
  return { slotRelease: input.slotRelease, running: new Array(input.workers).fill(0), peak: new Array(input.workers).fill(0), walks: {}, stoppedEarly: 0 };
}

function bump(xs: readonly number[], i: number, d: number): number[] {
  const out = xs.slice();
  out[i] = out[i]! + d;
  return out;
}

type Out = { ctx: PoolCtx; fx: Fx[] };
const walkOf = (c: PoolCtx, ev: Message): PoolWalk | undefined => c.walks[String(ev.key)];

/** A worker spawns a walk: its answer is computed now (over the pinned batches); the thread is busy for its slices. */
function spawnWalk(c: PoolCtx, ev: Message): Out {
  const fx: Fx[] = [];
  const s = ev as unknown as SpawnWalk;
  const key = stashKey(s.peek.uuid, s.w);
  const r = walk(s.snapshot.oks, s.snapshot.errs, s.peek, s.stash);
  let ms = walkMs(s.peek, r.positions, r.rowsEmitted, s.costs, s.w);
  let response: PeekResponse;
  let diverted = false;
  if (r.outcome.kind === 'divert') {
    // Abandon the rows so far and restart over the spare cursor, streaming into the upload.
    const cont = stashContent(s.snapshot.oks, s.peek);
    ms += walkMs(s.peek, cont.positions, cont.rows.length, s.costs, s.w);
    response = { kind: 'stashed', shard: `s${s.peek.uuid}`, rows: cont.rows.length, bytes: cont.bytes, content: cont.rows };
    diverted = true;
  } else response = r.outcome.kind === 'rows' ? { kind: 'rows', rows: r.outcome.rows } : { kind: 'error', message: r.outcome.message };
  const positions = walkPositions(s.peek, r.positions, s.w);
  const slices = s.sliced ? Math.max(1, Math.ceil(positions / s.slice)) : 1;
  const running = bump(c.running, s.w, 1);
  const peak = running[s.w]! > c.peak[s.w]! ? bump(c.peak, s.w, running[s.w]! - c.peak[s.w]!) : c.peak;
  const pw: PoolWalk = { w: s.w, peek: s.peek, snap: s.snapshot, stash: s.stash, response, diverted, abandoned: false, slicesLeft: slices, sliceMs: ms / slices };
  fx.push({ kind: 'emit', msg: { type: 'WalkStart', w: s.w, uuid: s.peek.uuid, substrate: 'offloaded' } });
  fx.push({ kind: 'after', msg: { type: 'SliceDone', key }, delay: pw.sliceMs, id: key });
  return { ctx: { ...c, running, peak, walks: { ...c.walks, [key]: pw } }, fx };
}

/** C3: a slice ended and the walk was abandoned: it stops here, answering Canceled (which nobody reads). */
function stopEarly(c: PoolCtx, ev: Message): Out {
  const pw = walkOf(c, ev)!;
  return finish({ ...c, stoppedEarly: c.stoppedEarly + 1 }, String(ev.key), { ...pw, response: { kind: 'canceled' } }, []);
}

/** A slice ended with more to walk: the next one starts. */
function nextSlice(c: PoolCtx, ev: Message): Out {
  const key = String(ev.key);
  const pw = walkOf(c, ev)!;
  return { ctx: { ...c, walks: { ...c.walks, [key]: { ...pw, slicesLeft: pw.slicesLeft - 1 } } }, fx: [{ kind: 'after', msg: { type: 'SliceDone', key }, delay: pw.sliceMs, id: key }] };
}

/** The walk diverted: the upload runs on the same blocking task, holding its slot. */
function startUpload(c: PoolCtx, ev: Message): Out {
  const key = String(ev.key);
  const pw = walkOf(c, ev)!;
  const r = pw.response as PeekResponse & { kind: 'stashed' };
  const fx: Fx[] = [
    { kind: 'emit', msg: { type: 'StashUploadStart', w: pw.w, uuid: pw.peek.uuid } },
    { kind: 'send', to: STASH, msg: { type: 'stash.upload', uuid: key, bytes: r.bytes, rows: r.rows } },
  ];
  return { ctx: { ...c, walks: { ...c.walks, [key]: { ...pw, slicesLeft: 0 } } }, fx };
}

function endWalk(c: PoolCtx, ev: Message): Out {
  return finish(c, String(ev.key), walkOf(c, ev)!, []);
}

/** The diversion's upload replied: the walk answers Stashed, or the upload's error. */
function endUpload(c: PoolCtx, ev: Message): Out {
  const key = String(ev.uuid);
  const pw = c.walks[key]!;
  const ok = ev.type === 'stash.upload.ok';
  const response: PeekResponse = ok ? pw.response : { kind: 'error', message: `peek response stash upload failed: ${String(ev.message)}` };
  return finish(c, key, { ...pw, response }, [{ kind: 'emit', msg: { type: 'StashUploadEnd', w: pw.w, uuid: pw.peek.uuid, ok } }]);
}

/** The worker cancelled the peek: the walk keeps going (C1) or stops at its next slice boundary (C3). */
function markAbandoned(c: PoolCtx, ev: Message): Out {
  const key = stashKey(String(ev.uuid), Number(ev.w));
  return { ctx: { ...c, walks: { ...c.walks, [key]: { ...c.walks[key]!, abandoned: true } } }, fx: [] };
}

/** The closure ends: the thread is free, the oneshot is set and the worker unparked (variant A also drops the guard here). */
function finish(c: PoolCtx, key: string, pw: PoolWalk, fx: Fx[]): Out {
  const walks = { ...c.walks };
  delete walks[key];
  const guard = c.slotRelease === 'walk-end';
  fx.push({ kind: 'emit', msg: { type: 'WalkEnd', w: pw.w, uuid: pw.peek.uuid, substrate: 'offloaded' } });
  if (pw.response.kind !== 'canceled') {
    fx.push({ kind: 'emit', msg: { type: 'WalkAnswer', w: pw.w, uuid: pw.peek.uuid, peek: pw.peek, snap: pw.snap, stash: pw.stash, response: pw.response, substrate: 'offloaded', diverted: pw.diverted } });
  }
  fx.push({ kind: 'send', to: workerId(pw.w), msg: { type: 'WalkResult', uuid: pw.peek.uuid, response: pw.response, diverted: pw.diverted, guard } });
  return { ctx: { ...c, running: bump(c.running, pw.w, -1), walks }, fx };
}

type Args = { readonly context: PoolCtx; readonly event: Message };

/** A walk's end: back to `idle` when it was the last walk on the pool. */
function ending(guard: string | undefined, action: string): any[] {
  return [
    { guard: guard ? and([guard, 'lastWalk']) : 'lastWalk', target: 'idle', actions: action },
    guard ? { guard, actions: action } : { actions: action },
  ];
}

export const poolMachine = setup({
  types: {} as { context: PoolCtx; input: PoolInput; events: { type: string; [k: string]: unknown } },
  guards: {
    lastWalk: ({ context }: Args) => Object.keys(context.walks).length === 1,
    /** C3: the walk was abandoned and has slices left: it notices now. */
    abandonedMidWalk: ({ context, event }: Args) => {
      const pw = walkOf(context, event);
      return pw !== undefined && pw.abandoned && pw.slicesLeft > 1;
    },
    moreSlices: ({ context, event }: Args) => (walkOf(context, event)?.slicesLeft ?? 0) > 1,
    diverted: ({ context, event }: Args) => walkOf(context, event)?.diverted === true,
    /** The reply is for an upload a walk here is waiting on. */
    uploadOfAWalk: ({ context, event }: Args) => context.walks[String(event.uuid)] !== undefined,
    walkRunning: ({ context, event }: Args) => context.walks[stashKey(String(event.uuid), Number(event.w))] !== undefined,
  },
  actions: {
    spawnWalk: act(spawnWalk),
    stopEarly: act(stopEarly),
    nextSlice: act(nextSlice),
    startUpload: act(startUpload),
    endWalk: act(endWalk),
    endUpload: act(endUpload),
    markAbandoned: act(markAbandoned),
  },
}).createMachine({
  id: 'pool',
  context: ({ input }) => initPool(input),
  initial: 'idle',
  on: {
    AbandonWalk: [
      { guard: 'walkRunning', actions: 'markAbandoned' },
      // The walk already ended (its answer is on its way): dropping the handle changes nothing.
      {},
    ],
  },
  states: {
    /** No walk on a thread. */
    idle: { on: { SpawnWalk: { target: 'busy', actions: 'spawnWalk' } } },
    /** At least one walk on a thread; each walk's slices and upload are its own timer and messages. */
    busy: {
      on: {
        SpawnWalk: { actions: 'spawnWalk' },
        SliceDone: [
          ...ending('abandonedMidWalk', 'stopEarly'),
          { guard: 'moreSlices', actions: 'nextSlice' },
          { guard: 'diverted', actions: 'startUpload' },
          ...ending(undefined, 'endWalk'),
        ],
        'stash.upload.ok': ending('uploadOfAWalk', 'endUpload'),
        'stash.upload.error': ending('uploadOfAWalk', 'endUpload'),
      },
    },
  },
});
