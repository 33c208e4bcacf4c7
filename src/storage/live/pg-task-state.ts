// The live task state store on PostgreSQL (node-postgres): the table of
// sqlite-task-state.ts, the same size checks (over `maxValueStorageBytes` warns and
// writes, over `rowCapBytes` fails ValueTooLarge), and writes fenced by a
// PostgresTaskLease in their own transaction. A `ts.set` is acknowledged after its
// COMMIT, so an acknowledged checkpoint survives a kill of this process.
import type { ExternalHandler } from '../../actors/index.ts';
import type { Message } from '../../actors/types.ts';
import { DEFAULT_MAX_VALUE_STORAGE_BYTES, MYSQL_MEDIUMTEXT_BYTES, type TaskScope } from '../messages.ts';
import { answerTaskState, taskStateHandler, valueSizeCheck, type TaskStateBackendApi } from './task-state-api.ts';
import { checkPgFence, type PostgresTaskLease } from './pg-lease.ts';
import { ensureSchema, inTransaction, openPgPool, type PgPool, type PgQueryable } from './pg-connection.ts';
import type { SqliteTaskStateOptions } from './sqlite-task-state.ts';

/** Options of `PostgresTaskStateStore`: those of the SQLite store (size limits, warnings), and the pool size. */
export interface PostgresTaskStateOptions extends SqliteTaskStateOptions {
  /** Connections in the pool it opens from a URL (default 4). */
  readonly poolSize?: number;
}

/** The task state table's DDL (idempotent). */
export const PG_TASK_STATE_DDL = `CREATE TABLE IF NOT EXISTS task_state (
  dag_id TEXT NOT NULL, run_id TEXT NOT NULL, task_id TEXT NOT NULL, map_index INTEGER NOT NULL,
  key TEXT NOT NULL, value TEXT NOT NULL, expires_at BIGINT,
  PRIMARY KEY (dag_id, run_id, task_id, map_index, key))`;

const SCOPE = 'dag_id = $1 AND run_id = $2 AND task_id = $3 AND map_index = $4';
const sp = (s: TaskScope) => [s.dagId, s.runId, s.taskId, s.mapIndex];

/** The live task state store on PostgreSQL: `SqliteTaskStateStore`'s contract on a database every host reaches. */
export class PostgresTaskStateStore implements TaskStateBackendApi {
  /** The connection pool (give it to `PostgresTaskLease`, so writes can be fenced). */
  readonly pool: PgPool;
  /** The warning threshold in effect, bytes. */
  readonly maxValueStorageBytes: number;
  /** The row cap in effect, bytes. */
  readonly rowCapBytes: number;
  private readonly onWarning: SqliteTaskStateOptions['onWarning'];
  private readonly ownsPool: boolean;
  private fencedBy: PostgresTaskLease | undefined;
  private ready: Promise<void> | undefined;

  /** Opens a pool on `connection` (postgres://user:pass@host:port/db), or uses the pool given. The table is created on first use. */
  constructor(connection: string | PgPool, opts: PostgresTaskStateOptions = {}) {
    this.maxValueStorageBytes = opts.maxValueStorageBytes ?? DEFAULT_MAX_VALUE_STORAGE_BYTES;
    this.rowCapBytes = opts.rowCapBytes ?? MYSQL_MEDIUMTEXT_BYTES;
    this.onWarning = opts.onWarning;
    if (typeof connection === 'string') {
      if (!/^postgres(ql)?:\/\//.test(connection)) throw new Error(`PostgresTaskStateStore: give a postgres://user@host:port/database URL, got ${JSON.stringify(connection)}`);
      this.pool = openPgPool(connection, opts.poolSize ?? 4);
      this.ownsPool = true;
    } else {
      this.pool = connection;
      this.ownsPool = false;
    }
  }

  /** The live adapter for `runLive`: answers `ts.*` requests. */
  readonly handler: ExternalHandler = taskStateHandler(this);

  /** Creates the table if missing (every operation does it first; call it to fail early on a bad connection). */
  open(): Promise<void> {
    this.ready ??= ensureSchema(this.pool, [PG_TASK_STATE_DDL]).catch((e: unknown) => {
      this.ready = undefined;
      throw e;
    });
    return this.ready;
  }

  /**
   * Fences every later write with `lease` (on this store's database): a write checks, in
   * its own transaction and holding the lease row, that the lease still has this
   * process's token, and fails with LeaseLost when another process took it over.
   */
  fence(lease: PostgresTaskLease): void {
    this.fencedBy = lease;
  }

  /** Runs a write, in a transaction with the fence check when fenced. */
  private async write<T>(f: (db: PgQueryable) => Promise<T>): Promise<T> {
    await this.open();
    const l = this.fencedBy;
    if (l === undefined) return inTransaction(this.pool, f);
    return inTransaction(
      this.pool,
      async (c) => {
        await checkPgFence(c, l.scope, l.token);
        return f(c);
      },
      l.ttlMs,
    );
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
    await this.write((db) =>
      db.query(
        'INSERT INTO task_state (dag_id, run_id, task_id, map_index, key, value, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (dag_id, run_id, task_id, map_index, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
        [...sp(scope), key, value, expiresAt],
      ),
    );
    return { key, bytes, warned };
  }

  async get(scope: TaskScope, key: string): ReturnType<TaskStateBackendApi['get']> {
    await this.open();
    const r = (await this.pool.query(`SELECT value, expires_at FROM task_state WHERE ${SCOPE} AND key = $5`, [...sp(scope), key])).rows[0];
    return { key, found: r !== undefined, value: r === undefined ? null : String(r.value), expiresAt: r?.expires_at == null ? null : Number(r.expires_at) };
  }

  async delete(scope: TaskScope, key: string): Promise<void> {
    await this.write((db) => db.query(`DELETE FROM task_state WHERE ${SCOPE} AND key = $5`, [...sp(scope), key]));
  }

  async clear(scope: TaskScope): Promise<number> {
    return this.write(async (db) => (await db.query(`DELETE FROM task_state WHERE ${SCOPE}`, sp(scope))).rowCount ?? 0);
  }

  async cleanup(opts: { before?: number; scope?: TaskScope; keys?: readonly string[] }): Promise<number> {
    return this.write(async (db) => {
      let n = 0;
      if (opts.before !== undefined) n += (await db.query('DELETE FROM task_state WHERE expires_at IS NOT NULL AND expires_at <= $1', [opts.before])).rowCount ?? 0;
      if (opts.keys && opts.scope) n += (await db.query(`DELETE FROM task_state WHERE ${SCOPE} AND key = ANY($5::text[])`, [...sp(opts.scope), [...opts.keys]])).rowCount ?? 0;
      return n;
    });
  }

  /** Closes the pool it opened (a pool given to it is left open). */
  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
