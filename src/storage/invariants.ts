// Properties over storage actors, evaluable from the world (WorldQuery). Use them
// in a scenario's `invariants`, or call the plain functions on a store's state.
import type { Predicate, WorldQuery } from '../actors/scenario.ts';
import type { ReaderEntry, StoreState } from './store-core.ts';

/** A reader whose pinned snapshot is of an older generation (or of a dropped doc) and that still has files to fetch. */
export interface StaleReader {
  /** The actor that opened the reader. */
  readonly owner: string;
  /** The reader's name (unique per owner). */
  readonly reader: string;
  /** The document it reads. */
  readonly uri: string;
  /** The generation of the snapshot it pinned. */
  readonly pinnedGeneration: number;
  /** The document's generation now (null: dropped). */
  readonly currentGeneration: number | null;
  /** Pinned files it has not fetched yet. */
  readonly unfetched: number;
}

/** Every reader with unfetched files of a generation that is no longer current (Amber I1's violators). */
export function staleReaders(s: StoreState): StaleReader[] {
  const out: StaleReader[] = [];
  for (const id in s.readers) {
    const r = s.readers[id]!;
    if (r.pinned === null || r.next >= r.pinned.length) continue;
    const d = s.docs[r.uri];
    const current = d && d.exists ? d.generation : null;
    if (current !== r.generation) {
      out.push({ owner: r.owner, reader: r.reader, uri: r.uri, pinnedGeneration: r.generation, currentGeneration: current, unfetched: r.pinned.length - r.next });
    }
  }
  return out;
}

/**
 * Amber I1 ("no stale pinned read"): no reader has unfetched files of an older
 * generation. Readers owned by a crashed actor are ignored unless `includeCrashed`
 * (a dead reader fetches nothing).
 */
export function noStaleReaders(store: string, opts: { includeCrashed?: boolean; uris?: (uri: string) => boolean } = {}): Predicate {
  return (q: WorldQuery) => {
    const bad = staleReaders(q.context(store) as StoreState).filter(
      (r) => (opts.uris ? opts.uris(r.uri) : true) && (opts.includeCrashed || ownerUp(q, r.owner)),
    );
    if (bad.length === 0) return true;
    const r = bad[0]!;
    return `reader '${r.reader}' of '${r.owner}' pinned generation ${r.pinnedGeneration} of '${r.uri}' and has ${r.unfetched} unfetched file(s), but the doc is ${r.currentGeneration === null ? 'dropped' : `at generation ${r.currentGeneration}`}`;
  };
}

function ownerUp(q: WorldQuery, owner: string): boolean {
  if (owner === 'env') return true;
  try {
    return q.status(owner) === 'up';
  } catch {
    return true;
  }
}

/** The current generation of a doc (0 if it never existed, null if dropped). */
export function docGeneration(s: StoreState, uri: string): number | null {
  const d = s.docs[uri];
  if (!d) return 0;
  return d.exists ? d.generation : null;
}

/** The readers that are mid-stream (pinned, with files left) on `uri`. */
export function streamingReaders(s: StoreState, uri?: string): ReaderEntry[] {
  return Object.values(s.readers).filter((r) => r.pinned !== null && r.next < r.pinned.length && (uri === undefined || r.uri === uri));
}

/** A reader's cursor, by owner and name. */
export function readerOf(s: StoreState, owner: string, reader: string): ReaderEntry | undefined {
  return s.readers[`${owner}/${reader}`];
}

/** Keys present in the store (optionally under a prefix), sorted. */
export function objectKeys(s: StoreState, prefix = ''): string[] {
  return Object.keys(s.objects).filter((k) => k.startsWith(prefix)).sort();
}
