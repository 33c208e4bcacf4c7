// The storage contracts, written once and run against every backend that speaks the
// protocol (test/storage/contract.test.ts for the in-process ones, the S3 and PostgreSQL
// tests for the servers): the object store's s3.* requests and the task state store's ts.*.
import { describe, expect, it } from 'vitest';
import type { Message } from 'interleave';
// The request builders from their module: interleave/storage also loads the document store and apache-arrow.
import { ErrorCode, s3Delete, s3Get, s3Head, s3List, s3Put, tsCleanup, tsClear, tsDelete, tsGet, tsSet, type MissingKeyAnswer } from '../../src/storage/messages.ts';
import type { TaskScope } from '../../src/storage/messages-ts.ts';

export type Call = (msg: Message) => Promise<Message>;
export interface Backend {
  readonly call: Call;
  close(): void;
}
export interface TsBackend extends Backend {
  /** Database semantics (expiresAt kept and cleaned up, size warning and cap). */
  readonly db: boolean;
}

/** The row cap the task state backends are opened with. */
export const CAP = 100_000;

const bytes = (...xs: number[]) => new Uint8Array(xs);
const text = (s: string) => new TextEncoder().encode(s);

/** The object store contract, for each backend and both missing-key answers. */
export function objectStoreContract(objectBackends: Record<string, (missingKey: MissingKeyAnswer) => Backend | Promise<Backend>>): void {
  describe.each(Object.keys(objectBackends))('object store contract: %s', (name) => {
    describe.each([403, 404] as const)('missing key answers %i', (missingKey) => {
      const missingCode = missingKey === 403 ? ErrorCode.AccessDenied : ErrorCode.NoSuchKey;
      const open = async () => objectBackends[name]!(missingKey);

      it('put then get returns the bytes; put reports the size; req is echoed', async () => {
        const { call } = await open();
        expect(await call(s3Put('a/b.bin', bytes(1, 2, 3), 7))).toEqual({ type: 's3.put.ok', key: 'a/b.bin', bytes: 3, req: 7 });
        const g = await call(s3Get('a/b.bin', undefined, 'r1'));
        expect(g.type).toBe('s3.get.ok');
        expect(Array.from(g.body as Uint8Array)).toEqual([1, 2, 3]);
        expect(g.size).toBe(3);
        expect(g.req).toBe('r1');
      });

      it('a put overwrites', async () => {
        const { call } = await open();
        await call(s3Put('k', text('one')));
        await call(s3Put('k', text('second')));
        const g = await call(s3Get('k'));
        expect(new TextDecoder().decode(g.body as Uint8Array)).toBe('second');
        expect((await call(s3Head('k'))).size).toBe(6);
      });

      it('get of a byte range: inclusive, end clamped, start past the end rejected', async () => {
        const { call } = await open();
        await call(s3Put('r', text('0123456789')));
        const dec = (m: Message) => new TextDecoder().decode(m.body as Uint8Array);
        const a = await call(s3Get('r', { start: 2, end: 4 }));
        expect([dec(a), a.size]).toEqual(['234', 10]);
        expect(dec(await call(s3Get('r', { start: 7 })))).toBe('789');
        expect(dec(await call(s3Get('r', { start: 8, end: 100 })))).toBe('89');
        const bad = await call(s3Get('r', { start: 10 }));
        expect([bad.type, bad.code, bad.status]).toEqual(['s3.get.error', ErrorCode.InvalidRange, 416]);
        expect((await call(s3Get('r', { start: 5, end: 3 }))).code).toBe(ErrorCode.InvalidRange);
      });

      it(`get and head of a missing key answer ${missingKey}`, async () => {
        const { call } = await open();
        for (const m of [s3Get('nope'), s3Head('nope'), s3Get('dir/nope', { start: 0 })]) {
          const r = await call(m);
          expect(r.type).toBe(`${m.type}.error`);
          expect([r.code, r.status, r.key]).toEqual([missingCode, missingKey, m.key]);
        }
      });

      it('delete removes; deleting a missing key succeeds', async () => {
        const { call } = await open();
        await call(s3Put('x/y', bytes(9)));
        expect(await call(s3Delete('x/y'))).toEqual({ type: 's3.delete.ok', key: 'x/y' });
        expect((await call(s3Get('x/y'))).code).toBe(missingCode);
        expect(await call(s3Delete('x/y'))).toEqual({ type: 's3.delete.ok', key: 'x/y' });
        expect(await call(s3Delete('never/was'))).toEqual({ type: 's3.delete.ok', key: 'never/was' });
        expect((await call(s3List(''))).keys).toEqual([]);
      });

      it('list by prefix is sorted and exact', async () => {
        const { call } = await open();
        for (const k of ['b/2', 'a/1', 'a/10/x', 'b/1', 'ab', 'c']) await call(s3Put(k, bytes(1)));
        expect((await call(s3List(''))).keys).toEqual(['a/1', 'a/10/x', 'ab', 'b/1', 'b/2', 'c']);
        expect((await call(s3List('a/'))).keys).toEqual(['a/1', 'a/10/x']);
        expect((await call(s3List('a'))).keys).toEqual(['a/1', 'a/10/x', 'ab']);
        expect((await call(s3List('a/1'))).keys).toEqual(['a/1', 'a/10/x']);
        expect((await call(s3List('zz'))).keys).toEqual([]);
        const l = await call(s3List('b/', 3));
        expect(l).toEqual({ type: 's3.list.ok', prefix: 'b/', keys: ['b/1', 'b/2'], req: 3 });
      });

      it('keys that try to escape are rejected with InvalidKey (400), on every operation', async () => {
        const { call } = await open();
        const bad = ['../x', 'a/../../x', '/abs', 'a//b', 'a/', '', './a', 'a/./b', 'a\\b', 'C:/x'];
        for (const key of bad) {
          for (const m of [s3Put(key, bytes(1)), s3Get(key), s3Head(key), s3Delete(key)]) {
            const r = await call(m);
            expect([r.type, r.code, r.status], `${m.type} '${key}'`).toEqual([`${m.type}.error`, ErrorCode.InvalidKey, 400]);
            expect(String(r.message).length).toBeGreaterThan(10);
          }
        }
        expect((await call(s3List('../'))).code).toBe(ErrorCode.InvalidKey);
        expect((await call(s3List(''))).keys).toEqual([]);
      });

      it('a put without bytes is an InvalidRequest', async () => {
        const { call } = await open();
        const r = await call({ type: 's3.put', key: 'k', body: 'not bytes' });
        expect([r.type, r.code]).toEqual(['s3.put.error', ErrorCode.InvalidRequest]);
      });
    });
  });
}

