// State-reducing partial-order reduction: stubborn (persistent) sets for actor
// systems, computed from what each actor can send (Valmari; Godefroid's persistent
// sets; Spin's cycle proviso, Holzmann & Peled). The proviso lives in search/explore.ts.
//
// The model: one step is one receiver handling one message atomically (or a fault,
// a restart, a timer). Deliveries to different receivers commute (por/sleep-sets.ts). At a world
// s we pick a set C of actors and explore only the enabled steps of C (the set T).
// T is persistent when no sequence of steps outside T, from s, contains a step
// dependent on a step of T. Outside T only actors outside C move, so C must contain
// every actor that could otherwise interfere:
// - X may send to Y in C over a channel X -> Y that is empty at s (that would
//   enable a new delivery to Y, racing with T's): X joins C. A non-empty channel is
//   fine, its head is already a T step and appends go behind it;
// - Y in C may crash (a T step) and X may send to Y at all: X joins C;
// - X may crash and a T step may send to X: X joins C;
// - T holds a fault step and the budget is not spent: every actor that may take a
//   fault step outside T joins C (faults share the budget);
// - timers may fire before messages (`timers: 'any'`): an actor with a pending timer
//   is never in C; outside actors' timer steps (pending, or set by a step they may
//   take) are steps they may take; and when a timer may fire outside T, every T step
//   must be clock-free (a machine step that sets no timer). Under `timers:
//   'quiescent'` no timer fires while a delivery of T is pending;
// - a T with a step a global monitor watches is not used (monitors see events in
//   order); when such a monitor reads an actor of C, an X whose step it may watch
//   joins C (that step's verdict may depend on T's). Stateless and one-actor
//   monitors are not global (por/monitors.ts).
// "X may send to Y" is a relation over (actor, what it handles, target): what X does
// when it handles a message from Z (or boots after a restart, or crashes). Whether X
// can handle something from Z outside T follows from the channels non-empty at s and
// the same relation, to a fixpoint.
//
// The relation is learned, not declared: a few random walks seed it, and every step
// the search takes is checked against it. A step that sends (or sets a timer, or is
// watched) beyond the relation adds to it and restarts the search. This is sound: a
// step's sends depend only on its actor's state and message, and the reduced search
// under a relation R reaches some step that breaks R whenever one is reachable
// (the same argument that preserves a reachable error event, with the proviso), so a
// search that ends without a restart ran under a relation true of every reachable
// step. Under symmetry the relation is closed under the actor permutations.
//
// Visibility. Invariants and `reachable` predicates are state properties: one that
// reads a single actor (declared with `reads([...], p)`, or `readsEach` for a
// conjunction of per-actor conditions) is preserved as it is; one over several
// actors makes those actors' steps visible (a T with such a step, or a step that may
// send to them, is not used), or with `readsView` only the steps that change its view
// (por/views.ts); one that declares nothing makes every step visible (state reduction
// off, sleep sets still on).
import { enabled, rng, type Predicate, type Scenario, type Step, type TraceEvent, type World, apply, initialWorld } from '../../actors/index.ts';
import type { PorContext } from './sleep-sets.ts';
import { MonitorVisibility } from './monitors.ts';
import { ViewVisibility, type Reads } from './views.ts';
import { NondeterminismError, type DeterminismCheck } from '../purity.ts';

export { reads, readsEach, readsView } from '../../actors/reads.ts';

const WALKS = 24;
const WALK_DEPTH = 300;
const WALK_STEPS = 4000;

export class Stubborn {
  readonly on: boolean;
  /** Why the state reduction is off (sleep sets may still run). */
  readonly reason: string | undefined;
  /** Times the search restarted after the relation grew. */
  restarts = 0;
  private readonly n: number;
  /** Handled-from keys: actors 0..n-1, env n, boot n+1, crash n+2, own timer n+3. */
  private readonly K: number;
  private readonly sends: Uint8Array;
  private readonly setsTimer: Uint8Array;
  /** Which monitors make which steps visible (por/monitors.ts). */
  private readonly mon: MonitorVisibility;
  /** Steps that change a `readsView` predicate's view (por/views.ts). */
  private readonly views: ViewVisibility;
  private readonly visibleActor: Uint8Array;
  private readonly swaps: Int32Array[] = [];
  private readonly eager: boolean;
  // Scratch, reused per world.
  private readonly inC: Uint8Array;
  private readonly act: Uint8Array;
  private readonly chan: Uint8Array;
  // Scratch of reduce/closure, reused: a reduction runs at every expanded world.
  private readonly count: Int32Array;
  private readonly normal: Uint8Array;
  private readonly todo: number[] = [];
  private readonly readers: { readonly keys: Uint8Array; readonly reads: Uint8Array }[] = [];

