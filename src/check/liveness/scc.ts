// Liveness on the explored state graph (liveness/state-graph.ts): an SCC pass under weak
// fairness, in the manner of TLC.
//
// Each property is a two-state automaton over worlds whose bit says "still owed":
//   eventually(p)         owed = !p, and stays paid once p held;
//   leadsTo(p, q)         owed' = (owed || p) && !q;
//   nonProgressCycles(g)  owed = !g (memoryless).
// A property is violated by a run that stays owed forever: either a run that ends
// owed at a quiescent world (not for non-progress), or a fair cycle of owed worlds
// reachable in the product of the graph and the automaton.
//
// Fairness is weak only, so a strongly connected component C of owed worlds holds a
// fair cycle iff every fairness class is taken on an edge inside C or disabled at a
// world of C: a class enabled everywhere in C and never taken in C is enabled
// everywhere and never taken in every cycle inside C too, so no sub-component needs
// looking at (strong fairness would need Couvreur's recursive decomposition).
//
// Memory of the pass, per state: 2 bits of product reachability (one byte here),
// Tarjan's index, lowlink and component (12 bytes), its stack (4), the search stack
// (8), the automaton's transitions (2); the shortest prefix and the cycle are rebuilt
// by bfs only when a violation is found (24 bytes per state then).
import { progressTag, type LivenessProperty, type Predicate, type Scenario } from '../../actors/index.ts';
import type { FairClasses } from './fairness.ts';
import type { StateGraph } from './state-graph.ts';
import type { PropertyRef } from '../types.ts';

export interface LivenessSpec {
  readonly name: string;
  readonly property: LivenessProperty;
  /** Predicate slots: [p] for eventually and progress, [p, q] for leadsTo. */
  readonly slots: readonly number[];
}

/** True when the scenario declares liveness properties (the checker then builds the graph, without POR). */
export function hasLiveness(sc: Scenario): boolean {
  return Object.keys(sc.liveness ?? {}).length > 0;
}

/** The scenario's liveness properties with numbered predicate slots. */
export function livenessSpecs(sc: Scenario): { specs: LivenessSpec[]; preds: Predicate[] } {
  const preds: Predicate[] = [];
  const slot = (p: Predicate) => preds.push(p) - 1;
  const specs = Object.entries(sc.liveness ?? {}).map(([name, property]) => {
    const slots = property.kind === 'leadsTo' ? [slot(property.p), slot(property.q)] : [slot(property.kind === 'eventually' ? property.p : (property.progress ?? progressTag))];
    return { name, property, slots };
  });
  return { specs, preds };
}

/** The automaton of one property: its initial bit and its step. */
export interface Owed {
  init(holds: (slot: number) => boolean): 0 | 1;
  next(owed: 0 | 1, holds: (slot: number) => boolean): 0 | 1;
  /** A run that ends owed violates it (not for non-progress cycles). */
  readonly endsCount: boolean;
}

export function owedOf(spec: LivenessSpec): Owed {
  const [a, b] = spec.slots as [number, number];
  switch (spec.property.kind) {
    case 'eventually':
      return { init: (h) => (h(a) ? 0 : 1), next: (o, h) => (o && !h(a) ? 1 : 0), endsCount: true };
    case 'leadsTo':
      return { init: (h) => (h(a) && !h(b) ? 1 : 0), next: (o, h) => ((o || h(a)) && !h(b) ? 1 : 0), endsCount: true };
    case 'progress':
      return { init: (h) => (h(a) ? 0 : 1), next: (_o, h) => (h(a) ? 0 : 1), endsCount: false };
  }
}

export interface LassoFound {
  readonly property: PropertyRef;
  /** Step indices (graph.stepIds) from the initial world. */
  readonly prefix: number[];
  /** Step indices of the cycle, or undefined for a run that ends owed. */
  readonly cycle: number[] | undefined;
}

