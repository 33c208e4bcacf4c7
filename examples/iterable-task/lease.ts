// One process per task: the example takes its task's lease in the SQLite file (or in
// PostgreSQL with --pg, src/storage/live/pg-lease.ts)
// before it counts a try or runs anything (src/storage/live/sqlite-lease.ts), renews
// it while it runs, and releases it at the end. A second process on the same file
// refuses (exit code 75) or, with --wait, waits until the lease is released or
// expires. A process that finds its lease taken over (it was paused past the
// expiry: a zombie) stops with exit code 75; its writes were fenced meanwhile.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { TaskScope } from 'interleave/storage';
import { LeaseLostError, PostgresTaskLease, SqliteTaskLease, useWal, type LeaseRow, type PgPool } from 'interleave/live';

/** Exit code of a process that did not get its task's lease, or lost it (EX_TEMPFAIL: try again later). */
export const EXIT_LEASE = 75;
export const DEFAULT_LEASE_MS = 10_000;

export interface LeaseFlags {
  /** Lease duration without a heartbeat, ms. */
  readonly ttlMs: number;
  /** Wait for the lease instead of refusing. */
  readonly wait: boolean;
  readonly say: (s: string) => void;
}

/** The lease this process holds: its token, a promise that settles if it is lost, and `end()` to release it. */
export interface HeldLease {
  /** In the SQLite file, or in PostgreSQL (--pg). */
  readonly lease: SqliteTaskLease | PostgresTaskLease;
  /** Resolves with the reason when another process took the lease over. */
  readonly lost: Promise<string>;
  /** Reports a lost lease found elsewhere (a fenced write). */
  markLost(reason: string): void;
  /** Stops the heartbeat and releases the lease (unless lost). */
  end(): Promise<void>;
}

export const describeHolder = (h: LeaseRow, now = Date.now()): string =>
  `'${h.owner}' (token ${h.token}, taken ${new Date(h.acquiredAt).toISOString()}, expires in ${Math.max(0, h.expiresAt - now)} ms unless renewed)`;

const ownerId = () => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** Takes the task's lease in `file`, or gives who holds it (after waiting, with `wait`, until it is free). */
export async function takeLease(file: string, scope: TaskScope, f: LeaseFlags): Promise<HeldLease | { readonly held: LeaseRow }> {
  const db = new Database(file);
  useWal(db);
  db.pragma('busy_timeout = 5000');
  const lease = new SqliteTaskLease(db, scope, ownerId(), { ttlMs: f.ttlMs });
  return acquireLoop(() => lease.acquire(), f, () => hold(lease, () => db.open && db.close()), () => db.close());
}

/** Takes the task's lease in PostgreSQL (`pool`: the task state store's), as `takeLease` does in a file. */
export async function takePgLease(pool: PgPool, scope: TaskScope, f: LeaseFlags): Promise<HeldLease | { readonly held: LeaseRow }> {
  const lease = new PostgresTaskLease(pool, scope, ownerId(), { ttlMs: f.ttlMs });
  return acquireLoop(() => lease.acquire(), f, () => hold(lease, () => undefined), () => undefined);
}

async function acquireLoop(acquire: () => ReturnType<SqliteTaskLease['acquire']> | ReturnType<PostgresTaskLease['acquire']>, f: LeaseFlags, held: () => HeldLease, refused: () => void): Promise<HeldLease | { readonly held: LeaseRow }> {
  let waited = false;
  for (;;) {
    const r = await acquire();
    if (r.ok) {
      if (r.tookOver) f.say(`lease: took over from ${describeHolder(r.tookOver)}: its lease had expired (token ${r.token})`);
      else if (waited) f.say(`lease: acquired after it was released (token ${r.token})`);
      return held();
    }
    if (!f.wait) {
      refused();
      return { held: r.held };
    }
    if (!waited) f.say(`lease: waiting, held by ${describeHolder(r.held)}`);
    waited = true;
    await new Promise((res) => setTimeout(res, Math.min(250, Math.max(10, r.held.expiresAt - Date.now() + 5))));
  }
}

function hold(lease: SqliteTaskLease | PostgresTaskLease, closeDb: () => void): HeldLease {
  let lostWhy: ((s: string) => void) | undefined;
  const lost = new Promise<string>((r) => (lostWhy = r));
  let ended = false;
  const markLost = (reason: string) => {
    if (ended) return;
    ended = true;
    clearInterval(beat);
    lostWhy!(reason);
  };
  // Heartbeat: three renewals per lease duration, so one late timer does not lose it.
  const beat = setInterval(() => {
    const lostBy = (e: unknown) => (e instanceof LeaseLostError ? markLost(e.message) : markLost(`the lease could not be renewed: ${(e as Error).message}`));
    try {
      const r = lease.renew();
      if (r instanceof Promise) r.catch(lostBy);
    } catch (e) {
      lostBy(e);
    }
  }, Math.max(1, Math.floor(lease.ttlMs / 3)));
  return {
    lease,
    lost,
    markLost,
    async end() {
      if (!ended) {
        ended = true;
        clearInterval(beat);
        await lease.release();
      }
      closeDb();
    },
  };
}
