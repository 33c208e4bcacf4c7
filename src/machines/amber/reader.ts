// The materialization reader (input_port_materialization_reader_runnable.py): one
// per (input port, storage URI). It opens result_uri(base), emits StartChannel,
// replays every row of state_uri(base) first, then streams the result doc lazily,
// one data file per step (the first `next` pins the snapshot), then emits
// EndChannel. On any storage error it logs and exits WITHOUT EndChannel, as the
// real thread does: the worker then waits forever (docs/amber.md).
import { assign, enqueueActions, log, setup } from 'xstate';
import { send } from '../../actors/index.ts';
import type { Batch } from './data.ts';
import { resultUri, shortUri, type StateRow } from './messages.ts';

export interface Pin {
  readonly uri: string;
  readonly gen: number;
  readonly files: readonly string[];
  /** Index of the next file to fetch. */
  readonly next: number;
}

export interface ReaderContext {
  readonly id: string;
  readonly worker: string;
  readonly store: string;
  readonly exec: number;
  readonly base: string;
  /** Opened its doc and not yet emitted EndChannel (`streaming(r)` in docs/amber.md). */
  readonly streaming: boolean;
  readonly pin: Pin | null;
  readonly error: string | null;
}

type ReaderEvent =
  | { type: 'Run'; exec: number; base: string }
  | { type: 'PortOpened'; ok: boolean; states: readonly StateRow[]; error?: string }
  | { type: 'Pinned'; uri: string; gen: number; files: readonly string[] }
  | { type: 'Fetched'; uri: string; key: string; batch: Batch }
  | { type: 'FetchFailed'; uri: string; key: string; status: string; error: string };

export type ReaderState = 'idle' | 'opening' | 'pinning' | 'fetching' | 'done' | 'failed';

/**
 * The reader. A materialized start boots an earlier region's reader in the state
 * and with the context it ended with (`initial`, `input.ctx`); `done` and `failed`
 * have no entry actions, so booting there replays nothing.
 */
export function readerMachine(initial: ReaderState = 'idle') {
  return setup({
    types: {} as { context: ReaderContext; input: { id: string; worker: string; store: string; ctx?: ReaderContext }; events: ReaderEvent },
  }).createMachine({
    id: 'reader',
    context: ({ input }) => input.ctx ?? { id: input.id, worker: input.worker, store: input.store, exec: 0, base: '', streaming: false, pin: null, error: null },
    initial,
    on: {
      Run: {
        target: '.opening',
        actions: [
          assign(({ event }) => ({ exec: event.exec, base: event.base, streaming: false, pin: null, error: null })),
          send(({ context }) => context.store, ({ context, event }) => ({ type: 'OpenPort', base: event.base, worker: context.worker, reader: context.id })),
        ],
      },
    },
    states: {
      idle: {},
      opening: {
        on: {
          PortOpened: [
            {
              guard: ({ event }) => !event.ok,
              target: 'failed',
              actions: [assign(({ event }) => ({ error: event.error ?? 'open failed' })), log(({ context, event }) => `reader ${context.id}: ${event.error} (logged and swallowed; no EndChannel)`)],
            },
            {
              target: 'pinning',
              actions: [
                assign({ streaming: true }),
                enqueueActions(({ context, event, enqueue }) => {
                  enqueue(send(context.worker, { type: 'StartChannel', ch: context.id }));
                  for (const row of event.states) enqueue(send(context.worker, { type: 'StateFrame', ch: context.id, row }));
                  enqueue(send(context.store, { type: 'Pin', uri: resultUri(context.base), worker: context.worker, reader: context.id }));
                }),
              ],
            },
          ],
        },
      },
      pinning: {
        on: {
          Pinned: [
            {
              guard: ({ event }) => event.files.length === 0,
              target: 'done',
              actions: [assign({ streaming: false }), send(({ context }) => context.worker, ({ context }) => ({ type: 'EndChannel', ch: context.id }))],
            },
            {
              target: 'fetching',
              actions: [
                assign(({ event }) => ({ pin: { uri: event.uri, gen: event.gen, files: event.files, next: 0 } })),
                send(
                  ({ context }) => context.store,
                  ({ context, event }) => ({ type: 'Fetch', uri: event.uri, key: event.files[0]!, gen: event.gen, last: event.files.length === 1, worker: context.worker, reader: context.id }),
                ),
              ],
            },
          ],
        },
      },
      fetching: {
        on: {
          Fetched: [
            {
              guard: ({ context }) => context.pin!.next + 1 < context.pin!.files.length,
              actions: enqueueActions(({ context, event, enqueue }) => {
                const pin = context.pin!;
                const next = pin.next + 1;
                enqueue(send(context.worker, { type: 'DataFrame', ch: context.id, batch: event.batch }));
                enqueue.assign({ pin: { ...pin, next } });
                enqueue(send(context.store, { type: 'Fetch', uri: pin.uri, key: pin.files[next]!, gen: pin.gen, last: next === pin.files.length - 1, worker: context.worker, reader: context.id }));
              }),
            },
            {
              // StopIteration: every planned file fetched.
              target: 'done',
              actions: enqueueActions(({ context, event, enqueue }) => {
                enqueue(send(context.worker, { type: 'DataFrame', ch: context.id, batch: event.batch }));
                enqueue.assign({ pin: { ...context.pin!, next: context.pin!.next + 1 }, streaming: false });
                enqueue(send(context.worker, { type: 'EndChannel', ch: context.id }));
              }),
            },
          ],
          FetchFailed: {
            target: 'failed',
            actions: [
              assign(({ event }) => ({ streaming: false, error: `${event.error} on ${shortUri(event.uri)} (${event.key.slice(event.key.lastIndexOf('/', event.key.lastIndexOf('/') - 1) + 1)})` })),
              log(({ context, event }) => `reader ${context.id}: ${event.error} on ${event.key} (logged and swallowed; no EndChannel)`),
            ],
          },
        },
      },
      done: {},
      failed: {},
    },
  });
}
