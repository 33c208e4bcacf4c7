// The iterable task with the full Airflow model (src/machines/airflow: the task
// process with its round writer, checkpoint reader and request channel, exactly as
// `interleave check airflow-checkpoints` explores it), run live on SQLite, or on
// PostgreSQL and an S3 endpoint shared by several hosts (--pg, --s3).
//
// Live, two actors of the model are real I/O:
// - `supervisor`: the Airflow supervisor + API server. Each request frame becomes one
//   call on src/storage/live's task state store (or the XCom table), and one
//   response frame goes back, as in the model (values are JSON, entries as stored).
// - `runner`: the scheduler. A process start is a new try: `Hello` is answered with
//   `Start { a }`, the try number counted durably in the database (`attempts`); `End`
//   ends the run.
// The indexed tasks run in the task process (the model's operator delay, opMs); each
// start is logged (`runs`: a table, or with --s3 an object `runs/<try>/<index>`).
import Database from 'better-sqlite3';
import type { Message } from 'interleave';
import { runLive, SqliteTaskLease, SqliteTaskStateStore, PostgresTaskStateStore, PostgresTaskLease, LeaseLostError, checkFence, checkPgFence, useWal, type ExternalHandler, type S3ObjectStore } from 'interleave/live';
import { AIRFLOW_SCOPE as SCOPE, buildAirflow, type AirflowConfig } from 'interleave/machines';

type Design = AirflowConfig['design'];
import { countAttempt, type TaskRun } from './live.ts';
import type { HeldLease } from './lease.ts';

export { SCOPE as AIRFLOW_SCOPE };

export interface AirflowTaskOptions {
  readonly n: number;
  readonly w: number;
  readonly db: string;
  readonly design?: Design;
  /** Virtual ms an indexed task takes (default 0). */
  readonly opMs?: number;
  readonly record?: boolean;
  /** The task's lease (lease.ts): every state-store write is fenced with it. */
  readonly lease?: HeldLease;
}

/** `finished` resolves with the try's end state (`success`, `up_for_retry`, ...). */
export interface AirflowTask extends TaskRun<string> {
  /** The task state keys and values this try found at its start (what a resumed run resumes from). */
  readonly found: Readonly<Record<string, unknown>>;
}

/** Where one try keeps its state: the task state store, the try counter, XComs and the runs log. */
interface AirflowBackend {
  readonly attempt: number;
  readonly found: Record<string, unknown>;
  /** Answers a ts.* request (fenced writes). */
  state(msg: Message): Promise<Message>;
  /** Pushes an XCom; throws LeaseLostError when the lease was taken over. */
  setXcom(key: string, a: number, value: unknown): Promise<void>;
  /** Logs the start of an indexed task of this try. */
  logRun(i: number): void;
  close(): Promise<void>;
}

/** The supervisor's relay, live: frames in, one store call each, frames out. */
function supervisor(b: AirflowBackend, counted: { writes: number }, lease?: HeldLease): ExternalHandler {
  return async (m: Message, from: string) => {
    const a = m.a as number;
    const rid = m.rid as number;
    const frame = (msg: Message) => [{ to: from, msg }];
    if (m.type === 'SetXCom') {
      try {
        // Fenced like the state store's writes: a process that lost the lease pushes nothing.
        await b.setXcom(m.key as string, a, m.value ?? null);
      } catch (e) {
        if (!(e instanceof LeaseLostError)) throw e;
        lease?.markLost(e.message);
        return frame({ type: 'ErrorResponse', a, rid, error: 'LeaseLost' });
      }
      return frame({ type: 'OKResponse', a, rid });
    }
    const req =
      m.type === 'GetTaskStateStore' ? { type: 'ts.get', scope: SCOPE, key: m.key }
      : m.type === 'SetTaskStateStore' ? { type: 'ts.set', scope: SCOPE, key: m.key, value: JSON.stringify(m.value), expiresAt: null }
      : undefined;
    if (!req) return frame({ type: 'ErrorResponse', a, rid, error: `unsupported request ${m.type}` });
    const r = await b.state(req as Message);
    if (r.type === 'ts.get.ok') return frame(r.found ? { type: 'TaskStateStoreResult', a, rid, value: JSON.parse(r.value as string) } : { type: 'ErrorResponse', a, rid, error: 'TASK_STORE_NOT_FOUND' });
    if (r.type.endsWith('.error')) {
      if (r.code === 'LeaseLost') lease?.markLost(String(r.message));
      return frame({ type: 'ErrorResponse', a, rid, error: String(r.code) });
    }
    counted.writes++;
    return frame({ type: 'OKResponse', a, rid });
  };
}

