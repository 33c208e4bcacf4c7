// The cursor walk, shared by both substrates as in the PR: `scanErrsForError`
// then `drainOkIterator`, generic over where the batches came from (the worker's
// own trace, or a snapshot pinned for an offloaded walk). Pure functions.
import { cmp } from './trace.ts';
import type { Batch, Costs, ErrUpdate, PeekResponse, PeekSpec, Row, Snapshot, StashConfig, Time, Update } from './types.ts';

/** sizeof(count) added per row to the accumulated bytes. */
export const COUNT_BYTES = 8;

export type DrainOutcome =
  | { readonly kind: 'rows'; readonly rows: readonly Row[] }
  | { readonly kind: 'error'; readonly message: string }
  /** The accumulated bytes crossed the stash threshold: the caller restarts into the stash. */
  | { readonly kind: 'divert' };

export interface WalkReport {
  readonly outcome: DrainOutcome;
  /** Cursor positions visited (errs and oks), the fuel a yielding walk is charged. */
  readonly positions: number;
  readonly rowsEmitted: number;
}

export function rowText(u: Update): string {
  return `${u.key},${u.val}`;
}
export function rowBytes(row: string): number {
  return row.length;
}

/** True when the peek may divert: stash on (with a location) and a streamable finishing. */
export function stashWanted(peek: PeekSpec, stash: StashConfig): boolean {
  return stash.enabled && !peek.finishing.orderBy;
}

/** Errs scan: every error key, diffs at times <= t summed; the first non-zero sum answers. */
export function scanErrsForError(errs: readonly Batch<ErrUpdate>[], t: Time): { readonly error?: string; readonly positions: number } {
  const all = errs.flatMap((b) => b.updates).slice().sort((a, b) => cmp(a.key, b.key));
  let positions = 0;
  for (let i = 0; i < all.length; ) {
    const key = all[i]!.key;
    let sum = 0;
    for (; i < all.length && all[i]!.key === key; i++) {
      positions++;
      if (all[i]!.time <= t) sum += all[i]!.diff;
    }
    if (sum < 0) return { error: `Invalid data in source errors, saw retractions (${-sum}) for row that does not exist: ${key}`, positions };
    if (sum > 0) return { error: key, positions };
  }
  return { positions };
}

/** The rows of the oks trace at `t` for the peek's literal (or all keys), consolidated, in cursor order. */
function okRows(oks: readonly Batch[], peek: PeekSpec): { readonly rows: readonly { row: string; sum: number }[]; readonly positions: number } {
  const ups = oks.flatMap((b) => (peek.key === undefined ? b.updates : b.updates.filter((u) => u.key === peek.key)));
  ups.sort((a, b) => cmp(a.key, b.key) || cmp(a.val, b.val));
  const rows: { row: string; sum: number }[] = [];
  for (let i = 0; i < ups.length; ) {
    const u = ups[i]!;
    let sum = 0;
    for (; i < ups.length && ups[i]!.key === u.key && ups[i]!.val === u.val; i++) if (ups[i]!.time <= peek.t) sum += ups[i]!.diff;
    rows.push({ row: rowText(u), sum });
  }
  return { rows, positions: ups.length };
}

function byRow(a: Row, b: Row): number {
  return cmp(a[0], b[0]);
}

