// The part of node-postgres (`pg`) the PostgreSQL adapters use, typed here so the
// package's types need no @types/pg; and the pool they open from a connection string.
// `pg` is an optional peer dependency, loaded when a store is opened from a URL.
import { createRequire } from 'node:module';

/** The result of a query: its rows and how many rows the statement touched. */
export interface PgResult {
  /** The rows returned. */
  readonly rows: Record<string, unknown>[];
  /** Rows inserted, updated or deleted (null for other statements). */
  readonly rowCount: number | null;
}

/** Something that runs a query: a pool or one connection. */
export interface PgQueryable {
  /** Runs `text` with `$1…` parameters. */
  query(text: string, params?: unknown[]): Promise<PgResult>;
}

/** One connection taken from a pool (a transaction runs on one). */
export interface PgClient extends PgQueryable {
  /** Gives the connection back to its pool. */
  release(err?: Error | boolean): void;
}

/** A `pg.Pool`: queries, connections for transactions, and `end()`. */
export interface PgPool extends PgQueryable {
  /** Takes a connection (for a transaction). */
  connect(): Promise<PgClient>;
  /** Closes every connection. */
  end(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** A pool on `connectionString` (postgres://user:pass@host:port/db), or says what to install when `pg` is missing. */
export function openPgPool(connectionString: string, max = 4): PgPool {
  let Pool: new (o: { connectionString: string; max: number }) => PgPool;
  try {
    Pool = (require('pg') as { Pool: typeof Pool }).Pool;
  } catch (e) {
    if ((e as { code?: string }).code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes("'pg'")) {
      throw new Error('the PostgreSQL adapters need the optional peer dependency pg (8.x), which is not installed: run `npm install pg` in your project');
    }
    throw e;
  }
  const pool = new Pool({ connectionString, max });
  // An idle connection the server drops must not crash the process: the next query reconnects.
  (pool as unknown as { on(ev: string, f: (e: Error) => void): void }).on('error', () => undefined);
  return pool;
}

/**
 * Runs `f` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it
 * throws. With `idleLimitMs`, the server ends the session if it sits idle inside the
 * transaction longer than that (a process paused mid-transaction), so the row locks it holds
 * do not outlive a lease; the paused process's write then fails and nothing of it lands.
 */
export async function inTransaction<T>(pool: PgPool, f: (c: PgClient) => Promise<T>, idleLimitMs?: number): Promise<T> {
  const c = await pool.connect();
  // A session the server ends while checked out reports through the pending query; its
  // 'error' event must not crash the process.
  const ev = c as unknown as { on?(e: string, f: () => void): void; off?(e: string, f: () => void): void };
  const ignore = () => undefined;
  ev.on?.('error', ignore);
  let broken: Error | undefined;
  try {
    await c.query('BEGIN');
    if (idleLimitMs !== undefined) await c.query(`SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.ceil(idleLimitMs))}`);
    const r = await f(c);
    await c.query('COMMIT');
    return r;
  } catch (e) {
    await c.query('ROLLBACK').catch((re: unknown) => (broken = re as Error));
    throw e;
  } finally {
    ev.off?.('error', ignore);
    c.release(broken);
  }
}

/** Runs `ddl` once across every process sharing the database (an advisory lock serialises concurrent first openings). */
export async function ensureSchema(pool: PgPool, ddl: readonly string[]): Promise<void> {
  await inTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(7244581302)');
    for (const s of ddl) await c.query(s);
  });
}