/** The SQLite file `file`: state, lease, tries, XComs and runs in one file. */
function sqliteBackend(file: string, lease?: HeldLease): AirflowBackend {
  const db = new Database(file);
  useWal(db);
  db.pragma('busy_timeout = 5000');
  const attempt = countAttempt(db);
  db.exec('CREATE TABLE IF NOT EXISTS runs (idx INTEGER NOT NULL, attempt INTEGER NOT NULL)');
  db.exec('CREATE TABLE IF NOT EXISTS xcom (key TEXT PRIMARY KEY, try INTEGER NOT NULL, value TEXT NOT NULL)');
  const logRun = db.prepare('INSERT INTO runs (idx, attempt) VALUES (?, ?)');
  const xset = db.prepare('INSERT INTO xcom (key, try, value) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET try = excluded.try, value = excluded.value');
  const store = new SqliteTaskStateStore(file);
  const l = lease?.lease;
  if (l !== undefined && !(l instanceof SqliteTaskLease)) throw new Error('a SQLite task state store is fenced by a lease in the same file');
  if (l) store.fence(l);
  // What this try starts from (with the lease held, nobody else writes meanwhile): recorded, so replay starts there too.
  const found: Record<string, unknown> = {};
  const rows = store.db.prepare('SELECT key, value FROM task_state WHERE dag_id = ? AND run_id = ? AND task_id = ? AND map_index = ? ORDER BY key').all(SCOPE.dagId, SCOPE.runId, SCOPE.taskId, SCOPE.mapIndex) as { key: string; value: string }[];
  for (const r of rows) found[r.key] = JSON.parse(r.value);
  return {
    attempt,
    found,
    state: (msg) => store.handle(msg),
    async setXcom(key, a, value) {
      db.transaction(() => {
        if (l) checkFence(db, SCOPE, l.token);
        xset.run(key, a, JSON.stringify(value));
      }).immediate();
    },
    logRun: (i) => void logRun.run(i, attempt),
    async close() {
      store.db.close();
      db.close();
    },
  };
}

