// The storage the loop runs on: src/storage's Iceberg-style documents over its object
// store (docs/amber.md), driven through its pure document handler (`handleDoc`):
// `create` overrides (the old generation's data files are deleted, generation + 1),
// `commit` adds one data file (Arrow IPC) per writer close, a missing table answers
// "no storage is found for the given URI". This actor is a thin facade that speaks
// the loop runtime's coarse requests (open a port = open its result doc and replay its
// state doc; close a port's writers = one commit per non-empty writer) and adds what
// the seed needs on top:
//   - the reader's pin-then-fetch steps (one data file per step) over the documents;
//   - F_overlap: a reader's fetch gets 403 while its worker's main loop has a read in flight;
//   - F_recreate: the doc is recreated just before a mid-stream reader's fetch;
//   - the forced faults of scenarios 7, 15 and 16 (deleted input, back-edge write error,
//     a State cell over MAX_CELL_BYTES).
// Each of its operations is one `io` trace event in the loop's own vocabulary (op,
// document URI, who, generation), which the properties and the benchmark read.
import type { ReducerContext, ReducerLogic, TraceEvent } from '../../actors/index.ts';
import { decodeRows, encodeRows, handleDoc, emptyStore as emptyStorage, type StoreState as StorageState, type StoreConfig as StorageConfig } from '../../storage/index.ts';
import { batchOfIpc, ipcOf, type Batch } from './data.ts';
import { resultUri, stateUri, type StateRow, type StoreRequest } from './messages.ts';

