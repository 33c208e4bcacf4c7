// The arrangement and the shared walk: gates, the errs scan, the ok drain
// (limit, order, size, stash decision), physical merges, and the offloaded walk
// of the pool answering what the inline walk answers (invariant 1, property-based).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addHold, allowCompaction, arrangement, dropHold, gate, maintain, compactionFrontier } from '../../../src/machines/materialize/trace.ts';
import { drainOkIterator, referenceAnswer, sameResponse, scanErrsForError, walk } from '../../../src/machines/materialize/walk.ts';
import { poolMachine } from '../../../src/machines/materialize/pool.ts';
import { MachineStepper } from '../../../src/actors/xstate-adapter.ts';
import { CHECK_COSTS, lookup, rows, scan } from '../../../src/machines/materialize/config.ts';
import type { PeekResponse, PeekSpec, StashConfig, Update } from '../../../src/machines/materialize/types.ts';
import type { Message } from 'interleave';

const OFF: StashConfig = { enabled: false, threshold: 10 * 1024 };

describe('arrangement gates and compaction', () => {
  it('checks oks upper, errs upper, then the compaction frontier, with the exact error text', () => {
    const a = arrangement({ updates: rows('a', ['1']), upper: 10, since: 5 });
    expect(gate(a, 10)).toEqual({ kind: 'not-ready' });
    expect(gate({ ...a, errsUpper: 3 }, 4)).toEqual({ kind: 'not-ready' });
    expect(gate(a, 1)).toEqual({ kind: 'compacted', message: 'Arrangement compaction frontier ([5]) is beyond the time of the attempted read (1)' });
    expect(gate(a, 5)).toEqual({ kind: 'ok' });
    expect(compactionFrontier({ ...a, errsSince: 7 })).toBe(7);
  });

  it('a pending peek holds since at its time; AllowCompaction moves it once the hold is gone', () => {
    let a = addHold(arrangement({ updates: rows('a', ['1']), upper: 10 }), 3);
    a = allowCompaction(a, 9);
    expect(a.oksSince).toBe(3);
    a = dropHold(a, 3);
    expect(a.oksSince).toBe(9);
    expect(a.holds).toEqual([]);
  });

  it('a merge rewrites batches (new objects) and leaves pinned batches answering as before', () => {
    const updates: Update[] = [
      { key: 'a', val: 'v1', time: 3, diff: 1 },
      { key: 'a', val: 'v1', time: 6, diff: -1 },
      { key: 'a', val: 'v2', time: 6, diff: 1 },
    ];
    const before = arrangement({ updates, upper: 10 });
    const pinned = { oks: before.oks, errs: before.errs };
    const after = maintain(allowCompaction(before, 9));
    expect(after.oks[0]).not.toBe(before.oks[0]);
    expect(after.oks[0]!.updates).toEqual([{ key: 'a', val: 'v2', time: 9, diff: 1 }]);
    const p = lookup('p', 'a', 5);
    expect(referenceAnswer(pinned, p, OFF)).toEqual({ kind: 'rows', rows: [['a,v1', 1]] });
  });
});

describe('the walk', () => {
  it('the errs scan: first non-zero key wins, a negative sum is the retraction error, cancelling keys are skipped', () => {
    const errs = [{ id: 1, updates: [{ key: 'a', time: 0, diff: 1 }, { key: 'a', time: 1, diff: -1 }, { key: 'b', time: 0, diff: -2 }, { key: 'c', time: 0, diff: 1 }] }];
    expect(scanErrsForError(errs, 5).error).toBe('Invalid data in source errors, saw retractions (2) for row that does not exist: b');
    expect(scanErrsForError(errs, 0).error).toBe('a');
    expect(scanErrsForError([{ id: 1, updates: [{ key: 'z', time: 9, diff: 1 }] }], 5).error).toBeUndefined();
  });

  it('errors take precedence over rows', () => {
    const r = walk([{ id: 1, updates: rows('a', ['1']) }], [{ id: 2, updates: [{ key: 'boom', time: 0, diff: 1 }] }], scan('p', 1), OFF);
    expect(r.outcome).toEqual({ kind: 'error', message: 'boom' });
  });

  it('limit without order_by finishes early; with order_by keeps the smallest rows', () => {
    const b = [{ id: 1, updates: rows('k', ['e', 'd', 'c', 'b', 'a']) }];
    expect(drainOkIterator(b, scan('p', 1, { limit: 1 }), false, 0).outcome).toEqual({ kind: 'rows', rows: [['k,a', 1]] });
    const unordered: PeekSpec = { ...scan('p', 1), finishing: { orderBy: false, limit: 1, offset: 0 } };
    expect(drainOkIterator(b, unordered, false, 0).outcome).toEqual({ kind: 'rows', rows: [['k,a', 1]] });
  });

  it('the stash check comes before the size check, and only for streamable peeks', () => {
    const b = [{ id: 1, updates: rows('k', ['x'.repeat(100), 'y'.repeat(100)]) }];
    const small = { ...lookup('p', 'k', 1), maxResultSize: 150 };
    expect(drainOkIterator(b, small, true, 120).outcome).toEqual({ kind: 'divert' });
    expect(drainOkIterator(b, small, false, 120).outcome).toEqual({ kind: 'error', message: 'result exceeds max size of 150 bytes' });
    const r = walk(b, [], { ...scan('p', 1, { limit: 10 }), maxResultSize: 150 }, { enabled: true, threshold: 120 });
    expect(r.outcome.kind).toBe('error');
  });
});