/** The ok drain with the stash check before the size check, and the limit shortcut. */
export function drainOkIterator(oks: readonly Batch[], peek: PeekSpec, divertAllowed: boolean, threshold: number): { readonly outcome: DrainOutcome; readonly positions: number; readonly rowsEmitted: number } {
  const { rows: cand, positions } = okRows(oks, peek);
  const f = peek.finishing;
  const keep = f.limit === undefined ? Infinity : f.limit + f.offset;
  let rows: Row[] = [];
  let total = 0;
  let emitted = 0;
  for (const { row, sum } of cand) {
    if (sum < 0) return { outcome: { kind: 'error', message: `Invalid data in source, saw retractions (${-sum}) for row that does not exist: ${row}` }, positions, rowsEmitted: emitted };
    if (sum === 0) continue;
    emitted++;
    total += rowBytes(row) + COUNT_BYTES;
    if (divertAllowed && total > threshold) return { outcome: { kind: 'divert' }, positions, rowsEmitted: emitted };
    if (total > peek.maxResultSize) return { outcome: { kind: 'error', message: `result exceeds max size of ${peek.maxResultSize} bytes` }, positions, rowsEmitted: emitted };
    rows.push([row, sum]);
    if (rows.length >= 2 * keep) {
      if (!f.orderBy) {
        rows = rows.slice(0, keep);
        return { outcome: { kind: 'rows', rows }, positions, rowsEmitted: emitted };
      }
      rows.sort(byRow);
      for (const r of rows.slice(keep)) total -= rowBytes(r[0]) + COUNT_BYTES;
      rows = rows.slice(0, keep);
    }
  }
  if (f.orderBy) rows.sort(byRow);
  if (rows.length > keep) rows = rows.slice(0, keep);
  return { outcome: { kind: 'rows', rows }, positions, rowsEmitted: emitted };
}

/** Errs scan then ok drain over one set of batches: what either substrate computes first. */
export function walk(oks: readonly Batch[], errs: readonly Batch<ErrUpdate>[], peek: PeekSpec, stash: StashConfig): WalkReport {
  const e = scanErrsForError(errs, peek.t);
  if (e.error !== undefined) return { outcome: { kind: 'error', message: e.error }, positions: e.positions, rowsEmitted: 0 };
  const d = drainOkIterator(oks, peek, stashWanted(peek, stash), stash.threshold);
  return { outcome: d.outcome, positions: e.positions + d.positions, rowsEmitted: d.rowsEmitted };
}

/** What a stashing upload streams: every row, stopping once limit + offset rows are written. */
export function stashContent(oks: readonly Batch[], peek: PeekSpec): { readonly rows: readonly Row[]; readonly bytes: number; readonly positions: number } {
  const unbounded = { ...peek, maxResultSize: Infinity };
  const d = drainOkIterator(oks, unbounded, false, Infinity);
  const rows = d.outcome.kind === 'rows' ? d.outcome.rows : [];
  let bytes = 0;
  for (const r of rows) bytes += rowBytes(r[0]) + COUNT_BYTES;
  return { rows, bytes, positions: d.positions };
}

/** Cursor positions a walk on worker `w` visits: the fixture's declared size wins over the updates visited. */
export function walkPositions(peek: PeekSpec, positions: number, w: number): number {
  return peek.positionsByWorker?.[w] ?? peek.positions ?? positions;
}

/** Virtual ms a walk of `positions` positions emitting `rows` rows costs on worker `w`. */
export function walkMs(peek: PeekSpec, positions: number, rows: number, costs: Costs, w: number): number {
  return walkPositions(peek, positions, w) * costs.posMs + rows * costs.rowMs;
}

/**
 * The reference answer: what the inline walk answers over `snap` (invariant 1).
 * A diversion answers `Stashed` with the rows of an unbounded walk after finishing.
 */
export function referenceAnswer(snap: Pick<Snapshot, 'oks' | 'errs'>, peek: PeekSpec, stash: StashConfig): PeekResponse {
  const r = walk(snap.oks, snap.errs, peek, stash);
  if (r.outcome.kind === 'error') return { kind: 'error', message: r.outcome.message };
  if (r.outcome.kind === 'rows') return { kind: 'rows', rows: r.outcome.rows };
  const c = stashContent(snap.oks, peek);
  return { kind: 'stashed', shard: `s${peek.uuid}`, rows: c.rows.length, bytes: c.bytes, content: c.rows };
}

/** Response equality for invariant 1 (rows, multiplicities, order, error text, stash decision and content). */
export function sameResponse(a: PeekResponse, b: PeekResponse): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'rows':
      return sameRows(a.rows, (b as typeof a).rows);
    case 'error':
      return a.message === (b as typeof a).message;
    case 'stashed':
      return sameRows(a.content, (b as typeof a).content);
    case 'canceled':
      return true;
  }
}

function sameRows(a: readonly Row[], b: readonly Row[]): boolean {
  return a.length === b.length && a.every((r, i) => r[0] === b[i]![0] && r[1] === b[i]![1]);
}
