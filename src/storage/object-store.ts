// The simulated object store: S3 semantics as a reducer, with the Iceberg-style
// document catalog in the same actor.
//
// Why one actor for catalog and objects: a drop/recreate deletes the old
// generation's data files in the same step as it bumps the generation, and a
// reader's fetch looks at the objects as they are at that step. That is
// linearizable, like a real store, and it costs one step per request instead of
// two (catalog, then object GET). The race the Amber seed hunts (a reader pinned to
// generation g fetching after a recreate) is fully visible with one actor: the
// reader's cursor lives here, so "no reader has unfetched files of an older
// generation" is a predicate over this actor's state (see invariants.ts). Splitting
// them would only add interleavings between a drop and its own deletes, which the
// sources leave open (catalog purge vs server-side cleanup).
//
// State is plain and small: object bodies (Uint8Array) are shared by reference,
// never copied; records are copied shallowly on write.
import type { ReducerContext, ReducerLogic, ReducerResult } from '../actors/scenario.ts';
import type { Message } from '../actors/types.ts';
import { NONE, etagOf, ioEvent, isBytes, offered, outcomeOf, putConditionShapeProblem, putPreconditionProblem, without } from './common.ts';
import { dataFileKey, handleDoc, isDocRequest, docKeyOf, readerId } from './documents.ts';
import { keyProblem, prefixProblem, uriProblem, uriToKey } from './keys.ts';
import { ErrorCode, errorReply, type DocRequest, type ObjectStoreOptions, type ReqId, type S3Request, type StoreFault } from './messages.ts';
import { emptyStore, faultReply, missingKeyError, withReq, type DataFile, type DocEntry, type Handled, type StoreConfig, type StoreState } from './store-core.ts';

const MUTATING = new Set(['s3.put', 's3.delete', 'doc.create', 'doc.drop', 'doc.commit']);
const ALL_FAULTS: readonly StoreFault[] = ['403', '503', '500', 'ambiguous'];
const READ_FAULTS: readonly StoreFault[] = ['403', '503', '500'];
const DEFAULT_FAULTS: readonly StoreFault[] = ['403', '503', 'ambiguous'];