  constructor(
    private readonly sc: Scenario,
    private readonly por: PorContext,
    symmetry: boolean,
    /** Why the caller wants the state reduction off (sleep sets still run). */
    off?: string,
    /** The nondeterminism sample the learning walks' steps go through (they run user code before the search). */
    private readonly purity?: DeterminismCheck,
  ) {
    const n = (this.n = sc.ids.length);
    const K = (this.K = n + 4);
    this.sends = new Uint8Array(n * K * n);
    this.setsTimer = new Uint8Array(n * K);
    this.visibleActor = new Uint8Array(n);
    this.inC = new Uint8Array(n);
    this.act = new Uint8Array(n * K);
    this.chan = new Uint8Array((n + 1) * n);
    this.count = new Int32Array(n);
    this.normal = new Uint8Array(n);
    this.eager = sc.timers !== 'quiescent';
    if (symmetry) {
      for (const g of sc.symmetry ?? []) {
        const idx = g.map((id) => sc.index.get(id)!);
        for (let i = 0; i < idx.length; i++) {
          for (let j = i + 1; j < idx.length; j++) {
            const p = Int32Array.from({ length: K }, (_, x) => x);
            p[idx[i]!] = idx[j]!;
            p[idx[j]!] = idx[i]!;
            this.swaps.push(p);
          }
        }
      }
    }
    this.mon = new MonitorVisibility(sc, por, n, K, this.swaps);
    this.views = new ViewVisibility(sc, n, K, this.swaps);
    let reason = por.enabled ? off : (por.reason ?? 'POR off');
    // Environment inputs may be offered at any time under guards that read the world:
    // not modelled by the relation yet.
    if (sc.inputList.length > 0) reason ??= 'the scenario declares environment inputs, which the stubborn-set computation does not model';
    const props: [string, Predicate][] = [...Object.entries(sc.invariants ?? {}), ...Object.entries(sc.reachable ?? {})];
    for (const [name, p] of props) {
      const r = p as Predicate & Reads;
      if (!Array.isArray(r.reads)) {
        reason ??= `predicate '${name}' does not declare the actors it reads (wrap it in reads([...], p) or readsEach([...], p) from interleave's check module), so every step may change it`;
        continue;
      }
      const mask = new Uint8Array(n);
      for (const id of r.reads) {
        const i = sc.index.get(id);
        if (i === undefined) throw new Error(`predicate '${name}' of scenario '${sc.name}' declares it reads '${id}', which is not an actor; known actors: ${sc.ids.join(', ')}`);
        mask[i] = 1;
      }
      if (r.readsEach || r.reads.length <= 1) continue;
      if (typeof r.view === 'function') this.views.add(r.view, mask);
      else for (let i = 0; i < n; i++) if (mask[i]) this.visibleActor[i] = 1;
    }
    for (const p of this.swaps) for (let i = 0; i < n; i++) if (this.visibleActor[i]) this.visibleActor[p[i]!] = 1;
    this.reason = reason;
    this.on = reason === undefined;
    if (this.on) this.prelearn();
  }

  /** The actor a step belongs to and what it handles, or -1 (timers). */
  private keyOf(s: Step): number {
    const n = this.n;
    switch (s.kind) {
      case 'deliver':
      case 'drop':
        return s.to * this.K + s.from;
      case 'restart':
        return s.actor * this.K + n + 1;
      case 'crash':
        return s.actor * this.K + n + 2;
      default:
        return -1;
    }
  }

  /**
   * Records what a step did (`from`/`to`: the worlds around it); true when
   * the relation grew (the search must restart). Timer steps are recorded under their
   * owner's timer key, though a world where one is enabled is expanded fully and timers
   * never fire outside a stubborn set.
   */
  learn(step: Step, events: readonly TraceEvent[], from: World, to: World): boolean {
    if (!this.on) return false;
    let key = this.keyOf(step);
    if (key < 0) {
      const fire = events.find((e) => e.kind === 'timer-fire');
      const owner = fire ? this.sc.index.get(fire.actor) : undefined;
      if (owner === undefined) return false;
      key = owner * this.K + this.n + 3;
    }
    const n = this.n;
    const a = (key / this.K) | 0;
    const k = key - a * this.K;
    const me = this.sc.ids[a];
    let grew = false;
    for (const e of events) {
      if (e.kind === 'send' && e.from === me) {
        const y = this.sc.index.get(e.to);
        if (y !== undefined && this.sends[key * n + y] === 0) grew = this.add(0, a, k, y) || grew;
      } else if (e.kind === 'timer-set' && e.actor === me && this.setsTimer[key] === 0) grew = this.add(1, a, k, 0) || grew;
    }
    if (this.views.learn(key, from, to)) grew = true;
    return this.mon.learn(key, events, from.monitors, to.monitors) || grew;
  }

