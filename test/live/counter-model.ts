// A user's model, as a new user writes one: two workers do a read-modify-write of a
// counter object in an object store; w2 starts after a 20 ms timer. The invariant: once
// both are done, the counter is 2. The parameters are the model edits the recording
// tests make (a HEAD before the GET, another body format, another start value).
import { assign, setup } from 'xstate';
import { defineFamily, defineScenario, send } from 'interleave';
import { objectStore, s3Get, s3Head, s3Put } from 'interleave/storage';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The counter's body in the model's format (`compact`: `{"n":1}`, `spaced`: `{ "n": 1 }`). */
export function counterBody(n: number, format: 'compact' | 'spaced' = 'compact'): Uint8Array {
  return enc.encode(format === 'compact' ? JSON.stringify({ n }) : `{ "n": ${n} }`);
}

const worker = (opts: { delay: number; head: boolean; format: 'compact' | 'spaced'; cas?: boolean; id?: string }) =>
  setup({
    types: {} as { context: { n: number; etag: string; retries: number } },
  }).createMachine({
    ...(opts.id ? { id: opts.id } : {}),
    context: { n: -1, etag: '', retries: 0 },
    initial: opts.delay > 0 ? 'waiting' : opts.head ? 'heading' : 'reading',
    states: {
      waiting: { after: { [opts.delay]: opts.head ? 'heading' : 'reading' } },
      heading: { entry: send('store', s3Head('counter')), on: { 's3.head.ok': 'reading', 's3.head.error': 'failed' } },
      reading: {
        entry: send('store', s3Get('counter')),
        on: {
          's3.get.ok': {
            target: 'writing',
            actions: assign({
              n: ({ event }) => (JSON.parse(dec.decode((event as unknown as { body: Uint8Array }).body)) as { n: number }).n,
              etag: ({ event }) => String((event as unknown as { etag?: string }).etag),
            }),
          },
          's3.get.error': 'failed',
        },
      },
      writing: {
        // With cas, a compare-and-swap on the ETag read: a write that lost the race reads again.
        entry: send('store', ({ context }) => s3Put('counter', counterBody(context.n + 1, opts.format), undefined, opts.cas ? { ifMatch: context.etag } : undefined)),
        on: {
          's3.put.ok': 'done',
          's3.put.error': opts.cas
            ? [{ guard: ({ event }) => (event as unknown as { code: string }).code === 'PreconditionFailed', target: 'reading', actions: assign({ retries: ({ context }) => context.retries + 1 }) }, { target: 'failed' }]
            : 'failed',
        },
      },
      done: { type: 'final' },
      failed: { type: 'final' },
    },
  });

const read = (b: Uint8Array | undefined) => (b ? (JSON.parse(dec.decode(b)) as { n: number }).n : undefined);

/** Two workers incrementing one counter object (read, then write). */
export const counter = defineFamily({
  name: 'counter',
  description: 'two workers do a read-modify-write of a counter object',
  params: {
    head: { type: 'bool', default: false, description: 'send s3.head before s3.get' },
    format: { type: 'enum', values: ['compact', 'spaced'], default: 'compact', description: 'the body format' },
    start: { type: 'int', default: 0, description: 'the counter at the start' },
    cas: { type: 'bool', default: false, description: 'write with If-Match on the ETag read, and read again when it fails (412)' },
    machineId: { type: 'string', default: '', description: "the workers' machine id ('': none)" },
  },
  build: ({ head, format, start, cas, machineId }) =>
    defineScenario({
      name: 'counter',
      actors: {
        w1: worker({ delay: 0, head: head as boolean, format: format as 'compact' | 'spaced', cas: cas as boolean, id: machineId as string }),
        w2: worker({ delay: 20, head: head as boolean, format: format as 'compact' | 'spaced', cas: cas as boolean, id: machineId as string }),
        store: objectStore({ objects: { counter: counterBody(start as number, format as 'compact' | 'spaced') } }),
      },
      invariants: {
        // The first reader read the start value, so with no update lost the counter is that + 2.
        'both done => counter = start + 2': (q) => {
          if (!(q.matches('w1', 'done') && q.matches('w2', 'done'))) return true;
          const n = read((q.context('store') as { objects: Record<string, Uint8Array> }).objects.counter);
          const startN = Math.min(q.context('w1').n as number, q.context('w2').n as number);
          return n === startN + 2 || `counter is ${n} after starting at ${startN}: an update was lost`;
        },
      },
      ...(cas ? { reachable: { 'a conditional put lost (412) and read again': (q) => q.context('w1').retries + q.context('w2').retries > 0 } } : {}),
      params: { head, format, start, cas, machineId },
    }),
});
