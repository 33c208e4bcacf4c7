// Breadth-first search with a compact frontier. A bfs frontier is often half of the
// states found so far, and a world per entry would make the frontier, not the visited
// set, the search's memory (docs/measurements.md). Here an entry is its parent entry and the position of its step
// among the parent's enabled steps (search/entry-log.ts, about 2 bytes an entry, kept for
// schedules), plus, while it waits, a record (search/record-queue.ts) of its fingerprint
// check and the positions of the steps it must take and of its sleep set (2 bytes
// each; "all" in one). Worlds are re-derived when expanded.
//
// Roots (the initial world, or a sharded search's frontier worlds, distributed/shard.ts) keep
// their world and the schedule that reaches it.
//
// Entries are numbered in discovery order and bfs expands in that order, so the
// entries of a level are expanded grouped by parent and their ancestors in order: a
// cache of one world per depth (the path to the entry last expanded) re-derives each
// ancestor once per level, not once per entry. Re-deriving steps the (pure) machines
// again, through the same step memo, and compares the expanded entry's fingerprint
// with the one stored at discovery (32 bits): a mismatch is a nondeterministic model
// (in its step or an ancestor's), reported as such rather than explored on.
//
// While the frontier is small (under `CompactBfs.keepSize` entries), an entry also keeps the world it
// was found with (and the steps it enables) until it is expanded, so expanding it steps and lists nothing again: a search
// whose levels are narrow (one machine fed its events) would otherwise step every
// state twice. Only with the determinism sample on: with it off, re-deriving is the
// one check that a machine is pure.
import { apply, enabled, type Step, type World } from '../../actors/index.ts';
import { Search, keyOf, type Node } from './explore.ts';
import { EntryLog } from './entry-log.ts';
import { RecordQueue } from './record-queue.ts';
import type { Lanes } from '../fingerprint/fingerprint.ts';
import type { PorContext } from '../por/sleep-sets.ts';
import { NondeterminismError } from '../purity.ts';
import type { Session } from './session.ts';

/** Record words: "every enabled step" (steps, below the STUB flag) and "kept aside, not as positions" (sleep). */
const ALL_STEPS = 0x7fff;
const STUB = 0x8000;
const ASIDE = 0xffff;

function position(en: readonly Step[], s: Step): number {
  const i = en.indexOf(s);
  if (i >= 0) return i;
  for (let j = 0; j < en.length; j++) if (en[j]!.id === s.id) return j;
  return -1;
}

export class CompactBfs extends Search {
  protected override breadthFirst = true;
  /**
   * Entries that keep their world while waiting (a ring by entry number, a power of two):
   * an entry keeps it when pushed while the frontier is smaller. Tests lower it to mix
   * kept and re-derived entries.
   */
  static keepSize = 1 << 13;
  /** Per entry: parent entry (-1 for a root), step position in the parent's enabled steps. */
  private log = new EntryLog();
  private head = 0;
  /** Entry numbers where each depth begins (from the roots' depth, `base`). */
  private levels: number[] = [];
  private base = -1;
  private headDepth = 0;
  /**
   * Roots keep their world, and the schedule that reaches it: the initial world (an
   * empty schedule), or a sharded search's frontier worlds (their prefix schedules).
   */
  private roots = new Map<number, { world: World; lanes: Lanes | undefined; schedule: string[] }>();
  /**
   * Waiting entries' records, first in first out: [steps count | STUB flag, sleep count,
   * fingerprint check (two words), steps..., sleep...].
   */
  private pool = new RecordQueue();
  /** Sleep sets with a step that is not enabled at the entry's world (kept as steps; rare). */
  private aside = new Map<number, Step[]>();
  /** The path cache, per depth above `base`: entry, world, lanes, enabled steps (computed when needed). */
  private pathId: number[] = [];
  private pathWorld: World[] = [];
  private pathLanes: (Lanes | undefined)[] = [];
  private pathEn: (Step[] | undefined)[] = [];
  /** Worlds (and lanes) of waiting entries, by entry number modulo `keep` (see the head comment). */
  private readonly keep = CompactBfs.keepSize;
  private keptId = new Int32Array(this.keep).fill(-1);
  private keptWorld = new Array<World | undefined>(this.keep).fill(undefined);
  private keptLanes = new Array<Lanes | undefined>(this.keep).fill(undefined);
  private keptEn = new Array<Step[] | undefined>(this.keep).fill(undefined);
  private readonly keeps: boolean;
  /** The entry being expanded. */
  private current: Node | undefined;
  /** Worlds re-derived (ancestors and entries), for the benchmark and tests. */
  rederived = 0;

  constructor(s: Session, por: PorContext) {
    super(s, por);
    this.keepsEnabled = true;
    const d = s.opts.determinism;
    this.keeps = s.determinism !== undefined && !(typeof d === 'object' && d.repeats === 0);
  }

