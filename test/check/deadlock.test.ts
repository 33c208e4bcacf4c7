// The deadlock rule (issue 13, defect 2): an actor whose first state sends a request
// and waits for a reply that never comes is deadlocked; a server resting in an
// initial state that sends nothing is not, nor is a state tagged `idle`.
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { defineScenario, send, check } from 'interleave';

/**
 * Each peer asks the other on entry and answers a request only once it has its own
 * answer: both wait in their first state forever.
 */
function askingPeer(other: string, tags: string[] = []) {
  return setup({ types: {} as { context: { asked: boolean } } }).createMachine({
    id: 'peer',
    context: { asked: false },
    initial: 'asking',
    states: {
      asking: {
        tags,
        entry: send(other, { type: 'req' }),
        on: {
          req: { actions: assign({ asked: true }) },
          resp: { target: 'serving' },
        },
      },
      serving: { tags: ['end'], on: { req: { actions: send(other, { type: 'resp' }) } } },
    },
  });
}

/** A server resting in its first state, which sends nothing, and a client it answers. */
const server = setup({}).createMachine({
  id: 'server',
  initial: 'ready',
  states: { ready: { on: { req: { actions: send(({ event }: any) => event.from, { type: 'resp' }) } } } },
});
const client = setup({}).createMachine({
  id: 'client',
  initial: 'asking',
  states: {
    asking: { entry: send('server', { type: 'req', from: 'client' }), on: { resp: 'done' } },
    done: { type: 'final' },
  },
});

describe('deadlock rule', () => {
  it('reports peers blocked in their initial state, each waiting for a reply (bfs and dfs)', async () => {
    const sc = defineScenario({ name: 'ask-each-other', actors: { p: askingPeer('q'), q: askingPeer('p') } });
    for (const strategy of ['bfs', 'dfs'] as const) {
      const r = await check(sc, { strategy });
      expect(r.ok, strategy).toBe(false);
      expect(r.violation?.property.kind).toBe('deadlock');
      expect(r.violation?.property.message).toMatch(/'p' in 'asking'.*'q' in 'asking'/);
    }
  });

  it('a server resting in its initial state is not waiting; the client it answers ends', async () => {
    const sc = defineScenario({ name: 'client-server', actors: { server, client } });
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.ok).toBe(true);
    expect(r.complete).toBe(true);
  });

  it('a request that is never answered leaves the client deadlocked in its first state', async () => {
    const mute = setup({}).createMachine({ id: 'server', initial: 'ready', states: { ready: { on: { req: {} } } } });
    const r = await check(defineScenario({ name: 'mute-server', actors: { server: mute, client } }), { strategy: 'bfs' });
    expect(r.violation?.property.kind).toBe('deadlock');
    expect(r.violation?.property.message).toMatch(/'client' in 'asking'/);
  });

  it('an initial state tagged idle may send on entry and rest there', async () => {
    const sc = defineScenario({ name: 'ask-each-other-idle', actors: { p: askingPeer('q', ['idle']), q: askingPeer('p', ['idle']) } });
    const r = await check(sc, { strategy: 'bfs' });
    expect(r.ok).toBe(true);
    expect(r.complete).toBe(true);
  });
});
