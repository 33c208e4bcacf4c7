// The demo ping-pong machines keep their event and context types for users of
// `interleave/machines` (they were typed AnyStateMachine). `npm run lint` type-checks
// this file: each @ts-expect-error fails the lint if the types were any again.
import { createActor } from 'xstate';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { pinger, ponger, type PingerEvent, type PongerEvent } from '../../../src/machines/demo/ping-pong.ts';

describe('the ping-pong demo machines are typed', () => {
  it('the pinger accepts its own events and exposes its context', () => {
    const a = createActor(pinger, { input: { rounds: 2 } }).start();
    a.send({ type: 'start' });
    expect(a.getSnapshot().context.sent).toBe(1);
    a.send({ type: 'pong', n: 1 });
    expectTypeOf(a.getSnapshot().context.sent).toEqualTypeOf<number>();
    expect(a.getSnapshot().context).toEqual({ rounds: 2, sent: 2 });
    // @ts-expect-error 'ping' is the ponger's event, not the pinger's
    a.send({ type: 'ping', n: 1 });
    // @ts-expect-error a pong carries its ball number
    a.send({ type: 'pong' });
    // @ts-expect-error the context has no such field
    void a.getSnapshot().context.seen;
    a.stop();
  });

  it('the ponger too, and the event unions are exported', () => {
    const b = createActor(ponger).start();
    const ping: PongerEvent = { type: 'ping', n: 3 };
    b.send(ping);
    expect(b.getSnapshot().context.seen).toBe(1);
    // @ts-expect-error the ponger accepts only ping
    b.send({ type: 'start' } satisfies PingerEvent);
    b.stop();
  });
});