  /** Bytes of the typed arrays (entries and waiting records). */
  get bytes(): number {
    return this.log.bytes + this.pool.bytes;
  }

  protected push(n: Node): void {
    const p = n.parent;
    const en = n.en!;
    let e: number;
    if (en.length >= ALL_STEPS) throw new Error(`internal: ${en.length} enabled steps at one world; the compact frontier encodes at most ${ALL_STEPS - 1} (use frontier: 'worlds')`);
    if (p && p.index >= 0) {
      const at = position(p.en!, { id: n.via } as Step);
      if (at < 0) throw new Error(`internal: step ${n.via} is not among its parent's enabled steps`);
      e = this.log.push(p.index, at);
      if (this.keeps && e - this.head < this.keep) {
        const slot = e & (this.keep - 1);
        this.keptId[slot] = e;
        this.keptWorld[slot] = n.world;
        this.keptLanes[slot] = n.lanes;
        this.keptEn[slot] = en;
      }
    } else {
      // A root: the initial world, or a shard's frontier world below its prefix (spent nodes).
      const schedule: string[] = [];
      for (let x = p; x && x.via !== undefined; x = x.parent) schedule.push(x.via);
      schedule.reverse();
      if (n.via !== undefined) schedule.push(n.via);
      e = this.log.push(-1, 0);
      this.roots.set(e, { world: n.world!, lanes: n.lanes, schedule });
    }
    if (this.base < 0) this.base = n.depth;
    const level = n.depth - this.base;
    if (level === this.levels.length) this.levels.push(e);
    else if (level !== this.levels.length - 1) throw new Error(`internal: bfs pushed depth ${n.depth} after depth ${this.base + this.levels.length - 1}`);
    // The record: which steps to take (all, or positions) and the sleep set (positions, or aside).
    const all = n.steps === en && !n.all;
    let sleepPos: number[] | undefined = [];
    for (const u of n.sleep) {
      const i = position(en, u);
      if (i < 0) {
        sleepPos = undefined;
        break;
      }
      sleepPos.push(i);
    }
    if (!sleepPos) this.aside.set(e, n.sleep);
    const len = 4 + (all ? 0 : n.steps.length) + (sleepPos?.length ?? 0);
    const pool = this.pool.reserve(len);
    let k = this.pool.writeAt;
    const check = n.key >>> 0;
    pool[k++] = (all ? ALL_STEPS : n.steps.length) | (n.all ? STUB : 0);
    pool[k++] = sleepPos ? sleepPos.length : ASIDE;
    pool[k++] = check & 0xffff;
    pool[k++] = check >>> 16;
    if (!all) for (const t of n.steps) pool[k++] = position(en, t);
    if (sleepPos) for (const i of sleepPos) pool[k++] = i;
    this.pool.commit(k);
  }

  /** `d` counts levels from the roots' depth. */
  private setPath(d: number, e: number, w: World, lanes: Lanes | undefined, en?: Step[]): void {
    this.pathId[d] = e;
    this.pathWorld[d] = w;
    this.pathLanes[d] = lanes;
    this.pathEn[d] = en;
  }

  private enabledAt(d: number): Step[] {
    return (this.pathEn[d] ??= enabled(this.sc, this.pathWorld[d]!));
  }

  /**
   * Fills the path cache down to entry `e` at level `d`, re-deriving the ancestors not
   * cached, and compares `e`'s world with its fingerprint `check` (ancestors were
   * compared when they were expanded; one re-derived differently now changes `e`).
   */
  private derive(e: number, d: number, check: number): void {
    const slot = e & (this.keep - 1);
    if (this.keptId[slot] === e) {
      this.setPath(d, e, this.keptWorld[slot]!, this.keptLanes[slot], this.keptEn[slot]);
      this.keptId[slot] = -1;
      this.keptWorld[slot] = undefined;
      this.keptLanes[slot] = undefined;
      this.keptEn[slot] = undefined;
      return;
    }
    const chain: number[] = [];
    const log = this.log;
    for (let a = e, k = d; this.pathId[k] !== a; k--) {
      const up = log.parent(a);
      const root = up === -1 ? this.roots.get(a) : undefined;
      if (root) {
        this.setPath(k, a, root.world, root.lanes);
        break;
      }
      chain.push(a);
      a = up;
    }
    const hasher = this.s.hasher;
    for (let j = chain.length - 1; j >= 0; j--) {
      const a = chain[j]!;
      const k = d - j;
      const from = this.pathWorld[k - 1]!;
      const t = this.enabledAt(k - 1)[log.via(a)]!;
      const r = apply(this.sc, from, t, { detail: false, memo: this.memo });
      hasher.world(r.world, from, this.pathLanes[k - 1]);
      if (j === 0 && keyOf(hasher.ha, hasher.hb) >>> 0 !== check) {
        throw new NondeterminismError(
          `re-deriving a frontier world (last step ${t.id}) gave a different fingerprint than when it was found: a machine or reducer is not deterministic (it reads something outside its state and message); find it with the default determinism check, or check with frontier: 'worlds'`,
          t.kind === 'deliver' ? this.sc.ids[t.to] ?? '?' : '?',
          '?',
          t.id,
        );
      }
      this.setPath(k, a, r.world, hasher.lastLanes);
      this.rederived++;
    }
  }

