// tokio's blocking pool, running offloaded walks (docs/materialize.md). Unbounded
// threads (about 512, never the bottleneck here): each walk is a virtual-time
// timer, so walks on the pool run concurrently with each other and with the
// workers. A started closure cannot be aborted: a cancelled C1 walk runs to its
// end and its send fails; a C3 walk notices at its next slice boundary.
import { coreMachine, type Fx } from './effects.ts';
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

export function poolReact(c: PoolCtx, ev: Message): { ctx: PoolCtx; fx: Fx[] } {
  const fx: Fx[] = [];
  switch (ev.type) {
    case 'SpawnWalk': {
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
    case 'SliceDone': {
      const key = String(ev.key);
      const pw = c.walks[key]!;
      if (pw.abandoned && pw.slicesLeft > 1) return finish({ ...c, stoppedEarly: c.stoppedEarly + 1 }, key, { ...pw, response: { kind: 'canceled' } }, fx);
      if (pw.slicesLeft > 1) {
        fx.push({ kind: 'after', msg: { type: 'SliceDone', key }, delay: pw.sliceMs, id: key });
        return { ctx: { ...c, walks: { ...c.walks, [key]: { ...pw, slicesLeft: pw.slicesLeft - 1 } } }, fx };
      }
      if (pw.diverted) {
        // The upload runs on the same blocking task, holding its slot.
        const r = pw.response as PeekResponse & { kind: 'stashed' };
        fx.push({ kind: 'emit', msg: { type: 'StashUploadStart', w: pw.w, uuid: pw.peek.uuid } });
        fx.push({ kind: 'send', to: STASH, msg: { type: 'stash.upload', uuid: key, bytes: r.bytes, rows: r.rows } });
        return { ctx: { ...c, walks: { ...c.walks, [key]: { ...pw, slicesLeft: 0 } } }, fx };
      }
      return finish(c, key, pw, fx);
    }
    case 'stash.upload.ok':
    case 'stash.upload.error': {
      const key = String(ev.uuid);
      const pw = c.walks[key];
      if (!pw) return { ctx: c, fx };
      const ok = ev.type === 'stash.upload.ok';
      fx.push({ kind: 'emit', msg: { type: 'StashUploadEnd', w: pw.w, uuid: pw.peek.uuid, ok } });
      const response: PeekResponse = ok ? pw.response : { kind: 'error', message: `peek response stash upload failed: ${String(ev.message)}` };
      return finish(c, key, { ...pw, response }, fx);
    }
    case 'AbandonWalk': {
      const key = stashKey(String(ev.uuid), Number(ev.w));
      const pw = c.walks[key];
      if (!pw) return { ctx: c, fx };
      return { ctx: { ...c, walks: { ...c.walks, [key]: { ...pw, abandoned: true } } }, fx };
    }
    default:
      throw new Error(`the blocking pool has no case for '${ev.type}'`);
  }
}

/** The closure ends: the thread is free, the oneshot is set and the worker unparked (variant A also drops the guard here). */
function finish(c: PoolCtx, key: string, pw: PoolWalk, fx: Fx[]): { ctx: PoolCtx; fx: Fx[] } {
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

export const poolMachine = coreMachine('pool', poolReact, initPool, ['SpawnWalk', 'SliceDone', 'stash.upload.ok', 'stash.upload.error', 'AbandonWalk']);
