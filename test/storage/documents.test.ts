// Iceberg-style documents in the simulated store: create overrides, lazy pinned
// readers fetching one file per step, drop/recreate mid-stream, and the I1 helper
// evaluated from a kernel world.
import { describe, expect, it } from 'vitest';
import { Type, tableFromIPC, type Field } from 'apache-arrow';
import { apply, enabled, initialWorld } from 'interleave/kernel';
import { defineScenario, queryOf, check, type World, type Message } from 'interleave';
import {
  ErrorCode,
  NO_STORAGE_FOUND,
  appendRows,
  closeWriter,
  decodeRows,
  docCommit,
  docCreate,
  docDrop,
  docGeneration,
  docOpen,
  docReadClose,
  docReadNext,
  docReadOpen,
  docWriter,
  encodeRows,
  noStaleReaders,
  objectKeys,
  objectStore,
  portBaseUri,
  resultUri,
  s3Get,
  scriptClient,
  simClient,
  staleReaders,
  streamingReaders,
  type MissingKeyAnswer,
} from 'interleave/storage';

const file = (n: number) => new Uint8Array([n]);
const URI = resultUri(portBaseUri({ wid: 1, eid: 7, port: { logicalOpId: 'LS', portId: 0 } }));

function withDoc(missingKey: MissingKeyAnswer = 403, files = 3) {
  const c = simClient(objectStore({ missingKey }));
  c.request(docCreate(URI, { fields: ['x'] }));
  for (let i = 1; i <= files; i++) c.request(docCommit(URI, file(i), i));
  return c;
}

