// Which shard owns a world in exchange mode. Any deterministic function of a world's content
// makes the search complete (docs/sharding.md, "Exchange mode"); the choice decides how many
// successors cross to another shard. The fingerprint's hash sends (n-1)/n of them, each
// encoded, written, read, decoded and hashed again. Owning a world by one actor's snapshot
// (as Lerda and Sisto's partition by one process's state in distributed SPIN) keeps every
// step that leaves that snapshot alone on its shard. Every shard samples the same seeded random
// walks and picks the key (an actor's snapshot, or the fingerprint) whose largest shard's work,
// carrying included, the sample estimates lowest. The run key carries the choice, so shards
// that disagree refuse to share a run.
import { apply, enabled, initialWorld, rng, type Scenario } from '../../actors/index.ts';
import { WorldHasher } from '../fingerprint/fingerprint.ts';
import { checkerMemo } from '../search/memo-key.ts';
import { ownerOf } from './exchange-search.ts';

/** How worlds get their owner: the fingerprint's hash, or one actor's snapshot hash. */
export type OwnerKey = { kind: 'fingerprint' } | { kind: 'actor'; index: number; id: string };

/** The choice and what the sample predicted. */
export interface OwnerChoice {
  key: OwnerKey;
  /** Distinct worlds and steps of the sampled walks. */
  sampled: { states: number; transitions: number };
  /** Share of the sample's transitions whose successor has another owner than its source, under this key. */
  cross: number;
  /** The sample's largest shard against an even share, under this key. */
  balance: number;
  /** Why this key, in words (for `result.exchange.owner`). */
  why: string;
}

/** Steps sampled (seeded random walks): small against a shard's part of any search worth sharding. */
export const OWNER_SAMPLE = 2000;
/** Longest walk; a walk also ends where no step is enabled. */
const WALK_MAX = 400;
/**
 * What carrying a world to another shard costs against expanding one (encode, write, read,
 * decode, and the owner's memo relearning what the sender's knew): a key is scored by its
 * sample's largest shard × (1 + CARRY_COST × its share of crossing steps), an estimate of
 * the largest shard's work. Measured costs are higher (docs/sharding.md); a low figure keeps
 * the fingerprint's even spread unless an actor saves many crossings.
 */
const CARRY_COST = 4;
/** An actor whose sample's largest shard holds more than this times an even share is never taken. */
const BALANCE_CAP = 4;

const label = (k: OwnerKey): string => (k.kind === 'fingerprint' ? 'fingerprint' : `actor:${k.id}`);

/** The run key's entry for a choice (shards must agree on it). */
export function ownerKeyText(k: OwnerKey): string {
  return label(k);
}

/**
 * Samples `sample` steps of seeded random walks from the initial world and picks the owner key.
 * `mode` 'fingerprint' skips the sample; so does symmetry (an actor's snapshot is not
 * canonical under a permutation) and a single shard.
 */
export function chooseOwner(sc: Scenario, count: number, opts: { symmetric: boolean; mode?: 'auto' | 'fingerprint'; sample?: number }): OwnerChoice {
  const fp: OwnerKey = { kind: 'fingerprint' };
  const plain = (why: string): OwnerChoice => ({ key: fp, sampled: { states: 0, transitions: 0 }, cross: count > 1 ? (count - 1) / count : 0, balance: 1, why });
  if (opts.mode === 'fingerprint') return plain('the fingerprint (asked for)');
  if (count <= 1) return plain('the fingerprint (one shard)');
  if (opts.symmetric) return plain("the fingerprint (under symmetry an actor's snapshot is not canonical)");
  const h = new WorldHasher(sc, false);
  const n = sc.ids.length;
  const limit = opts.sample ?? OWNER_SAMPLE;
  const memo = checkerMemo();
  const init = initialWorld(sc, { detail: false }).world;
  h.world(init);
  // Seeded random walks from the initial world: deep worlds, where most of a big search's
  // worlds are (a breadth-first prefix holds only the first few values of most actors).
  const r = rng(0x5eed);
  const seen = new Set<string>();
  // Per distinct world met: its fingerprint's owner and each actor's snapshot owner.
  const owners: Int32Array[] = [];
  const ownersOf = (): Int32Array => {
    const o = new Int32Array(n + 1);
    o[n] = ownerOf(h.ha, h.hb, count);
    for (let i = 0; i < n; i++) o[i] = ownerOf(h.snapshotLane(i, 0)!, h.snapshotLane(i, 1)!, count);
    return o;
  };
  const crossed = new Float64Array(n + 1);
  let transitions = 0;
  while (transitions < limit) {
    let w = init;
    h.world(w);
    let lanes = h.lastLanes!;
    let from = ownersOf();
    for (let len = 0; len < WALK_MAX && transitions < limit; len++) {
      const key = `${h.ha}:${h.hb}`;
      if (!seen.has(key)) {
        seen.add(key);
        owners.push(from);
      }
      const steps = enabled(sc, w);
      if (steps.length === 0) break;
      const t = steps[r.int(steps.length)]!;
      const next = apply(sc, w, t, { detail: false, memo }).world;
      h.world(next, w, lanes);
      const to = ownersOf();
      transitions++;
      for (let k = 0; k <= n; k++) if (to[k] !== from[k]) crossed[k]!++;
      w = next;
      lanes = h.lastLanes!;
      from = to;
    }
  }
  const balanceOf = (k: number): number => {
    const load = new Float64Array(count);
    for (const o of owners) load[o[k]!]!++;
    return Math.max(...load) / (owners.length / count);
  };
  const sampled = { states: owners.length, transitions };
  const fpBalance = balanceOf(n);
  const share = (k: number) => (transitions === 0 ? 0 : crossed[k]! / transitions);
  // The sample's balance overstates a key's: a few hundred worlds hold few of an actor's
  // snapshots, which fall unevenly on many shards (docs/sharding.md has a case). So a key
  // is scored by the work of its largest shard, carrying included, rather than held to the
  // fingerprint's balance.
  const score = (k: number) => balanceOf(k) * (1 + CARRY_COST * share(k));
  let best = -1;
  for (let i = 0; i < n; i++) {
    if (balanceOf(i) > BALANCE_CAP) continue;
    if (best < 0 || score(i) < score(best)) best = i;
  }
  // Worth it only when it keeps well over half of the crossings home, and its largest shard's work beats the fingerprint's.
  if (best < 0 || share(best) > 0.5 * share(n) || score(best) >= score(n)) {
    return { key: fp, sampled, cross: share(n), balance: fpBalance, why: `the fingerprint (no actor's snapshot kept half of the steps of the ${owners.length} sampled worlds on their shard while spreading them well enough)` };
  }
  const id = sc.ids[best]!;
  return { key: { kind: 'actor', index: best, id }, sampled, cross: share(best), balance: balanceOf(best), why: `actor '${id}''s snapshot (in the ${owners.length} sampled worlds, ${(100 * share(best)).toFixed(1)}% of the steps change it against ${(100 * share(n)).toFixed(1)}% by the fingerprint)` };
}
