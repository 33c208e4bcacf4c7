// The iterable task, live: the same scenario with `work` and `store` swapped for
// real I/O. The store is src/storage/live's SQLite task state store (better-sqlite3,
// WAL): a `ts.set` is acknowledged only after its transaction committed, so an
// acknowledged checkpoint survives a kill. The worker logs every run in a `runs`
// table of the same file (the kill test reads it).
import Database from 'better-sqlite3';
import type { Message } from 'interleave';
import { runLive, SqliteTaskLease, SqliteTaskStateStore, useWal, type ExternalHandler, type LiveOptions, type LiveSystem } from 'interleave/live';
import { iterableTaskScenario, outcomeOf } from './scenario.ts';
import { SCOPE, type TaskInput } from './machine.ts';
import type { HeldLease } from './lease.ts';

type Db = Database.Database;

function open(file: string): Db {
  const db = new Database(file);
  useWal(db);
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

/** The SQLite task state store of src/storage/live, counting the writes it acknowledged. */
export function sqliteTaskState(file: string, lease?: HeldLease): { store: SqliteTaskStateStore; handle: ExternalHandler; writes: () => number } {
  const store = new SqliteTaskStateStore(file);
  if (lease) {
    if (!(lease.lease instanceof SqliteTaskLease)) throw new Error('the minimal machine runs on SQLite only: its lease must be in the same file');
    store.fence(lease.lease);
  }
  let writes = 0;
  const handle: ExternalHandler = async (msg, from) => {
    const reply = await store.handle(msg);
    if (reply.type === 'ts.set.ok') writes++;
    if (reply.code === 'LeaseLost') lease?.markLost(String(reply.message));
    return [{ to: from, msg: reply }];
  };
  return { store, handle, writes: () => writes };
}

/** The worker: runs an index for real (a hash, after `workMs` of waiting), logging the run first. */
export function worker(db: Db, attempt: number, workMs: number): ExternalHandler {
  db.exec('CREATE TABLE IF NOT EXISTS runs (idx INTEGER NOT NULL, attempt INTEGER NOT NULL)');
  const log = db.prepare('INSERT INTO runs (idx, attempt) VALUES (?, ?)');
  return async (msg: Message, from: string) => {
    const i = msg.index as number;
    await new Promise((r) => (workMs > 0 ? setTimeout(r, workMs) : setImmediate(r)));
    log.run(i, attempt);
    return [{ to: from, msg: { type: 'ran', index: i, value: outcomeOf(i) } }];
  };
}

export interface LiveTaskOptions extends TaskInput {
  readonly db: string;
  readonly workMs?: number;
  /** Log every run in the `runs` table (default true; the benchmark turns it off). */
  readonly logRuns?: boolean;
  readonly live?: LiveOptions;
  /** The task's lease (lease.ts): every state-store write is fenced with it. */
  readonly lease?: HeldLease;
}

/** One started try of the task, with either model: its live system, its try number, its end. */
export interface TaskRun<End> {
  readonly system: LiveSystem;
  /** The try number: this process start, counted durably in the file. */
  readonly attempt: number;
  readonly finished: Promise<End>;
  /** State-store writes acknowledged so far. */
  readonly writes: () => number;
  close(): Promise<void>;
}

/** `finished` resolves with the task's last output (`complete`, `already-complete` or `failed`). */
export type LiveTask = TaskRun<Message>;

/** Counts a process start in the file's `attempts` table: the try number (1 on a fresh file). */
export function countAttempt(db: Db): number {
  db.exec('CREATE TABLE IF NOT EXISTS attempts (attempt INTEGER PRIMARY KEY AUTOINCREMENT, started TEXT NOT NULL)');
  return Number(db.prepare('INSERT INTO attempts (started) VALUES (?)').run(new Date().toISOString()).lastInsertRowid);
}

/** Starts one attempt of the task on the SQLite file `db`. */
export function startIterableTask(o: LiveTaskOptions): LiveTask {
  const db = open(o.db);
  const attempt = countAttempt(db);
  const store = sqliteTaskState(o.db, o.lease);
  const work = o.logRuns === false ? (async (msg: Message, from: string) => [{ to: from, msg: { type: 'ran', index: msg.index, value: outcomeOf(msg.index as number) } }]) : worker(db, attempt, o.workMs ?? 0);
  const sc = iterableTaskScenario({ n: o.n, w: o.w, ...(o.perIndex ? { perIndex: true } : {}), ...(o.progressEvery ? { progressEvery: o.progressEvery } : {}) });
  const system = runLive(sc, { timeScale: 0, ...o.live, externals: { store: store.handle, work: { handle: work, concurrency: o.w } } });
  const finished = new Promise<Message>((resolve, reject) => {
    system.events$.subscribe({
      next: (e) => {
        if (e.kind === 'output' && ['complete', 'already-complete', 'failed'].includes(e.msg.type)) resolve(e.msg);
      },
      error: reject,
    });
  });
  return {
    system,
    attempt,
    finished,
    writes: store.writes,
    async close() {
      await system.stop();
      store.store.db.close();
      db.close();
    },
  };
}

/** What a task state file holds: the checkpoint keys and values of `scope`, and the runs log. */
export function readTaskDb(file: string, scope: typeof SCOPE = SCOPE): { kv: Record<string, string>; runs: { idx: number; attempt: number }[]; attempts: number } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const has = (t: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) !== undefined;
    const kv: Record<string, string> = {};
    if (has('task_state')) {
      for (const r of db.prepare('SELECT key, value FROM task_state WHERE dag_id = ? AND run_id = ? AND task_id = ? AND map_index = ?').all(scope.dagId, scope.runId, scope.taskId, scope.mapIndex) as { key: string; value: string }[]) kv[r.key] = r.value;
    }
    const runs = has('runs') ? (db.prepare('SELECT idx, attempt FROM runs ORDER BY rowid').all() as { idx: number; attempt: number }[]) : [];
    const attempts = has('attempts') ? (db.prepare('SELECT COUNT(*) AS n FROM attempts').get() as { n: number }).n : 0;
    return { kv, runs, attempts };
  } finally {
    db.close();
  }
}
