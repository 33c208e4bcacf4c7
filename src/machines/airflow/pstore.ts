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

// 64 buckets while the map is small (a world's copy stays small); 1,024 past 1,024 keys, so a
// set copies a small bucket at any size. The bucket count follows the size alone.
const SMALL = 64;
const LARGE = 1024;
const GROW_AT = 1024;

/** A persistent string-keyed map in 64 buckets, 1,024 past 1,024 keys (keys hashed by FNV-1a). */
export interface PMap<V> {
  readonly size: number;
  readonly buckets: readonly Readonly<Record<string, V>>[];
}

function bucketOf(key: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % n;
}

const EMPTY_BUCKETS: readonly Readonly<Record<string, never>>[] = Object.freeze(Array.from({ length: SMALL }, () => Object.freeze({})));

export function pmap<V>(): PMap<V> {
  return { size: 0, buckets: EMPTY_BUCKETS };
}

export function mget<V>(m: PMap<V>, key: string): V | undefined {
  return m.buckets[bucketOf(key, m.buckets.length)]![key];
}

export function mhas(m: PMap<unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(m.buckets[bucketOf(key, m.buckets.length)]!, key);
}

export function mset<V>(m: PMap<V>, key: string, v: V): PMap<V> {
  const size = m.size + (mhas(m, key) ? 0 : 1);
  if (size > GROW_AT && m.buckets.length === SMALL) {
    const buckets: Record<string, V>[] = Array.from({ length: LARGE }, () => ({}));
    for (const old of m.buckets) for (const k of Object.keys(old)) buckets[bucketOf(k, LARGE)]![k] = old[k]!;
    buckets[bucketOf(key, LARGE)]![key] = v;
    return { size, buckets };
  }
  const b = bucketOf(key, m.buckets.length);
  const buckets = m.buckets.slice();
  buckets[b] = { ...m.buckets[b]!, [key]: v };
  return { size, buckets };
}

export function mkeys(m: PMap<unknown>): string[] {
  const out: string[] = [];
  for (const b of m.buckets) out.push(...Object.keys(b));
  return out.sort();
}