export function findLivenessViolation(g: StateGraph, specs: readonly LivenessSpec[], classes: FairClasses): { found?: LassoFound; cyclicComponents: number; peakBytes: number } {
  let cyclic = 0;
  let peak = 0;
  for (const spec of specs) {
    const r = checkOne(g, spec, classes);
    cyclic += r.cyclic;
    peak = Math.max(peak, r.bytes);
    if (r.found) return { found: r.found, cyclicComponents: cyclic, peakBytes: peak };
  }
  return { cyclicComponents: cyclic, peakBytes: peak };
}

function checkOne(g: StateGraph, spec: LivenessSpec, classes: FairClasses): { found?: LassoFound; cyclic: number; bytes: number } {
  const N = g.size;
  const E = g.expanded;
  const off = g.offsets.a;
  const tgt = g.target.a;
  const A = owedOf(spec);
  // trans[w] bit o: the owed bit on entering w from a world whose bit is o.
  const trans = new Uint8Array(N);
  for (let w = 0; w < N; w++) {
    const h = (slot: number) => g.pred(w, slot);
    trans[w] = A.next(0, h) | (A.next(1, h) << 1);
  }
  const init = N > 0 ? A.init((slot) => g.pred(0, slot)) : 0;
  // bad[w]: an owed world stays owed on entering w (the SCC subgraph's nodes).
  const bad = new Uint8Array(N);
  for (let w = 0; w < N; w++) bad[w] = trans[w]! >> 1;
  // Product reachability: bit 0 (paid) and bit 1 (owed) per world.
  const reach = new Uint8Array(N);
  const queue = new Int32Array(2 * N);
  let qh = 0,
    qt = 0;
  if (N > 0) {
    reach[0] = 1 << init;
    queue[qt++] = init;
  }
  while (qh < qt) {
    const x = queue[qh++]!;
    const w = x >>> 1,
      o = (x & 1) as 0 | 1;
    if (w >= E) continue;
    for (let e = off[w]!; e < off[w + 1]!; e++) {
      const v = tgt[e]!;
      const ov = (trans[v]! >> o) & 1;
      if (reach[v]! & (1 << ov)) continue;
      reach[v]! |= 1 << ov;
      queue[qt++] = (v << 1) | ov;
    }
  }
  const owed = (w: number) => (reach[w]! & 2) !== 0;
  let bytes = trans.byteLength + bad.byteLength + reach.byteLength + queue.byteLength;

  if (A.endsCount) {
    for (let w = 0; w < N; w++) {
      if (owed(w) && g.quiescent(w)) {
        const { prefix, owedFrom } = prefixTo(g, init, trans, (v) => v === w);
        return { found: { property: livenessMessage(spec, classes, prefix.length, owedFrom, undefined), prefix, cycle: undefined }, cyclic: 0, bytes: bytes + 24 * N };
      }
    }
  }

  // Tarjan over owed worlds, edges into bad worlds (iterative).
  const index = new Int32Array(N); // 0: unvisited, else order + 1
  const low = new Int32Array(N);
  const comp = new Int32Array(N).fill(-1);
  const stack = new Int32Array(N);
  const callW = new Int32Array(N);
  const callE = new Int32Array(N);
  bytes += 6 * 4 * N;
  let sp = 0,
    order = 0,
    nComp = 0,
    cyclic = 0;
  const W = g.words;
  const enAnd = new Uint32Array(W);
  const takenOr = new Uint32Array(W);
  for (let root = 0; root < N; root++) {
    if (!owed(root) || !bad[root] || index[root] !== 0) continue;
    // Enter root.
    let top = 0;
    const enter = (w: number) => {
      index[w] = low[w] = ++order;
      stack[sp++] = w;
      callW[top] = w;
      callE[top] = w < E ? off[w]! : 0;
      top++;
    };
    enter(root);
    while (top > 0) {
      const w = callW[top - 1]!;
      const end = w < E ? off[w + 1]! : 0;
      let e = callE[top - 1]!;
      let descended = false;
      for (; e < end; e++) {
        const v = tgt[e]!;
        if (!bad[v]) continue;
        if (index[v] === 0) {
          callE[top - 1] = e + 1;
          enter(v);
          descended = true;
          break;
        }
        if (comp[v] === -1 && index[v]! < low[w]!) low[w] = index[v]!;
      }
      if (descended) continue;
      callE[top - 1] = end;
      top--;
      if (top > 0) {
        const p = callW[top - 1]!;
        if (low[w]! < low[p]!) low[p] = low[w]!;
      }
      if (low[w] !== index[w]) continue;
      // w roots a component: stack[from .. sp).
      let from = sp;
      do from--;
      while (stack[from] !== w);
      const k = nComp++;
      for (let i = from; i < sp; i++) comp[stack[i]!] = k;
      const members = stack.subarray(from, sp);
      sp = from;
      if (!cyclicComponent(g, members, bad, E)) continue;
      cyclic++;
      if (!fair(g, members, comp, k, bad, E, enAnd, takenOr)) continue;
      const entry = prefixTo(g, init, trans, (v) => comp[v] === k);
      const cycle = cycleThrough(g, entry.end, comp, k, bad, E, enAnd, classes);
      bytes += 24 * N;
      return { found: { property: livenessMessage(spec, classes, entry.prefix.length, entry.owedFrom, cycle.length), prefix: entry.prefix, cycle }, cyclic, bytes };
    }
  }
  return { cyclic, bytes };
}