  /** Adds a fact and its images under the symmetry swaps. */
  private add(table: 0 | 1, a: number, k: number, y: number): boolean {
    const K = this.K,
      n = this.n;
    const todo: number[] = [a, k, y];
    let grew = false;
    while (todo.length > 0) {
      const yy = todo.pop()!,
        kk = todo.pop()!,
        aa = todo.pop()!;
      const arr = table === 0 ? this.sends : this.setsTimer;
      const at = table === 0 ? (aa * K + kk) * n + yy : aa * K + kk;
      if (arr[at] !== 0) continue;
      arr[at] = 1;
      grew = true;
      for (const p of this.swaps) todo.push(p[aa]!, p[kk]!, table === 0 ? p[yy]! : 0);
    }
    return grew;
  }

  /** Seeds the relation from a few short random walks (a seeded PRNG: same every run). */
  private prelearn(): void {
    const r = rng(0x5eed);
    let budget = WALK_STEPS;
    for (let walk = 0; walk < WALKS && budget > 0; walk++) {
      let w = initialWorld(this.sc, { detail: false }).world;
      if (walk === 0) this.purity?.checkInitial(w);
      for (let d = 0; d < WALK_DEPTH && budget > 0; d++, budget--) {
        const steps = enabled(this.sc, w);
        if (steps.length === 0) break;
        const t = r.pick(steps);
        let res;
        try {
          res = this.purity ? this.purity.apply(w, t) : apply(this.sc, w, t, { detail: false });
        } catch (e) {
          if (e instanceof NondeterminismError) throw e;
          break; // the search reports model errors itself
        }
        this.learn(t, res.events, w, res.world);
        w = res.world;
      }
    }
  }

  /**
   * A stubborn subset of `all` (the enabled steps of `w`, in order), or undefined
   * when the world must be expanded fully.
   */
  reduce(w: World, all: readonly Step[]): Step[] | undefined {
    if (!this.on || all.length <= 1) return undefined;
    const n = this.n;
    const count = this.count;
    const normal = this.normal;
    count.fill(0);
    normal.fill(0);
    for (const s of all) {
      if (s.kind === 'timer') continue; // never in T (see closure)
      const key = this.keyOf(s);
      if (key < 0) return undefined; // a tick or an environment input
      const a = (key / this.K) | 0;
      count[a]!++;
      if (s.kind === 'deliver' && s.outcome === undefined) normal[a] = 1;
    }
    let best: Uint8Array | undefined;
    let bestSize = all.length;
    for (let a = 0; a < n; a++) {
      if (!normal[a] || count[a]! >= bestSize) continue;
      const c = this.closure(w, all, a, count, bestSize);
      if (!c) continue;
      let size = 0;
      for (let x = 0; x < n; x++) if (c[x]) size += count[x]!;
      if (size < bestSize) {
        bestSize = size;
        best = c.slice();
      }
    }
    if (!best) return undefined;
    const out: Step[] = [];
    for (const s of all) if (s.kind !== 'timer' && best[(this.keyOf(s) / this.K) | 0]) out.push(s);
    return out;
  }

  /** closure's fixpoint: actor x (outside C) may come to handle what k names. */
  private mark(x: number, k: number): void {
    const i = x * this.K + k;
    if (this.inC[x] || this.act[i]) return;
    this.act[i] = 1;
    this.todo.push(x, k);
  }

