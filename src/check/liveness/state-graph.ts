// The explorer used when a scenario declares liveness properties: breadth-first
// search that checks every safety property exactly as bfs does, and also keeps the
// state graph, so the SCC pass (liveness/scc.ts) can look for fair cycles afterwards.
//
// Nodes are numbered in discovery order, which is also the order bfs expands them,
// so a node's out-edges are contiguous (compressed sparse rows). What a node costs:
// 4 bytes for its number in the visited set, 4 for its first edge, 8 for its bfs
// parent and parent step, one mask word of enabled fairness classes per 32 classes,
// one word of predicate bits per 32 predicates, one flag byte; and 8 bytes per edge
// (target, step). `stats.liveness.bytesPerState` reports the total.
//
// No partial-order reduction (sleep sets prune transitions, and a cycle that only
// pruned transitions close would be missed) and no symmetry (fairness classes name
// actors, and a lasso must return to the very same world).
import { checkerMemo } from '../search/memo-key.ts';
import { apply, enabled, isQuiescent, queryOf, type Predicate, type Scenario, type Step, type World } from '../../actors/index.ts';
import { FairClasses } from './fairness.ts';
import type { Lanes } from '../fingerprint/fingerprint.ts';
import { findLivenessViolation, livenessSpecs, type LivenessSpec } from './scc.ts';
import { endViolation, stepViolation } from '../properties.ts';
import type { Explorer, Session } from '../search/session.ts';
import type { PropertyRef } from '../types.ts';

/** A growable Int32Array / Uint32Array. */
class Grow<T extends Int32Array | Uint32Array> {
  n = 0;
  constructor(public a: T) {}
  push(v: number): void {
    if (this.n === this.a.length) this.reserve(this.n + 1);
    this.a[this.n++] = v;
  }
  reserve(len: number): void {
    if (len <= this.a.length) return;
    const b = new (this.a.constructor as new (n: number) => T)(Math.max(len, Math.ceil(this.a.length * 1.5)));
    b.set(this.a);
    this.a = b;
  }
  get bytes(): number {
    return this.a.byteLength;
  }
}

export const QUIESCENT = 1;

/** The explored graph, read by the SCC pass. */
export class StateGraph {
  readonly parent = new Grow(new Int32Array(64));
  readonly parentStep = new Grow(new Int32Array(64));
  readonly flagBytes: { a: Uint8Array; n: number } = { a: new Uint8Array(64), n: 0 };
  /** `words` mask words of enabled fairness classes per node. */
  readonly enabledMask: Grow<Uint32Array>;
  /** `predWords` words of predicate bits per node. */
  readonly preds: Grow<Uint32Array>;
  /** offsets[i] .. offsets[i + 1]: node i's edges (for i < expanded). */
  readonly offsets = new Grow(new Int32Array(64));
  readonly target = new Grow(new Int32Array(128));
  readonly step = new Grow(new Int32Array(128));
  /** Distinct step ids, and the fairness classes of each. */
  readonly stepIds: string[] = [];
  readonly stepClasses: (readonly number[])[] = [];
  private readonly stepIndex = new Map<string, number>();
  size = 0;

  constructor(
    readonly words: number,
    readonly predWords: number,
  ) {
    this.enabledMask = new Grow(new Uint32Array(64 * words));
    this.preds = new Grow(new Uint32Array(64 * predWords));
    this.offsets.push(0);
  }

  /** Nodes whose out-edges are all recorded. */
  get expanded(): number {
    return this.offsets.n - 1;
  }

  stepOf(t: Step, classes: readonly number[]): number {
    let k = this.stepIndex.get(t.id);
    if (k === undefined) {
      this.stepIndex.set(t.id, (k = this.stepIds.length));
      this.stepIds.push(t.id);
      this.stepClasses.push(classes);
    }
    return k;
  }