export interface StoreState extends StorageState {
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

const SCHEMA = { result: 'loop table (value: int32, payload?: utf8)', state: 'State (content: string, loop_counter: long, loop_start_id: string)' };
const BUCKET = 'texera';

// State rows travel as Arrow IPC like any data file; encode and decode once per content.
const rowsIpc = new Map<string, Uint8Array>();
const ipcRows = new WeakMap<Uint8Array, readonly StateRow[]>();
function encodeStates(rows: readonly StateRow[]): Uint8Array {
  const k = JSON.stringify(rows);
  let b = rowsIpc.get(k);
  if (!b) {
    b = encodeRows(rows.map((r) => ({ content: r.content, loop_counter: r.counter, loop_start_id: r.lsId })));
    rowsIpc.set(k, b);
    ipcRows.set(b, rows);
  }
  return b;
}
function decodeStates(b: Uint8Array): readonly StateRow[] {
  let rows = ipcRows.get(b);
  if (!rows) {
    rows = decodeRows(b).map((r) => ({ content: String(r.content), counter: Number(r.loop_counter), lsId: String(r.loop_start_id ?? '') }));
    ipcRows.set(b, rows);
  }
  return rows;
}

function io(op: string, key: string, outcome: string, bytes?: number, detail?: Record<string, unknown>): TraceEvent {
  return { kind: 'io', actor: 'store', op, key, outcome, ...(bytes === undefined ? {} : { bytes }), ...(detail ? { detail } : {}) };
}

/** The generation of a live document, or undefined when it does not exist. */
export function docGen(s: StoreState, uri: string): number | undefined {
  const d = s.docs[uri];
  return d && d.exists ? d.generation : undefined;
}

/** Data-file keys of a live document, in commit order. */
export function docFiles(s: StoreState, uri: string): readonly string[] {
  const d = s.docs[uri];
  return d && d.exists ? d.files.map((f) => f.key) : [];
}

function rowsBytes(rows: readonly StateRow[]): number {
  let n = 0;
  for (const r of rows) n += r.content.length + r.lsId.length + 8;
  return n;
}

/** Initial store: no documents. */
export function emptyStore(): StoreState {
  return { ...emptyStorage(), mainReads: {}, forced: [] };
}

/** One request to the storage layer's document handler (handleDoc); its own io event is replaced by the loop's. */
function doc(sc: StorageConfig, s: StoreState, msg: Record<string, unknown> & { type: string }, ctx: ReducerContext): { state: StoreState; ok: boolean; reply: Record<string, unknown> } {
  const h = handleDoc(sc, s, msg, { ...ctx, outcome: undefined });
  const next = h.state === s ? s : { ...s, ...h.state, mainReads: s.mainReads, forced: s.forced };
  return { state: next, ok: !h.reply.type.endsWith('.error'), reply: h.reply as Record<string, unknown> };
}

function withMainRead(s: StoreState, worker: string, uri: string | undefined): StoreState {
  const m = { ...s.mainReads };
  if (uri === undefined) delete m[worker];
  else m[worker] = uri;
  return { ...s, mainReads: m };
}

export function storeLogic(cfg: StoreConfig): ReducerLogic<StoreState> {
  const sc: StorageConfig = { bucket: BUCKET, missingKey: cfg.missingKey === '404' ? 404 : 403 };
  const tooBig = (rows: readonly StateRow[]): StateRow | undefined => rows.find((r) => r.content.length > cfg.maxCellBytes);
  const tooBigError = (r: StateRow) => `state cell of ${r.content.length} bytes exceeds MAX_CELL_BYTES=${cfg.maxCellBytes}`;
  return {
    kind: 'reducer',
    // A materialized start seeds the store with the documents the earlier regions left.
    init: (seed?: unknown) => (seed as StoreState | undefined) ?? emptyStore(),
    faultOutcomes(s, msg) {
      if (msg.type !== 'Fetch') return [];
      const m = msg as unknown as Extract<StoreRequest, { type: 'Fetch' }>;
      if (m.reader === undefined) return [];
      const out: string[] = [];
      if (cfg.overlapFault && s.mainReads[m.worker] !== undefined) out.push('403');
      if (cfg.recreateFault && docGen(s, m.uri) === m.gen) out.push('recreate');
      return out;
    },
    receive(s, raw, ctx) {
      const msg = raw as StoreRequest;
      const by = ctx.from;
      const create = (t: StoreState, uri: string, evs: TraceEvent[], detail: Record<string, unknown> = {}): StoreState => {
        const r = doc(sc, t, { type: 'doc.create', uri, schema: uri.endsWith('/state') ? SCHEMA.state : SCHEMA.result }, ctx);
        evs.push(io('create', uri, 'ok', undefined, { by, gen: docGen(r.state, uri), ...detail }));
        return r.state;
      };
      const commit = (t: StoreState, uri: string, data: Uint8Array, rows: number): StoreState => doc(sc, t, { type: 'doc.commit', uri, data, rows }, ctx).state;
      const readStates = (t: StoreState, uri: string): StateRow[] => {
        const out: StateRow[] = [];
        for (const k of docFiles(t, uri)) {
          const o = t.objects[k];
          if (o) out.push(...decodeStates(o));
        }
        return out;
      };
      switch (msg.type) {
        case 'CreatePort':
        case 'ResetPort': {
          // createOrReuseDocument: reuse when asked and the doc exists, else drop and recreate.
          let t = s;
          const evs: TraceEvent[] = [];
          for (const uri of [resultUri(msg.base), stateUri(msg.base)]) {
            if (msg.type === 'CreatePort' && msg.reuse && docGen(t, uri) !== undefined) {
              evs.push(io('open', uri, 'reuse', undefined, { by, gen: docGen(t, uri) }));
              continue;
            }
            t = create(t, uri, evs, msg.type === 'ResetPort' ? { reset: true } : {});
          }
          return { state: t, send: [{ to: by, msg: { type: msg.type === 'CreatePort' ? 'PortCreated' : 'PortReset', base: msg.base } }], events: evs };
        }
        case 'OpenPort': {
          // open_document(result_uri), then replay every row of state_uri (states first).
          const uri = resultUri(msg.base);
          const opened = doc(sc, s, { type: 'doc.open', uri }, ctx);
          if (!opened.ok) {
            return {
              state: s,
              send: [{ to: by, msg: { type: 'PortOpened', base: msg.base, ok: false, error: `ValueError: ${String(opened.reply.message ?? 'No storage is found for the given URI')}`, states: [] } }],
              events: [io('open', uri, 'missing', undefined, { by })],
            };
          }
          const sUri = stateUri(msg.base);
          const states = readStates(s, sUri);
          return {
            state: s,
            send: [{ to: by, msg: { type: 'PortOpened', base: msg.base, ok: true, states } }],
            events: [io('open', uri, 'ok', undefined, { by, gen: docGen(s, uri) }), io('get', sUri, 'ok', rowsBytes(states), { by, rows: states.length, gen: docGen(s, sUri) ?? 0 })],
          };
        }
        case 'Open': {
          let t = s;
          const evs: TraceEvent[] = [];
          const main = msg.reader === undefined;
          if (main && cfg.deletedInput !== 'none' && !t.forced.includes('deletedInput') && docGen(t, msg.uri) !== undefined) {
            t = { ...t, forced: [...t.forced, 'deletedInput'] };
            if (cfg.deletedInput === 'table') {
              t = doc(sc, t, { type: 'doc.drop', uri: msg.uri }, ctx).state;
              evs.push(io('drop', msg.uri, 'ok', undefined, { by: 'environment', forced: 'deletedInput' }));
            } else {
              const objects = { ...t.objects };
              for (const k of docFiles(t, msg.uri)) delete objects[k];
              t = { ...t, objects };
              evs.push(io('delete', msg.uri, 'ok', undefined, { by: 'environment', forced: 'deletedInput', files: docFiles(t, msg.uri).length }));
            }
          }
          const opened = doc(sc, t, { type: 'doc.open', uri: msg.uri }, ctx);
          if (!opened.ok) {
            evs.push(io('open', msg.uri, 'missing', undefined, { by, main }));
            return { state: t, send: [{ to: by, msg: { type: 'Opened', uri: msg.uri, ok: false, error: `ValueError: ${String(opened.reply.message ?? 'No storage is found for the given URI')}` } }], events: evs };
          }
          if (main) t = withMainRead(t, msg.worker, msg.uri);
          evs.push(io('open', msg.uri, 'ok', undefined, { by, main, gen: docGen(t, msg.uri) }));
          return { state: t, send: [{ to: by, msg: { type: 'Opened', uri: msg.uri, ok: true } }], events: evs };
        }
        case 'Pin': {
          // The first next(): refresh, take the current snapshot, plan its data files in order.
          const main = msg.reader === undefined;
          const files = docFiles(s, msg.uri);
          const gen = docGen(s, msg.uri) ?? 0;
          const t = main && files.length === 0 ? withMainRead(s, msg.worker, undefined) : s;
          return { state: t, send: [{ to: by, msg: { type: 'Pinned', uri: msg.uri, gen, files } }], events: [io('pin', msg.uri, 'ok', undefined, { by, main, gen, files: files.length })] };
        }
        case 'Fetch': {
          let t = s;
          const evs: TraceEvent[] = [];
          const main = msg.reader === undefined;
          if (ctx.outcome === 'recreate') t = create(t, msg.uri, evs, { by: 'environment', fault: 'F_recreate' });
          if (main && msg.last) t = withMainRead(t, msg.worker, undefined);
          const obj = t.objects[msg.key];
          if (ctx.outcome === '403' || !obj) {
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
              send: [{ to: by, msg: { type: 'CommitFailed', uri: stateUri(msg.base), error: tooBigError(big) } }],
              events: [io('commit', stateUri(msg.base), 'too-large', big.content.length, { by })],
            };
          }
          let t = s;
          const evs: TraceEvent[] = [];
          const rows = msg.rows.filter((b) => b.rows > 0);
          for (const b of rows) t = commit(t, resultUri(msg.base), ipcOf(b), b.rows);
          if (rows.length > 0) evs.push(io('commit', resultUri(msg.base), 'ok', rows.reduce((n, b) => n + ipcOf(b).byteLength, 0), { by, rows: rows.reduce((n, b) => n + b.rows, 0) }));
          if (msg.states.length > 0) {
            t = commit(t, stateUri(msg.base), encodeStates(msg.states), msg.states.length);
            evs.push(io('commit', stateUri(msg.base), 'ok', rowsBytes(msg.states), { by, rows: msg.states.length }));
          }
          return { state: t, send: [{ to: by, msg: { type: 'PortCommitted', base: msg.base } }], events: evs };
        }
        case 'CreateDoc': {
          const evs: TraceEvent[] = [];
          const t = create(s, msg.uri, evs);
          return { state: t, events: evs };
        }
        case 'Commit': {
          const big = tooBig(msg.states);
          if (cfg.backEdgeWriteError || big) {
            const error = big ? tooBigError(big) : 'OSError: put_one failed (injected back-edge write error)';
            return { state: s, send: [{ to: by, msg: { type: 'CommitFailed', uri: msg.uri, error } }], events: [io('commit', msg.uri, 'error', undefined, { by, purpose: msg.purpose })] };
          }
          const t = commit(s, msg.uri, encodeStates(msg.states), msg.states.length);
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
  for (const k of docFiles(s, uri)) {
    const o = s.objects[k];
    if (o) out.push(...decodeStates(o));
  }
  return out;
}

/** Batches of a result doc (for properties); missing files are skipped. */
export function resultBatchesOf(s: StoreState, uri: string): Batch[] {
  const out: Batch[] = [];
  for (const k of docFiles(s, uri)) {
    const o = s.objects[k];
    if (o) out.push(batchOfIpc(o));
  }
  return out;
}