  /** The actors of a stubborn set grown from `seed`, or undefined (visible, or not smaller than `limit` steps). */
  private closure(w: World, all: readonly Step[], seed: number, count: Int32Array, limit: number): Uint8Array | undefined {
    const sc = this.sc;
    const n = this.n,
      K = this.K;
    const inC = this.inC;
    inC.fill(0);
    inC[seed] = 1;
    let size = count[seed]!;
    const faultsLeft = w.faults < sc.budget;
    const chan = this.chan; // chan[from * n + to]: channel non-empty at w
    chan.fill(0);
    for (let to = 0; to < n; to++) for (const ch of w.inbox[to]!) chan[ch.from * n + to] = 1;
    const T = this.n + 3; // an actor's own timer firing, as what it handles
    for (;;) {
      // Visibility of T. An actor with a pending timer stays out of C under `timers: 'any'`
      // (its timer step is never in T and would not commute with its T steps).
      let tFault = false;
      for (const t of w.timers) if (this.eager && inC[t.owner]) return undefined;
      for (const s of all) {
        if (s.kind === 'timer') continue;
        const key = this.keyOf(s);
        const a = (key / K) | 0;
        if (!inC[a]) continue;
        if (this.visibleActor[a] || this.mon.watched[key] || this.views.visible[key]) return undefined;
        for (let y = 0; y < n; y++) if (this.sends[key * n + y] && this.visibleActor[y]) return undefined;
        if (s.kind === 'crash' || s.kind === 'drop' || (s.kind === 'deliver' && s.outcome !== undefined)) tFault = true;
      }
      // What actors outside C can handle, to a fixpoint.
      const act = this.act;
      act.fill(0);
      const todo = this.todo;
      todo.length = 0;
      for (const t of w.timers) this.mark(t.owner, T);
      for (let x = 0; x < n; x++) {
        if (inC[x]) continue;
        for (const ch of w.inbox[x]!) this.mark(x, ch.from);
        if (sc.restartable[x] && (w.status[x] === 'crashed' || canCrash(sc, w, faultsLeft, x))) this.mark(x, n + 1);
        if (canCrash(sc, w, faultsLeft, x)) this.mark(x, n + 2);
      }
      while (todo.length > 0) {
        const k = todo.pop()!,
          x = todo.pop()!;
        const base = (x * K + k) * n;
        for (let y = 0; y < n; y++) if (this.sends[base + y]) this.mark(y, x);
        if (this.setsTimer[x * K + k]) this.mark(x, T);
      }
      // A timer may fire outside T (advancing the clock): every T step must then be
      // clock-free, a machine step that sets no timer (machines never read the clock
      // otherwise; reducers get \`now\`).
      if (this.eager) {
        let timersOutside = w.timers.length > 0;
        for (let x = 0; x < n && !timersOutside; x++) if (act[x * K + T]) timersOutside = true;
        if (timersOutside) {
          for (const s of all) {
            if (s.kind === 'timer') continue;
            const key = this.keyOf(s);
            const a = (key / K) | 0;
            if (inC[a] && (this.setsTimer[key] || sc.actorList[a]!.kind !== 'machine')) return undefined;
          }
        }
      }
      // World-reading global monitors whose reads C touches: their watched steps outside C join.
      const readers = this.readers;
      readers.length = 0;
      for (const r of this.mon.worldReaders) {
        for (let i = 0; i < n; i++) {
          if (r.reads[i] === 1 && inC[i] === 1) {
            readers.push(r);
            break;
          }
        }
      }
      // Who must join C.
      let grew = false;
      for (let x = 0; x < n; x++) {
        if (inC[x]) continue;
        let join = false;
        for (let k = 0; k < K && !join; k++) {
          if (!act[x * K + k]) continue;
          for (const r of readers) if (r.keys[x * K + k]) join = true;
          const base = (x * K + k) * n;
          for (let y = 0; y < n && !join; y++) {
            if (!inC[y] || !this.sends[base + y]) continue;
            // A new head for y's empty channel, or an append racing with y's crash in T.
            if (!chan[x * n + y] || (faultsLeft && sc.crashable[y] && w.status[y] === 'up')) join = true;
          }
        }
        if (!join && canCrash(sc, w, faultsLeft, x)) {
          // x's crash clears its inbox, which a T step may append to.
          for (const s of all) {
            const key = this.keyOf(s);
            if (inC[(key / K) | 0] && this.sends[key * n + x]) {
              join = true;
              break;
            }
          }
        }
        if (!join && tFault && faultsLeft) {
          if (canCrash(sc, w, faultsLeft, x)) join = true;
          else if (sc.faultyOutcomes[x] || sc.droppable[x]!.length > 0) {
            for (let k = 0; k <= n && !join; k++) if (act[x * K + k] && (sc.faultyOutcomes[x] || sc.droppable[x]!.includes(k))) join = true;
          }
        }
        if (join) {
          inC[x] = 1;
          size += count[x]!;
          grew = true;
        }
      }
      if (size >= limit) return undefined;
      if (!grew) return inC;
    }
  }
}

/** Whether actor x may still crash in w (faults left, crashable, and up or restartable). */
function canCrash(sc: Scenario, w: World, faultsLeft: boolean, x: number): boolean {
  return faultsLeft && sc.crashable[x]! && (w.status[x] === 'up' || sc.restartable[x]!);
}
