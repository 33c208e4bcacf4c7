// A naive liveness checker written independently of src/check/liveness*.ts, for the
// differential test: worlds keyed by their canonical JSON (not the fingerprint),
// adjacency lists, the property automaton spelled out again, and each component
// found by forward-and-backward reachability instead of Tarjan.
import { canonicalJson, enabled, apply, initialWorld, isQuiescent, toPlain } from 'interleave/kernel';
import { defineScenario, queryOf, rng, eventually, leadsTo, nonProgressCycles, type LivenessProperty, type ReducerLogic, type Scenario, type World } from 'interleave';

/** Reducers forwarding one message around forever (finite: states mod 3, values mod 3, at most two messages). */
export function randomCyclicSystem(seed: number, fairness: 'none' | 'actors' | 'channels'): { sc: Scenario; props: Record<string, LivenessProperty> } {
  const r = rng(seed * 7919 + 17);
  const n = 2;
  const ids = Array.from({ length: n }, (_, i) => `p${i}`);
  // Mostly forwarding (a message is absorbed with probability 1/8), so messages circulate forever.
  const table = ids.map(() => Array.from({ length: 3 }, () => [r.int(8) === 0 ? -1 : r.int(n), r.int(8) === 0 ? -1 : r.int(n)]));
  const actors: Record<string, ReducerLogic<number>> = {};
  ids.forEach((id, i) => {
    actors[id] = {
      kind: 'reducer',
      init: () => 0,
      receive: (s, msg) => {
        const v = msg.v as number;
        const ns = (s + v + 1) % 3;
        const to = table[i]![ns % 3]![v % 2]!;
        return to >= 0 && to < n ? { state: ns, send: [{ to: ids[to]!, msg: { type: 'm', v: (v + ns) % 3 } }] } : { state: ns };
      },
    };
  });
  const start = Array.from({ length: 1 + r.int(2) }, () => ({ to: ids[r.int(n)]!, msg: { type: 'm', v: r.int(3) } }));
  // A sleeper woken once by env: whether its delivery may be starved is what fairness decides.
  const wakeTo = r.int(n + 1) - 1;
  actors.sleeper = {
    kind: 'reducer',
    init: () => 0,
    receive: (_s, msg) => (wakeTo >= 0 ? { state: 1, send: [{ to: ids[wakeTo]!, msg: { type: 'm', v: (msg.v as number) ?? 0 } }] } : { state: 1 }),
  };
  start.push({ to: 'sleeper', msg: { type: 'm', v: r.int(3) } });
  const pick = () => (r.int(3) === 0 ? 'sleeper' : ids[r.int(n)]!);
  const [x, y, z] = [pick(), pick(), pick()];
  const val = (id: string) => (id === 'sleeper' ? 1 : r.int(3));
  const [a, b, c] = [val(x), val(y), val(z)];
  const r2 = r.int(4) > 0;
  const channels: [string, string][] = [
    ['env', 'sleeper'],
    [r.int(2) === 0 ? 'env' : pick(), pick()],
    [pick(), pick()],
  ];
  const sc = defineScenario({
    name: `cyclic-${seed}`,
    actors,
    start,
    fairness: fairness === 'none' ? 'none' : fairness === 'actors' ? { actors: 'all' } : { channels },
  });
  return {
    sc,
    props: {
      // Mostly about the sleeper, so that starving its delivery is what decides the verdict.
      ev: eventually((q) => (r2 ? q.context('sleeper') === 1 : q.context(x) === a)),
      lt: leadsTo((q) => q.context(y) === b, (q) => q.context(z) === c),
      np: nonProgressCycles((q) => q.context(x) === b),
    },
  };
}

interface Node {
  world: World;
  out: { to: number; classes: string[] }[];
  enabled: Set<string>;
  quiescent: boolean;
}

/**
 * Every reachable world of `sc` with its outgoing steps and their fairness classes. It depends
 * on the scenario only (its actors, inputs and fairness), not on a property, so it is built
 * once per scenario and every liveness property of it is decided on the same graph.
 */