describe('documents', () => {
  it('open of a missing uri fails with "no storage is found for the given URI"', () => {
    const c = simClient(objectStore());
    for (const m of [docOpen(URI), docReadOpen(URI, 'r'), docCommit(URI, file(1), 1)]) {
      const r = c.request(m);
      expect([r.type, r.code, r.status, r.message, r.uri]).toEqual([`${m.type}.error`, ErrorCode.NoSuchTable, 404, NO_STORAGE_FOUND, URI]);
    }
  });

  it('create, commit one data file per close, open reports generation, files and rows', () => {
    const c = withDoc(403, 2);
    expect(c.request(docOpen(URI))).toEqual({ type: 'doc.open.ok', uri: URI, generation: 1, schema: { fields: ['x'] }, files: 2, rows: 3 });
    const keys = objectKeys(c.state);
    expect(keys).toEqual(['result/wid_1_eid_7_globalportid_(logicalOpId=LS,layerName=main,portId=0,isInternal=false,isInput=false)_result/data/g1-00001.arrow', 'result/wid_1_eid_7_globalportid_(logicalOpId=LS,layerName=main,portId=0,isInternal=false,isInput=false)_result/data/g1-00002.arrow']);
    expect(Array.from(c.request(s3Get(keys[1]!)).body as Uint8Array)).toEqual([2]);
  });

  it('create overrides: the old generation\'s data files are deleted and the new doc is empty at generation + 1', () => {
    const c = withDoc(403, 3);
    const r = c.request(docCreate(URI, { fields: ['y'] }, 'again'));
    expect(r).toEqual({ type: 'doc.create.ok', uri: URI, generation: 2, dropped: 3, req: 'again' });
    expect(objectKeys(c.state)).toEqual([]);
    expect(c.request(docOpen(URI))).toEqual(expect.objectContaining({ generation: 2, files: 0, rows: 0, schema: { fields: ['y'] } }));
    c.request(docDrop(URI));
    expect(docGeneration(c.state, URI)).toBeNull();
    expect(c.request(docOpen(URI)).code).toBe(ErrorCode.NoSuchTable);
    expect(c.request(docCreate(URI, {})).generation).toBe(3);
  });

  it('a reader pins on its first next, fetches one file per request, then answers done and ends', () => {
    const c = withDoc(403, 2);
    expect(c.request(docReadOpen(URI, 'r'))).toEqual({ type: 'doc.read.open.ok', uri: URI, reader: 'r' });
    expect(c.state.readers['client/r']!.pinned).toBeNull();
    c.request(docCommit(URI, file(3), 3)); // before the pin: seen
    const got: number[] = [];
    for (;;) {
      const m = c.request(docReadNext('r'));
      if (m.type === 'doc.read.next.done') {
        expect(m).toEqual(expect.objectContaining({ files: 3, generation: 1 }));
        break;
      }
      expect(m.type).toBe('doc.read.next.ok');
      expect([m.index, m.files]).toEqual([got.length, 3]);
      got.push((m.data as Uint8Array)[0]!);
    }
    expect(got).toEqual([1, 2, 3]);
    expect(c.request(docReadNext('r')).code).toBe(ErrorCode.NoSuchReader);
  });

  it('a reader pinned before a commit never sees that commit', () => {
    const c = withDoc(403, 2);
    c.request(docReadOpen(URI, 'r'));
    expect(c.request(docReadNext('r')).index).toBe(0); // pinned now: 2 files
    c.request(docCommit(URI, file(9), 9));
    expect(c.request(docReadNext('r'))).toEqual(expect.objectContaining({ index: 1, files: 2 }));
    expect(c.request(docReadNext('r')).type).toBe('doc.read.next.done');
    c.request(docReadOpen(URI, 'late'));
    const seen = [c.request(docReadNext('late')), c.request(docReadNext('late')), c.request(docReadNext('late'))].map((m) => (m.data as Uint8Array)[0]);
    expect(seen).toEqual([1, 2, 9]);
  });

  it.each([403, 404] as const)('drop/recreate while a reader is mid-stream: its next fetch answers %i and the reader ends', (missingKey) => {
    const c = withDoc(missingKey, 3);
    c.request(docReadOpen(URI, 'r'));
    expect(c.request(docReadNext('r')).type).toBe('doc.read.next.ok');
    expect(staleReaders(c.state)).toEqual([]);
    c.request(docCreate(URI, {}));
    expect(staleReaders(c.state)).toEqual([{ owner: 'client', reader: 'r', uri: URI, pinnedGeneration: 1, currentGeneration: 2, unfetched: 2 }]);
    const r = c.request(docReadNext('r'));
    expect([r.type, r.status, r.code, r.reader]).toEqual(['doc.read.next.error', missingKey, missingKey === 403 ? ErrorCode.AccessDenied : ErrorCode.NoSuchKey, 'r']);
    expect(String(r.key)).toMatch(/data\/g1-00002\.arrow$/);
    expect(c.state.readers['client/r']).toBeUndefined();
    expect(staleReaders(c.state)).toEqual([]);
  });

  it('a drop (without recreate) before the first next fails the pin with NoSuchTable; after the pin the fetch gets the missing-key answer', () => {
    const c = withDoc(403, 2);
    c.request(docReadOpen(URI, 'a'));
    c.request(docReadOpen(URI, 'b'));
    c.request(docReadNext('b'));
    c.request(docDrop(URI));
    expect(c.request(docReadNext('a')).code).toBe(ErrorCode.NoSuchTable);
    expect(c.request(docReadNext('b')).code).toBe(ErrorCode.AccessDenied);
  });

  it('a reader opened before a recreate but not yet pinned reads the new generation (lazy pinning)', () => {
    const c = withDoc(403, 2);
    c.request(docReadOpen(URI, 'r'));
    c.request(docCreate(URI, {}));
    c.request(docCommit(URI, file(5), 5));
    const m = c.request(docReadNext('r'));
    expect([m.generation, m.files, (m.data as Uint8Array)[0]]).toEqual([2, 1, 5]);
  });

  it('readers are named per owner; close abandons one', () => {
    const c = withDoc(403, 1);
    c.request(docReadOpen(URI, 'r'), { from: 'w1' });
    c.request(docReadOpen(URI, 'r'), { from: 'w2' });
    expect(c.request(docReadNext('r'), { from: 'w1' }).type).toBe('doc.read.next.ok');
    expect(c.request(docReadClose('r'), { from: 'w2' })).toEqual({ type: 'doc.read.close.ok', reader: 'r' });
    expect(c.request(docReadNext('r'), { from: 'w2' }).code).toBe(ErrorCode.NoSuchReader);
    expect(c.request(docReadNext('r'), { from: 'client' }).code).toBe(ErrorCode.NoSuchReader);
  });

  it('a commit for a recreated generation fails with CommitFailed and writes nothing', () => {
    const c = withDoc(403, 0);
    c.request(docCreate(URI, {}));
    const r = c.request(docCommit(URI, file(1), 1, { generation: 1 }));
    expect([r.code, r.status]).toEqual([ErrorCode.CommitFailed, 409]);
    expect(objectKeys(c.state)).toEqual([]);
    expect(c.request(docCommit(URI, file(1), 1, { generation: 2 })).type).toBe('doc.commit.ok');
  });

  it('doc faults: 403 on a fetch ends the reader; ambiguous commit commits; 503 on create changes nothing', () => {
    const c = withDoc(403, 2);
    expect(c.faults(docReadNext('r'))).toEqual([]); // no such reader: no GET to fail
    expect(c.faults(docCommit(URI, file(1), 1))).toEqual(['403', '503', 'ambiguous']);
    c.request(docReadOpen(URI, 'r'));
    expect(c.faults(docReadNext('r'))).toEqual(['403', '503']); // the pin
    expect(c.faults(docReadClose('r'))).toEqual([]);
    c.request(docReadNext('r'));
    expect(c.faults(docReadNext('r'))).toEqual(['403', '503']);
    const f = c.call(docReadNext('r'), { outcome: '403' });
    expect(f.replies[0]).toEqual(expect.objectContaining({ type: 'doc.read.next.error', code: ErrorCode.AccessDenied, key: expect.stringMatching(/g1-00002/) }));
    expect(f.events[0]).toEqual(expect.objectContaining({ op: 'doc.read.next', outcome: '403' }));
    expect(streamingReaders(c.state)).toEqual([]);
    c.request(docReadOpen(URI, 'all'));
    c.request(docReadNext('all'));
    c.request(docReadNext('all'));
    expect(c.faults(docReadNext('all'))).toEqual([]); // only 'done' is left: no GET
    const a = c.request(docCommit(URI, file(3), 3), { outcome: 'ambiguous' });
    expect(a.code).toBe(ErrorCode.InternalError);
    expect(c.request(docOpen(URI)).files).toBe(3);
    expect(c.request(docCreate(URI, {}), { outcome: '503' }).code).toBe(ErrorCode.SlowDown);
    expect(c.request(docOpen(URI)).generation).toBe(1);
  });

  it('a writer buffers appends client-side and its close is one commit of Arrow IPC rows', () => {
    const c = simClient(objectStore());
    const g = c.request(docCreate(URI, {})).generation as number;
    let w = docWriter<{ x: number; s: string }>(URI, g);
    w = appendRows(w, [{ x: 1, s: 'a' }]);
    w = appendRows(w, [{ x: 2, s: 'b' }]);
    const commit = closeWriter(w);
    expect(commit.rows).toBe(2);
    expect(c.request(commit).type).toBe('doc.commit.ok');
    c.request(docReadOpen(URI, 'r'));
    expect(decodeRows(c.request(docReadNext('r')).data as Uint8Array)).toEqual([
      { x: 1, s: 'a' },
      { x: 2, s: 'b' },
    ]);
    expect(decodeRows(encodeRows([]))).toEqual([]);
  });

  it('the same rows encode to the same bytes whatever the process encoded before (dictionaries numbered from 0)', () => {
    const rows = () => [
      { content: 'a', n: 1, tag: 'x', nested: { s: 'deep' } },
      { content: 'bb', n: 2, tag: 'y', nested: { s: 'er' } },
    ];
    const first = encodeRows(rows());
    // apache-arrow numbers the dictionaries it infers from a process-wide counter: move it on.
    for (let i = 0; i < 5; i++) encodeRows([{ other: `v${i}` }]);
    expect(Buffer.compare(encodeRows(rows()), first)).toBe(0);
    const t = tableFromIPC(first);
    const ids = t.schema.fields.flatMap((f) => (f.type.typeId === Type.Dictionary ? [f.type.id] : f.type.children?.map((c: Field) => c.type.id) ?? []));
    expect(ids).toEqual([0, 1, 2]);
    expect(decodeRows(first).map(({ content, n, tag }) => ({ content, n, tag }))).toEqual([
      { content: 'a', n: 1, tag: 'x' },
      { content: 'bb', n: 2, tag: 'y' },
    ]);
  });
});