/** Runs an offloaded walk through the pool's chart (spawn, slice ends, upload ok) and returns its answer. */
function offloaded(oks: Update[], errs: { key: string; time: number; diff: number }[], peek: PeekSpec, stash: StashConfig): PeekResponse {
  const pool = new MachineStepper(poolMachine, 'pool');
  let snap = pool.initial({ workers: 1, slotRelease: 'walk-end' }).snapshot;
  const snapshot = { oks: oks.length ? [{ id: 1, updates: oks }] : [], errs: errs.length ? [{ id: 2, updates: errs }] : [], spare: stash.enabled };
  const queue: Message[] = [{ type: 'SpawnWalk', w: 0, peek, snapshot, stash, costs: CHECK_COSTS, sliced: true, slice: 2 }];
  for (let i = 0; i < 100; i++) {
    const ev = queue.shift();
    if (!ev) break;
    const r = pool.step(snap, ev);
    expect(r.unhandled).toBe(false);
    snap = r.snapshot;
    for (const a of r.actions) {
      const msg = a.params?.event as Message | undefined;
      if (a.type === 'xstate.raise' && typeof a.params.delay === 'number') queue.push(msg!);
      if (a.type === 'xstate.sendTo' && msg?.type === 'stash.upload') queue.push({ type: 'stash.upload.ok', uuid: msg.uuid, shard: 'x' });
      if (a.type === 'xstate.sendTo' && msg?.type === 'WalkResult') {
        expect(snap.value).toBe('idle');
        return msg.response as PeekResponse;
      }
    }
  }
  throw new Error('the pool never answered');
}

describe('invariant 1: the offloaded walk answers what the inline walk answers over the same batches', () => {
  const upd = fc.record({ key: fc.constantFrom('a', 'b', 'c'), val: fc.constantFrom('1', '2', 'long-value-xxxxxxxx'), time: fc.integer({ min: 0, max: 4 }), diff: fc.integer({ min: -1, max: 2 }) });
  const err = fc.record({ key: fc.constantFrom('e1', 'e2'), time: fc.integer({ min: 0, max: 4 }), diff: fc.integer({ min: -1, max: 1 }) });
  const peek = fc.record({
    t: fc.integer({ min: 0, max: 4 }),
    key: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
    orderBy: fc.boolean(),
    limit: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    max: fc.integer({ min: 20, max: 400 }),
  });

  it('rows, multiplicities, first error, size error and stash decision agree (random batches, stash on and off)', () => {
    fc.assert(
      fc.property(fc.array(upd, { maxLength: 12 }), fc.array(err, { maxLength: 3 }), peek, fc.boolean(), fc.integer({ min: 10, max: 200 }), (oks, errs, p, on, threshold) => {
        const spec: PeekSpec = { uuid: 'p', t: p.t, ...(p.key ? { key: p.key } : {}), finishing: { orderBy: p.orderBy, ...(p.limit === undefined ? {} : { limit: p.limit }), offset: 0 }, maxResultSize: p.max, cls: 'x' };
        const stash = { enabled: on, threshold };
        const sorted = [...oks].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.val < y.val ? -1 : x.val > y.val ? 1 : x.time - y.time));
        const ref = referenceAnswer({ oks: sorted.length ? [{ id: 1, updates: sorted }] : [], errs: errs.length ? [{ id: 2, updates: errs }] : [] }, spec, stash);
        const got = offloaded(sorted, errs, spec, stash);
        expect(sameResponse(got, ref)).toBe(true);
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
