// One process per task: a lease row in the task state store's SQLite file. A process
// takes the lease of its task scope before it runs (in a `BEGIN IMMEDIATE`
// transaction, so two processes starting at once are serialised by SQLite), renews
// it while it runs (heartbeat), and releases it at the end. A process that crashed
// stops renewing: its lease expires after `ttlMs` and the next process takes over.
//
// Every take-over increments the lease's token (a fencing token). The store checks
// the token of its process in the same transaction as every write
// (`SqliteTaskStateStore.fence`), so a process that lost its lease (a zombie: paused,
// then resumed after another process took over) cannot overwrite anything.
//
// Time comes from `now` (real time by default): the lease is an external's state,
// never a machine's.
import type { SqliteDatabase } from './sqlite-task-state.ts';
import type { TaskScope } from '../messages.ts';

/** Options of `SqliteTaskLease`. */
export interface LeaseOptions {
  /** How long a lease lasts without a renewal, ms (default 10,000). */
  readonly ttlMs?: number;
  /** The clock, ms (default `Date.now`); tests pass their own. */
  readonly now?: () => number;
}

/** The lease as stored: its holder, its fencing token, when it was taken and when it expires (ms). */
export interface LeaseRow {
  /** The holder's id. */
  readonly owner: string;
  /** The fencing token: bumped at every acquisition. */
  readonly token: number;
  /** When it was taken, ms since the epoch. */
  readonly acquiredAt: number;
  /** When it expires unless renewed, ms since the epoch. */
  readonly expiresAt: number;
}

/** The outcome of an acquisition: the lease with its token, or who holds it. */
export type AcquireResult =
  | {
      /** Acquired. */
      readonly ok: true;
      /** The fencing token this process now holds. */
      readonly token: number;
      /** When the lease expires unless renewed, ms since the epoch. */
      readonly expiresAt: number;
      /** The holder whose lease had expired, if any. */
      readonly tookOver?: LeaseRow;
    }
  | {
      /** Another process holds a lease that has not expired. */
      readonly ok: false;
      /** That lease. */
      readonly held: LeaseRow;
    };

/** A write or renewal by a process whose lease another process has taken since. */
export class LeaseLostError extends Error {
  /** Always `'LeaseLostError'`. */
  override name = 'LeaseLostError';
}

const SCOPE_COLS = 'dag_id = ? AND run_id = ? AND task_id = ? AND map_index = ?';

/** Creates the lease table if missing (idempotent). */
export function ensureLeaseTable(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE IF NOT EXISTS task_lease (
    dag_id TEXT NOT NULL, run_id TEXT NOT NULL, task_id TEXT NOT NULL, map_index INTEGER NOT NULL,
    owner TEXT NOT NULL, token INTEGER NOT NULL, acquired_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
    PRIMARY KEY (dag_id, run_id, task_id, map_index))`);
}

type RawRow = { owner: string; token: number; acquired_at: number; expires_at: number };
// Per connection: the lease table exists and its read is prepared once (a fenced write reads it every time).
const reads = new WeakMap<SqliteDatabase, { get(...p: unknown[]): unknown }>();

function leaseRead(db: SqliteDatabase) {
  let st = reads.get(db);
  if (st === undefined) {
    ensureLeaseTable(db);
    st = db.prepare(`SELECT owner, token, acquired_at, expires_at FROM task_lease WHERE ${SCOPE_COLS}`);
    reads.set(db, st);
  }
  return st;
}

/** The lease row of `scope`, if one was ever taken (a released lease has an empty owner). */
export function readLease(db: SqliteDatabase, scope: TaskScope): LeaseRow | undefined {
  const r = leaseRead(db).get(scope.dagId, scope.runId, scope.taskId, scope.mapIndex) as RawRow | undefined;
  return r && { owner: r.owner, token: r.token, acquiredAt: r.acquired_at, expiresAt: r.expires_at };
}

/** The token a write by the holder of `token` must still find: throws `LeaseLostError` otherwise. Call inside the write's transaction. */
export function checkFence(db: SqliteDatabase, scope: TaskScope, token: number): void {
  const cur = leaseRead(db).get(scope.dagId, scope.runId, scope.taskId, scope.mapIndex) as RawRow | undefined;
  if (cur?.token !== token) {
    const by = cur?.owner ? `'${cur.owner}'` : 'another process';
    throw new LeaseLostError(`the task's lease was taken over by ${by} (token ${cur?.token ?? 'none'}, this process holds token ${token}): the write is refused`);
  }
}

/** The lease of one task scope, held by `owner`. */
export class SqliteTaskLease {
  /** How long a lease lasts without a renewal, ms. */
  readonly ttlMs: number;
  private readonly now: () => number;
  private held = 0;

  constructor(
    /** The database holding the lease table (the task state store's, so writes can be fenced in one transaction). */
    readonly db: SqliteDatabase,
    /** The task the lease is for. */
    readonly scope: TaskScope,
    /** This process's id. */
    readonly owner: string,
    opts: LeaseOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 10_000;
    this.now = opts.now ?? Date.now;
    if (!(this.ttlMs > 0)) throw new Error(`lease: ttlMs must be > 0, got ${String(opts.ttlMs)}`);
    if (owner === '') throw new Error('lease: the owner id must not be empty');
    ensureLeaseTable(db);
  }

  /** The fencing token this process holds (0 before it acquired). */
  get token(): number {
    return this.held;
  }

  /** Takes the lease if it is free, expired, or already this owner's; else says who holds it until when. */
  acquire(): AcquireResult {
    const s = this.scope;
    return this.db
      .transaction((): AcquireResult => {
        const now = this.now();
        const cur = readLease(this.db, s);
        if (cur && cur.owner !== '' && cur.owner !== this.owner && cur.expiresAt > now) return { ok: false, held: cur };
        const token = (cur?.token ?? 0) + 1;
        const expiresAt = now + this.ttlMs;
        this.db
          .prepare(
            'INSERT INTO task_lease (dag_id, run_id, task_id, map_index, owner, token, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dag_id, run_id, task_id, map_index) DO UPDATE SET owner = excluded.owner, token = excluded.token, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at',
          )
          .run(s.dagId, s.runId, s.taskId, s.mapIndex, this.owner, token, now, expiresAt);
        this.held = token;
        const tookOver = cur && cur.owner !== '' && cur.owner !== this.owner ? cur : undefined;
        return tookOver ? { ok: true, token, expiresAt, tookOver } : { ok: true, token, expiresAt };
      })
      .immediate();
  }

  /** Extends the lease by `ttlMs` (the heartbeat). Throws `LeaseLostError` when another process took it. */
  renew(): number {
    const s = this.scope;
    return this.db
      .transaction(() => {
        checkFence(this.db, s, this.held);
        const expiresAt = this.now() + this.ttlMs;
        this.db.prepare(`UPDATE task_lease SET expires_at = ? WHERE ${SCOPE_COLS}`).run(expiresAt, s.dagId, s.runId, s.taskId, s.mapIndex);
        return expiresAt;
      })
      .immediate();
  }

  /** Gives the lease up (the next process takes it at once); a lease lost meanwhile is left alone. */
  release(): void {
    if (this.held === 0) return;
    const s = this.scope;
    this.db
      .prepare(`UPDATE task_lease SET owner = '', expires_at = 0 WHERE ${SCOPE_COLS} AND token = ?`)
      .run(s.dagId, s.runId, s.taskId, s.mapIndex, this.held);
    this.held = 0;
  }
}
