// Iceberg-style documents (one table = one doc), served by the object store actor
// (see object-store.ts for why they share one actor). Semantics from the Amber
// seed (docs/amber.md):
// - create(uri, schema) OVERRIDES: the old generation's data files are deleted from
//   the object store and an empty table with generation + 1 takes its place;
// - open on a missing uri fails with "no storage is found for the given URI";
// - a writer buffers appends client-side; its close() is one `doc.commit` adding
//   one data file (Arrow IPC bytes) in one snapshot;
// - a reader is lazy: its first `next` pins the current snapshot (generation and
//   files, in commit order); each `next` fetches ONE file, so other actors act
//   between fetches; a planned file deleted since answers the store's missing-key
//   answer (403 by default); files committed after the pin are never seen.
import { DataType, Dictionary, RecordBatch, Schema, Table, tableFromIPC, tableFromJSON, tableToIPC, type Data, type Field, type Struct } from 'apache-arrow';
import type { ReducerContext } from '../actors/scenario.ts';
import type { Message } from '../actors/types.ts';
import { ioEvent, isBytes, outcomeOf, without, withoutAll } from './common.ts';
import { uriProblem, uriToKey } from './keys.ts';
import { ErrorCode, NO_STORAGE_FOUND, docCommit, errorReply, type DocCommit, type ReqId } from './messages.ts';
import { faultReply, missingKeyError, withReq, type DataFile, type DocEntry, type Handled, type ReaderEntry, type StoreConfig, type StoreState } from './store-core.ts';

const DOC_TYPES = new Set(['doc.create', 'doc.drop', 'doc.open', 'doc.commit', 'doc.read.open', 'doc.read.next', 'doc.read.close']);

/** True for the request types the document handlers serve (`doc.create` … `doc.read.close`). */
export function isDocRequest(type: string): boolean {
  return DOC_TYPES.has(type);
}

/** The id of a reader in the store: readers are named per owner. */
export function readerId(owner: string, reader: string): string {
  return `${owner}/${reader}`;
}

/** The uri a doc request is about (for fault offers filtered by prefix). */
export function docKeyOf(s: StoreState, msg: Message, from: string): string | undefined {
  if (typeof msg.uri === 'string') return msg.uri;
  if (typeof msg.reader === 'string') return s.readers[readerId(from, msg.reader)]?.uri;
  return undefined;
}

/** The key of a data file: `<doc prefix>/data/g<generation>-<nnnnn>.arrow`. */
export function dataFileKey(prefix: string, generation: number, seq: number): string {
  return `${prefix}/data/g${generation}-${String(seq).padStart(5, '0')}.arrow`;
}