function cyclicComponent(g: StateGraph, members: Int32Array, bad: Uint8Array, E: number): boolean {
  if (members.length > 1) return true;
  const w = members[0]!;
  if (w >= E) return false;
  for (let e = g.offsets.a[w]!; e < g.offsets.a[w + 1]!; e++) if (g.target.a[e] === w && bad[w]) return true;
  return false;
}

/** Weak fairness over a component: no class enabled at all its worlds and taken on none of its edges. */
function fair(g: StateGraph, members: Int32Array, comp: Int32Array, k: number, bad: Uint8Array, E: number, enAnd: Uint32Array, takenOr: Uint32Array): boolean {
  const W = g.words;
  enAnd.fill(0xffffffff);
  takenOr.fill(0);
  const mask = g.enabledMask.a;
  for (const w of members) {
    for (let j = 0; j < W; j++) enAnd[j]! &= mask[w * W + j]!;
    if (w >= E) continue;
    for (let e = g.offsets.a[w]!; e < g.offsets.a[w + 1]!; e++) {
      const v = g.target.a[e]!;
      if (comp[v] !== k || !bad[v]) continue;
      for (const c of g.stepClasses[g.step.a[e]!]!) takenOr[c >>> 5]! |= 1 << (c & 31);
    }
  }
  for (let j = 0; j < W; j++) if ((enAnd[j]! & ~takenOr[j]!) !== 0) return false;
  return true;
}

/** Shortest path in the product from the initial world to an owed world satisfying `goal`. */
function prefixTo(g: StateGraph, init: number, trans: Uint8Array, goal: (w: number) => boolean): { prefix: number[]; end: number; owedFrom: number } {
  const N = g.size;
  const E = g.expanded;
  const parent = new Int32Array(2 * N).fill(-2);
  const pstep = new Int32Array(2 * N);
  const queue = new Int32Array(2 * N);
  let qh = 0,
    qt = 0;
  parent[init] = -1;
  queue[qt++] = init;
  let hit = -1;
  while (qh < qt) {
    const x = queue[qh++]!;
    const w = x >>> 1;
    if ((x & 1) === 1 && goal(w)) {
      hit = x;
      break;
    }
    if (w >= E) continue;
    for (let e = g.offsets.a[w]!; e < g.offsets.a[w + 1]!; e++) {
      const v = g.target.a[e]!;
      const y = (v << 1) | ((trans[v]! >> (x & 1)) & 1);
      if (parent[y] !== -2) continue;
      parent[y] = x;
      pstep[y] = g.step.a[e]!;
      queue[qt++] = y;
    }
  }
  if (hit < 0) throw new Error('internal: liveness prefix not found for a reachable owed world');
  const nodes: number[] = [];
  const prefix: number[] = [];
  for (let y = hit; y >= 0; y = parent[y]!) {
    nodes.push(y);
    if (parent[y]! >= 0) prefix.push(pstep[y]!);
  }
  nodes.reverse();
  prefix.reverse();
  // The step after which the obligation started and was never paid again.
  let owedFrom = nodes.length - 1;
  while (owedFrom > 0 && (nodes[owedFrom - 1]! & 1) === 1) owedFrom--;
  return { prefix, end: hit >>> 1, owedFrom };
}

