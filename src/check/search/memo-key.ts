// The checker's step memo: by identity, and by content through the fingerprint hash
// (step-memo.ts). A content key is the actor and 64-bit hashes of the snapshot and
// the message; the memo then compares the two pairs exactly before it reuses a step.
import { StepMemo, type Scenario } from '../../actors/index.ts';
import { Hasher } from '../fingerprint/hash.ts';

/** A content key of machine steps: the actor and the structural hashes of the snapshot and the message. */
export function contentKeyOf(): (actor: number, snapshot: object, msg: unknown) => string {
  const h = new Hasher();
  return (actor, snapshot, msg) => {
    h.hash(snapshot);
    const a = h.ha,
      b = h.hb;
    h.hash(msg);
    return `${actor}:${a}:${b}:${h.ha}:${h.hb}`;
  };
}

/** Lookups after which a one-actor search's memo turns itself off if under 2% of them hit. */
export const ONE_ACTOR_PROBE = 64;

/**
 * A step memo for one search, with content lookups keyed by the structural hash. With
 * one actor, a pair recurs only in worlds that differ outside its snapshot (timers,
 * messages to itself, input counts, a compact frontier's re-derived worlds), and such
 * worlds show up among the first few dozen steps, so the memo decides after
 * {@link ONE_ACTOR_PROBE} lookups whether it pays: a machine fed only its inputs is
 * stepped once per state and event, and each lookup of a cold check (a content key
 * hashes the whole snapshot) would only add to its warm-up.
 */
export function checkerMemo(sc?: Scenario): StepMemo {
  return new StepMemo(undefined, contentKeyOf(), sc !== undefined && sc.ids.length === 1 ? ONE_ACTOR_PROBE : undefined);
}