const graphs = new WeakMap<Scenario, Node[]>();
function graphOf(sc: Scenario): Node[] {
  const known = graphs.get(sc);
  if (known) return known;
  const f = sc.fairness ?? { actors: 'all' as const };
  const fairActors = f === 'none' ? [] : f.actors === 'all' ? [...sc.ids] : [...(f.actors ?? [])];
  const fairChannels = f === 'none' ? [] : (f.channels ?? []).map(([a, b]) => `${a}->${b}`);
  const classesOf = (step: ReturnType<typeof enabled>[number]): string[] => {
    if (step.kind !== 'deliver' || step.outcome !== undefined) return [];
    const from = step.from === sc.envIndex ? 'env' : sc.ids[step.from]!;
    const to = sc.ids[step.to]!;
    const out: string[] = [];
    if (fairActors.includes(to)) out.push(`to ${to}`);
    if (fairChannels.includes(`${from}->${to}`)) out.push(`on ${from}->${to}`);
    return out;
  };
  const key = (w: World) => canonicalJson(toPlain({ snaps: w.snaps, status: w.status, inbox: w.inbox, timers: w.timers, now: w.now, faults: w.faults, monitors: w.monitors, failure: w.failure ?? null, inputs: w.inputs ?? null }));
  const index = new Map<string, number>();
  const nodes: Node[] = [];
  const add = (w: World): number => {
    const k = key(w);
    let i = index.get(k);
    if (i === undefined) {
      index.set(k, (i = nodes.length));
      nodes.push({ world: w, out: [], enabled: new Set(), quiescent: false });
    }
    return i;
  };
  add(initialWorld(sc).world);
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    const steps = enabled(sc, node.world);
    node.quiescent = isQuiescent(steps);
    for (const t of steps) {
      const cl = classesOf(t);
      for (const c of cl) node.enabled.add(c);
      node.out.push({ to: add(apply(sc, node.world, t).world), classes: cl });
    }
  }
  graphs.set(sc, nodes);
  return nodes;
}

/** True when liveness property `name` of `sc` is violated (a fair owed cycle, or an owed end). */
export function referenceLiveness(sc: Scenario, name: string): boolean {
  const prop = sc.liveness![name]!;
  const nodes = graphOf(sc);
  const memo = new Map<string, boolean>();
  const truth = (p: (q: any) => boolean | string, i: number) => {
    const k = `${p === (prop as any).q ? 'q' : 'p'}${i}`;
    if (!memo.has(k)) memo.set(k, p(queryOf(sc, nodes[i]!.world)) === true);
    return memo.get(k)!;
  };
  const next = (owed: boolean, i: number): boolean => {
    if (prop.kind === 'eventually') return owed && !truth(prop.p, i);
    if (prop.kind === 'leadsTo') return (owed || truth(prop.p, i)) && !truth(prop.q, i);
    return !truth(prop.progress, i);
  };
  const init = prop.kind === 'eventually' ? !truth(prop.p, 0) : prop.kind === 'leadsTo' ? truth(prop.p, 0) && !truth(prop.q, 0) : !truth(prop.progress, 0);
  // Product reachability.
  const seen = new Set<string>([`0,${init}`]);
  const queue: [number, boolean][] = [[0, init]];
  while (queue.length) {
    const [i, o] = queue.pop()!;
    for (const e of nodes[i]!.out) {
      const ov = next(o, e.to);
      if (!seen.has(`${e.to},${ov}`)) {
        seen.add(`${e.to},${ov}`);
        queue.push([e.to, ov]);
      }
    }
  }
  const owed = nodes.map((_, i) => seen.has(`${i},true`));
  if (prop.kind !== 'progress' && owed.some((o, i) => o && nodes[i]!.quiescent)) return true;
  // Owed-to-owed edges.
  const bad = nodes.map((_, i) => next(true, i));
  const succs = nodes.map((n) => n.out.filter((e) => bad[e.to]));
  const succ = (i: number) => succs[i]!;
  const preds: number[][] = nodes.map(() => []);
  nodes.forEach((_, j) => {
    if (owed[j]) for (const e of succ(j)) preds[e.to]!.push(j);
  });
  const reach = (s: number, forward: boolean): Set<number> => {
    const got = new Set<number>([s]);
    const q = [s];
    while (q.length) {
      const i = q.pop()!;
      const ns = forward ? succ(i).map((e) => e.to) : preds[i]!;
      for (const j of ns) {
        if (got.has(j)) continue;
        got.add(j);
        q.push(j);
      }
    }
    return got;
  };
  const done = new Set<number>();
  for (let s = 0; s < nodes.length; s++) {
    if (!owed[s] || !next(true, s) || done.has(s)) continue;
    const fwd = reach(s, true);
    const comp = [...reach(s, false)].filter((j) => fwd.has(j));
    const inC = new Set(comp);
    comp.forEach((j) => done.add(j));
    const selfLoop = succ(s).some((e) => e.to === s);
    if (comp.length < 2 && !selfLoop) continue;
    const taken = new Set<string>();
    for (const i of comp) for (const e of succ(i)) if (inC.has(e.to)) e.classes.forEach((c) => taken.add(c));
    const all = new Set(comp.flatMap((i) => [...nodes[i]!.enabled]));
    const starved = [...all].some((c) => !taken.has(c) && comp.every((i) => nodes[i]!.enabled.has(c)));
    if (!starved) return true;
  }
  return false;
}
