// The seed's data benchmark (ArrowFlightActorBench) as actors: a driver sends one
// DataFrame of `bs` tuples (`sw` string columns of `sl` characters) to a worker
// running an identity UDF, waits for the echo, and sends the next, `warmup + n`
// times. With `wire` the batch crosses the channel as Arrow IPC bytes (encoded by
// the sender, decoded by the receiver, as Flight does); without it the channel
// carries the record batch itself.
import { assign, setup } from 'xstate';
import { RecordBatch, Table, Utf8, tableFromIPC, tableToIPC, vectorFromArray } from 'apache-arrow';
import { defineScenario, send, type Scenario } from '../../actors/index.ts';

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
  return wire ? tableToIPC(new Table([b]), 'stream') : b;
}
function unpack(x: unknown, wire: boolean): RecordBatch {
  return wire ? tableFromIPC(x as Uint8Array).batches[0]! : (x as RecordBatch);
}

export function dataChannelScenario(c: DataBenchConfig): Scenario {
  const sample = sampleBatch(c);
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
            { guard: ({ event }) => event.seq + 1 >= total, target: 'done', actions: assign({ seq: ({ event }) => (unpack(event.payload, c.wire), event.seq + 1) }) },
            {
              actions: [
                assign({ seq: ({ event }) => (unpack(event.payload, c.wire), event.seq + 1) }),
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
      DataFrame: {
        actions: [
          assign({ tuples: ({ context, event }) => context.tuples + unpack(event.payload, c.wire).numRows }),
          send('driver', ({ event }) => ({ type: 'DataFrame', seq: event.seq, payload: pack(unpack(event.payload, c.wire), c.wire) })),
        ],
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