/** PostgreSQL (state, lease, tries, XComs, and runs unless `runs` is given) through `store`'s pool. */
async function pgBackend(store: PostgresTaskStateStore, lease: HeldLease | undefined, runs: S3ObjectStore | undefined): Promise<AirflowBackend> {
  const pool = store.pool;
  await store.open();
  await pool.query('CREATE TABLE IF NOT EXISTS attempts (attempt SERIAL PRIMARY KEY, started TEXT NOT NULL)').catch(() => undefined);
  await pool.query('CREATE TABLE IF NOT EXISTS runs (idx INTEGER NOT NULL, attempt INTEGER NOT NULL)').catch(() => undefined);
  await pool.query('CREATE TABLE IF NOT EXISTS xcom (key TEXT PRIMARY KEY, try INTEGER NOT NULL, value TEXT NOT NULL)').catch(() => undefined);
  const attempt = Number((await pool.query('INSERT INTO attempts (started) VALUES ($1) RETURNING attempt', [new Date().toISOString()])).rows[0]!.attempt);
  const l = lease?.lease;
  if (l !== undefined && !(l instanceof PostgresTaskLease)) throw new Error('a PostgreSQL task state store is fenced by a lease in the same database');
  if (l) store.fence(l);
  const found: Record<string, unknown> = {};
  const rows = (await pool.query('SELECT key, value FROM task_state WHERE dag_id = $1 AND run_id = $2 AND task_id = $3 AND map_index = $4 ORDER BY key', [SCOPE.dagId, SCOPE.runId, SCOPE.taskId, SCOPE.mapIndex])).rows;
  for (const r of rows) found[String(r.key)] = JSON.parse(String(r.value));
  // Run logs are written as they happen and awaited at the end (a kill may lose the last few).
  const pending = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    const q = p.catch(() => undefined).finally(() => pending.delete(q));
    pending.add(q);
  };
  const enc = new TextEncoder();
  let closed = false;
  return {
    attempt,
    found,
    state: (msg) => store.handle(msg),
    async setXcom(key, a, value) {
      const c = await pool.connect();
      const ignore = () => undefined;
      (c as unknown as NodeJS.EventEmitter).on('error', ignore);
      try {
        await c.query('BEGIN');
        // As the store's fenced writes: a process paused in here cannot hold the lease row past its lease.
        if (l) await c.query(`SET LOCAL idle_in_transaction_session_timeout = ${l.ttlMs}`);
        if (l) await checkPgFence(c, SCOPE, l.token);
        await c.query('INSERT INTO xcom (key, try, value) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET try = excluded.try, value = excluded.value', [key, a, JSON.stringify(value)]);
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        (c as unknown as NodeJS.EventEmitter).off('error', ignore);
        c.release();
      }
    },
    logRun: (i) => track(runs ? runs.put(`runs/${attempt}/${i}`, enc.encode(String(i))) : pool.query('INSERT INTO runs (idx, attempt) VALUES ($1, $2)', [i, attempt])),
    async close() {
      if (closed) return;
      closed = true;
      // The store and the runs log belong to the caller (the lease lives on the store's pool).
      await Promise.all(pending);
    },
  };
}

/** Starts one try of the task on the SQLite file `db` (the try number is the process start count). */
export function startAirflowTask(o: AirflowTaskOptions): AirflowTask {
  return startOn(sqliteBackend(o.db, o.lease), o);
}

/** Starts one try of the task on PostgreSQL (`store`), with the runs log in `runs` (an S3 store) when given; closing the try leaves both open. */
export async function startAirflowTaskPg(o: Omit<AirflowTaskOptions, 'db'> & { readonly store: PostgresTaskStateStore; readonly runs?: S3ObjectStore }): Promise<AirflowTask> {
  return startOn(await pgBackend(o.store, o.lease, o.runs), o);
}

function startOn(b: AirflowBackend, o: Omit<AirflowTaskOptions, 'db'>): AirflowTask {
  const counted = { writes: 0 };
  // The model with the guards the seed lacks (H2 stale batches, H6 marker after a kill): a real deployment wants them.
  const sc = buildAirflow({ items: o.n, W: o.w, design: o.design ?? 'per-round', opMs: o.opMs ?? 0, properties: false, staleGuard: true, markerGuard: true, tries: 1_000_000 });
  let end: (s: string) => void = () => {};
  const finished = new Promise<string>((resolve) => (end = resolve));
  const runner: ExternalHandler = (m) => {
    if (m.type === 'Hello') return [{ to: 'task', msg: { type: 'Start', a: b.attempt } }];
    if (m.type === 'End') end(String(m.state));
    return [];
  };
  const system = runLive(sc, {
    timeScale: 0,
    record: o.record ?? false,
    detail: false,
    slice: 256,
    externals: { supervisor: supervisor(b, counted, o.lease), runner },
  });
  // An indexed task starts: logged before it can be reported (the kill tests read it).
  system.events$.subscribe({
    next: (e) => {
      if (e.kind === 'output' && e.msg.type === 'Run') b.logRun(e.msg.i as number);
    },
    error: () => {},
  });
  return {
    system,
    attempt: b.attempt,
    found: b.found,
    finished,
    writes: () => counted.writes,
    async close() {
      await system.stop();
      await b.close();
    },
  };
}