  protected next(): Node | undefined {
    const cur = this.current;
    if (cur && cur.i < cur.steps.length) return cur;
    const e = this.head;
    if (e >= this.log.count) return undefined;
    while (this.headDepth + 1 < this.levels.length && this.levels[this.headDepth + 1]! <= e) this.headDepth++;
    const d = this.headDepth;
    const pool = this.pool.peek()!;
    let k = this.pool.readAt;
    const w0 = pool[k++]!;
    const nSleep = pool[k++]!;
    const check = (pool[k++]! | (pool[k++]! << 16)) >>> 0;
    this.derive(e, d, check);
    const depth = this.base + d;
    const en = this.enabledAt(d);
    const stub = (w0 & STUB) !== 0;
    const nSteps = w0 & ~STUB;
    let steps: Step[];
    if (nSteps === ALL_STEPS) steps = stub ? en.slice() : en;
    else {
      steps = new Array<Step>(nSteps);
      for (let j = 0; j < nSteps; j++) steps[j] = en[pool[k++]!]!;
    }
    let sleep: Step[];
    if (nSleep === ASIDE) {
      sleep = this.aside.get(e)!;
      this.aside.delete(e);
    } else {
      sleep = new Array<Step>(nSleep);
      for (let j = 0; j < nSleep; j++) sleep[j] = en[pool[k++]!]!;
    }
    this.pool.take(k);
    const n: Node = { world: this.pathWorld[d], depth, steps, i: 0, sleep, done: [], parent: undefined, via: undefined, lanes: this.pathLanes[d], all: stub ? en : undefined, key: check, en, index: e };
    this.current = n;
    return n;
  }

  protected override scheduleOf(n: Node | undefined, last?: string): string[] {
    // A shard's root arriving (its parent is the prefix chain, not an entry): an end
    // violation at a frontier world is reported before the root becomes an entry.
    if (n && n.index < 0) return super.scheduleOf(n, last);
    let out: string[] = [];
    if (n) {
      // `n` is the entry being expanded: the path cache holds it, and after `pathTo` its ancestors, up to a root.
      let k = n.depth - this.base;
      this.pathTo(this.pathId[k]!, k);
      for (; this.log.parent(this.pathId[k]!) !== -1; k--) out.push(this.enabledAt(k - 1)[this.log.via(this.pathId[k]!)]!.id);
      out = [...this.roots.get(this.pathId[k]!)!.schedule, ...out.reverse()];
    }
    if (last !== undefined) out.push(last);
    return out;
  }

  /**
   * Makes the path cache hold every ancestor of entry `e` (at level `d`, cached): an
   * entry expanded from its kept world left the levels above it as they were. Steps the
   * ancestors not cached again, without hashing (the hasher holds the world just visited).
   */
  private pathTo(e: number, d: number): void {
    const chain: number[] = [];
    for (let a = e; a !== -1; a = this.log.parent(a)) chain.push(a);
    const top = d - (chain.length - 1);
    for (let k = top; k < d; k++) {
      const a = chain[d - k]!;
      if (this.pathId[k] === a) continue;
      if (k === top) {
        const root = this.roots.get(a)!;
        this.setPath(k, a, root.world, root.lanes);
        continue;
      }
      const t = this.enabledAt(k - 1)[this.log.via(a)]!;
      this.setPath(k, a, apply(this.sc, this.pathWorld[k - 1]!, t, { detail: false, memo: this.memo }).world, undefined);
    }
  }

  protected size(): number {
    return this.log.count - this.head;
  }

  protected clear(): void {
    this.log = new EntryLog();
    this.head = 0;
    this.levels = [];
    this.base = -1;
    this.headDepth = 0;
    this.roots = new Map();
    this.pool.clear();
    this.aside = new Map();
    this.pathId = [];
    this.pathWorld = [];
    this.pathLanes = [];
    this.pathEn = [];
    this.keptId.fill(-1);
    this.keptWorld.fill(undefined);
    this.keptLanes.fill(undefined);
    this.keptEn.fill(undefined);
    this.current = undefined;
  }

  protected closesCycle(n: Node): boolean {
    // As Bfs: an edge to a world first met no deeper than its source (search/explore.ts).
    return this.s.visited.getAux() <= n.depth;
  }

  protected retire(_n: Node): void {
    this.head++;
    this.current = undefined;
  }
}
