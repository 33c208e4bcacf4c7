// What each frontier world of a cut reaches, exactly, on the explicit graph
// (shard-oracle-graph.ts). A cut is a prefix P (closed: every successor of a P world
// is in P or in the frontier F) and its frontier F. A shard's visited set is seeded
// with P and all of F, so from its frontier world f it explores f and the worlds
// reachable from f by paths that stay below the cut (outside P and F): R(f). A shard
// holding the frontier worlds A expands P, A and the union of R(f) for f in A.
//
// Worlds below the cut are grouped into strongly connected components (Tarjan) and
// the condensation is walked in topological order, carrying for each component the
// bitset of frontier worlds that reach it. Components with the same bitset form a
// class: the deal only ever sees classes (weight = worlds, bitset = who reaches them).
import type { ExplicitGraph } from './shard-oracle-graph.ts';

export interface Cut {
  readonly name: string;
  /** 1 for worlds of the prefix. */
  readonly inPrefix: Uint8Array;
  readonly prefixSize: number;
  /** Frontier worlds (ids), in the order the prefix meets them. */
  readonly frontier: readonly number[];
}

export interface Reach {
  readonly cut: Cut;
  /** Worlds below the cut. */
  readonly below: number;
  /** Components of the below part. */
  readonly components: number;
  /** Words per class bitset (32 frontier worlds a word). */
  readonly words: number;
  /** Per class: worlds, and its bitset at bits[c * words ..]. */
  readonly weight: Float64Array;
  readonly bits: Uint32Array;
  /** Per frontier world: |R(f)| (the world itself included). */
  readonly reach: Float64Array;
  /** Worlds below the cut that every frontier world reaches. */
  readonly common: number;
}

/** Builds the cut of a breadth-first depth: P = levels 0..d, F = level d + 1. */
export function depthCut(g: ExplicitGraph, d: number): Cut | undefined {
  if (d + 2 >= g.levelStart.length) return undefined;
  const inPrefix = new Uint8Array(g.n);
  const end = g.levelStart[d + 1]!;
  inPrefix.fill(1, 0, end);
  const frontier: number[] = [];
  for (let v = end; v < g.levelStart[d + 2]!; v++) frontier.push(v);
  return { name: `depth ${d}`, inPrefix, prefixSize: end, frontier };
}

/** The cut at the first fault: P = the fault-free worlds, F = worlds one fault step out of them. */
export function faultCut(g: ExplicitGraph, free: Uint8Array): Cut {
  const frontier: number[] = [];
  const inF = new Uint8Array(g.n);
  let size = 0;
  for (let v = 0; v < g.n; v++) {
    if (!free[v]) continue;
    size++;
    for (let e = g.off[v]!; e < g.off[v + 1]!; e++) {
      const u = g.succ[e]!;
      if (!free[u] && !inF[u]) {
        inF[u] = 1;
        frontier.push(u);
      }
    }
  }
  frontier.sort((a, b) => a - b);
  return { name: 'first fault', inPrefix: free, prefixSize: size, frontier };
}

/** Tarjan's SCCs of the subgraph on `keep` (iterative). comp[v] = -1 outside; components come out sinks first. */
function components(g: ExplicitGraph, keep: Uint8Array): { comp: Int32Array; count: number } {
  const comp = new Int32Array(g.n).fill(-1);
  const index = new Int32Array(g.n).fill(-1);
  const low = new Int32Array(g.n);
  const onStack = new Uint8Array(g.n);
  const stack = new Int32Array(g.n);
  const callV = new Int32Array(g.n);
  const callE = new Int32Array(g.n);
  let sp = 0;
  let next = 0;
  let count = 0;
  for (let root = 0; root < g.n; root++) {
    if (!keep[root] || index[root] !== -1) continue;
    let top = 0;
    callV[0] = root;
    callE[0] = g.off[root]!;
    index[root] = low[root] = next++;
    stack[sp++] = root;
    onStack[root] = 1;
    while (top >= 0) {
      const v = callV[top]!;
      const e = callE[top]!;
      if (e < g.off[v + 1]!) {
        callE[top] = e + 1;
        const u = g.succ[e]!;
        if (!keep[u]) continue;
        if (index[u] === -1) {
          index[u] = low[u] = next++;
          stack[sp++] = u;
          onStack[u] = 1;
          top++;
          callV[top] = u;
          callE[top] = g.off[u]!;
        } else if (onStack[u] && index[u]! < low[v]!) low[v] = index[u]!;
        continue;
      }
      if (low[v] === index[v]) {
        let u: number;
        do {
          u = stack[--sp]!;
          onStack[u] = 0;
          comp[u] = count;
        } while (u !== v);
        count++;
      }
      top--;
      if (top >= 0) {
        const p = callV[top]!;
        if (low[v]! < low[p]!) low[p] = low[v]!;
      }
    }
  }
  return { comp, count };
}

