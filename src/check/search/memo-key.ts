// The checker's step memo: by identity, and by content through the fingerprint hash
// (step-memo.ts). A content key is the actor and 64-bit hashes of the snapshot and
// the message; the memo then compares the two pairs exactly before it reuses a step.
import { StepMemo } from '../../actors/index.ts';
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

/** A step memo for one search, with content lookups keyed by the structural hash. */
export function checkerMemo(): StepMemo {
  return new StepMemo(undefined, contentKeyOf());
}