  addNode(parent: number, parentStep: number, flags: number): number {
    const id = this.size++;
    this.parent.push(parent);
    this.parentStep.push(parentStep);
    const f = this.flagBytes;
    if (f.n === f.a.length) {
      const b = new Uint8Array(Math.ceil(f.a.length * 1.5));
      b.set(f.a);
      f.a = b;
    }
    f.a[f.n++] = flags;
    this.enabledMask.reserve((id + 1) * this.words);
    this.enabledMask.n = (id + 1) * this.words;
    this.preds.reserve((id + 1) * this.predWords);
    this.preds.n = (id + 1) * this.predWords;
    return id;
  }

  edge(to: number, step: number): void {
    this.target.push(to);
    this.step.push(step);
  }

  /** Ends the current node's edge list. */
  close(): void {
    this.offsets.push(this.target.n);
  }

  quiescent(i: number): boolean {
    return (this.flagBytes.a[i]! & QUIESCENT) !== 0;
  }

  pred(i: number, slot: number): boolean {
    return (this.preds.a[i * this.predWords + (slot >>> 5)]! & (1 << (slot & 31))) !== 0;
  }

  /** The steps from the root to node i. */
  pathTo(i: number): number[] {
    const out: number[] = [];
    for (let x = i; this.parent.a[x]! >= 0; x = this.parent.a[x]!) out.push(this.parentStep.a[x]!);
    return out.reverse();
  }

  get bytes(): number {
    return this.parent.bytes + this.parentStep.bytes + this.flagBytes.a.byteLength + this.enabledMask.bytes + this.preds.bytes + this.offsets.bytes + this.target.bytes + this.step.bytes;
  }
}

interface QNode {
  readonly id: number;
  world: World | undefined;
  steps: Step[];
  i: number;
  readonly depth: number;
  lanes: Lanes | undefined;
}

/** Statistics of the liveness pass, reported in `result.stats.liveness`. */
export interface LivenessStats {
  /** Edges kept (transitions between distinct states). */
  edges: number;
  /** Bytes per state of the stored graph and its visited-set node numbers. */
  bytesPerState: number;
  /** Peak bytes per state of the SCC pass's working arrays. */
  analysisBytesPerState: number;
  /** Non-trivial strongly connected components found (over all properties). */
  cyclicComponents: number;
  /** Milliseconds of the SCC pass. */
  analysisMs: number;
}

export class GraphSearch implements Explorer {
  readonly graph: StateGraph;
  readonly classes: FairClasses;
  readonly specs: readonly LivenessSpec[];
  readonly stats: LivenessStats = { edges: 0, bytesPerState: 0, analysisBytesPerState: 0, cyclicComponents: 0, analysisMs: 0 };
  private readonly preds: readonly Predicate[];
  private readonly sc: Scenario;
  private readonly memo = checkerMemo();
  private queue: QNode[] = [];
  private head = 0;
  private started = false;
  private analysed = false;

  constructor(private readonly s: Session) {
    this.sc = s.sc;
    this.classes = new FairClasses(s.sc);
    const { specs, preds } = livenessSpecs(s.sc);
    this.specs = specs;
    this.preds = preds;
    this.graph = new StateGraph(this.classes.words, Math.max(1, Math.ceil(preds.length / 32)));
  }

  private report(property: PropertyRef, schedule: string[]): boolean {
    if (this.s.opts.inspect?.violation?.(property, schedule)) return false;
    this.s.found = { property, schedule };
    return true;
  }

  private schedule(node: number, last?: number): string[] {
    const ids = this.graph.pathTo(node);
    if (last !== undefined) ids.push(last);
    return ids.map((k) => this.graph.stepIds[k]!);
  }

