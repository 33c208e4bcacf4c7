// The Arrow data plane of the Amber model. DataFrames carry Arrow record batches,
// documents hold Arrow IPC bytes. Everything is interned by content: the same rows
// give the same `Batch` object, so a checker sees identical worlds as identical
// (by identity or by the plain `key`), and IPC is encoded or decoded once per
// distinct content, never per checker step (IPC encoding has a fixed cost per table
// that would dominate a step). The caches are pure memo tables: same input, same output.
import { Int32, RecordBatch, Table, Utf8, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';

/** One record batch plus its content key (plain, so any fingerprint can tell batches apart). */
export interface Batch {
  readonly key: string;
  readonly rows: number;
  readonly rb: RecordBatch;
}

const byKey = new Map<string, Batch>();
const byTable = new WeakMap<Table, Batch>();
const ipcByKey = new Map<string, Uint8Array>();
const fromIpcCache = new WeakMap<Uint8Array, Batch>();
const tableCache = new Map<string, Table>();

/** Content key of a table: the `value` column plus the schema and payload width. */
function keyOfTable(t: Table): string {
  const names = t.schema.fields.map((f) => f.name).join(',');
  const v = t.getChild('value');
  const vals: number[] = [];
  if (v) for (let i = 0; i < t.numRows; i++) vals.push(Number(v.get(i)));
  const p = t.getChild('payload');
  const pw = p && t.numRows > 0 ? String(p.get(0) ?? '').length : 0;
  return `${names}|${vals.join(',')}|${pw}`;
}

/** The same rows as one record batch (column by column). */
function rebatch(t: Table): Table {
  const cols: Record<string, any> = {};
  for (const f of t.schema.fields) cols[f.name] = vectorFromArray(Array.from(t.getChild(f.name)!), f.type);
  return new Table(cols);
}

/** Interns a (possibly multi-batch) table as one batch. */
export function batchOfTable(t: Table): Batch {
  const hit = byTable.get(t);
  if (hit) return hit;
  const key = keyOfTable(t);
  let b = byKey.get(key);
  if (!b) {
    const one = t.batches.length === 1 ? t : rebatch(t);
    const rb = one.batches[0] ?? new RecordBatch(t.schema);
    b = Object.freeze({ key, rows: t.numRows, rb });
    byKey.set(key, b);
  }
  byTable.set(t, b);
  return b;
}

/** The loop's input table: values 1..n, and a wide string column when `payloadBytes` > 0. */
export function inputTable(n: number, payloadBytes = 0): Table {
  const values = Array.from({ length: n }, (_, i) => i + 1);
  const cols: Record<string, any> = { value: vectorFromArray(values, new Int32()) };
  if (payloadBytes > 0) cols.payload = vectorFromArray(values.map((v) => String(v % 10).repeat(payloadBytes)), new Utf8());
  return new Table(cols);
}

/** A table of several batches (concatenated in order), cached by their keys. */
export function tableOf(batches: readonly Batch[]): Table {
  const key = batches.map((b) => b.key).join(';');
  let t = tableCache.get(key);
  if (!t) {
    const nonEmpty = batches.filter((b) => b.rows > 0).map((b) => b.rb);
    t = nonEmpty.length > 0 ? new Table(nonEmpty) : new Table([]);
    tableCache.set(key, t);
    if (batches.length === 1) byTable.set(t, batches[0]!);
  }
  return t;
}

/** Arrow IPC (stream format) of a batch, encoded once per content. */
export function ipcOf(b: Batch): Uint8Array {
  let bytes = ipcByKey.get(b.key);
  if (!bytes) {
    bytes = tableToIPC(new Table([b.rb]), 'stream');
    ipcByKey.set(b.key, bytes);
    fromIpcCache.set(bytes, b);
  }
  return bytes;
}

/** Decodes IPC bytes back to the interned batch, once per byte array. */
export function batchOfIpc(bytes: Uint8Array): Batch {
  let b = fromIpcCache.get(bytes);
  if (!b) {
    b = batchOfTable(tableFromIPC(bytes));
    fromIpcCache.set(bytes, b);
  }
  return b;
}

/** The `value` column as plain numbers (for reference checks and reports). */
export function valuesOf(batches: readonly Batch[]): number[] {
  const out: number[] = [];
  for (const b of batches) {
    const v = b.rb.getChild('value');
    if (v) for (let i = 0; i < b.rows; i++) out.push(Number(v.get(i)));
  }
  return out;
}

// ---- D0: the table inside the state, as base64 IPC in JSON ----------------------------

/** How the Python side encodes bytes in a state's JSON content. */
export const TEXERA_BYTES = '__texera_type__';

const b64Cache = new Map<string, string>();

/** Base64 of a batch's IPC bytes (cached: D0 re-encodes it at every hop in reality; the bench measures that). */
export function base64Of(b: Batch): string {
  let s = b64Cache.get(b.key);
  if (s === undefined) {
    s = Buffer.from(ipcOf(b)).toString('base64');
    b64Cache.set(b.key, s);
  }
  return s;
}

const d0Decode = new Map<string, Batch>();

/** Decodes a D0 state's `table` payload back to a batch (cached by payload). */
export function batchOfBase64(payload: string): Batch {
  let b = d0Decode.get(payload);
  if (!b) {
    const bytes = new Uint8Array(Buffer.from(payload, 'base64'));
    b = batchOfTable(tableFromIPC(bytes));
    d0Decode.set(payload, b);
  }
  return b;
}

/** The protocol's D0 state-row size formula: 4⌈B/3⌉ + 49 bytes for the table part. */
export function d0FormulaBytes(ipcBytes: number): number {
  return 4 * Math.ceil(ipcBytes / 3) + 49;
}
