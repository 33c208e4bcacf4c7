// The seed's data benchmark (ArrowFlightActorBench) as actors: a driver sends one
// DataFrame of `bs` tuples (`sw` string columns of `sl` characters) to a worker
// running an identity UDF, waits for the echo, and sends the next, `warmup + n`
// times. With `wire` the batch crosses the channel as Arrow IPC bytes, encoded by
// the sender and decoded by the receiver as a Flight stream does it: the stream's
// schema is agreed once when the channel is set up (the benchmark's port and
// partitioning setup), and each DataFrame is one RecordBatch IPC message
// (ipc-stream.ts). Without `wire` the channel carries the record batch itself.
import { assign, enqueueActions, setup } from 'xstate';
import { RecordBatch, Table, Utf8, vectorFromArray, type Schema } from 'apache-arrow';
import { defineScenario, send, type Scenario } from '../../actors/index.ts';
import { decodeBatchMessage, encodeBatchMessage } from './ipc-stream.ts';

export interface DataBenchConfig {
  readonly batchSize: number;
  readonly schemaWidth: number;
  readonly stringLength: number;
  readonly batches: number;
  readonly warmup: number;
  readonly wire: boolean;
}

/** The sample batch: `sw` STRING columns `col0…`, every value `"x" * sl`. */
export function sampleBatch(c: Pick<DataBenchConfig, 'batchSize' | 'schemaWidth' | 'stringLength'>): RecordBatch {
  const v = 'x'.repeat(c.stringLength);
  const cols: Record<string, any> = {};
  for (let i = 0; i < c.schemaWidth; i++) cols[`col${i}`] = vectorFromArray(Array<string>(c.batchSize).fill(v), new Utf8());
  return new Table(cols).batches[0]!;
}

function pack(b: RecordBatch, wire: boolean): unknown {
  return wire ? encodeBatchMessage(b) : b;
}
function unpacker(schema: Schema, wire: boolean): (x: unknown) => RecordBatch {
  return wire ? (x) => decodeBatchMessage(schema, x as Uint8Array) : (x) => x as RecordBatch;
}

export function dataChannelScenario(c: DataBenchConfig): Scenario {
  const sample = sampleBatch(c);
  const unpack = unpacker(sample.schema, c.wire);
  const total = c.warmup + c.batches;
  const driver = setup({ types: {} as { context: { seq: number }; events: { type: 'Go' } | { type: 'DataFrame'; seq: number; payload: unknown } } }).createMachine({
    id: 'driver',
    context: { seq: 0 },
    initial: 'running',
    states: {
      running: {
        on: {
          Go: { actions: send('worker', () => ({ type: 'DataFrame', seq: 0, payload: pack(sample, c.wire) })) },
          DataFrame: [
            { guard: ({ event }) => event.seq + 1 >= total, target: 'done', actions: assign({ seq: ({ event }) => (unpack(event.payload), event.seq + 1) }) },
            {
              actions: [
                assign({ seq: ({ event }) => (unpack(event.payload), event.seq + 1) }),
                send('worker', ({ context }) => ({ type: 'DataFrame', seq: context.seq, payload: pack(sample, c.wire) })),
              ],
            },
          ],
        },
      },
      done: { type: 'final' },
    },
  });
  // The identity UDF: every tuple of the batch goes back unchanged.
  const worker = setup({ types: {} as { context: { tuples: number }; events: { type: 'DataFrame'; seq: number; payload: unknown } } }).createMachine({
    id: 'worker',
    context: { tuples: 0 },
    on: {
      // One decode per message: the batch is counted and echoed from the same decoded views.
      DataFrame: {
        actions: enqueueActions(({ context, event, enqueue }: { context: { tuples: number }; event: any; enqueue: any }) => {
          const batch = unpack(event.payload);
          enqueue.assign({ tuples: context.tuples + batch.numRows });
          enqueue(send('driver', { type: 'DataFrame', seq: event.seq, payload: pack(batch, c.wire) }));
        }),
      },
    },
  });
  return defineScenario({
    name: 'amber-data-channel',
    actors: { driver, worker },
    start: [{ to: 'driver', msg: { type: 'Go' } }],
    params: { ...c },
  });
}