/** Handles one `doc.*` request, including its fault outcome. Pure. */
export function handleDoc(cfg: StoreConfig, s: StoreState, msg: Message, ctx: ReducerContext): Handled {
  const type = msg.type;
  const req = msg.req as ReqId | undefined;
  const err = `${type}.error`;
  const done = (state: StoreState, reply: Message, key: string | undefined, bytes?: number, detail?: Record<string, unknown>): Handled => ({
    state,
    reply,
    events: [ioEvent(ctx, type, key, ctx.outcome === 'ambiguous' && !reply.type.endsWith('.error') ? 'ambiguous' : ctx.outcome ?? outcomeOf(reply), bytes, { bucket: cfg.bucket, ...detail })],
  });
  const fault = ctx.outcome !== undefined && ctx.outcome !== 'ambiguous' ? ctx.outcome : undefined;

  if (type === 'doc.read.next' || type === 'doc.read.close') {
    const name = msg.reader;
    if (typeof name !== 'string') return done(s, errorReply(err, ErrorCode.InvalidRequest, `${type} needs a string \`reader\``, req), undefined);
    const id = readerId(ctx.from, name);
    const r = s.readers[id];
    const gone = { ...s, readers: without(s.readers, id) };
    if (fault) {
      const key = r?.pinned ? r.pinned[r.next]?.key : undefined;
      return done(r ? gone : s, faultReply(err, fault, req, { reader: name, ...(r ? { uri: r.uri } : {}), ...(key ? { key } : {}) }), key, undefined, { reader: name });
    }
    if (!r) return done(s, errorReply(err, ErrorCode.NoSuchReader, `no reader '${name}' open for '${ctx.from}' (open it with doc.read.open; a reader ends after done or an error)`, req, { reader: name }), undefined);
    if (type === 'doc.read.close') return done(gone, withReq({ type: 'doc.read.close.ok', reader: name }, req), undefined, undefined, { reader: name, uri: r.uri });
    let cur = r;
    if (cur.pinned === null) {
      const d = s.docs[cur.uri];
      if (!d || !d.exists) return done(gone, errorReply(err, ErrorCode.NoSuchTable, NO_STORAGE_FOUND, req, { uri: cur.uri, reader: name }), undefined, undefined, { reader: name, uri: cur.uri });
      cur = { ...cur, generation: d.generation, pinned: d.files };
    }
    const files = cur.pinned!;
    const detail = { reader: name, uri: cur.uri, generation: cur.generation };
    if (cur.next >= files.length) {
      return done(gone, withReq({ type: 'doc.read.next.done', reader: name, uri: cur.uri, generation: cur.generation, files: files.length }, req), undefined, undefined, detail);
    }
    const f = files[cur.next]!;
    const data = s.objects[f.key];
    if (!data) return done(gone, missingKeyError(cfg, err, f.key, req, { reader: name, uri: cur.uri }), f.key, undefined, detail);
    const next: ReaderEntry = { ...cur, next: cur.next + 1 };
    const reply = withReq({ type: 'doc.read.next.ok', reader: name, uri: cur.uri, generation: cur.generation, index: cur.next, files: files.length, key: f.key, data, rows: f.rows }, req);
    return done({ ...s, readers: { ...s.readers, [id]: next } }, reply, f.key, data.byteLength, detail);
  }

  const uri = msg.uri;
  const problem = uriProblem(uri);
  if (problem !== undefined) return done(s, errorReply(err, ErrorCode.InvalidKey, problem, req, { uri: String(uri) }), undefined);
  const u = uri as string;
  if (fault) return done(s, faultReply(err, fault, req, { uri: u }), undefined, undefined, { uri: u });
  const prefix = uriToKey(u);
  const d: DocEntry | undefined = s.docs[u];
  const live = d !== undefined && d.exists;
  const missing = () => done(s, errorReply(err, ErrorCode.NoSuchTable, NO_STORAGE_FOUND, req, { uri: u }), prefix, undefined, { uri: u });

  switch (type) {
    case 'doc.create': {
      const dropKeys = live ? d.files.map((f) => f.key) : [];
      const generation = (d?.generation ?? 0) + 1;
      const entry: DocEntry = { uri: u, prefix, generation, exists: true, schema: msg.schema, files: [] };
      const state = { ...s, objects: withoutAll(s.objects, dropKeys), docs: { ...s.docs, [u]: entry } };
      return done(state, withReq({ type: 'doc.create.ok', uri: u, generation, dropped: dropKeys.length }, req), prefix, undefined, { uri: u, generation, dropped: dropKeys.length });
    }
    case 'doc.drop': {
      if (!live) return done(s, withReq({ type: 'doc.drop.ok', uri: u, dropped: 0 }, req), prefix, undefined, { uri: u });
      const dropKeys = d.files.map((f) => f.key);
      const state = { ...s, objects: withoutAll(s.objects, dropKeys), docs: { ...s.docs, [u]: { ...d, exists: false, files: [] } } };
      return done(state, withReq({ type: 'doc.drop.ok', uri: u, dropped: dropKeys.length }, req), prefix, undefined, { uri: u, generation: d.generation, dropped: dropKeys.length });
    }
    case 'doc.open': {
      if (!live) return missing();
      const rows = d.files.reduce((n, f) => n + f.rows, 0);
      return done(s, withReq({ type: 'doc.open.ok', uri: u, generation: d.generation, schema: d.schema, files: d.files.length, rows }, req), prefix, undefined, { uri: u, generation: d.generation });
    }
    case 'doc.commit': {
      if (!live) return missing();
      const data = msg.data;
      const rows = msg.rows;
      if (!isBytes(data) || !Number.isInteger(rows) || (rows as number) < 0) {
        return done(s, errorReply(err, ErrorCode.InvalidRequest, 'doc.commit needs `data` (Uint8Array, Arrow IPC) and `rows` (a whole number >= 0)', req, { uri: u }), prefix);
      }
      if (msg.generation !== undefined && msg.generation !== d.generation) {
        return done(s, errorReply(err, ErrorCode.CommitFailed, `commit to generation ${String(msg.generation)} of '${u}' failed: the table was recreated (now generation ${d.generation})`, req, { uri: u }), prefix, undefined, { uri: u, generation: d.generation });
      }
      const key = dataFileKey(prefix, d.generation, d.files.length + 1);
      const file: DataFile = { key, rows: rows as number, bytes: data.byteLength };
      const entry: DocEntry = { ...d, files: [...d.files, file] };
      const state = { ...s, objects: { ...s.objects, [key]: data }, docs: { ...s.docs, [u]: entry } };
      return done(state, withReq({ type: 'doc.commit.ok', uri: u, generation: d.generation, snapshot: entry.files.length, key }, req), key, data.byteLength, { uri: u, generation: d.generation });
    }
    case 'doc.read.open': {
      if (!live) return missing();
      const name = msg.reader;
      if (typeof name !== 'string' || name.length === 0) return done(s, errorReply(err, ErrorCode.InvalidRequest, 'doc.read.open needs a non-empty string `reader`', req, { uri: u }), prefix);
      const r: ReaderEntry = { owner: ctx.from, reader: name, uri: u, generation: 0, pinned: null, next: 0 };
      return done({ ...s, readers: { ...s.readers, [readerId(ctx.from, name)]: r } }, withReq({ type: 'doc.read.open.ok', uri: u, reader: name }, req), prefix, undefined, { uri: u, reader: name });
    }
  }
  throw new Error(`unreachable doc op ${type}`);
}

