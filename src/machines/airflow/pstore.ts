// Small persistent containers for per-index state, so a step that changes one
// index copies one chunk (or one bucket) and shares the rest. Plain arrays and
// objects only: they fingerprint and serialise like any other context value.

const CHUNK = 64;

/** A persistent vector of fixed length, in chunks of 64. */
export interface PVec<T> {
  readonly n: number;
  readonly chunks: readonly (readonly T[])[];
}

export function pvec<T>(n: number, fill: T): PVec<T> {
  const chunks: T[][] = [];
  for (let at = 0; at < n; at += CHUNK) chunks.push(new Array<T>(Math.min(CHUNK, n - at)).fill(fill));
  return { n, chunks };
}

export function pget<T>(v: PVec<T>, i: number): T {
  return v.chunks[(i / CHUNK) | 0]![i % CHUNK]!;
}

export function pset<T>(v: PVec<T>, i: number, x: T): PVec<T> {
  const c = (i / CHUNK) | 0;
  const old = v.chunks[c]!;
  if (old[i % CHUNK] === x) return v;
  const chunk = old.slice();
  chunk[i % CHUNK] = x;
  const chunks = v.chunks.slice();
  chunks[c] = chunk;
  return { n: v.n, chunks };
}

const BUCKETS = 64;

/** A persistent string-keyed map in 64 buckets (keys hashed by FNV-1a). */
export interface PMap<V> {
  readonly size: number;
  readonly buckets: readonly Readonly<Record<string, V>>[];
}

function bucketOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % BUCKETS;
}

const EMPTY_BUCKETS: readonly Readonly<Record<string, never>>[] = Object.freeze(Array.from({ length: BUCKETS }, () => Object.freeze({})));

export function pmap<V>(): PMap<V> {
  return { size: 0, buckets: EMPTY_BUCKETS };
}

export function mget<V>(m: PMap<V>, key: string): V | undefined {
  return m.buckets[bucketOf(key)]![key];
}

export function mhas(m: PMap<unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(m.buckets[bucketOf(key)]!, key);
}

export function mset<V>(m: PMap<V>, key: string, v: V): PMap<V> {
  const b = bucketOf(key);
  const had = mhas(m, key);
  const buckets = m.buckets.slice();
  buckets[b] = { ...m.buckets[b]!, [key]: v };
  return { size: m.size + (had ? 0 : 1), buckets };
}

export function mkeys(m: PMap<unknown>): string[] {
  const out: string[] = [];
  for (const b of m.buckets) out.push(...Object.keys(b));
  return out.sort();
}
