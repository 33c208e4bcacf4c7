// The simulated Materialize peek response stash (docs/materialize.md): a blob upload target. An upload takes several steps: the stash
// sends itself one `stash.pump` per part, so the checker interleaves every part
// with the rest of the system (a stashing walk holds its slot for the whole upload).
// A `fail` outcome on a part ends the upload with UploadFailed; a cancel ends it
// with no upload reply. Either way the parts written so far leak (Materialize's TODO).
import type { ReducerLogic, ReducerResult } from '../actors/scenario.ts';
import type { Message } from '../actors/types.ts';
import { NONE, ioEvent, offered, without } from './common.ts';
import { DEFAULT_STASH_THRESHOLD_BYTES, ErrorCode, errorReply, type ReqId, type StashFault, type StashOptions, type StashRequest } from './messages.ts';

/** A running stash upload of one peek's response. */
export interface Upload {
  /** The actor that started it. */
  readonly owner: string;
  /** The request's correlation id. */
  readonly req?: ReqId;
  /** The response's size, in bytes. */
  readonly bytes: number;
  /** The response's rows. */
  readonly rows: number;
  /** Parts to upload in all. */
  readonly parts: number;
  /** Parts uploaded so far. */
  readonly done: number;
}

/** A finished stash shard. */
export interface Shard {
  /** Its size, in bytes. */
  readonly bytes: number;
  /** Its rows. */
  readonly rows: number;
  /** The parts it was uploaded in. */
  readonly parts: number;
}

/** The peek stash's state: running uploads, finished shards, leaked parts. */
export interface StashState {
  /** Running uploads by peek uuid. */
  readonly uploads: Readonly<Record<string, Upload>>;
  /** Finished shards by name (`s<uuid>`). */
  readonly shards: Readonly<Record<string, Shard>>;
  /** Parts written by uploads that failed or were cancelled. */
  readonly leakedParts: number;
}

/** The stash decision of a peek (docs/materialize.md): stash on, a persist location, a streamable finishing, and over the threshold. */
export function shouldStash(bytes: number, cfg: { enabled?: boolean; location?: boolean; streamable?: boolean; thresholdBytes?: number } = {}): boolean {
  return (cfg.enabled ?? true) && (cfg.location ?? true) && (cfg.streamable ?? true) && bytes > (cfg.thresholdBytes ?? DEFAULT_STASH_THRESHOLD_BYTES);
}

/** The shard name of a peek's stash. */
export function shardName(uuid: string): string {
  return `s${uuid}`;
}

/** Steps an upload of `bytes` takes. */
export function uploadParts(bytes: number, partBytes: number, maxParts: number): number {
  return Math.min(maxParts, Math.max(1, Math.ceil(bytes / partBytes)));
}

const DEFAULT_FAULTS: readonly StashFault[] = ['fail'];

