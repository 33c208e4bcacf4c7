// The explicit reachable state graph of a scenario, for the shard oracle
// (shard-oracle.bench.ts): every distinct world (by the checker's own fingerprint,
// symmetry as `check` uses by default) numbered densely in breadth-first discovery
// order, which is the order the shard prefix (src/check/distributed/shard.ts, runPrefix) meets them,
// so level k is the id range [levelStart[k], levelStart[k + 1]). Successors come from
// the checker's `enabled` / `apply`, with no reduction: the graph `check --no-por`
// explores, so `n` equals its distinct-state count.
import { StepMemo, apply, enabled, initialWorld, isFault, type Scenario, type World } from '../src/actors/index.ts';
import { WorldHasher, type Lanes } from '../src/check/fingerprint/fingerprint.ts';
import { VisitedSet } from '../src/check/search/visited.ts';

export interface ExplicitGraph {
  /** Distinct worlds. */
  readonly n: number;
  /** Level k (breadth-first depth k) is ids levelStart[k] .. levelStart[k + 1] - 1; the last entry is n. */
  readonly levelStart: readonly number[];
  /** Node v's successors are succ[off[v]] .. succ[off[v + 1] - 1] (distinct, self-loops dropped). */
  readonly off: Int32Array;
  readonly succ: Int32Array;
  /** 1 where the edge at the same position is taken only by fault steps (crash, drop, a failing delivery). */
  readonly faultEdge: Uint8Array;
  /** Transitions taken (steps applied), as `check --no-por` counts them. */
  readonly transitions: number;
  /** Node v's enabled steps (what the checker's deal weighs a frontier world by, src/check/distributed/shard.ts). */
  readonly enabledCount: Int32Array;
}

class Grow {
  n = 0;
  a: Int32Array;
  constructor(cap = 1024) {
    this.a = new Int32Array(cap);
  }
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  done(): Int32Array {
    return this.a.slice(0, this.n);
  }
}

/** Explores every reachable world breadth-first; throws past `maxStates` (the analysis needs the whole graph). */
export function buildGraph(sc: Scenario, maxStates: number): ExplicitGraph {
  const hasher = new WorldHasher(sc, (sc.symmetry?.length ?? 0) > 0);
  const ids = new VisitedSet(false, 1 << 16, true);
  const memo = new StepMemo();
  const off = new Grow();
  const succ = new Grow();
  // Fault flags, packed in the sign bit of a parallel list while building.
  const fault = new Grow();
  const enabledCount = new Grow();
  const levelStart = [0];
  let n = 0;
  let transitions = 0;
  const init = initialWorld(sc, { detail: false }).world;
  hasher.world(init);
  ids.add(hasher.ha, hasher.hb);
  ids.setId(n++);
  let level: World[] = [init];
  const seen = new Map<number, number>();
  while (level.length > 0) {
    levelStart.push(n);
    const next: World[] = [];
    for (const w of level) {
      const v = off.n;
      off.push(succ.n);
      hasher.world(w);
      const lanes: Lanes | undefined = hasher.lastLanes;
      seen.clear();
      const steps = enabled(sc, w);
      enabledCount.push(steps.length);
      for (const t of steps) {
        const r = apply(sc, w, t, { detail: false, memo });
        transitions++;
        hasher.world(r.world, w, lanes);
        let id: number;
        if (ids.add(hasher.ha, hasher.hb)) {
          if (n >= maxStates) throw new Error(`${sc.name}: more than ${maxStates} distinct states; the oracle needs the whole graph (use a smaller size)`);
          ids.setId((id = n++));
          next.push(r.world);
        } else id = ids.id();
        if (id === v) continue;
        const f = isFault(t) ? 1 : 0;
        const k = seen.get(id);
        if (k === undefined) {
          seen.set(id, succ.n);
          succ.push(id);
          fault.push(f);
        } else if (!f) fault.a[k] = 0; // a non-fault step reaches it too
      }
    }
    level = next;
  }
  off.push(succ.n);
  levelStart.pop();
  levelStart.push(n);
  return { n, levelStart, off: off.done(), succ: succ.done(), faultEdge: Uint8Array.from(fault.done()), transitions, enabledCount: enabledCount.done() };
}

/** The worlds reachable from the initial world by non-fault steps only (the fault-free part). */
export function faultFree(g: ExplicitGraph): Uint8Array {
  const mark = new Uint8Array(g.n);
  const stack = [0];
  mark[0] = 1;
  while (stack.length > 0) {
    const v = stack.pop()!;
    for (let e = g.off[v]!; e < g.off[v + 1]!; e++) {
      const u = g.succ[e]!;
      if (!g.faultEdge[e] && !mark[u]) {
        mark[u] = 1;
        stack.push(u);
      }
    }
  }
  return mark;
}