const scope: TaskScope = { dagId: 'dag', runId: 'manual__2026-01-01T00:00:00+00:00', taskId: 'iter', mapIndex: -1 };
const other: TaskScope = { ...scope, mapIndex: 0 };

/** The task state store contract, for each backend. */
export function taskStateContract(tsBackends: Record<string, () => TsBackend | Promise<TsBackend>>): void {
  describe.each(Object.keys(tsBackends))('task state store contract: %s', (name) => {
    const withStore = async (fn: (b: TsBackend) => Promise<void>) => {
      const b = await tsBackends[name]!();
      try {
        await fn(b);
      } finally {
        b.close();
      }
    };

    it('a missing key reads as none; set then get returns the value; set overwrites', () =>
      withStore(async ({ call }) => {
        expect(await call(tsGet(scope, '_iterable_batch_0', 1))).toEqual({ type: 'ts.get.ok', key: '_iterable_batch_0', found: false, value: null, expiresAt: null, req: 1 });
        const s = await call(tsSet(scope, '_iterable_batch_0', '[{"index":0}]', null, 2));
        expect(s).toEqual({ type: 'ts.set.ok', key: '_iterable_batch_0', bytes: 13, warned: false, req: 2 });
        expect((await call(tsGet(scope, '_iterable_batch_0'))).value).toBe('[{"index":0}]');
        await call(tsSet(scope, '_iterable_batch_0', '"é"'));
        const g = await call(tsGet(scope, '_iterable_batch_0'));
        expect([g.found, g.value]).toEqual([true, '"é"']);
      }));

    it('scopes are isolated (map index included)', () =>
      withStore(async ({ call }) => {
        await call(tsSet(scope, 'k', '1'));
        await call(tsSet(other, 'k', '2'));
        expect((await call(tsGet(scope, 'k'))).value).toBe('1');
        expect((await call(tsGet(other, 'k'))).value).toBe('2');
        expect((await call(tsGet({ ...scope, runId: 'r2' }, 'k'))).found).toBe(false);
      }));

    it('delete removes one key; deleting a missing key succeeds', () =>
      withStore(async ({ call }) => {
        await call(tsSet(scope, 'a', '1'));
        await call(tsSet(scope, 'b', '2'));
        expect(await call(tsDelete(scope, 'a'))).toEqual({ type: 'ts.delete.ok', key: 'a' });
        expect((await call(tsGet(scope, 'a'))).found).toBe(false);
        expect((await call(tsGet(scope, 'b'))).value).toBe('2');
        expect((await call(tsDelete(scope, 'a'))).type).toBe('ts.delete.ok');
      }));

    it('clear deletes every key of one scope and no other', () =>
      withStore(async ({ call }) => {
        for (const k of ['x', 'y', 'z']) await call(tsSet(scope, k, '1'));
        await call(tsSet(other, 'x', '1'));
        expect(await call(tsClear(scope))).toEqual({ type: 'ts.clear.ok', deleted: 3 });
        expect((await call(tsGet(scope, 'y'))).found).toBe(false);
        expect((await call(tsGet(other, 'x'))).found).toBe(true);
      }));

    it('expiresAt: kept and enforced by cleanup on the database backend, carried but not applied on object storage', () =>
      withStore(async ({ call, db }) => {
        await call(tsSet(scope, 'old', '1', 1_000));
        await call(tsSet(scope, 'new', '2', 5_000));
        await call(tsSet(scope, 'never', '3', null));
        expect((await call(tsGet(scope, 'old'))).expiresAt).toBe(db ? 1_000 : null);
        const c = await call(tsCleanup({ before: 2_000 }));
        expect(c).toEqual({ type: 'ts.cleanup.ok', deleted: db ? 1 : 0 });
        expect((await call(tsGet(scope, 'old'))).found).toBe(!db);
        expect((await call(tsGet(scope, 'new'))).found).toBe(true);
        expect((await call(tsGet(scope, 'never'))).found).toBe(true);
      }));

    it('a key deleted from outside (cleanup of listed keys) reads as none', () =>
      withStore(async ({ call }) => {
        for (const k of ['_iterable_batch_0', '_iterable_batch_1', '_iterable_batch_2']) await call(tsSet(scope, k, '[]'));
        expect((await call(tsCleanup({ scope, keys: ['_iterable_batch_1', 'missing'] }))).deleted).toBe(1);
        const got = [];
        for (const k of ['_iterable_batch_0', '_iterable_batch_1', '_iterable_batch_2']) got.push((await call(tsGet(scope, k))).found);
        expect(got).toEqual([true, false, true]);
      }));

    it('over maxValueStorageBytes: a warning and the write proceeds (database); over the row cap: ValueTooLarge', () =>
      withStore(async ({ call, db }) => {
        const big = 'x'.repeat(65_536);
        const r = await call(tsSet(scope, 'big', big));
        expect([r.type, r.bytes, r.warned]).toEqual(['ts.set.ok', 65_536, db]);
        expect((await call(tsGet(scope, 'big'))).value).toBe(big);
        const edge = await call(tsSet(scope, 'edge', 'x'.repeat(65_535)));
        expect(edge.warned).toBe(false);
        const huge = await call(tsSet(scope, 'huge', 'x'.repeat(CAP + 1)));
        if (db) {
          expect([huge.type, huge.code, huge.status]).toEqual(['ts.set.error', ErrorCode.ValueTooLarge, 413]);
          expect((await call(tsGet(scope, 'huge'))).found).toBe(false);
          expect((await call(tsSet(scope, 'cap', 'x'.repeat(CAP)))).type).toBe('ts.set.ok');
        } else {
          expect(huge.type).toBe('ts.set.ok');
        }
      }));

    it('bad requests get InvalidRequest naming the field', () =>
      withStore(async ({ call }) => {
        const noScope = await call({ type: 'ts.get', key: 'k' });
        expect([noScope.type, noScope.code]).toEqual(['ts.get.error', ErrorCode.InvalidRequest]);
        expect(String(noScope.message)).toContain('scope');
        const badIndex = await call(tsGet({ ...scope, mapIndex: 1.5 }, 'k'));
        expect(String(badIndex.message)).toContain('mapIndex');
        const noValue = await call({ type: 'ts.set', scope, key: 'k', value: null, expiresAt: null });
        expect([noValue.code, String(noValue.message).includes('None')]).toEqual([ErrorCode.InvalidRequest, true]);
        expect((await call(tsGet(scope, ''))).code).toBe(ErrorCode.InvalidRequest);
      }));
  });
}
