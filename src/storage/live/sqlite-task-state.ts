// The live task state store on SQLite (better-sqlite3 12): one table keyed by
// (dag_id, run_id, task_id, map_index, key), WAL mode. The same size checks as the
// simulated database backend: over `maxValueStorageBytes` warns (onWarning, and
// `warned: true` on the reply) and writes; over `rowCapBytes` fails ValueTooLarge.
// better-sqlite3 is an optional peer dependency, loaded when a store is opened, so
// importing interleave/live neither needs it nor compiles it.
import { createRequire } from 'node:module';
import type { ExternalHandler } from '../../actors/index.ts';
import type { Message } from '../../actors/types.ts';
import { DEFAULT_MAX_VALUE_STORAGE_BYTES, MYSQL_MEDIUMTEXT_BYTES, type TaskScope } from '../messages.ts';
import { answerTaskState, taskStateHandler, valueSizeCheck, type TaskStateBackendApi } from './task-state-api.ts';
import { checkFence, type SqliteTaskLease } from './sqlite-lease.ts';
import { useWal } from './sqlite-wal.ts';

/** Options of `SqliteTaskStateStore`: the size limits, and who hears of large values. */
export interface SqliteTaskStateOptions {
  /** A value larger than this calls `onWarning` and is written, bytes (default 65,535). */
  readonly maxValueStorageBytes?: number;
  /** A value larger than this is refused with ValueTooLarge, bytes (default MySQL MEDIUMTEXT's 16 MiB − 1). */
  readonly rowCapBytes?: number;
  /** Called for every value over `maxValueStorageBytes` (the write proceeds). */
  readonly onWarning?: (w: { key: string; bytes: number; limit: number; message: string }) => void;
}

type Row = { value: string; expires_at: number | null };

/** The part of a better-sqlite3 `Database` this store uses (typed here, so the package's types need no @types/better-sqlite3). */
export interface SqliteDatabase {
  /** Runs a PRAGMA. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Runs SQL statements without parameters. */
  exec(source: string): unknown;
  /** Compiles a statement. */
  prepare(source: string): SqliteStatement;
  /**
   * A transaction; `.immediate` takes the write lock at BEGIN (BEGIN IMMEDIATE).
   *
   * @typeParam F - the function run inside the transaction
   */
  transaction<F extends (...args: any[]) => any>(
    fn: F,
  ): {
    (...args: any[]): ReturnType<F>;
    /** Runs it under BEGIN IMMEDIATE. */
    immediate(...args: any[]): ReturnType<F>;
  };
  /** Closes the database. */
  close(): unknown;
}

interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

const require = createRequire(import.meta.url);

/** Opens `file` with better-sqlite3, or says what to install when it is missing. */
function openDatabase(file: string): SqliteDatabase {
  let Database: new (file: string) => SqliteDatabase;
  try {
    Database = require('better-sqlite3');
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes("'better-sqlite3'")) {
      throw new Error('SqliteTaskStateStore needs the optional peer dependency better-sqlite3 (12.x), which is not installed: run `npm install better-sqlite3` in your project (or use ObjectTaskStateStore, which needs no native module)');
    }
    throw e;
  }
  return new Database(file);
}

export class SqliteTaskStateStore implements TaskStateBackendApi {
  /** The open database. */
  readonly db: SqliteDatabase;
  /** The warning threshold in effect, bytes. */
  readonly maxValueStorageBytes: number;
  /** The row cap in effect, bytes. */
  readonly rowCapBytes: number;
  private readonly onWarning: SqliteTaskStateOptions['onWarning'];
  private fencedBy: SqliteTaskLease | undefined;
  private readonly st: { get: SqliteStatement; set: SqliteStatement; del: SqliteStatement; clear: SqliteStatement; expire: SqliteStatement };

