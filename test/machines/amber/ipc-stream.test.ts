// The Flight-style IPC codec of the Amber data channel (src/machines/amber/ipc-stream.ts):
// its message is byte for byte the RecordBatch message apache-arrow's stream writer
// produces, it reads back to the same rows as views of the message, and bad bytes are
// refused with a reason.
import { describe, expect, it } from 'vitest';
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { sampleBatch } from '../../../src/machines/amber/data-channel.ts';
import { inputTable } from '../../../src/machines/amber/data.ts';
import { decodeBatchMessage, encodeBatchMessage } from '../../../src/machines/amber/ipc-stream.ts';

const batches = () => [
  sampleBatch({ batchSize: 7, schemaWidth: 3, stringLength: 5 }),
  sampleBatch({ batchSize: 1000, schemaWidth: 10, stringLength: 64 }),
  inputTable(5, 3).batches[0]!,
  inputTable(4).batches[0]!,
];

describe('encodeBatchMessage / decodeBatchMessage', () => {
  it("writes exactly the RecordBatch message of tableToIPC's stream (schema, batch, end marker)", () => {
    for (const b of batches()) {
      const stream = tableToIPC(new Table([b]), 'stream');
      const m = encodeBatchMessage(b);
      // The stream ends with the 8-byte end-of-stream marker; the batch message sits just before it.
      expect(Buffer.from(stream.subarray(stream.byteLength - 8 - m.byteLength, stream.byteLength - 8)).equals(Buffer.from(m))).toBe(true);
      // So the schema message, this message and the end marker are a stream apache-arrow reads.
      const schemaPart = stream.subarray(0, stream.byteLength - 8 - m.byteLength);
      const again = tableFromIPC(Buffer.concat([schemaPart, m, stream.subarray(stream.byteLength - 8)]));
      expect(again.toArray().map((r) => r.toJSON())).toEqual(new Table([b]).toArray().map((r) => r.toJSON()));
    }
  });

  it('reads a message back to the same rows, its columns views of the message bytes (no copy)', () => {
    for (const b of batches()) {
      const m = encodeBatchMessage(b);
      const back = decodeBatchMessage(b.schema, m);
      expect(back.numRows).toBe(b.numRows);
      expect(new Table([back]).toArray().map((r) => r.toJSON())).toEqual(new Table([b]).toArray().map((r) => r.toJSON()));
      const last = back.data.children.at(-1)!;
      expect(last.values.buffer).toBe(m.buffer);
    }
  });

  it('refuses bytes that are not a RecordBatch message, saying what they are', () => {
    const b = inputTable(3).batches[0]!;
    expect(() => decodeBatchMessage(b.schema, new Uint8Array(16))).toThrow(/no continuation marker/);
    const stream = tableToIPC(new Table([b]), 'stream');
    expect(() => decodeBatchMessage(b.schema, stream)).toThrow(/expected a RecordBatch IPC message, got header type 1/);
  });
});

describe('drive({ record: false })', () => {
  it('keeps no events in the run (onEvent still sees each) and ends in the same world', async () => {
    const { drive } = await import('interleave');
    const { dataChannelScenario } = await import('../../../src/machines/amber/data-channel.ts');
    const sc = dataChannelScenario({ batchSize: 10, schemaWidth: 2, stringLength: 4, batches: 3, warmup: 1, wire: true });
    const kept = drive(sc, (_w, s) => s[0], { detail: false });
    let seen = 0;
    const lean = drive(sc, (_w, s) => s[0], { detail: false, record: false, onEvent: () => seen++ });
    expect(lean.events).toEqual([]);
    expect(seen).toBe(kept.events.length);
    expect(lean.schedule).toEqual(kept.schedule);
    expect((lean.world.snaps[sc.index.get('worker')!] as any).context.tuples).toBe(40);
  });
});