describe('I1 (no stale pinned read) evaluated from a kernel world', () => {
  // A reader streams 2 files one step at a time while another actor recreates the doc.
  const sc = defineScenario({
    name: 'recreate-vs-reader',
    actors: {
      setup: scriptClient('store', [docCreate(URI, {}), docCommit(URI, file(1), 1), docCommit(URI, file(2), 2)]),
      reader: scriptClient('store', [docReadOpen(URI, 'R'), docReadNext('R'), docReadNext('R'), docReadNext('R')]),
      recreator: scriptClient('store', [docCreate(URI, {})]),
      store: objectStore(),
    },
    start: [{ to: 'setup', msg: { type: 'go' } }],
    invariants: { I1: noStaleReaders('store') },
  });

  it('finds the interleaving where the recreate lands mid-stream, and the reader then gets 403', () => {
    const I1 = sc.invariants!.I1!;
    let violatedRuns = 0;
    let deniedAfterViolation = 0;
    let clean = 0;
    // Run setup to completion, then start the reader and the recreator and explore all orders.
    let w: World = initialWorld(sc).world;
    for (;;) {
      const s = enabled(sc, w)[0];
      if (!s) break;
      w = apply(sc, w, s).world;
    }
    w = apply(sc, w, { kind: 'input', id: 'input:env->reader:go', from: sc.envIndex, to: sc.index.get('reader')!, msg: { type: 'go' } }).world;
    w = apply(sc, w, { kind: 'input', id: 'input:env->recreator:go', from: sc.envIndex, to: sc.index.get('recreator')!, msg: { type: 'go' } }).world;
    const go = (w: World, violated: boolean) => {
      const steps = enabled(sc, w);
      if (steps.length === 0) {
        const replies = queryOf(sc, w).context('reader').replies as Message[];
        const denied = replies.some((m) => m.type === 'doc.read.next.error' && m.code === ErrorCode.AccessDenied);
        if (violated) violatedRuns++;
        if (violated && denied) deniedAfterViolation++;
        if (!violated) {
          clean++;
          expect(denied).toBe(false);
        }
        return;
      }
      for (const s of steps) {
        const next = apply(sc, w, s).world;
        const v = I1(queryOf(sc, next));
        if (v !== true && !violated) {
          expect(v).toMatch(/reader 'R' of 'reader' pinned generation 1 .* 1 unfetched file\(s\), but the doc is at generation 2/);
        }
        go(next, violated || v !== true);
      }
    };
    go(w, false);
    // Every run in which I1 broke ends with the reader's 403; no other run sees one.
    expect(violatedRuns).toBeGreaterThan(0);
    expect(deniedAfterViolation).toBe(violatedRuns);
    expect(clean).toBeGreaterThan(0);
  });
});

