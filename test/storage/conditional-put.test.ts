// Conditional put (If-None-Match: *, If-Match: ETag) in the simulated object store and in
// FsObjectStore: the same replies, the checker exploring the losing side of a race, and the
// live adapter serialising a condition and its write.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from 'interleave';
import { FsObjectStore } from 'interleave/live';
import { objectStore, s3Get, s3Head, s3Put } from 'interleave/storage';
import type { Message } from '../../src/actors/types.ts';
import { etagOf } from '../../src/storage/common.ts';
import { counter } from '../live/counter-model.ts';
import { runMain } from '../helpers/cli.ts';

const base = mkdtempSync(join(tmpdir(), 'interleave-cas-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const bytes = (s: string) => new TextEncoder().encode(s);

/** The simulated store as a function of requests, one at a time. */
function simStore(): (m: Message) => Message {
  const logic = objectStore({ missingKey: 404 });
  let state = logic.init(undefined);
  return (m) => {
    const r = logic.receive(state, m as never, { self: 'store', from: 'c', outcome: undefined, now: 0 } as never);
    state = r.state;
    return r.send![0]!.msg;
  };
}

describe('conditional put', () => {
  it('the simulated store and FsObjectStore answer a script of conditional puts alike', async () => {
    const sim = simStore();
    const fs = new FsObjectStore(join(base, 'contract'), { missingKey: 404 });
    const a = bytes('{"n":1}');
    const b = bytes('{"n":2}');
    const script: Message[] = [
      s3Put('k', a, 1, { ifNoneMatch: '*' }), // created
      s3Put('k', b, 2, { ifNoneMatch: '*' }), // exists: 412
      s3Get('k', undefined, 3), // etag of a
      s3Put('k', b, 4, { ifMatch: 'ffffffff-7' }), // wrong etag: 412
      s3Put('k', b, 5, { ifMatch: etagOf(a) }), // swapped
      s3Head('k', 6),
      s3Put('missing', a, 7, { ifMatch: etagOf(a) }), // missing key: 412
      s3Put('k', a, 8, { ifNoneMatch: 'x' as '*' }), // malformed: 400
    ];
    const got: Message[] = [];
    for (const m of script) {
      const s = sim(m);
      const f = await fs.handle(m);
      expect(f, `${m.type} ${String(m.req)}`).toEqual(s);
      got.push(s);
    }
    expect(got.map((r) => (r.type.endsWith('.error') ? r.code : r.type))).toEqual(['s3.put.ok', 'PreconditionFailed', 's3.get.ok', 'PreconditionFailed', 's3.put.ok', 's3.head.ok', 'PreconditionFailed', 'InvalidRequest']);
    expect(got[0]).toMatchObject({ etag: etagOf(a) });
    expect(got[2]).toMatchObject({ etag: etagOf(a) });
    expect(got[5]).toMatchObject({ etag: etagOf(b), size: b.byteLength });
    expect(got[1]).toMatchObject({ status: 412 });
  });

  it('FsObjectStore: of two concurrent puts with the same If-Match, exactly one writes', async () => {
    const fs = new FsObjectStore(join(base, 'race'));
    await fs.put('c', bytes('0'));
    const tag = etagOf(bytes('0'));
    for (let round = 0; round < 20; round++) {
      const now = await fs.get('c');
      const t = now.type === 's3.get.ok' ? now.etag! : tag;
      const rs = await Promise.all(['a', 'b', 'c'].map((x) => fs.put('c', bytes(`${round}${x}`), { ifMatch: t })));
      expect(rs.filter((r) => r.type === 's3.put.ok').length).toBe(1);
      expect(rs.filter((r) => r.type === 's3.put.error' && r.code === 'PreconditionFailed').length).toBe(2);
    }
  });

  it('the checker explores the losing side: plain read-then-put loses an update, compare-and-swap with retry does not', async () => {
    const plain = check(counter.build({ head: false, format: 'compact', start: 0, cas: false }));
    const cas = check(counter.build({ head: false, format: 'compact', start: 0, cas: true }));
    const [p, c] = await Promise.all([plain, cas]);
    expect(p.ok).toBe(false);
    expect(c.ok).toBe(true);
    expect(c.complete).toBe(true);
    // The 412 branch is reached: a put lost the race and the worker read again.
    expect(c.unreached).toEqual([]);
    const cli = await runMain('check', `${join(import.meta.dirname, '../live/counter-model.ts')}#counter`, '--param', 'cas=true');
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).not.toContain('never reached');
  });
});