  /** Numbers a new world, records what the SCC pass needs, checks end properties, queues it. */
  private arrive(world: World, parent: number, parentStep: number, depth: number): void {
    const s = this.s;
    const g = this.graph;
    const lanes = s.hasher.lastLanes;
    if (depth > s.maxDepth) s.maxDepth = depth;
    const all = enabled(this.sc, world);
    const quiet = isQuiescent(all);
    s.reach.see(world, quiet);
    const id = g.addNode(parent, parentStep, quiet ? QUIESCENT : 0);
    s.visited.setId(id);
    const mask = g.enabledMask.a;
    for (const t of all) this.classes.orInto(mask, id * g.words, this.classes.of(t, world));
    if (this.preds.length > 0) {
      const q = queryOf(this.sc, world);
      const bits = g.preds.a;
      this.preds.forEach((p, k) => {
        let r: boolean | string;
        try {
          r = p(q);
        } catch {
          r = false;
        }
        if (r === true) bits[id * g.predWords + (k >>> 5)]! |= 1 << (k & 31);
      });
    }
    if (quiet) s.opts.inspect?.quiescent?.(world);
    const end = endViolation(this.sc, world, all);
    if (end && this.report(end, this.schedule(id))) return;
    let steps = all;
    if (all.length > 0 && depth >= s.maxDepthBudget) {
      s.cutBy ??= 'maxDepth';
      steps = [];
    }
    this.queue.push({ id, world, steps, i: 0, depth, lanes: Array.isArray(lanes) ? Int32Array.from(lanes) : lanes });
  }

  step(until: number): boolean {
    const s = this.s;
    const sc = this.sc;
    const g = this.graph;
    if (!this.started) {
      this.started = true;
      const init = s.start();
      if (init.violation && this.report(init.violation, [])) return true;
      this.arrive(init.world, -1, -1, 0);
      if (s.found) return true;
    }
    let k = 0;
    for (;;) {
      if ((++k & 63) === 0) {
        const now = performance.now();
        if (s.outOfBudget(now)) return this.end();
        if (now > until) {
          s.queue = this.queue.length - this.head;
          return false;
        }
      }
      const n = this.queue[this.head];
      if (!n) {
        s.queue = 0;
        return this.end();
      }
      if (n.i >= n.steps.length) {
        // Every out-edge of n is recorded: close its row and let its world go.
        g.close();
        n.world = undefined;
        n.lanes = undefined;
        n.steps = [];
        this.queue[this.head++] = undefined as unknown as QNode;
        if (this.head > 4096 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        continue;
      }
      const t = n.steps[n.i++]!;
      const from = n.world!;
      const r = apply(sc, from, t, { detail: false, memo: this.memo });
      s.determinism?.check(from, t, r.world, r.events);
      s.transitions++;
      s.states++;
      const fresh = s.visit(r.world, from, n.lanes);
      const v = stepViolation(sc, r.world, r.events, fresh);
      const st = g.stepOf(t, this.classes.of(t, from));
      if (v && this.report(v, this.schedule(n.id, st))) return true;
      let to: number;
      if (fresh) {
        to = g.size;
        this.arrive(r.world, n.id, st, n.depth + 1);
        if (s.found) return true;
      } else to = s.visited.id();
      g.edge(to, st);
      if (s.visited.size >= s.maxStates) {
        s.cutBy ??= 'maxStates';
        return this.end();
      }
    }
  }

  /** Exploration is over: look for fair cycles and ends that violate a liveness property. */
  private end(): boolean {
    if (this.analysed) return true;
    this.analysed = true;
    const g = this.graph;
    this.stats.edges = g.target.n;
    const t0 = performance.now();
    if (!this.s.found && this.s.cutBy !== 'stopped') {
      const r = findLivenessViolation(g, this.specs, this.classes);
      this.stats.cyclicComponents = r.cyclicComponents;
      this.stats.analysisBytesPerState = g.size > 0 ? r.peakBytes / g.size : 0;
      if (r.found) {
        const ids = [...r.found.prefix, ...(r.found.cycle ?? [])].map((k) => g.stepIds[k]!);
        this.s.found = { property: r.found.property, schedule: ids, ...(r.found.cycle ? { cycleStart: r.found.prefix.length } : {}) };
      }
    }
    this.stats.analysisMs = performance.now() - t0;
    const idBytes = 4 * this.s.visited.capacity;
    this.stats.bytesPerState = g.size > 0 ? (g.bytes + idBytes) / g.size : 0;
    return true;
  }
}