/** Handles one `s3.*` request. Pure. */
export function handleS3(cfg: StoreConfig, s: StoreState, msg: Message, ctx: ReducerContext): Handled {
  const type = msg.type;
  const req = msg.req as ReqId | undefined;
  const err = `${type}.error`;
  const done = (state: StoreState, reply: Message, bytes?: number): Handled => ({
    state,
    reply,
    events: [ioEvent(ctx, type, (msg.key ?? msg.prefix) as string | undefined, outcomeOf(reply), bytes, { bucket: cfg.bucket })],
  });
  if (type === 's3.list') {
    const prefix = msg.prefix;
    if (typeof prefix !== 'string') return done(s, errorReply(err, ErrorCode.InvalidRequest, 's3.list needs a string `prefix` (use \'\' for every key)', req, { key: String(prefix) }));
    const pp = prefixProblem(prefix);
    if (pp !== undefined) return done(s, errorReply(err, ErrorCode.InvalidKey, pp, req, { key: prefix }));
    const keys = Object.keys(s.objects).filter((k) => k.startsWith(prefix)).sort();
    return done(s, withReq({ type: 's3.list.ok', prefix, keys }, req));
  }
  const key = msg.key;
  const problem = keyProblem(key);
  if (problem !== undefined) return done(s, errorReply(err, ErrorCode.InvalidKey, problem, req, { key: String(key) }));
  const k = key as string;
  switch (type) {
    case 's3.put': {
      const body = msg.body;
      if (!isBytes(body)) return done(s, errorReply(err, ErrorCode.InvalidRequest, 's3.put needs `body` as a Uint8Array', req, { key: k }));
      const cond = msg as { ifMatch?: unknown; ifNoneMatch?: unknown };
      const shape = putConditionShapeProblem(cond);
      if (shape !== undefined) return done(s, errorReply(err, ErrorCode.InvalidRequest, shape, req, { key: k }));
      const conditional = msg.ifMatch !== undefined || msg.ifNoneMatch !== undefined;
      const failed = conditional ? putPreconditionProblem(k, cond, s.objects[k]) : undefined;
      if (failed !== undefined) return done(s, errorReply(err, ErrorCode.PreconditionFailed, failed, req, { key: k }));
      return done({ ...s, objects: { ...s.objects, [k]: body } }, withReq({ type: 's3.put.ok', key: k, bytes: body.byteLength, ...(conditional ? { etag: etagOf(body) } : {}) }, req), body.byteLength);
    }
    case 's3.get': {
      const body = s.objects[k];
      if (!body) return done(s, missingKeyError(cfg, err, k, req));
      const range = msg.range as { start?: unknown; end?: unknown } | undefined;
      if (range === undefined) return done(s, withReq({ type: 's3.get.ok', key: k, body, size: body.byteLength, etag: etagOf(body) }, req), body.byteLength);
      const start = range.start;
      const end = range.end === undefined ? body.byteLength - 1 : range.end;
      if (!Number.isInteger(start) || !Number.isInteger(end) || (start as number) < 0 || (end as number) < (start as number) || (start as number) >= body.byteLength) {
        return done(s, errorReply(err, ErrorCode.InvalidRange, `range ${String(start)}-${String(range.end ?? '')} does not fit object '${k}' of ${body.byteLength} bytes`, req, { key: k }));
      }
      const part = body.subarray(start as number, Math.min(end as number, body.byteLength - 1) + 1);
      return done(s, withReq({ type: 's3.get.ok', key: k, body: part, size: body.byteLength }, req), part.byteLength);
    }
    case 's3.head': {
      const body = s.objects[k];
      if (!body) return done(s, missingKeyError(cfg, err, k, req));
      return done(s, withReq({ type: 's3.head.ok', key: k, size: body.byteLength, etag: etagOf(body) }, req));
    }
    case 's3.delete':
      return done(k in s.objects ? { ...s, objects: without(s.objects, k) } : s, withReq({ type: 's3.delete.ok', key: k }, req));
  }
  throw new Error(`unreachable: '${type}' is not an s3 request`);
}

function isS3Request(type: string): boolean {
  return type === 's3.put' || type === 's3.get' || type === 's3.head' || type === 's3.delete' || type === 's3.list';
}

/**
 * The simulated object store (S3 semantics) with its document catalog. Answers
 * `s3.*` and `doc.*` requests (messages.ts); every request is one step and one `io`
 * trace event. Fault outcomes (`403`, `503`, `ambiguous`, optionally `500`) are
 * offered per `opts.faults`.
 */
