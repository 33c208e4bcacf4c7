// The peek response stash: the threshold, an upload that takes several steps the
// checker interleaves, and its failure and cancel outcomes.
import { describe, expect, it } from 'vitest';
import { apply, enabled, initialWorld } from 'interleave/kernel';
import { defineScenario, queryOf, type World, type Message } from 'interleave';
// From the modules themselves: the storage entry point also loads the document store and apache-arrow.
import { DEFAULT_STASH_THRESHOLD_BYTES, ErrorCode, stashCancel, stashUpload } from '../../src/storage/messages.ts';
import { peekStash, shouldStash, uploadParts } from '../../src/storage/stash.ts';
import { scriptClient } from '../../src/storage/script-client.ts';
import { simClient } from '../../src/storage/sim-client.ts';

describe('peek stash', () => {
  it('stashes only streamable results over the 10 KiB threshold, with the stash on and a location', () => {
    expect(DEFAULT_STASH_THRESHOLD_BYTES).toBe(10_240);
    expect(shouldStash(10_240)).toBe(false);
    expect(shouldStash(10_241)).toBe(true);
    expect(shouldStash(50_000, { streamable: false })).toBe(false);
    expect(shouldStash(50_000, { enabled: false })).toBe(false);
    expect(shouldStash(50_000, { location: false })).toBe(false);
    expect(shouldStash(500, { thresholdBytes: 100 })).toBe(true);
    expect([uploadParts(0, 10, 4), uploadParts(10, 10, 4), uploadParts(11, 10, 4), uploadParts(1000, 10, 4)]).toEqual([1, 1, 2, 4]);
  });

  it('an upload takes one step per part and answers Stashed with the shard', () => {
    const c = simClient(peekStash({ partBytes: 10 }));
    const r = c.call(stashUpload('p1', 25, 5, 'q'));
    expect(r.replies).toEqual([{ type: 'stash.upload.ok', uuid: 'p1', shard: 'sp1', bytes: 25, rows: 5, parts: 3, req: 'q' }]);
    expect(r.events.filter((e) => e.kind === 'io' && e.op === 'stash.pump').map((e) => (e.kind === 'io' ? e.bytes : 0))).toEqual([9, 9, 7]);
    expect(c.state.shards).toEqual({ sp1: { bytes: 25, rows: 5, parts: 3 } });
    expect(c.state.uploads).toEqual({});
  });

  it('a failed part ends the upload with UploadFailed; the parts written leak', () => {
    const c = simClient(peekStash({ partBytes: 10 }));
    const r = c.call(stashUpload('p1', 40, 1), { selfOutcome: (_m, n) => (n === 2 ? 'fail' : undefined) });
    expect(r.replies).toEqual([expect.objectContaining({ type: 'stash.upload.error', code: ErrorCode.UploadFailed, status: 500, uuid: 'p1' })]);
    expect(c.state.leakedParts).toBe(2);
    expect(c.state.shards).toEqual({});
  });

  it('offers the fail outcome on parts of running uploads only', () => {
    const c = simClient(peekStash());
    expect(c.faults({ type: 'stash.pump', uuid: 'nope' })).toEqual([]);
    expect(c.faults(stashUpload('u', 1, 1))).toEqual([]);
    expect(simClient(peekStash({ faults: {} })).faults(stashUpload('u', 1, 1))).toEqual(['fail']);
  });

  // Under the kernel: every part is a separate step, so a cancel can land between parts.
  const sc = defineScenario({
    name: 'stash-cancel',
    actors: {
      worker: scriptClient('stash', [stashUpload('p', 30, 3)]),
      canceller: scriptClient('stash', [stashCancel('p')]),
      stash: peekStash({ partBytes: 10 }),
    },
    start: [{ to: 'worker', msg: { type: 'go' } }],
    faults: { budget: 1 },
  });

  it('under the kernel the parts interleave with a cancel; every run gives the worker at most one answer', () => {
    let w: World = initialWorld(sc).world;
    w = apply(sc, w, enabled(sc, w)[0]!).world; // worker sends the upload
    w = apply(sc, w, enabled(sc, w)[0]!).world; // the stash starts it: first part in flight
    w = apply(sc, w, { kind: 'input', id: 'input:env->canceller:go', from: sc.envIndex, to: sc.index.get('canceller')!, msg: { type: 'go' } }).world;
    const outcomes = new Map<string, number>();
    const go = (w: World) => {
      const steps = enabled(sc, w);
      if (steps.length === 0) {
        const q = queryOf(sc, w);
        const worker = (q.context('worker').replies as Message[]).map((m) => String(m.code ?? m.type));
        const cancel = (q.context('canceller').replies as Message[]).map((m) => String(m.code ?? (m.type === 'stash.cancel.ok' ? `leaked ${String(m.leakedParts)}` : m.type)));
        const key = `worker [${worker.join(',')}] canceller [${cancel.join(',')}]`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        expect(worker.length).toBeLessThanOrEqual(1);
        return;
      }
      for (const s of steps) go(apply(sc, w, s).world);
    };
    go(w);
    expect([...outcomes.keys()].sort()).toEqual(
      [
        'worker [stash.upload.ok] canceller [NoSuchUpload]',
        'worker [] canceller [leaked 0]',
        'worker [] canceller [leaked 1]',
        'worker [] canceller [leaked 2]',
        'worker [UploadFailed] canceller [NoSuchUpload]',
      ].sort(),
    );
  });
});
