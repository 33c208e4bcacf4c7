// The storage the loop runs on: Iceberg-style documents over an object store, as
// one reducer actor (the spec's §1.2). A document has a generation and a list of
// data files; `create` overrides (drops the old generation's file keys, gen + 1);
// a reader pins the current snapshot on its first `next` and then fetches one data
// file per step, so other actors act between fetches; a fetch of a deleted key gets
// the object store's missing-key answer (403 AccessDenied, as MinIO, by default).
//
// This is the seed's own thin store: src/storage (issue 4) had not landed when the
// model was written. It keeps to the storage issue's semantics, and adds the seed's
// two fault rules as outcomes the checker can choose (each costs one fault unit):
//   F_overlap  a reader's fetch gets 403 while its worker's main loop has a read in flight;
//   F_recreate the doc is recreated just before a reader's fetch while that reader is mid-stream.
import type { ReducerLogic, TraceEvent } from '../../actors/index.ts';
import { uriToKey } from '../../storage/keys.ts';
import { batchOfIpc, ipcOf, type Batch } from './data.ts';
import { resultUri, stateUri, type StateRow, type StoreRequest } from './messages.ts';

export interface Doc {
  readonly gen: number;
  /** Object keys of the committed data files, in commit order. */
  readonly files: readonly string[];
}

export interface StoreState {
  readonly docs: Readonly<Record<string, Doc>>;
  /** Data files: Arrow IPC bytes (result docs) or state rows (state docs). */
  readonly objects: Readonly<Record<string, Uint8Array | readonly StateRow[]>>;
  /** Worker -> URI of the read its main loop has in flight (for F_overlap and I2). */
  readonly mainReads: Readonly<Record<string, string>>;
  /** Forced faults already applied (each fires once). */
  readonly forced: readonly string[];
}

export interface StoreConfig {
  /** Answer to a GET of a missing key (MinIO: 403). */
  readonly missingKey: '403' | '404';
  readonly overlapFault: boolean;
  readonly recreateFault: boolean;
  /** Scenario 7: at the first main-loop read, R_in's files are deleted (`files`) or its table is dropped (`table`). */
  readonly deletedInput: 'none' | 'files' | 'table';
  /** Scenario 15: the back-edge `put_one`/`close` fails. */
  readonly backEdgeWriteError: boolean;
  /** A State row whose content exceeds this fails the write (D0's JSON-cell ceiling). */
  readonly maxCellBytes: number;
}

const keys = new Map<string, string>();
/** The object key prefix of a document (src/storage/keys.ts: namespace, then the path with '/' as '_'). */
function storageKey(uri: string): string {
  let k = keys.get(uri);
  if (k === undefined) keys.set(uri, (k = uriToKey(uri)));
  return k;
}

function fileKey(uri: string, gen: number, n: number): string {
  return `${storageKey(uri)}/g${gen}/f${n}`;
}

function io(op: string, key: string, outcome: string, bytes?: number, detail?: Record<string, unknown>): TraceEvent {
  return { kind: 'io', actor: 'store', op, key, outcome, ...(bytes === undefined ? {} : { bytes }), ...(detail ? { detail } : {}) };
}

/** Drops `uri` (deleting its files' keys) and creates it empty at gen + 1. */
function recreate(s: StoreState, uri: string): StoreState {
  const old = s.docs[uri];
  let objects = s.objects;
  if (old && old.files.length > 0) {
    const o = { ...objects };
    for (const k of old.files) delete o[k];
    objects = o;
  }
  return { ...s, docs: { ...s.docs, [uri]: { gen: (old?.gen ?? 0) + 1, files: [] } }, objects };
}

function append(s: StoreState, uri: string, obj: Uint8Array | readonly StateRow[]): StoreState {
  const d = s.docs[uri] ?? { gen: 1, files: [] };
  const key = fileKey(uri, d.gen, d.files.length);
  return { ...s, docs: { ...s.docs, [uri]: { gen: d.gen, files: [...d.files, key] } }, objects: { ...s.objects, [key]: obj } };
}

function withMainRead(s: StoreState, worker: string, uri: string | undefined): StoreState {
  const m = { ...s.mainReads };
  if (uri === undefined) delete m[worker];
  else m[worker] = uri;
  return { ...s, mainReads: m };
}

function rowsBytes(rows: readonly StateRow[]): number {
  let n = 0;
  for (const r of rows) n += r.content.length + r.lsId.length + 8;
  return n;
}

/** Initial store: empty, or with documents already present. */
export function emptyStore(): StoreState {
  return { docs: {}, objects: {}, mainReads: {}, forced: [] };
}

