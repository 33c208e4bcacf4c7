// Arrow record batches, tables and schemas in moved worlds (the Amber model's contexts
// hold record batches): carried as Arrow IPC stream bytes, apache-arrow's own exact
// format. Loaded on demand (apache-arrow takes about 0.3 s to import), and only the
// apache-arrow instance the model imports is recognised: a batch of another copy of the
// library is refused like any unknown class, since decoding it would change its class.

const BATCH = 0,
  TABLE = 1,
  SCHEMA = 2;

/** How the value codec carries Arrow objects. */
export interface ArrowSupport {
  /** 0 batch, 1 table, 2 schema; undefined when `o` is not one of this apache-arrow's. */
  kindOf(o: object): number | undefined;
  /** IPC stream bytes of `o` (cached per object: world values are immutable). */
  encode(o: object, kind: number): Uint8Array;
  /** The object for these bytes; the same object for the same bytes (bounded cache). */
  decode(bytes: Uint8Array, kind: number): object;
}

const DECODED_LIMIT = 4096;

/** Imports apache-arrow and returns the codec's view of it. */
export async function loadArrowSupport(): Promise<ArrowSupport> {
  const arrow = await import('apache-arrow');
  const encoded = new WeakMap<object, Uint8Array>();
  let decoded = new Map<string, object>();
  return {
    kindOf(o) {
      const proto = Object.getPrototypeOf(o);
      if (proto === arrow.RecordBatch.prototype) return BATCH;
      if (proto === arrow.Table.prototype) return TABLE;
      if (proto === arrow.Schema.prototype) return SCHEMA;
      return undefined;
    },
    encode(o, kind) {
      let b = encoded.get(o);
      if (b === undefined) {
        const table = kind === BATCH ? new arrow.Table([o as InstanceType<typeof arrow.RecordBatch>]) : kind === TABLE ? (o as InstanceType<typeof arrow.Table>) : new arrow.Table(o as InstanceType<typeof arrow.Schema>);
        b = arrow.tableToIPC(table, 'stream');
        encoded.set(o, b);
      }
      return b;
    },
    decode(bytes, kind) {
      const key = `${kind}:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')}`;
      let o = decoded.get(key);
      if (o === undefined) {
        const table = arrow.tableFromIPC(bytes.slice());
        if (kind === BATCH) {
          if (table.batches.length !== 1) throw new Error(`an Arrow record batch decoded to ${table.batches.length} batches`);
          o = table.batches[0]!;
        } else o = kind === TABLE ? table : table.schema;
        if (decoded.size >= DECODED_LIMIT) decoded = new Map();
        decoded.set(key, o);
      }
      return o;
    },
  };
}
