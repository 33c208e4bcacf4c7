// The iterable task with the full Airflow model (src/machines/airflow: the task
// process with its round writer, checkpoint reader and request channel, exactly as
// `interleave check airflow-checkpoints` explores it), run live on SQLite.
//
// Live, two actors of the model are real I/O:
// - `supervisor`: the Airflow supervisor + API server. Each request frame becomes one
//   call on src/storage/live's SQLite task state store (or the XCom table), and one
//   response frame goes back, as in the model (values are JSON, entries as stored).
// - `runner`: the scheduler. A process start is a new try: `Hello` is answered with
//   `Start { a }`, the try number counted durably in the file (`attempts`); `End`
//   ends the run.
// The indexed tasks run in the task process (the model's operator delay, opMs).
import Database from 'better-sqlite3';
import type { Message } from '../../src/actors/index.ts';
import { runLive, type ExternalHandler } from '../../src/live/runner.ts';
import { buildAirflow } from '../../src/machines/airflow/scenario.ts';
import { SCOPE } from '../../src/machines/airflow/api.ts';
import type { Design } from '../../src/machines/airflow/config.ts';
import { SqliteTaskStateStore } from '../../src/storage/live/sqlite-task-state.ts';
import { LeaseLostError, checkFence } from '../../src/storage/live/sqlite-lease.ts';
import { useWal } from '../../src/storage/live/sqlite-wal.ts';
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

/** The supervisor's relay, live: frames in, one SQLite call each, frames out. */
function supervisor(store: SqliteTaskStateStore, db: Database.Database, counted: { writes: number }, lease?: HeldLease): ExternalHandler {
  db.exec('CREATE TABLE IF NOT EXISTS xcom (key TEXT PRIMARY KEY, try INTEGER NOT NULL, value TEXT NOT NULL)');
  const xset = db.prepare('INSERT INTO xcom (key, try, value) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET try = excluded.try, value = excluded.value');
  return async (m: Message, from: string) => {
    const a = m.a as number;
    const rid = m.rid as number;
    const frame = (msg: Message) => [{ to: from, msg }];
    if (m.type === 'SetXCom') {
      try {
        // Fenced like the state store's writes: a process that lost the lease pushes nothing.
        db.transaction(() => {
          if (lease) checkFence(db, SCOPE, lease.lease.token);
          xset.run(m.key as string, a, JSON.stringify(m.value ?? null));
        }).immediate();
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
    const r = await store.handle(req as Message);
    if (r.type === 'ts.get.ok') return frame(r.found ? { type: 'TaskStateStoreResult', a, rid, value: JSON.parse(r.value as string) } : { type: 'ErrorResponse', a, rid, error: 'TASK_STORE_NOT_FOUND' });
    if (r.type.endsWith('.error')) {
      if (r.code === 'LeaseLost') lease?.markLost(String(r.message));
      return frame({ type: 'ErrorResponse', a, rid, error: String(r.code) });
    }
    counted.writes++;
    return frame({ type: 'OKResponse', a, rid });
  };
}

/** Starts one try of the task on the SQLite file `db` (the try number is the process start count). */
export function startAirflowTask(o: AirflowTaskOptions): AirflowTask {
  const db = new Database(o.db);
  useWal(db);
  db.pragma('busy_timeout = 5000');
  const attempt = countAttempt(db);
  db.exec('CREATE TABLE IF NOT EXISTS runs (idx INTEGER NOT NULL, attempt INTEGER NOT NULL)');
  const logRun = db.prepare('INSERT INTO runs (idx, attempt) VALUES (?, ?)');
  const store = new SqliteTaskStateStore(o.db);
  if (o.lease) store.fence(o.lease.lease);
  // What this try starts from (with the lease held, nobody else writes meanwhile): recorded, so replay starts there too.
  const found: Record<string, unknown> = {};
  const rows = store.db.prepare('SELECT key, value FROM task_state WHERE dag_id = ? AND run_id = ? AND task_id = ? AND map_index = ? ORDER BY key').all(SCOPE.dagId, SCOPE.runId, SCOPE.taskId, SCOPE.mapIndex) as { key: string; value: string }[];
  for (const r of rows) found[r.key] = JSON.parse(r.value);
  const counted = { writes: 0 };
  // The model with the guards the seed lacks (H2 stale batches, H6 marker after a kill): a real deployment wants them.
  const sc = buildAirflow({ items: o.n, W: o.w, design: o.design ?? 'per-round', opMs: o.opMs ?? 0, properties: false, staleGuard: true, markerGuard: true, tries: 1_000_000 });
  let end: (s: string) => void = () => {};
  const finished = new Promise<string>((resolve) => (end = resolve));
  const runner: ExternalHandler = (m) => {
    if (m.type === 'Hello') return [{ to: 'task', msg: { type: 'Start', a: attempt } }];
    if (m.type === 'End') end(String(m.state));
    return [];
  };
  const system = runLive(sc, {
    timeScale: 0,
    record: o.record ?? false,
    detail: false,
    slice: 256,
    externals: { supervisor: supervisor(store, db, counted, o.lease), runner },
  });
  // An indexed task starts: logged durably before it can be reported (the kill test reads it).
  system.events$.subscribe({
    next: (e) => {
      if (e.kind === 'output' && e.msg.type === 'Run') logRun.run(e.msg.i as number, attempt);
    },
    error: () => {},
  });
  return {
    system,
    attempt,
    found,
    finished,
    writes: () => counted.writes,
    async close() {
      await system.stop();
      store.db.close();
      db.close();
    },
  };
}