/**
 * A cycle from `start` back to it inside component k that is fair: it takes an edge
 * of every class enabled everywhere in the component, and visits a world where each
 * other class is disabled.
 */
function cycleThrough(g: StateGraph, start: number, comp: Int32Array, k: number, bad: Uint8Array, E: number, enAnd: Uint32Array, classes: FairClasses): number[] {
  const inC = (v: number) => comp[v] === k && bad[v] === 1;
  const out: number[] = [];
  let cur = start;
  const mask = g.enabledMask.a;
  const W = g.words;
  // Breadth-first path inside the component from cur to a world satisfying goal.
  const walk = (goal: (v: number) => boolean, atLeastOne: boolean) => {
    if (!atLeastOne && goal(cur)) return;
    const parent = new Map<number, [number, number]>();
    const queue = [cur];
    let hit = -1;
    for (let qh = 0; qh < queue.length && hit < 0; qh++) {
      const w = queue[qh]!;
      if (w >= E) continue;
      for (let e = g.offsets.a[w]!; e < g.offsets.a[w + 1]!; e++) {
        const v = g.target.a[e]!;
        if (!inC(v) || parent.has(v) || (v === cur && !goal(v))) continue;
        parent.set(v, [w, g.step.a[e]!]);
        if (goal(v)) {
          hit = v;
          break;
        }
        queue.push(v);
      }
    }
    if (hit < 0) throw new Error('internal: no path inside a strongly connected component');
    const path: number[] = [];
    for (let v = hit; ; ) {
      const [p, st] = parent.get(v)!;
      path.push(st);
      v = p;
      if (v === cur) break;
    }
    out.push(...path.reverse());
    cur = hit;
  };
  for (let c = 0; c < classes.count; c++) {
    const bit = 1 << (c & 31);
    if ((enAnd[c >>> 5]! & bit) !== 0) {
      // Enabled everywhere: take one of its edges inside the component.
      let src = -1,
        dst = -1,
        st = -1;
      for (let w = 0; w < g.size && src < 0; w++) {
        if (!inC(w) || w >= E) continue;
        for (let e = g.offsets.a[w]!; e < g.offsets.a[w + 1]!; e++) {
          if (inC(g.target.a[e]!) && g.stepClasses[g.step.a[e]!]!.includes(c)) {
            src = w;
            dst = g.target.a[e]!;
            st = g.step.a[e]!;
            break;
          }
        }
      }
      walk((v) => v === src, false);
      out.push(st);
      cur = dst;
    } else {
      walk((v) => inC(v) && (mask[v * W + (c >>> 5)]! & bit) === 0, false);
    }
  }
  walk((v) => v === start, out.length === 0);
  return out;
}

export function livenessMessage(spec: LivenessSpec, classes: FairClasses, prefixLen: number, owedFrom: number, cycleLen: number | undefined): PropertyRef {
  const p = spec.property;
  const fairness = classes.count === 0 ? 'no fairness declared' : 'every weakly fair step class is taken or disabled on it';
  const tail = cycleLen === undefined ? `the run ends after step ${prefixLen} (nothing but faults is enabled)` : `steps ${prefixLen + 1}..${prefixLen + cycleLen} repeat forever (${fairness})`;
  let what: string;
  if (p.kind === 'eventually') what = `eventually: the expected world never comes: ${tail}`;
  else if (p.kind === 'leadsTo') what = `leadsTo: the trigger ${owedFrom === 0 ? 'holds initially' : `holds after step ${owedFrom}`} and the expected world never follows: ${tail}`;
  else what = `non-progress cycle: ${tail} without a progress world`;
  return { name: spec.name, kind: 'liveness', message: what };
}
