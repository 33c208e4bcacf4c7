// A reducer that sends a fixed list of requests to one store, one at a time (the
// next after the previous reply), and keeps the replies. For tests, benchmarks and
// small scenarios: `{ client: scriptClient('store', [s3Put(...), s3Get(...)]) }`
// with a start message `{ to: 'client', msg: { type: 'go' } }`.
import type { ReducerLogic } from '../actors/scenario.ts';
import type { Message } from '../actors/types.ts';

/** A script client's state: how far it got, and the replies it kept. */
export interface ScriptState {
  /** Index of the next request to send. */
  readonly next: number;
  /** The replies received, in order (when `keep`). */
  readonly replies: readonly Message[];
}

/** A reducer that sends `requests` to `store` one at a time (the first on a `go` message, each next after a reply). `loop` starts over at the end; `keep: false` drops the replies. */
export function scriptClient(store: string, requests: readonly Message[], opts: { loop?: boolean; keep?: boolean } = {}): ReducerLogic<ScriptState> {
  const keep = opts.keep ?? true;
  const sendNext = (s: ScriptState) => {
    if (s.next >= requests.length && !opts.loop) return { state: s };
    const msg = requests[s.next % requests.length]!;
    return { state: { ...s, next: s.next + 1 }, send: [{ to: store, msg }] };
  };
  return {
    kind: 'reducer',
    init: () => ({ next: 0, replies: [] }),
    receive(s, msg) {
      if (msg.type === 'go') return sendNext(s);
      return sendNext(keep ? { ...s, replies: [...s.replies, msg] } : s);
    },
  };
}
