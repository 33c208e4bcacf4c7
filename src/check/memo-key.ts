// The checker's step memo: by identity, and by content through the fingerprint hash
// (step-memo.ts). A content key is the actor and 64-bit hashes of the snapshot and
// the message; the memo then compares the two pairs exactly before it reuses a step.
import { StepMemo } from '../actors/index.ts';
import { Hasher } from './hash.ts';

/** A step memo for one search, with content lookups keyed by the structural hash. */
export function checkerMemo(): StepMemo {
  const h = new Hasher();
  return new StepMemo(undefined, (actor, snapshot, msg) => {
    h.hash(snapshot);
    const a = h.ha,
      b = h.hb;
    h.hash(msg);
    return `${actor}:${a}:${b}:${h.ha}:${h.hb}`;
  });
}
