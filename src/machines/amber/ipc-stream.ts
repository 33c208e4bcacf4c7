// Arrow IPC as a Flight stream carries it: the schema once, when the stream opens, then
// one encapsulated RecordBatch message per data message (continuation marker, metadata
// length, flatbuffer metadata, 8-byte aligned body). `tableToIPC` writes a whole stream
// per call instead (schema, batch, end marker), re-encodes the schema every time and
// joins a dozen small chunks into a zero-filled buffer; this writes the batch message
// straight into one buffer of its final size, and reads it back as views of that
// buffer, with apache-arrow's own metadata codec, assembler and loader. Pure functions:
// the same batch gives the same bytes.
import { Message, RecordBatch, Struct, makeData, type Schema } from 'apache-arrow';
import { RecordBatch as RecordBatchHeader } from 'apache-arrow/ipc/metadata/message';
import { VectorAssembler } from 'apache-arrow/visitor/vectorassembler';
import { VectorLoader } from 'apache-arrow/visitor/vectorloader';

const CONTINUATION = -1;
const pad8 = (n: number) => (n + 7) & ~7;

/** One IPC RecordBatch message (uncompressed) of `batch`, in a buffer of exactly its size. */
export function encodeBatchMessage(batch: RecordBatch): Uint8Array {
  const { byteLength, nodes, bufferRegions, buffers, variadicBufferCounts } = VectorAssembler.assemble(batch);
  const header = new RecordBatchHeader(batch.numRows, nodes, bufferRegions, null, variadicBufferCounts);
  const meta = Message.encode(Message.from(header, byteLength));
  const metaEnd = pad8(8 + meta.byteLength);
  // A fresh ArrayBuffer: offset 0 (the loader's typed views need 8-byte alignment) and zeroed padding.
  const out = new Uint8Array(metaEnd + byteLength);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, CONTINUATION, true);
  dv.setInt32(4, metaEnd - 8, true);
  out.set(meta, 8);
  for (let i = 0, at = metaEnd; i < buffers.length; i++) {
    const b = buffers[i]!;
    // Bytes, whatever the view's element type (set() would convert an Int32Array element-wise).
    out.set(new Uint8Array(b.buffer, b.byteOffset, b.byteLength), at);
    at += pad8(b.byteLength);
  }
  return out;
}

/** Reads one message written by `encodeBatchMessage` as a batch of `schema` (the stream's), its columns views of `bytes`. */
export function decodeBatchMessage(schema: Schema, bytes: Uint8Array): RecordBatch {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getInt32(0, true) !== CONTINUATION) throw new Error('not an Arrow IPC message (no continuation marker)');
  const metaEnd = 8 + dv.getInt32(4, true);
  const msg = Message.decode(bytes.subarray(8, metaEnd));
  if (!msg.isRecordBatch()) throw new Error(`expected a RecordBatch IPC message, got header type ${msg.headerType}`);
  const header = msg.header() as RecordBatchHeader;
  if (header.compression != null) throw new Error('compressed IPC bodies are not supported here');
  const body = bytes.subarray(metaEnd, metaEnd + msg.bodyLength);
  const children = new VectorLoader(body, header.nodes, header.buffers, new Map(), schema.metadataVersion, header.variadicBufferCounts).visitMany(schema.fields);
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: header.length, children }));
}