describe('seeded docs and the model checker', () => {
  const seeded = () =>
    defineScenario({
      name: 'recreate-vs-seeded-reader',
      actors: {
        reader: scriptClient('store', [docReadOpen(URI, 'R'), docReadNext('R'), docReadNext('R'), docReadNext('R')]),
        recreator: scriptClient('store', [docCreate(URI, {})]),
        store: objectStore({ docs: { [URI]: { schema: { fields: ['x'] }, files: [{ data: file(1), rows: 1 }, { data: file(2), rows: 1 }] } } }),
      },
      start: [
        { to: 'reader', msg: { type: 'go' } },
        { to: 'recreator', msg: { type: 'go' } },
      ],
      invariants: { I1: noStaleReaders('store') },
    });

  it('a store can start with docs committed at generation 1', () => {
    const c = simClient(objectStore({ docs: { [URI]: { files: [{ data: file(4), rows: 4 }] } } }));
    expect(c.request(docOpen(URI))).toEqual(expect.objectContaining({ generation: 1, files: 1, rows: 4 }));
    expect(c.request(docCreate(URI, {})).dropped).toBe(1);
    expect(() => objectStore({ docs: { 'a/../b': {} } })).toThrow(/'\.\.' segment/);
  });

  it('bfs finds the recreate that lands between two fetches, as a short schedule', async () => {
    const r = await check(seeded(), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation?.property.name).toBe('I1');
    const s = r.violation!.schedule;
    // The reader pinned (first next) before the recreate reached the store.
    expect(s.indexOf('deliver:reader->store:doc.read.next')).toBeGreaterThanOrEqual(0);
    expect(s.indexOf('deliver:reader->store:doc.read.next')).toBeLessThan(s.indexOf('deliver:recreator->store:doc.create'));
    expect(s.length).toBeLessThanOrEqual(8);
  });
});