export function storeLogic(cfg: StoreConfig): ReducerLogic<StoreState> {
  const tooBig = (rows: readonly StateRow[]): StateRow | undefined => rows.find((r) => r.content.length > cfg.maxCellBytes);
  return {
    kind: 'reducer',
    init: () => emptyStore(),
    faultOutcomes(s, msg) {
      if (msg.type !== 'Fetch') return [];
      const m = msg as unknown as Extract<StoreRequest, { type: 'Fetch' }>;
      if (m.reader === undefined) return [];
      const out: string[] = [];
      if (cfg.overlapFault && s.mainReads[m.worker] !== undefined) out.push('403');
      if (cfg.recreateFault && s.docs[m.uri]?.gen === m.gen) out.push('recreate');
      return out;
    },
    receive(s, raw, ctx) {
      const msg = raw as StoreRequest;
      const by = ctx.from;
      switch (msg.type) {
        case 'CreatePort': {
          let t = s;
          const evs: TraceEvent[] = [];
          for (const uri of [resultUri(msg.base), stateUri(msg.base)]) {
            if (msg.reuse && t.docs[uri]) {
              evs.push(io('open', uri, 'reuse', undefined, { by, gen: t.docs[uri]!.gen }));
              continue;
            }
            t = recreate(t, uri);
            evs.push(io('create', uri, 'ok', undefined, { by, gen: t.docs[uri]!.gen }));
          }
          return { state: t, send: [{ to: by, msg: { type: 'PortCreated', base: msg.base } }], events: evs };
        }
        case 'ResetPort': {
          let t = s;
          const evs: TraceEvent[] = [];
          for (const uri of [resultUri(msg.base), stateUri(msg.base)]) {
            t = recreate(t, uri);
            evs.push(io('create', uri, 'ok', undefined, { by, gen: t.docs[uri]!.gen, reset: true }));
          }
          return { state: t, send: [{ to: by, msg: { type: 'PortReset', base: msg.base } }], events: evs };
        }
        case 'OpenPort': {
          // open_document(result_uri) then replay every row of state_uri (states first).
          const r = s.docs[resultUri(msg.base)];
          const st = s.docs[stateUri(msg.base)];
          if (!r) {
            return {
              state: s,
              send: [{ to: by, msg: { type: 'PortOpened', base: msg.base, ok: false, error: 'ValueError: No storage is found for the given URI', states: [] } }],
              events: [io('open', resultUri(msg.base), 'missing', undefined, { by })],
            };
          }
          const states: StateRow[] = [];
          for (const k of st?.files ?? []) {
            const o = s.objects[k];
            if (Array.isArray(o)) states.push(...(o as StateRow[]));
          }
          return {
            state: s,
            send: [{ to: by, msg: { type: 'PortOpened', base: msg.base, ok: true, states } }],
            events: [io('open', resultUri(msg.base), 'ok', undefined, { by, gen: r.gen }), io('get', stateUri(msg.base), 'ok', rowsBytes(states), { by, rows: states.length, gen: st?.gen ?? 0 })],
          };
        }
        case 'Open': {
          let t = s;
          const evs: TraceEvent[] = [];
          const main = msg.reader === undefined;
          if (main && cfg.deletedInput !== 'none' && !t.forced.includes('deletedInput') && t.docs[msg.uri]) {
            t = { ...t, forced: [...t.forced, 'deletedInput'] };
            if (cfg.deletedInput === 'table') {
              const docs = { ...t.docs };
              const objects = { ...t.objects };
              for (const k of docs[msg.uri]!.files) delete objects[k];
              delete docs[msg.uri];
              t = { ...t, docs, objects };
              evs.push(io('drop', msg.uri, 'ok', undefined, { by: 'environment', forced: 'deletedInput' }));
            } else {
              const objects = { ...t.objects };
              for (const k of t.docs[msg.uri]!.files) delete objects[k];
              t = { ...t, objects };
              evs.push(io('delete', msg.uri, 'ok', undefined, { by: 'environment', forced: 'deletedInput', files: t.docs[msg.uri]!.files.length }));
            }
          }
          const d = t.docs[msg.uri];
          if (!d) {
            evs.push(io('open', msg.uri, 'missing', undefined, { by, main }));
            return { state: t, send: [{ to: by, msg: { type: 'Opened', uri: msg.uri, ok: false, error: 'ValueError: No storage is found for the given URI' } }], events: evs };
          }
          if (main) t = withMainRead(t, msg.worker, msg.uri);
          evs.push(io('open', msg.uri, 'ok', undefined, { by, main, gen: d.gen }));
          return { state: t, send: [{ to: by, msg: { type: 'Opened', uri: msg.uri, ok: true } }], events: evs };
        }
        case 'Pin': {
          // The first next(): refresh, take the current snapshot, plan its data files.
          const d = s.docs[msg.uri];
          const main = msg.reader === undefined;
          const files = d?.files ?? [];
          const t = main && files.length === 0 ? withMainRead(s, msg.worker, undefined) : s;
          return {
            state: t,
            send: [{ to: by, msg: { type: 'Pinned', uri: msg.uri, gen: d?.gen ?? 0, files } }],
            events: [io('pin', msg.uri, 'ok', undefined, { by, main, gen: d?.gen ?? 0, files: files.length })],
          };
        }
        case 'Fetch': {
          let t = s;
          const evs: TraceEvent[] = [];
          const main = msg.reader === undefined;
          if (ctx.outcome === 'recreate') {
            t = recreate(t, msg.uri);
            evs.push(io('create', msg.uri, 'ok', undefined, { by: 'environment', fault: 'F_recreate', gen: t.docs[msg.uri]!.gen }));
          }
          if (main && msg.last) t = withMainRead(t, msg.worker, undefined);
          const obj = t.objects[msg.key];
          if (ctx.outcome === '403' || !(obj instanceof Uint8Array)) {
            const status = ctx.outcome === '403' ? '403' : cfg.missingKey;
            const error = status === '403' ? 'S3 GetObject: 403 AccessDenied' : 'S3 GetObject: 404 NoSuchKey';
            if (main) t = withMainRead(t, msg.worker, undefined);
            evs.push(io('get', msg.key, status, undefined, { by, main, uri: msg.uri, ...(ctx.outcome === '403' ? { fault: 'F_overlap' } : {}) }));
            return { state: t, send: [{ to: by, msg: { type: 'FetchFailed', uri: msg.uri, key: msg.key, status, error } }], events: evs };
          }
          const batch: Batch = batchOfIpc(obj);
          evs.push(io('get', msg.key, 'ok', obj.byteLength, { by, main, uri: msg.uri, rows: batch.rows }));
          return { state: t, send: [{ to: by, msg: { type: 'Fetched', uri: msg.uri, key: msg.key, batch } }], events: evs };
        }
        case 'CommitPort': {
          // close_port_storage_writers: one snapshot (one data file) per non-empty writer.
          const big = tooBig(msg.states);
          if (big) {
            return {
              state: s,
              send: [{ to: by, msg: { type: 'CommitFailed', uri: stateUri(msg.base), error: `state cell of ${big.content.length} bytes exceeds MAX_CELL_BYTES=${cfg.maxCellBytes}` } }],
              events: [io('commit', stateUri(msg.base), 'too-large', big.content.length, { by })],
            };
          }
          let t = s;
          const evs: TraceEvent[] = [];
          const rows = msg.rows.filter((b) => b.rows > 0);
          if (rows.length > 0) {
            // The writer buffered these batches; they go out as one file each (the model keeps one batch per close).
            for (const b of rows) t = append(t, resultUri(msg.base), ipcOf(b));
            evs.push(io('commit', resultUri(msg.base), 'ok', rows.reduce((n, b) => n + ipcOf(b).byteLength, 0), { by, rows: rows.reduce((n, b) => n + b.rows, 0) }));
          }
          if (msg.states.length > 0) {
            t = append(t, stateUri(msg.base), msg.states);
            evs.push(io('commit', stateUri(msg.base), 'ok', rowsBytes(msg.states), { by, rows: msg.states.length }));
          }
          return { state: t, send: [{ to: by, msg: { type: 'PortCommitted', base: msg.base } }], events: evs };
        }
        case 'CreateDoc': {
          const t = recreate(s, msg.uri);
          return { state: t, events: [io('create', msg.uri, 'ok', undefined, { by, gen: t.docs[msg.uri]!.gen })] };
        }
        case 'Commit': {
          const big = tooBig(msg.states);
          if (cfg.backEdgeWriteError || big) {
            const error = big ? `state cell of ${big.content.length} bytes exceeds MAX_CELL_BYTES=${cfg.maxCellBytes}` : 'OSError: put_one failed (injected back-edge write error)';
            return { state: s, send: [{ to: by, msg: { type: 'CommitFailed', uri: msg.uri, error } }], events: [io('commit', msg.uri, 'error', undefined, { by, purpose: msg.purpose })] };
          }
          const t = append(s, msg.uri, msg.states);
          return {
            state: t,
            send: [{ to: by, msg: { type: 'Committed', uri: msg.uri } }],
            events: [io('commit', msg.uri, 'ok', rowsBytes(msg.states), { by, rows: msg.states.length, purpose: msg.purpose })],
          };
        }
        default:
          return { state: s, unhandled: true };
      }
    },
  };
}

/** Rows of a state doc (for properties). */
export function stateRowsOf(s: StoreState, uri: string): StateRow[] {
  const out: StateRow[] = [];
  for (const k of s.docs[uri]?.files ?? []) {
    const o = s.objects[k];
    if (Array.isArray(o)) out.push(...(o as StateRow[]));
  }
  return out;
}

/** Batches of a result doc (for properties); missing files are skipped. */
export function resultBatchesOf(s: StoreState, uri: string): Batch[] {
  const out: Batch[] = [];
  for (const k of s.docs[uri]?.files ?? []) {
    const o = s.objects[k];
    if (o instanceof Uint8Array) out.push(batchOfIpc(o));
  }
  return out;
}
