// The PostgreSQL adapters against a real server (started by the test, one for the file):
// the task state contract the simulated and SQLite stores pass, and the lease tests of
// the SQLite lease (refusal, renewal, expiry, take-over, every fenced write refused after
// a take-over), on a clock the test moves, plus a race of a take-over and fenced writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// From their modules: interleave/storage and interleave/live also load the document store and apache-arrow.
import { ErrorCode, tsDelete, tsGet, tsSet } from '../../../src/storage/messages.ts';
import type { TaskScope } from '../../../src/storage/messages-ts.ts';
import { LeaseLostError } from '../../../src/storage/live/sqlite-lease.ts';
import { PostgresTaskLease, checkPgFence, readPgLease } from '../../../src/storage/live/pg-lease.ts';
import { PostgresTaskStateStore } from '../../../src/storage/live/pg-task-state.ts';
import { CAP, taskStateContract } from '../../helpers/storage-contract.ts';
import { pgAvailable, startPg, type LocalPg } from '../../helpers/pg-server.ts';
import { inTransaction } from '../../../src/storage/live/pg-connection.ts';

const available = pgAvailable('test/storage/live/pg.test.ts');
let pg: LocalPg | undefined;
const open: PostgresTaskStateStore[] = [];
beforeAll(async () => {
  if (available) pg = await startPg();
});
afterAll(async () => {
  for (const s of open) await s.close();
  await pg?.close();
});

function store(opts: ConstructorParameters<typeof PostgresTaskStateStore>[1] = {}): PostgresTaskStateStore {
  const s = new PostgresTaskStateStore(pg!.url, opts);
  open.push(s);
  return s;
}