// ---------------------------------------------------------------------------
// Client-side writer (appends buffered in the writer's own state) and Arrow helpers
// ---------------------------------------------------------------------------

/** A document writer's buffer: plain and immutable, so it can live in a machine's context. */
export interface DocWriter<Row = Record<string, unknown>> {
  /** The document written. */
  readonly uri: string;
  /** The generation the writer was opened on (from `doc.open.ok`/`doc.create.ok`); commits to a newer one fail. */
  readonly generation?: number;
  /** Rows buffered so far. */
  readonly rows: readonly Row[];
}

/** An empty writer for `uri` (give the generation from `doc.open.ok`/`doc.create.ok` to fence commits to it). */
export function docWriter<Row = Record<string, unknown>>(uri: string, generation?: number): DocWriter<Row> {
  return generation === undefined ? { uri, rows: [] } : { uri, generation, rows: [] };
}

/** Appends rows to the buffer (nothing is written until `closeWriter`). */
export function appendRows<Row>(w: DocWriter<Row>, rows: readonly Row[]): DocWriter<Row> {
  return { ...w, rows: [...w.rows, ...rows] };
}

/** The `doc.commit` request that closes the writer: its rows as one Arrow IPC data file. Encode once, not per step. */
export function closeWriter<Row>(w: DocWriter<Row>, req?: ReqId): DocCommit {
  return docCommit(w.uri, encodeRows(w.rows as readonly Record<string, unknown>[]), w.rows.length, { ...(w.generation === undefined ? {} : { generation: w.generation }), ...(req === undefined ? {} : { req }) });
}

/** Rows as Arrow IPC (stream format). An empty row list gives an empty (zero-length) file. The same rows give the same bytes in any process. */
export function encodeRows(rows: readonly Record<string, unknown>[]): Uint8Array {
  if (rows.length === 0) return new Uint8Array(0);
  const t = tableFromJSON(rows as Record<string, unknown>[]);
  const ids = { next: 0 };
  const data = numberDictionaries(t.batches[0]!.data, ids);
  const schema = new Schema(retypedFields(t.schema.fields, data.children), t.schema.metadata);
  return tableToIPC(new Table(new RecordBatch(schema, data as Data<Struct>)), 'stream');
}

/**
 * `data` with its dictionaries numbered 0, 1, … depth first. tableFromJSON types strings as
 * dictionaries numbered by a process-wide counter, and IPC writes the number: the bytes
 * of the same rows would depend on what the process encoded before.
 */
function numberDictionaries(data: Data, ids: { next: number }): Data {
  const children = data.children.map((c) => numberDictionaries(c, ids));
  let type: DataType = data.type;
  if (DataType.isDictionary(type)) type = new Dictionary(type.dictionary, type.indices, ids.next++, type.isOrdered);
  else if (type.children?.length) {
    // Nested types (struct, list) name their children's types in their fields.
    type = Object.assign(Object.create(Object.getPrototypeOf(type) as object) as DataType, type, { children: retypedFields(type.children, children) });
  }
  // Buffers left undefined: clone keeps the data's own.
  return data.clone(type, data.offset, data.length, data.nullCount, undefined, children);
}

function retypedFields(fields: readonly Field[], children: readonly Data[]): Field[] {
  return fields.map((f, i) => f.clone({ type: children[i]!.type }));
}

/** A data file back as an Arrow table (zero-copy over the bytes); `null` for an empty file. */
export function decodeFile(data: Uint8Array): Table | null {
  return data.byteLength === 0 ? null : tableFromIPC(data);
}

/** A data file's rows as plain objects. */
export function decodeRows(data: Uint8Array): Record<string, unknown>[] {
  const t = decodeFile(data);
  return t ? t.toArray().map((r) => ({ ...(r.toJSON() as Record<string, unknown>) })) : [];
}
