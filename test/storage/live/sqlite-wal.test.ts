// useWal on a real SQLite file: the switch to WAL fails at once with "database is
// locked" while another connection holds the write lock, whatever the busy timeout
// (two processes starting at once hit this; CI caught it in the lease test), so
// useWal retries it; it gives up with a clear error after its timeout.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
// From its module: interleave/live also loads the document store and apache-arrow.
import { useWal } from '../../../src/storage/live/sqlite-wal.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A rollback-mode file, and a second connection holding its write lock (BEGIN IMMEDIATE). */
function lockedFile(name: string): { file: string; holder: Database.Database } {
  const file = join(dir, name);
  const holder = new Database(file);
  holder.exec('CREATE TABLE t (x)');
  holder.exec('BEGIN IMMEDIATE');
  return { file, holder };
}

const journalMode = (file: string): unknown => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('journal_mode', { simple: true });
  } finally {
    db.close();
  }
};

describe('useWal: switching to WAL while another connection writes', () => {
  it('the plain pragma fails at once despite a busy timeout; useWal retries until the writer commits', () => {
    const { file, holder } = lockedFile('retry.db');
    const db = new Database(file, { timeout: 5000 });
    // Fails at once (SQLite does not call the busy handler for this lock): this is why useWal exists.
    expect(() => db.pragma('journal_mode = WAL')).toThrow(/database is locked/);
    let sleeps = 0;
    useWal(db, {
      sleep: () => {
        sleeps += 1;
        if (sleeps === 3) holder.exec('COMMIT');
      },
    });
    expect(sleeps).toBe(3);
    expect(journalMode(file)).toBe('wal');
    useWal(db); // already WAL: nothing to retry
    db.close();
    holder.close();
  });

  it('gives up after its timeout with an error that says what held it and what to do, keeping the SQLite code', () => {
    const { file, holder } = lockedFile('stuck.db');
    const db = new Database(file);
    let clock = 0;
    const waits: number[] = [];
    const run = () => useWal(db, { timeoutMs: 1000, now: () => clock, sleep: (ms) => (waits.push(ms), (clock += ms)) });
    expect(run).toThrow(/could not switch the SQLite file to WAL mode: it stayed locked by another connection for 1000 ms .*try again when it has finished/);
    expect(run).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    expect(waits.slice(0, 7)).toEqual([2, 4, 8, 16, 32, 64, 100]); // backs off, capped
    holder.exec('ROLLBACK');
    expect(journalMode(file)).toBe('delete'); // nothing half-done
    db.close();
    holder.close();
  });
});
