// Switching a SQLite file to WAL when several processes may open it at once.
//
// `PRAGMA journal_mode = WAL` on a file still in rollback mode needs the exclusive
// lock. Two processes that both read the header first both hold a shared lock, and
// the one that asks to upgrade second gets SQLITE_BUSY at once: SQLite does not call
// the busy handler there, since waiting could deadlock. So `busy_timeout` does not
// cover it, and processes that open a new file together fail with "database is
// locked" (docs/measurements.md). `useWal` retries the switch until the timeout;
// the mode is stored in the file, so once one process has switched, the others find
// WAL already on and change nothing.
import type { SqliteDatabase } from './sqlite-task-state.ts';

/** Options of `useWal`. */
export interface UseWalOptions {
  /** How long to keep retrying a busy switch, ms (default 5,000, better-sqlite3's busy timeout). */
  readonly timeoutMs?: number;
  /** Blocks for `ms` between retries (default: a synchronous sleep); tests pass their own. */
  readonly sleep?: (ms: number) => void;
  /** The clock, ms (default `Date.now`); tests pass their own. */
  readonly now?: () => number;
}

const isBusy = (e: unknown): boolean => {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * Puts `db` in WAL mode, retrying while another connection holds the lock the switch
 * needs (see the file's comment). Safe to call on a file that is already in WAL mode.
 *
 * @throws an Error saying the file stayed locked, with SQLite's `code` and the last error as
 * `cause`, when the switch stayed busy for `timeoutMs`; any other error at once (for example
 * SQLITE_READONLY)
 */
export function useWal(db: SqliteDatabase, opts: UseWalOptions = {}): void {
  const { timeoutMs = 5000, sleep = sleepSync, now = Date.now } = opts;
  const deadline = now() + timeoutMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      if (!isBusy(e)) throw e;
      if (now() >= deadline) {
        const err = new Error(
          `could not switch the SQLite file to WAL mode: it stayed locked by another connection for ${timeoutMs} ms (${(e as Error).message}); another process is holding a long write on it, so try again when it has finished`,
          { cause: e },
        );
        throw Object.assign(err, { code: (e as { code?: unknown }).code });
      }
      sleep(wait);
    }
  }
}
