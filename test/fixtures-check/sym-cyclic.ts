// Random symmetric systems with cycles, for the reduction under symmetry
// (test/check-por-symmetry.test.ts): a group of identical members passes tokens to
// itself and to a server (which answers the sender, or keeps the token), so tokens
// circulate forever over a finite state space. The server's index sits among the
// members', so a permuted world lists its enabled steps in another order than the world
// it stands for. Each delivery sends at most one message, so the state space is finite.
// Invariants read only the server (declared), so the state reduction (stubborn sets) is
// on and member steps are invisible: the partial-order reduction prunes, and revisits of
// permuted worlds with other sleep sets are common.
import { defineScenario, rng, type ReducerLogic, type Scenario } from '../../src/actors/index.ts';
import { reads } from 'interleave';

type Msg = { type: string; v?: number };

export function symCyclic(seed: number): Scenario {
  const r = rng(seed);
  const k = 2 + r.int(2);
  const S = 3 + r.int(2);
  // Per member state and token parity: the next state, and where the token goes (0 itself, 1 the server, 2 nowhere).
  const tab = Array.from({ length: S }, () => Array.from({ length: 2 }, () => ({ ns: r.int(S), to: r.int(3) })));
  const member: ReducerLogic<number> = {
    kind: 'reducer',
    init: () => 0,
    receive(s, msg, ctx) {
      if (msg.type !== 'tok') return { state: s, unhandled: true };
      const e = tab[s]![((msg as Msg).v ?? 0) % 2]!;
      const send = e.to === 0 ? [{ to: ctx.self, msg: { type: 'tok', v: e.ns } }] : e.to === 1 ? [{ to: 'srv', msg: { type: 'ask', v: e.ns } }] : [];
      return { state: e.ns, send };
    },
  };
  const SM = 5 + r.int(3);
  const mul = 1 + r.int(3);
  const absorb = r.int(SM);
  const server: ReducerLogic<number> = {
    kind: 'reducer',
    init: () => 0,
    receive(s, msg, ctx) {
      if (msg.type !== 'ask') return { state: s, unhandled: true };
      const ns = (s * mul + ((msg as Msg).v ?? 0) + 1) % SM;
      return { state: ns, send: ns === absorb ? [] : [{ to: ctx.from, msg: { type: 'tok', v: ns } }] };
    },
  };
  const actors: Record<string, ReducerLogic<number>> = {};
  const group: string[] = [];
  const srvAt = r.int(k + 1);
  const start: { to: string; msg: Msg }[] = [];
  for (let i = 0; i < k; i++) {
    if (i === srvAt) actors.srv = server;
    const id = `c${i}`;
    group.push(id);
    actors[id] = member;
    start.push({ to: id, msg: { type: 'tok', v: 0 } });
  }
  actors.srv ??= server;
  const invariants: Record<string, ReturnType<typeof reads>> = {};
  // One invariant per server state: the violated set says which server states are reachable.
  for (let v = 0; v < SM; v++) invariants[`srv${v}`] = reads(['srv'], (q) => q.context('srv') !== v || `srv ${v}`);
  return defineScenario({ name: `sym-cyclic-${seed}`, actors, start, symmetry: [group], invariants });
}