let runs = 0;
describe.skipIf(!available)('PostgreSQL', () => {
  taskStateContract({
    postgres: async () => {
      const s = store({ rowCapBytes: CAP });
      // Each test starts from an empty table, as the SQLite backend's fresh file does.
      await s.open();
      await s.pool.query('DELETE FROM task_state');
      return { db: true, call: (m) => s.handle(m), close: () => undefined };
    },
  });

  /** Two processes' stores and leases on one scope (a fresh run id per test), on one moved clock. */
  async function setup() {
    const scope: TaskScope = { dagId: 'd', runId: `r${++runs}`, taskId: 't', mapIndex: -1 };
    let t = 1_000;
    const clock = { now: () => t, advance: (ms: number) => (t += ms) };
    const storeA = store();
    const storeB = store();
    const a = new PostgresTaskLease(storeA.pool, scope, 'A', { ttlMs: 100, now: clock.now });
    const b = new PostgresTaskLease(storeB.pool, scope, 'B', { ttlMs: 100, now: clock.now });
    return { scope, clock, storeA, storeB, a, b };
  }

  describe('task lease on PostgreSQL', () => {
    it('one holder at a time: refused while live, renewed by the heartbeat, taken over only after expiry with a new token', async () => {
      const { scope, clock, a, b, storeA } = await setup();
      expect(await a.acquire()).toMatchObject({ ok: true, token: 1, expiresAt: 1_100 });
      expect(await b.acquire()).toEqual({ ok: false, held: { owner: 'A', token: 1, acquiredAt: 1_000, expiresAt: 1_100 } });
      clock.advance(90);
      expect(await a.renew()).toBe(1_190);
      clock.advance(90);
      expect((await b.acquire()).ok).toBe(false);
      clock.advance(10);
      expect(await b.acquire()).toMatchObject({ ok: true, token: 2, tookOver: { owner: 'A', token: 1 } });
      expect(b.token).toBe(2);
      await expect(a.renew()).rejects.toThrow(LeaseLostError);
      expect(await readPgLease(storeA.pool, scope)).toMatchObject({ owner: 'B', token: 2 });
      expect(await new PostgresTaskLease(storeA.pool, { ...scope, taskId: 'u' }, 'A', { ttlMs: 100, now: clock.now }).acquire()).toMatchObject({ ok: true, token: 1 });
    });

    it('a released lease is free at once; a release after losing the lease leaves the new holder alone', async () => {
      const { scope, clock, a, b, storeA } = await setup();
      await a.acquire();
      await a.release();
      expect(await b.acquire()).toMatchObject({ ok: true, token: 2 });
      expect(await b.acquire()).toMatchObject({ ok: true, token: 3 });
      clock.advance(200);
      expect(await a.acquire()).toMatchObject({ ok: true, token: 4, tookOver: { owner: 'B' } });
      await b.release();
      const c = new PostgresTaskLease(storeA.pool, scope, 'C', { ttlMs: 100, now: clock.now });
      expect(await c.acquire()).toMatchObject({ ok: false, held: { owner: 'A', token: 4 } });
    });

    it('fencing: every write of a store fenced with a lost lease is refused (LeaseLost, 409) and changes nothing', async () => {
      const { scope, clock, a, b, storeA, storeB } = await setup();
      await a.acquire();
      storeA.fence(a);
      expect((await storeA.handle(tsSet(scope, 'k', '"from A"'))).type).toBe('ts.set.ok');
      clock.advance(100);
      await b.acquire();
      storeB.fence(b);
      for (const m of [tsSet(scope, 'k', '"zombie"'), tsSet(scope, 'new', '"zombie"'), tsDelete(scope, 'k')]) {
        const r = await storeA.handle(m);
        expect([r.type, r.code, r.status]).toEqual([`${m.type}.error`, ErrorCode.LeaseLost, 409]);
        expect(String(r.message)).toContain("taken over by 'B'");
      }
      expect((await storeA.handle({ type: 'ts.clear', scope })).code).toBe(ErrorCode.LeaseLost);
      expect((await storeA.handle({ type: 'ts.cleanup', scope, keys: ['k'] })).code).toBe(ErrorCode.LeaseLost);
      expect(await storeA.handle(tsGet(scope, 'k'))).toMatchObject({ type: 'ts.get.ok', found: true, value: '"from A"' });
      expect(await storeB.handle(tsGet(scope, 'new'))).toMatchObject({ type: 'ts.get.ok', found: false });
      expect((await storeB.handle(tsSet(scope, 'k', '"from B"'))).type).toBe('ts.set.ok');
      expect(await storeA.handle(tsGet(scope, 'k'))).toMatchObject({ value: '"from B"' });
    });

    it('a take-over racing a stream of fenced writes: no write of the old token commits after the take-over', async () => {
      const { scope, clock, a, b, storeA } = await setup();
      await a.acquire();
      storeA.fence(a);
      clock.advance(100);
      // A writes keys 0..39 concurrently while B takes over; every acknowledged write of A
      // must be ordered before the take-over, so none is newer than B's first write.
      const writes = Array.from({ length: 40 }, (_, i) => storeA.handle(tsSet(scope, `w${i}`, String(i))));
      const takeover = b.acquire();
      const results = await Promise.all(writes);
      expect(await takeover).toMatchObject({ ok: true, token: 2 });
      const acked = results.filter((r) => r.type === 'ts.set.ok').length;
      const refused = results.filter((r) => r.code === ErrorCode.LeaseLost).length;
      expect(acked + refused).toBe(40);
      const after = await Promise.all(Array.from({ length: 5 }, (_, i) => storeA.handle(tsSet(scope, `late${i}`, '1'))));
      expect(after.every((r) => r.code === ErrorCode.LeaseLost)).toBe(true);
      const stored = (await storeA.pool.query('SELECT count(*)::int AS n FROM task_state WHERE run_id = $1', [scope.runId])).rows[0]!.n;
      expect(stored).toBe(acked);
    });

    it('a holder paused inside a fenced write does not block the take-over past its lease, and its write does not land', async () => {
      const { scope, clock, a, b, storeA } = await setup();
      await storeA.open();
      await a.acquire();
      clock.advance(100);
      // A holds the lease row FOR SHARE, then stalls (a pause) before writing and committing.
      const stalled = inTransaction(
        storeA.pool,
        async (c) => {
          await checkPgFence(c, scope, a.token);
          await new Promise((r) => setTimeout(r, 1_500));
          await c.query("INSERT INTO task_state VALUES ($1, $2, $3, $4, 'late', '1', NULL)", [scope.dagId, scope.runId, scope.taskId, scope.mapIndex]);
        },
        300,
      );
      const settled = stalled.then(
        () => 'committed',
        () => 'failed',
      );
      // Without the idle limit this waits for A's transaction, i.e. for as long as A is paused.
      expect(await b.acquire()).toMatchObject({ ok: true, token: 2 });
      expect(await settled).toBe('failed');
      expect(await storeA.handle(tsGet(scope, 'late'))).toMatchObject({ found: false });
    });

    it('the database clock by default; bad options refused; a bad URL says what to write', async () => {
      const { scope, storeA } = await setup();
      const real = new PostgresTaskLease(storeA.pool, { ...scope, taskId: 'clock' }, 'A', { ttlMs: 60_000 });
      const r = await real.acquire();
      expect(r.ok && Math.abs(r.expiresAt - 60_000 - Date.now()) < 60_000).toBe(true);
      expect(() => new PostgresTaskLease(storeA.pool, scope, 'A', { ttlMs: 0 })).toThrow(/ttlMs must be > 0/);
      expect(() => new PostgresTaskLease(storeA.pool, scope, '')).toThrow(/owner id/);
      expect(() => new PostgresTaskStateStore('mysql://x')).toThrow(/postgres:\/\/user@host:port\/database/);
    });
  });
});
