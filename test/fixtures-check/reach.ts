// The worlds the codec tests move: a bfs from the initial world, every step, no reduction.
import { apply, enabled, initialWorld, type Scenario, type World } from '../../src/actors/index.ts';
import { WorldHasher, fpHex } from '../../src/check/fingerprint/fingerprint.ts';

/** Up to `limit` distinct worlds of a bfs from the initial world (every step, no reduction). */
export function reach(sc: Scenario, limit: number): World[] {
  const h = new WorldHasher(sc, false);
  const seen = new Set<string>();
  const out: World[] = [];
  const queue = [initialWorld(sc, { detail: false }).world];
  while (queue.length > 0 && out.length < limit) {
    const w = queue.shift()!;
    const key = fpHex(h.fp(w));
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(w);
    for (const s of enabled(sc, w)) queue.push(apply(sc, w, s, { detail: false }).world);
  }
  return out;
}
