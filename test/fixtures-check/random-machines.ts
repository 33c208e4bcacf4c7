// Random xstate systems for the fingerprint completeness test: hierarchy, parallel
// regions, shallow and deep history, guards on context and event, and `after`
// timers, wired by a seeded table. Finite: every message carries a hop count.
import { assign, createMachine } from 'xstate';
import { defineScenario, rng, send, type Scenario } from '../../src/actors/index.ts';

/** Every state node path of the skeleton (history pseudo-states last). */
const SKELETON = {
  off: {},
  on: {
    a: {},
    b: { b1: {}, b2: {} },
    p: { $parallel: { r1: { x: {}, y: {} }, r2: { u: {}, v: {} } } },
    hs: '$shallow',
    hd: '$deep',
  },
} as const;

/** Targets a transition may take (paths from the root). */
const TARGETS = ['off', 'on', 'on.hs', 'on.hd', 'on.a', 'on.b', 'on.b.b2', 'on.p', 'on.p.r1.y', 'on.p.r2.v'];
/** States that may carry `after` (their timers go to states without one, so time cannot run forever). */
const AFTER_FROM = ['on.b.b2', 'on.p.r1.y', 'on.a'];
const AFTER_TO = ['off', 'on.b.b1'];

export function randomMachineSystem(seed: number): Scenario {
  const r = rng(seed);
  const n = 2 + r.int(2);
  const ids = Array.from({ length: n }, (_, i) => `m${i}`);
  const actors: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) actors[ids[i]!] = { logic: machine(r, ids[i]!, ids), input: undefined };
  const starts = 2 + r.int(2);
  const start = Array.from({ length: starts }, (_, k) => ({ to: ids[r.int(n)]!, from: ids[k % n]!, msg: { type: 'm', v: r.int(3), hops: 1 + r.int(2) } }));
  const bad = r.int(3);
  return defineScenario({
    name: `random-machines-${seed}`,
    actors: actors as never,
    start,
    unhandled: 'trace',
    acceptEnd: () => true,
    invariants: {
      // Violated on some seeds only, through history re-entry or otherwise.
      notDeepInY: (q) => !(q.matches(ids[0]!, { on: { p: { r1: 'y' } } }) && q.context(ids[0]!).n === bad),
    },
  });
}

function machine(r: ReturnType<typeof rng>, id: string, ids: readonly string[]) {
  const t = (to0?: string): unknown => {
    const target = `#${id}.${to0 ?? r.pick(TARGETS)}`;
    const guard = r.int(3);
    const to = ids[r.int(ids.length)]!;
    const k = r.int(3);
    return {
      target,
      guard: ({ context, event }: { context: { n: number }; event: { v: number } }) => (guard === 0 ? true : guard === 1 ? event.v % 2 === context.n % 2 : context.n !== k),
      actions: [
        assign({ n: ({ context, event }: any) => (context.n + (event.v as number)) % 3 }),
        send(to, ({ event, context }: { event: { v: number; hops: number }; context: { n: number } }) => ({ type: 'm', v: (event.v + context.n) % 3, hops: event.hops - 1 })),
      ],
    };
  };
  /** Forwarding stops when the hop count runs out (a guard that comes first). */
  const on = (first?: string) => {
    const ts = Array.from({ length: 1 + r.int(2) }, (_, k) => t(k === 0 ? first : undefined)) as Record<string, unknown>[];
    return { m: ts.map((x) => ({ ...x, guard: hopsLeft(x.guard as never) })).concat([{ actions: assign({ n: ({ context }: any) => (context.n + 1) % 3 }) } as never]) };
  };
  const build = (node: Record<string, unknown> | string, path: string): Record<string, unknown> => {
    if (typeof node === 'string') return { type: 'history', history: node === '$deep' ? 'deep' : 'shallow' };
    const keys = Object.keys(node);
    const out: Record<string, unknown> = {};
    // `off` always has a way back through one of the history states.
    if (path === 'off') out.on = on(r.pick(['on.hs', 'on.hd']));
    else if (r.int(3) > 0) out.on = on();
    if (AFTER_FROM.includes(path) && r.int(2) === 0) out.after = { [5 * (1 + r.int(2))]: { target: `#${id}.${r.pick(AFTER_TO)}` } };
    if (keys.length === 1 && keys[0] === '$parallel') {
      const regions = (node as { $parallel: Record<string, Record<string, unknown>> }).$parallel;
      out.type = 'parallel';
      out.states = Object.fromEntries(Object.entries(regions).map(([k, v]) => [k, build(v, `${path}.${k}`)]));
      return out;
    }
    const children = keys;
    if (children.length > 0) {
      out.initial = children[0];
      out.states = Object.fromEntries(children.map((k) => [k, build((node as Record<string, Record<string, unknown> | string>)[k]!, path ? `${path}.${k}` : k)]));
    }
    return out;
  };
  const root = build(SKELETON as unknown as Record<string, unknown>, '');
  return createMachine({ id, context: { n: 0 }, ...root } as never);
}

function hopsLeft(g: (a: any) => boolean) {
  return (a: { context: { n: number }; event: { v: number; hops: number } }) => a.event.hops > 0 && g(a);
}
