// Reuse of actor steps within one exploration. Machines and reducers are pure, so
// the same snapshot (or reducer state) object receiving the same message object
// (from the same sender, with the same outcome, at the same time for a reducer)
// steps to the same result; a model checker delivers the same pair in many
// interleavings (about half of its machine steps on the protocol models). Opt-in
// through `apply(..., { memo })`; only the checker's exhaustive search passes one.

import { sameContent } from './same-content.ts';

interface Entry {
  readonly actor: number;
  readonly msg: unknown;
  /** Reducers only (a machine's step reads none of these): sender, outcome, clock. */
  readonly from: number;
  readonly outcome: string | undefined;
  readonly now: number;
  readonly res: unknown;
}

/** An earlier step of a pair equal in content to the one looked up (see `StepMemo.getSame`). */
export interface SameStep<R> {
  /** The snapshot that earlier step started from (its result's events are relative to it). */
  readonly snapshot: object;
  /** That step's result. */
  readonly res: R;
}

/**
 * Step results by (actor, state, message, ...) identity. Strong references, so it
 * is bounded: cleared whenever it holds `limit` results (results otherwise keep
 * every state they lead to alive). Results, not states: a state met in many
 * interleavings receives many messages, so a bound on states does not bound the
 * memory, while a bound on results keeps almost every lookup a hit (docs/measurements.md).
 */
export class StepMemo {
  private map = new Map<object, Entry[]>();
  private lookupCount = 0;
  private hitCount = 0;
  /** Off once lookups show it rarely hits (see `find`): then it only costs time and keeps states alive. */
  private off = false;
  /** Results held. */
  private size = 0;

  /**
   * Machine start results by actor index. A start depends only on the actor's fixed
   * input, so it is computed once per actor; a restart (every try of a killed task
   * process) would otherwise rebuild the initial snapshot each time. Never cleared: one per actor.
   */
  private readonly starts: unknown[] = [];

  /**
   * Machine steps by content: a key from the snapshot's and message's contents to the
   * first (snapshot, message) pair stepped with it. Two paths to equal states build
   * equal snapshots as different objects, and the identity lookup misses them; on the
   * protocol models most of its misses had an equal pair stepped before. A pair found
   * here is used only if it is `sameContent` as this one (exact: a key collision only
   * costs the step). Kept only when the memo was made with a `contentKey`.
   */
  private byContent = new Map<string, { readonly actor: number; readonly snapshot: object; readonly msg: unknown; readonly res: unknown }>();

  /** The pair `getSame` last looked up and its key: `setSame` of the same pair reuses it. */
  private missed: { readonly actor: number; readonly snapshot: object; readonly msg: unknown; readonly key: string } | undefined;

  /**
   * `limit`: results held before the memo starts afresh. `contentKey`: a key of a
   * machine's snapshot and message by content (the checker's hash of both), which turns
   * on the lookup of equal pairs reached as other objects (see `byContent`). `probe`:
   * lookups after which the memo turns itself off if under 2% of them hit.
   */
  constructor(
    private readonly limit = 1 << 14,
    private readonly contentKey?: (actor: number, snapshot: object, msg: unknown) => string,
    private readonly probe = 4096,
  ) {}

  /** Lookups so far and how many found a result (for benchmarks: the hit rate). */
  get counts(): {
    /** Lookups so far. */
    readonly lookups: number;
    /** Lookups that found a result. */
    readonly hits: number;
  } {
    return { lookups: this.lookupCount, hits: this.hitCount };
  }

  /** A machine's step result for this snapshot and message, if stepped before. */
  get<R>(actor: number, snapshot: object, msg: unknown): R | undefined {
    return this.find(actor, snapshot, msg, -1, undefined, 0) as R | undefined;
  }

  /** Records a machine's step result for this snapshot and message. */
  set(actor: number, snapshot: object, msg: unknown, res: unknown): void {
    this.add({ actor, msg, from: -1, outcome: undefined, now: 0, res }, snapshot);
  }

  /**
   * After `get` missed: the pair stepped earlier whose snapshot and message are equal
   * in content to these (its snapshot and its result), or undefined, in which case
   * this pair is remembered as the one of its content (step it and `set` the result).
   */
  getSame<R>(actor: number, snapshot: object, msg: unknown): SameStep<R> | undefined {
    if (this.off || this.contentKey === undefined) return undefined;
    const key = this.contentKey(actor, snapshot, msg);
    this.missed = { actor, snapshot, msg, key };
    const e = this.byContent.get(key);
    if (e !== undefined && e.actor === actor && sameContent(e.msg, msg) && sameContent(e.snapshot, snapshot)) {
      this.hitCount++;
      return { snapshot: e.snapshot, res: e.res as R };
    }
    return undefined;
  }

  /** Records the result of a pair `getSame` did not find, as the one of its content. */
  setSame(actor: number, snapshot: object, msg: unknown, res: unknown): void {
    if (this.off || this.contentKey === undefined) return;
    if (this.byContent.size >= this.limit) this.byContent = new Map();
    // The key `getSame` just computed for this pair (it missed), else computed here.
    const m = this.missed;
    const key = m !== undefined && m.actor === actor && m.snapshot === snapshot && m.msg === msg ? m.key : this.contentKey(actor, snapshot, msg);
    this.missed = undefined;
    this.byContent.set(key, { actor, snapshot, msg, res });
  }

  /** A machine's start result (initial snapshot and entry actions), if computed before. */
  getStart<R>(actor: number): R | undefined {
    return this.starts[actor] as R | undefined;
  }

  /** Records a machine's start result. */
  setStart(actor: number, res: unknown): void {
    this.starts[actor] = res;
  }

  /** A reducer's result for this state, message, sender, outcome and time, if computed before. */
  getReduced<R>(actor: number, state: object, msg: unknown, from: number, outcome: string | undefined, now: number): R | undefined {
    return this.find(actor, state, msg, from, outcome, now) as R | undefined;
  }

  /** Records a reducer's step result for this state, message, sender, outcome and time. */
  setReduced(actor: number, state: object, msg: unknown, from: number, outcome: string | undefined, now: number, res: unknown): void {
    this.add({ actor, msg, from, outcome, now, res }, state);
  }

  private find(actor: number, key: object, msg: unknown, from: number, outcome: string | undefined, now: number): unknown {
    if (this.off) return undefined;
    // A search where pairs do not recur (one machine driven by its inputs: every state is
    // stepped once per event) gains nothing: after `probe` lookups under 2% hits, stop.
    if (++this.lookupCount === this.probe && this.hitCount * 50 < this.lookupCount) {
      this.off = true;
      this.map = new Map();
      this.byContent = new Map();
      return undefined;
    }
    const es = this.map.get(key);
    if (es === undefined) return undefined;
    for (const e of es) {
      if (e.msg === msg && e.actor === actor && e.from === from && e.outcome === outcome && e.now === now) {
        this.hitCount++;
        return e.res;
      }
    }
    return undefined;
  }

  private add(e: Entry, key: object): void {
    if (this.off) return;
    if (this.size >= this.limit) {
      this.map = new Map();
      this.size = 0;
    }
    this.size++;
    const es = this.map.get(key);
    if (es !== undefined) es.push(e);
    else this.map.set(key, [e]);
  }
}
