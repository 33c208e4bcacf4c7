// The task lease in the SQLite file (src/storage/live/sqlite-lease.ts), on a clock
// the test moves: one holder at a time, a second owner refused until the lease
// expires or is released, every take-over a new fencing token, and writes of a
// store fenced with a lost lease refused in their own transaction.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// From their modules: interleave/storage and interleave/live also load the document store and apache-arrow.
import { ErrorCode, tsDelete, tsGet, tsSet } from '../../../src/storage/messages.ts';
import type { TaskScope } from '../../../src/storage/messages-ts.ts';
import { LeaseLostError, SqliteTaskLease, readLease } from '../../../src/storage/live/sqlite-lease.ts';
import { SqliteTaskStateStore } from '../../../src/storage/live/sqlite-task-state.ts';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
const SCOPE: TaskScope = { dagId: 'd', runId: 'r', taskId: 't', mapIndex: -1 };
const OTHER: TaskScope = { ...SCOPE, taskId: 'u' };

function setup() {
  const d = mkdtempSync(join(tmpdir(), 'interleave-lease-'));
  dirs.push(d);
  const file = join(d, 'state.db');
  let t = 1_000;
  const clock = { now: () => t, advance: (ms: number) => (t += ms) };
  const storeA = new SqliteTaskStateStore(file);
  const storeB = new SqliteTaskStateStore(file);
  const a = new SqliteTaskLease(storeA.db, SCOPE, 'A', { ttlMs: 100, now: clock.now });
  const b = new SqliteTaskLease(storeB.db, SCOPE, 'B', { ttlMs: 100, now: clock.now });
  return { file, clock, storeA, storeB, a, b };
}

describe('task lease on SQLite', () => {
  it('one holder at a time: refused while live, renewed by the heartbeat, taken over only after expiry with a new token', () => {
    const { clock, a, b, storeA } = setup();
    const ra = a.acquire();
    expect(ra).toMatchObject({ ok: true, token: 1, expiresAt: 1_100 });
    expect(b.acquire()).toEqual({ ok: false, held: { owner: 'A', token: 1, acquiredAt: 1_000, expiresAt: 1_100 } });
    clock.advance(90);
    expect(a.renew()).toBe(1_190);
    clock.advance(90); // 1,180: past the first expiry, inside the renewed one
    expect(b.acquire().ok).toBe(false);
    clock.advance(10); // 1,190: expired
    const rb = b.acquire();
    expect(rb).toMatchObject({ ok: true, token: 2, tookOver: { owner: 'A', token: 1 } });
    expect(b.token).toBe(2);
    // A's heartbeat now finds the lease gone.
    expect(() => a.renew()).toThrow(LeaseLostError);
    expect(readLease(storeA.db, SCOPE)).toMatchObject({ owner: 'B', token: 2 });
    // Another scope has its own lease.
    expect(new SqliteTaskLease(storeA.db, OTHER, 'A', { ttlMs: 100, now: clock.now }).acquire()).toMatchObject({ ok: true, token: 1 });
  });

  it('a released lease is free at once; a release after losing the lease leaves the new holder alone', () => {
    const { clock, a, b } = setup();
    a.acquire();
    a.release();
    expect(b.acquire()).toMatchObject({ ok: true, token: 2 });
    expect(b.acquire()).toMatchObject({ ok: true, token: 3 }); // the holder may re-acquire (a restart with the same owner id)
    clock.advance(200);
    expect(a.acquire()).toMatchObject({ ok: true, token: 4, tookOver: { owner: 'B' } });
    b.release(); // B lost it: no effect
    const c = new SqliteTaskLease(a.db, SCOPE, 'C', { ttlMs: 100, now: clock.now });
    expect(c.acquire()).toMatchObject({ ok: false, held: { owner: 'A', token: 4 } });
  });

  it('fencing: every write of a store fenced with a lost lease is refused (LeaseLost, 409) and changes nothing', async () => {
    const { clock, a, b, storeA, storeB } = setup();
    a.acquire();
    storeA.fence(a);
    expect((await storeA.handle(tsSet(SCOPE, 'k', '"from A"'))).type).toBe('ts.set.ok');
    clock.advance(100);
    b.acquire();
    storeB.fence(b);
    // A is now a zombie: it has not noticed, but none of its writes lands.
    for (const m of [tsSet(SCOPE, 'k', '"zombie"'), tsSet(SCOPE, 'new', '"zombie"'), tsDelete(SCOPE, 'k')]) {
      const r = await storeA.handle(m);
      expect([r.type, r.code, r.status]).toEqual([`${m.type}.error`, ErrorCode.LeaseLost, 409]);
      expect(String(r.message)).toContain("taken over by 'B'");
    }
    expect((await storeA.handle({ type: 'ts.clear', scope: SCOPE })).code).toBe(ErrorCode.LeaseLost);
    expect((await storeA.handle({ type: 'ts.cleanup', scope: SCOPE, keys: ['k'] })).code).toBe(ErrorCode.LeaseLost);
    // Reads are not fenced; the value is the last one A wrote while it held the lease.
    expect(await storeA.handle(tsGet(SCOPE, 'k'))).toMatchObject({ type: 'ts.get.ok', found: true, value: '"from A"' });
    expect(await storeB.handle(tsGet(SCOPE, 'new'))).toMatchObject({ type: 'ts.get.ok', found: false });
    // The holder writes.
    expect((await storeB.handle(tsSet(SCOPE, 'k', '"from B"'))).type).toBe('ts.set.ok');
    expect(await storeA.handle(tsGet(SCOPE, 'k'))).toMatchObject({ value: '"from B"' });
  });

  it('rejects a bad lease duration or an empty owner', () => {
    const { storeA } = setup();
    expect(() => new SqliteTaskLease(storeA.db, SCOPE, 'A', { ttlMs: 0 })).toThrow(/ttlMs must be > 0/);
    expect(() => new SqliteTaskLease(storeA.db, SCOPE, '')).toThrow(/owner id/);
  });
});
