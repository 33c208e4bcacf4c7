// One process per task across hosts: the lease row of sqlite-lease.ts in PostgreSQL.
// Acquire, renew and release each run in one transaction holding the lease row
// (SELECT … FOR UPDATE); a fenced write (pg-task-state.ts) holds it FOR SHARE in its
// own transaction, so a take-over and a write by the old holder are serialised by
// the database: once a take-over has committed, no write of the old token commits.
// Those transactions end the session when idle in them longer than the lease period
// (idle_in_transaction_session_timeout), so a holder paused mid-transaction cannot
// block a take-over past its lease.
//
// Time is the database server's clock by default (one clock for every host, so
// clock skew between hosts does not shorten a lease); tests pass their own `now`.
import type { TaskScope } from '../messages.ts';
import { LeaseLostError, type AcquireResult, type LeaseOptions, type LeaseRow } from './sqlite-lease.ts';
import { ensureSchema, inTransaction, type PgPool, type PgQueryable } from './pg-connection.ts';

const SCOPE_COLS = 'dag_id = $1 AND run_id = $2 AND task_id = $3 AND map_index = $4';
const scopeParams = (s: TaskScope) => [s.dagId, s.runId, s.taskId, s.mapIndex];

/** The lease table's DDL (idempotent). */
export const PG_LEASE_DDL = `CREATE TABLE IF NOT EXISTS task_lease (
  dag_id TEXT NOT NULL, run_id TEXT NOT NULL, task_id TEXT NOT NULL, map_index INTEGER NOT NULL,
  owner TEXT NOT NULL, token BIGINT NOT NULL, acquired_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
  PRIMARY KEY (dag_id, run_id, task_id, map_index))`;

const DB_NOW = 'SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now';

function toRow(r: Record<string, unknown> | undefined): LeaseRow | undefined {
  return r && { owner: String(r.owner), token: Number(r.token), acquiredAt: Number(r.acquired_at), expiresAt: Number(r.expires_at) };
}

/** The lease row of `scope` in PostgreSQL, if one was ever taken (a released lease has an empty owner). */
export async function readPgLease(db: PgQueryable, scope: TaskScope, lock?: 'FOR UPDATE' | 'FOR SHARE'): Promise<LeaseRow | undefined> {
  const r = await db.query(`SELECT owner, token, acquired_at, expires_at FROM task_lease WHERE ${SCOPE_COLS}${lock ? ` ${lock}` : ''}`, scopeParams(scope));
  return toRow(r.rows[0]);
}

/** Inside a write's transaction: locks the lease row (FOR SHARE) and throws `LeaseLostError` unless it still has `token`. */
export async function checkPgFence(db: PgQueryable, scope: TaskScope, token: number): Promise<void> {
  const cur = await readPgLease(db, scope, 'FOR SHARE');
  if (cur?.token !== token) {
    const by = cur?.owner ? `'${cur.owner}'` : 'another process';
    throw new LeaseLostError(`the task's lease was taken over by ${by} (token ${cur?.token ?? 'none'}, this process holds token ${token}): the write is refused`);
  }
}

/** The lease of one task scope in PostgreSQL, held by `owner`: `SqliteTaskLease` across hosts (async). */
export class PostgresTaskLease {
  /** How long a lease lasts without a renewal, ms. */
  readonly ttlMs: number;
  private readonly now: (() => number) | undefined;
  private held = 0;
  private ready: Promise<void> | undefined;

  constructor(
    /** The pool of the database holding the lease table (the task state store's, so writes can be fenced in one transaction). */
    readonly pool: PgPool,
    /** The task the lease is for. */
    readonly scope: TaskScope,
    /** This process's id. */
    readonly owner: string,
    opts: LeaseOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 10_000;
    this.now = opts.now;
    if (!(this.ttlMs > 0)) throw new Error(`lease: ttlMs must be > 0, got ${String(opts.ttlMs)}`);
    if (owner === '') throw new Error('lease: the owner id must not be empty');
  }

  /** The fencing token this process holds (0 before it acquired). */
  get token(): number {
    return this.held;
  }

  private schema(): Promise<void> {
    this.ready ??= ensureSchema(this.pool, [PG_LEASE_DDL]).catch((e: unknown) => {
      this.ready = undefined;
      throw e;
    });
    return this.ready;
  }

  private async clock(db: PgQueryable): Promise<number> {
    if (this.now) return this.now();
    return Number((await db.query(DB_NOW)).rows[0]!.now);
  }

  /** Takes the lease if it is free, expired, or already this owner's; else says who holds it until when. */
  async acquire(): Promise<AcquireResult> {
    await this.schema();
    const s = this.scope;
    return inTransaction(this.pool, async (c) => {
      await c.query(`INSERT INTO task_lease (dag_id, run_id, task_id, map_index, owner, token, acquired_at, expires_at) VALUES ($1, $2, $3, $4, '', 0, 0, 0) ON CONFLICT DO NOTHING`, scopeParams(s));
      const cur = (await readPgLease(c, s, 'FOR UPDATE'))!;
      const now = await this.clock(c);
      if (cur.owner !== '' && cur.owner !== this.owner && cur.expiresAt > now) return { ok: false, held: cur } as const;
      const token = cur.token + 1;
      const expiresAt = now + this.ttlMs;
      await c.query(`UPDATE task_lease SET owner = $5, token = $6, acquired_at = $7, expires_at = $8 WHERE ${SCOPE_COLS}`, [...scopeParams(s), this.owner, token, now, expiresAt]);
      this.held = token;
      const tookOver = cur.owner !== '' && cur.owner !== this.owner ? cur : undefined;
      return tookOver ? { ok: true, token, expiresAt, tookOver } : { ok: true, token, expiresAt };
    }, this.ttlMs);
  }

  /** Extends the lease by `ttlMs` (the heartbeat). Throws `LeaseLostError` when another process took it. */
  async renew(): Promise<number> {
    const s = this.scope;
    return inTransaction(this.pool, async (c) => {
      const cur = await readPgLease(c, s, 'FOR UPDATE');
      if (cur?.token !== this.held) throw new LeaseLostError(`the task's lease was taken over by ${cur?.owner ? `'${cur.owner}'` : 'another process'} (token ${cur?.token ?? 'none'}, this process holds token ${this.held})`);
      const expiresAt = (await this.clock(c)) + this.ttlMs;
      await c.query(`UPDATE task_lease SET expires_at = $5 WHERE ${SCOPE_COLS}`, [...scopeParams(s), expiresAt]);
      return expiresAt;
    }, this.ttlMs);
  }

  /** Gives the lease up (the next process takes it at once); a lease lost meanwhile is left alone. */
  async release(): Promise<void> {
    if (this.held === 0) return;
    const s = this.scope;
    const token = this.held;
    this.held = 0;
    await this.pool.query(`UPDATE task_lease SET owner = '', expires_at = 0 WHERE ${SCOPE_COLS} AND token = $5`, [...scopeParams(s), token]);
  }
}