export function objectStore(opts: ObjectStoreOptions = {}): ReducerLogic<StoreState, S3Request | DocRequest> {
  const cfg: StoreConfig = { bucket: opts.bucket ?? 'bucket', missingKey: opts.missingKey ?? 403 };
  if (cfg.missingKey !== 403 && cfg.missingKey !== 404) throw new Error(`objectStore: missingKey must be 403 or 404, got ${String(cfg.missingKey)}`);
  const initial = opts.objects ?? {};
  for (const k of Object.keys(initial)) {
    const p = keyProblem(k);
    if (p !== undefined) throw new Error(`objectStore: initial object: ${p}`);
  }
  const offer = opts.faults;
  const seeded = seedDocs(initial, opts.docs ?? {});
  // Typed with any message inside (it answers unknown ones as unhandled); the return type says what it accepts.
  const logic: ReducerLogic<StoreState> = {
    kind: 'reducer',
    // `{ objects }` adds to (or replaces) the configured objects; `{ objects, exact: true }` is
    // the whole contents (a live store's snapshot, recorded at the start of a run).
    init: (input: unknown) => {
      const i = input as { objects?: Record<string, Uint8Array>; exact?: boolean } | undefined;
      const objs = i?.objects;
      if (objs && i.exact === true) return { ...seeded, objects: { ...objs } };
      return objs ? { ...seeded, objects: { ...seeded.objects, ...objs } } : seeded;
    },
    faultOutcomes(state, msg, from) {
      const t = msg.type;
      if (!isS3Request(t) && !isDocRequest(t)) return NONE;
      if (t === 'doc.read.close') return NONE; // client-side: no request reaches storage
      if (t === 'doc.read.next') {
        // No GET happens for an unknown reader or one that has fetched every pinned file.
        const r = state.readers[readerId(from, String(msg.reader))];
        if (!r || (r.pinned !== null && r.next >= r.pinned.length)) return NONE;
      }
      const applicable = MUTATING.has(t) ? ALL_FAULTS : READ_FAULTS;
      return offered(offer, DEFAULT_FAULTS, msg, from, applicable, () => (isS3Request(t) ? ((msg.key ?? msg.prefix) as string) : docKeyOf(state, msg, from)));
    },
    receive(state, msg, ctx): ReducerResult<StoreState> {
      const t = msg.type;
      let h: Handled;
      if (isS3Request(t)) {
        if (ctx.outcome !== undefined && ctx.outcome !== 'ambiguous') {
          return failed(ctx, state, `${t}.error`, msg, { key: (msg.key ?? msg.prefix) as string }, { bucket: cfg.bucket });
        }
        h = handleS3(cfg, state, msg, ctx);
      } else if (isDocRequest(t)) {
        h = handleDoc(cfg, state, msg, ctx);
      } else {
        return { state, unhandled: true };
      }
      return settle(ctx, h, msg);
    },
  };
  return logic;
}

/** The initial state with `docs` committed at generation 1 (one data file per entry). */
function seedDocs(objects: Readonly<Record<string, Uint8Array>>, docs: NonNullable<ObjectStoreOptions['docs']>): StoreState {
  const s = emptyStore(objects);
  const objs: Record<string, Uint8Array> = { ...objects };
  const entries: Record<string, DocEntry> = {};
  for (const [uri, d] of Object.entries(docs)) {
    const problem = uriProblem(uri);
    if (problem !== undefined) throw new Error(`objectStore: initial doc: ${problem}`);
    const prefix = uriToKey(uri);
    const files: DataFile[] = (d.files ?? []).map((f, i) => {
      const key = dataFileKey(prefix, 1, i + 1);
      objs[key] = f.data;
      return { key, rows: f.rows, bytes: f.data.byteLength };
    });
    entries[uri] = { uri, prefix, generation: 1, exists: true, schema: d.schema, files };
  }
  return { ...s, objects: objs, docs: entries };
}

/** A fault that takes no effect: the error reply and its io event. */
function failed(ctx: ReducerContext, state: StoreState, type: string, msg: Message, extra: Readonly<Record<string, unknown>>, detail: Readonly<Record<string, unknown>>): ReducerResult<StoreState> {
  const reply = faultReply(type, ctx.outcome!, msg.req as ReqId | undefined, extra);
  return { state, send: [{ to: ctx.from, msg: reply }], events: [ioEvent(ctx, msg.type, extra.key as string | undefined ?? extra.uri as string | undefined, ctx.outcome!, undefined, detail)] };
}

/** Sends the reply; under the `ambiguous` outcome the effect stands and the reply becomes InternalError. */
function settle(ctx: ReducerContext, h: Handled, msg: Message): ReducerResult<StoreState> {
  if (ctx.outcome === 'ambiguous' && !h.reply.type.endsWith('.error')) {
    const { type: _t, req: _r, ...extra } = h.reply;
    const reply = faultReply(`${msg.type}.error`, 'ambiguous', msg.req as ReqId | undefined, pick(extra));
    const events = h.events.map((e) => (e.kind === 'io' ? { ...e, outcome: 'ambiguous' } : e));
    return { state: h.state, send: [{ to: ctx.from, msg: reply }], events };
  }
  return { state: h.state, send: [{ to: ctx.from, msg: h.reply }], events: h.events };
}

/** The identifying fields of a reply, for its error twin. */
function pick(r: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['key', 'uri', 'reader', 'prefix'] as const) if (r[k] !== undefined) out[k] = r[k];
  return out;
}