/** The simulated peek response stash. Answers `stash.upload` and `stash.cancel` (messages.ts). */
export function peekStash(opts: StashOptions = {}): ReducerLogic<StashState, StashRequest> {
  const partBytes = opts.partBytes ?? 1024 * 1024;
  const maxParts = opts.maxParts ?? 4;
  if (!(partBytes > 0) || !Number.isInteger(maxParts) || maxParts < 1) throw new Error(`peekStash: partBytes must be > 0 and maxParts a whole number >= 1, got ${partBytes}, ${maxParts}`);
  const offer = opts.faults ?? { ops: ['stash.pump'] };
  // Typed with any message inside (it answers unknown ones as unhandled); the return type says what it accepts.
  const logic: ReducerLogic<StashState> = {
    kind: 'reducer',
    init: () => ({ uploads: {}, shards: {}, leakedParts: 0 }),
    faultOutcomes(state, msg, from) {
      if (msg.type !== 'stash.pump' && msg.type !== 'stash.upload') return NONE;
      if (msg.type === 'stash.pump' && !(String(msg.uuid) in state.uploads)) return NONE;
      return offered(offer, DEFAULT_FAULTS, msg, from, DEFAULT_FAULTS, () => String(msg.uuid));
    },
    receive(s, msg, ctx): ReducerResult<StashState> {
      const uuid = msg.uuid;
      const req = msg.req as ReqId | undefined;
      const withR = (m: Record<string, unknown>, r: ReqId | undefined) => (r === undefined ? m : { ...m, req: r }) as Message;
      switch (msg.type) {
        case 'stash.upload': {
          const bytes = msg.bytes;
          const rows = msg.rows;
          if (typeof uuid !== 'string' || uuid.length === 0 || !Number.isInteger(bytes) || (bytes as number) < 0 || !Number.isInteger(rows) || (rows as number) < 0) {
            const m = errorReply('stash.upload.error', ErrorCode.InvalidRequest, 'stash.upload needs `uuid` (non-empty string), `bytes` and `rows` (whole numbers >= 0)', req, { uuid: String(uuid) });
            return { state: s, send: [{ to: ctx.from, msg: m }], events: [ioEvent(ctx, 'stash.upload', String(uuid), '400')] };
          }
          if (uuid in s.uploads) {
            const m = errorReply('stash.upload.error', ErrorCode.InvalidRequest, `an upload for peek '${uuid}' is already running`, req, { uuid });
            return { state: s, send: [{ to: ctx.from, msg: m }], events: [ioEvent(ctx, 'stash.upload', shardName(uuid), '400')] };
          }
          if (ctx.outcome === 'fail') {
            const m = errorReply('stash.upload.error', ErrorCode.UploadFailed, `stash upload for peek '${uuid}' failed to start (injected fault)`, req, { uuid });
            return { state: s, send: [{ to: ctx.from, msg: m }], events: [ioEvent(ctx, 'stash.upload', shardName(uuid), 'fail', 0)] };
          }
          const up: Upload = { owner: ctx.from, ...(req === undefined ? {} : { req }), bytes: bytes as number, rows: rows as number, parts: uploadParts(bytes as number, partBytes, maxParts), done: 0 };
          return {
            state: { ...s, uploads: { ...s.uploads, [uuid]: up } },
            send: [{ to: ctx.self, msg: { type: 'stash.pump', uuid } }],
            events: [ioEvent(ctx, 'stash.upload', shardName(uuid), 'started', bytes as number, { parts: up.parts })],
          };
        }
        case 'stash.pump': {
          const id = String(uuid);
          const up = s.uploads[id];
          if (!up) return { state: s, events: [ioEvent(ctx, 'stash.pump', shardName(id), 'canceled')] };
          if (ctx.outcome === 'fail') {
            const m = errorReply('stash.upload.error', ErrorCode.UploadFailed, `stash upload for peek '${id}' failed after ${up.done} of ${up.parts} parts (injected fault)`, up.req, { uuid: id });
            return {
              state: { ...s, uploads: without(s.uploads, id), leakedParts: s.leakedParts + up.done },
              send: [{ to: up.owner, msg: m }],
              events: [ioEvent(ctx, 'stash.pump', shardName(id), 'fail', 0, { part: up.done + 1, parts: up.parts })],
            };
          }
          const done = up.done + 1;
          const partSize = Math.ceil(up.bytes / up.parts);
          const ev = ioEvent(ctx, 'stash.pump', shardName(id), 'ok', Math.min(partSize, up.bytes - up.done * partSize), { part: done, parts: up.parts });
          if (done < up.parts) {
            return { state: { ...s, uploads: { ...s.uploads, [id]: { ...up, done } } }, send: [{ to: ctx.self, msg: { type: 'stash.pump', uuid: id } }], events: [ev] };
          }
          const shard = shardName(id);
          return {
            state: { ...s, uploads: without(s.uploads, id), shards: { ...s.shards, [shard]: { bytes: up.bytes, rows: up.rows, parts: up.parts } } },
            send: [{ to: up.owner, msg: withR({ type: 'stash.upload.ok', uuid: id, shard, bytes: up.bytes, rows: up.rows, parts: up.parts }, up.req) }],
            events: [ev],
          };
        }
        case 'stash.cancel': {
          const id = String(uuid);
          const up = s.uploads[id];
          if (!up) {
            const m = errorReply('stash.cancel.error', ErrorCode.NoSuchUpload, `no stash upload running for peek '${id}'`, req, { uuid: id });
            return { state: s, send: [{ to: ctx.from, msg: m }], events: [ioEvent(ctx, 'stash.cancel', shardName(id), '404')] };
          }
          return {
            state: { ...s, uploads: without(s.uploads, id), leakedParts: s.leakedParts + up.done },
            send: [{ to: ctx.from, msg: withR({ type: 'stash.cancel.ok', uuid: id, leakedParts: up.done }, req) }],
            events: [ioEvent(ctx, 'stash.cancel', shardName(id), 'ok', undefined, { leakedParts: up.done })],
          };
        }
      }
      return { state: s, unhandled: true };
    },
  };
  return logic;
}