/** Exact reach of every frontier world of the cut; throws when the bitsets would exceed `maxBytes`. */
export function reachOf(g: ExplicitGraph, cut: Cut, maxBytes: number): Reach {
  const F = cut.frontier.length;
  const words = (F + 31) >>> 5;
  const keep = new Uint8Array(g.n);
  const inF = new Uint8Array(g.n);
  for (const f of cut.frontier) inF[f] = 1;
  let below = 0;
  for (let v = 0; v < g.n; v++) {
    if (!cut.inPrefix[v] && !inF[v]) {
      keep[v] = 1;
      below++;
    }
  }
  const { comp, count: K } = components(g, keep);
  if (K * words * 4 > maxBytes) throw new Error(`${cut.name}: ${K} components x ${F} frontier worlds exceed ${maxBytes} bytes of bitsets`);
  const size = new Float64Array(K);
  for (let v = 0; v < g.n; v++) if (comp[v]! >= 0) size[comp[v]!]!++;
  // Condensation edges, grouped by source component (deduplicated).
  const nodesOf = bucket(g.n, K, (v) => comp[v]!);
  const cOff = new Int32Array(K + 1);
  const cSucc: number[] = [];
  const last = new Int32Array(K).fill(-1);
  for (let c = 0; c < K; c++) {
    cOff[c] = cSucc.length;
    for (let k = nodesOf.off[c]!; k < nodesOf.off[c + 1]!; k++) {
      const v = nodesOf.items[k]!;
      for (let e = g.off[v]!; e < g.off[v + 1]!; e++) {
        const d = comp[g.succ[e]!]!;
        if (d >= 0 && d !== c && last[d] !== c) {
          last[d] = c;
          cSucc.push(d);
        }
      }
    }
  }
  cOff[K] = cSucc.length;
  // Frontier bits into the components their steps enter, then down the condensation
  // (Tarjan numbers a component after every component it reaches: walk K - 1 .. 0).
  const cb = new Uint32Array(K * words);
  cut.frontier.forEach((f, i) => {
    for (let e = g.off[f]!; e < g.off[f + 1]!; e++) {
      const d = comp[g.succ[e]!]!;
      if (d >= 0) cb[d * words + (i >>> 5)]! |= 1 << (i & 31);
    }
  });
  for (let c = K - 1; c >= 0; c--) {
    const s = c * words;
    for (let k = cOff[c]!; k < cOff[c + 1]!; k++) {
      const t = cSucc[k]! * words;
      for (let w = 0; w < words; w++) cb[t + w]! |= cb[s + w]!;
    }
  }
  // Classes: components with equal bitsets (hashed, then compared word by word).
  const classOf = new Map<string, number[]>();
  const cls = new Int32Array(K);
  const reps: number[] = [];
  for (let c = 0; c < K; c++) {
    let h1 = 0x811c9dc5,
      h2 = 0x01000193;
    for (let w = 0; w < words; w++) {
      const x = cb[c * words + w]!;
      h1 = Math.imul(h1 ^ x, 0x01000193);
      h2 = Math.imul(h2 ^ (x + 0x9e3779b9), 0x85ebca6b) ^ (h2 >>> 13);
    }
    const key = `${h1},${h2}`;
    const cands = classOf.get(key) ?? [];
    let found = -1;
    for (const r of cands) if (sameRow(cb, reps[r]!, c, words)) found = r;
    if (found < 0) {
      found = reps.length;
      reps.push(c);
      cands.push(found);
      classOf.set(key, cands);
    }
    cls[c] = found;
  }
  const C = reps.length;
  const weight = new Float64Array(C);
  for (let c = 0; c < K; c++) weight[cls[c]!]! += size[c]!;
  const bits = new Uint32Array(C * words);
  reps.forEach((c, r) => bits.set(cb.subarray(c * words, (c + 1) * words), r * words));
  const reach = new Float64Array(F).fill(1);
  let common = 0;
  for (let r = 0; r < C; r++) {
    let all = 0;
    for (let w = 0; w < words; w++) {
      for (let x = bits[r * words + w]!; x !== 0; x &= x - 1) {
        reach[w * 32 + (31 - Math.clz32(x & -x))]! += weight[r]!;
        all++;
      }
    }
    if (all === F) common += weight[r]!;
  }
  return { cut, below, components: K, words, weight, bits, reach, common };
}

function sameRow(a: Uint32Array, x: number, y: number, words: number): boolean {
  for (let w = 0; w < words; w++) if (a[x * words + w] !== a[y * words + w]) return false;
  return true;
}

/** Items 0..n-1 grouped by key(item) in 0..k-1 (counting sort). */
function bucket(n: number, k: number, key: (v: number) => number): { off: Int32Array; items: Int32Array } {
  const off = new Int32Array(k + 1);
  for (let v = 0; v < n; v++) {
    const c = key(v);
    if (c >= 0) off[c + 1]!++;
  }
  for (let c = 0; c < k; c++) off[c + 1]! += off[c]!;
  const pos = off.slice(0, k);
  const items = new Int32Array(off[k]!);
  for (let v = 0; v < n; v++) {
    const c = key(v);
    if (c >= 0) items[pos[c]!++] = v;
  }
  return { off, items };
}