  /** Opens (or creates) the database at `file` (`:memory:` for a throwaway one). */
  constructor(file: string, opts: SqliteTaskStateOptions = {}) {
    this.maxValueStorageBytes = opts.maxValueStorageBytes ?? DEFAULT_MAX_VALUE_STORAGE_BYTES;
    this.rowCapBytes = opts.rowCapBytes ?? MYSQL_MEDIUMTEXT_BYTES;
    this.onWarning = opts.onWarning;
    this.db = openDatabase(file);
    useWal(this.db);
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS task_state (
      dag_id TEXT NOT NULL, run_id TEXT NOT NULL, task_id TEXT NOT NULL, map_index INTEGER NOT NULL,
      key TEXT NOT NULL, value TEXT NOT NULL, expires_at INTEGER,
      PRIMARY KEY (dag_id, run_id, task_id, map_index, key))`);
    const scope = 'dag_id = ? AND run_id = ? AND task_id = ? AND map_index = ?';
    this.st = {
      get: this.db.prepare(`SELECT value, expires_at FROM task_state WHERE ${scope} AND key = ?`),
      set: this.db.prepare(
        'INSERT INTO task_state (dag_id, run_id, task_id, map_index, key, value, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dag_id, run_id, task_id, map_index, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
      ),
      del: this.db.prepare(`DELETE FROM task_state WHERE ${scope} AND key = ?`),
      clear: this.db.prepare(`DELETE FROM task_state WHERE ${scope}`),
      expire: this.db.prepare('DELETE FROM task_state WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    };
  }

  /** The live adapter for `runLive`: answers `ts.*` requests. */
  readonly handler: ExternalHandler = taskStateHandler(this);

  /**
   * Fences every later write with `lease` (which must be on this store's file): a
   * write checks, in its own transaction, that the lease still has this process's
   * token, and fails with LeaseLost when another process took it over.
   */
  fence(lease: SqliteTaskLease): void {
    this.fencedBy = lease;
  }

  /** Runs a write, checking the fence first in the same (immediate) transaction. */
  private write<T>(f: () => T): T {
    const l = this.fencedBy;
    if (l === undefined) return f();
    return this.db
      .transaction(() => {
        checkFence(this.db, l.scope, l.token);
        return f();
      })
      .immediate();
  }

  /** Answers one `ts.*` request (validated as the simulated store does). */
  handle(msg: Message): Promise<Message> {
    return answerTaskState(this, msg);
  }

  keyProblem(): string | undefined {
    return undefined;
  }

  async set(scope: TaskScope, key: string, value: string, expiresAt: number | null): ReturnType<TaskStateBackendApi['set']> {
    const size = valueSizeCheck(this, key, value, this.onWarning);
    if ('tooLarge' in size) return size;
    const { bytes, warned } = size;
    this.write(() => this.st.set.run(scope.dagId, scope.runId, scope.taskId, scope.mapIndex, key, value, expiresAt));
    return { key, bytes, warned };
  }

  async get(scope: TaskScope, key: string): ReturnType<TaskStateBackendApi['get']> {
    const r = this.st.get.get(scope.dagId, scope.runId, scope.taskId, scope.mapIndex, key) as Row | undefined;
    return { key, found: r !== undefined, value: r?.value ?? null, expiresAt: r?.expires_at ?? null };
  }

  async delete(scope: TaskScope, key: string) {
    this.write(() => this.st.del.run(scope.dagId, scope.runId, scope.taskId, scope.mapIndex, key));
  }

  async clear(scope: TaskScope) {
    return this.write(() => this.st.clear.run(scope.dagId, scope.runId, scope.taskId, scope.mapIndex).changes);
  }

  async cleanup(opts: { before?: number; scope?: TaskScope; keys?: readonly string[] }) {
    let n = 0;
    const run = () => {
      if (opts.before !== undefined) n += this.st.expire.run(opts.before).changes;
      if (opts.keys && opts.scope) {
        const s = opts.scope;
        for (const k of opts.keys) n += this.st.del.run(s.dagId, s.runId, s.taskId, s.mapIndex, k).changes;
      }
    };
    if (this.fencedBy) this.write(run);
    else this.db.transaction(run)();
    return n;
  }

  /** Closes the database. */
  close(): void {
    this.db.close();
  }
}
