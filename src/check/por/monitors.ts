// Which monitors make steps visible to the stubborn-set reduction (por/stubborn.ts).
//
// A monitor sees trace events in order, so in general a step it watches commutes with
// nothing. Two kinds of monitor do not constrain the order of steps of different actors:
// - a *stateless* monitor that reads only its event (`eventsOnly`, and its state never
//   changes): its verdict on a step is a function of that step's events, which depend
//   only on the step's actor's state and message: a step property, preserved by the
//   reduction like an error event;
// - a monitor *local* to one actor A: every step it watches is a step of A and it reads
//   (through the world query) at most A's snapshot, context and status (`reads: ['A']`
//   or `eventsOnly`). Its state is then a function of A's history alone, a part of A's
//   local state, and A's steps in any order relative to other actors' steps feed it the
//   same events in the same order.
// Every other monitor is *global*: the steps it watches are visible (never in a stubborn
// set T), and when it reads the world, an actor outside C that may take a step it watches
// joins C as soon as C holds an actor the monitor reads (a T step could change what the
// watched step's verdict reads).
//
// What is learned, as for the may-send relation (same restart argument): per monitor,
// the step kinds (actor, what it handles) whose events it watches, and whether its state
// ever changed. Both are step properties: the first step that breaks the relation is
// decided by its actor's state and message and the monitors' states, which (as long as
// the relation holds) only steps it accounts for have changed. What a monitor reads is
// declared (`MonitorDef.reads`, `eventsOnly`); undeclared means every actor.
import type { Scenario, TraceEvent } from '../../actors/index.ts';
import type { PorContext } from './sleep-sets.ts';

export class MonitorVisibility {
  /** Step keys (actor * K + handled-from) watched by a global monitor. */
  readonly watched: Uint8Array;
  /** Global monitors that read the world: the step keys each watches and the actors it reads. */
  worldReaders: { readonly keys: Uint8Array; readonly reads: Uint8Array }[] = [];
  private readonly watchedBy: Uint8Array[];
  private readonly stateful: Uint8Array;
  /** Per monitor: the actors it reads (undefined: every actor). */
  private readonly readMask: (Uint8Array | undefined)[];
  private readonly eventsOnly: boolean[];
  private readonly M: number;

  constructor(
    sc: Scenario,
    private readonly por: PorContext,
    private readonly n: number,
    private readonly K: number,
    private readonly swaps: readonly Int32Array[],
  ) {
    const M = (this.M = por.enabled ? sc.monitorDefs.length : 0);
    this.watched = new Uint8Array(n * K);
    this.watchedBy = Array.from({ length: M }, () => new Uint8Array(n * K));
    this.stateful = new Uint8Array(M);
    this.eventsOnly = [];
    this.readMask = [];
    for (let m = 0; m < M; m++) {
      const def = sc.monitorDefs[m]!;
      this.eventsOnly.push(def.eventsOnly === true);
      if (def.eventsOnly === true) this.readMask.push(new Uint8Array(n));
      else if (Array.isArray(def.reads)) {
        const mask = new Uint8Array(n);
        for (const id of def.reads) {
          const i = sc.index.get(id);
          if (i === undefined) throw new Error(`monitor '${sc.monitorNames[m]}' of scenario '${sc.name}' declares it reads '${id}', which is not an actor; known actors: ${sc.ids.join(', ')}`);
          mask[i] = 1;
        }
        // Under symmetry the search explores one permutation: what it reads is closed under the swaps.
        for (const p of swaps) for (let i = 0; i < n; i++) if (mask[i]) mask[p[i]!] = 1;
        this.readMask.push(mask);
      } else this.readMask.push(undefined);
    }
    this.derive();
  }

  /**
   * Records which monitors a step (its key, its events) fed and whether it changed their
   * state; true when the derived relation grew (the search must restart).
   */
  learn(key: number, events: readonly TraceEvent[], before: readonly unknown[] | undefined, after: readonly unknown[] | undefined): boolean {
    let grew = false;
    for (let m = 0; m < this.M; m++) {
      if (this.watchedBy[m]![key] === 0) {
        const w = this.por.watches[m]!;
        for (const e of events) {
          if (w(e)) {
            grew = this.add(m, key) || grew;
            break;
          }
        }
      }
      if (this.stateful[m] === 0 && before !== undefined && after !== undefined && before[m] !== after[m]) {
        this.stateful[m] = 1;
        grew = true;
      }
    }
    return grew && this.derive();
  }

  /** Adds a watched key and its images under the symmetry swaps. */
  private add(m: number, key: number): boolean {
    const K = this.K;
    const arr = this.watchedBy[m]!;
    const todo = [key];
    let grew = false;
    while (todo.length > 0) {
      const x = todo.pop()!;
      if (arr[x] !== 0) continue;
      arr[x] = 1;
      grew = true;
      const a = (x / K) | 0,
        k = x - a * K;
      for (const p of this.swaps) todo.push(p[a]! * K + p[k]!);
    }
    return grew;
  }

  /** Recomputes `watched` and `worldReaders`; true when either changed. */
  private derive(): boolean {
    const n = this.n,
      K = this.K;
    const watched = new Uint8Array(n * K);
    const readers: { keys: Uint8Array; reads: Uint8Array }[] = [];
    for (let m = 0; m < this.M; m++) {
      if (this.eventsOnly[m] && !this.stateful[m]) continue; // stateless: a step property
      const keys = this.watchedBy[m]!;
      const mask = this.readMask[m];
      // The actors it depends on: those whose steps it watches and those it reads.
      let owner = -1;
      let local = mask !== undefined;
      for (let a = 0; a < n && local; a++) {
        let touches = mask![a] === 1;
        for (let k = 0; k < K && !touches; k++) if (keys[a * K + k]) touches = true;
        if (!touches) continue;
        if (owner >= 0) local = false;
        owner = a;
      }
      if (local) continue;
      for (let x = 0; x < n * K; x++) if (keys[x]) watched[x] = 1;
      const reads = mask ?? new Uint8Array(n).fill(1);
      if (reads.some((r) => r === 1)) readers.push({ keys, reads });
    }
    let changed = readers.length !== this.worldReaders.length;
    for (let x = 0; x < n * K && !changed; x++) if (watched[x] !== this.watched[x]) changed = true;
    for (let i = 0; i < readers.length && !changed; i++) {
      const a = readers[i]!,
        b = this.worldReaders[i]!;
      for (let x = 0; x < n * K && !changed; x++) if (a.keys[x] !== b.keys[x]) changed = true;
      for (let x = 0; x < n && !changed; x++) if (a.reads[x] !== b.reads[x]) changed = true;
    }
    this.watched.set(watched);
    // Copies: `watchedBy` keeps growing, the derived relation must not change until the next derive.
    this.worldReaders = readers.map((r) => ({ keys: r.keys.slice(), reads: r.reads }));
    return changed;
  }
}
