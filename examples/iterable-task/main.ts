// Command line of examples/iterable-task.js.
import { startIterableTask } from './live.ts';
import { AIRFLOW_SCOPE, startAirflowTask, startAirflowTaskPg } from './airflow.ts';
import { SCOPE } from './machine.ts';
import { DEFAULT_LEASE_MS, EXIT_LEASE, describeHolder, takeLease, takePgLease, type HeldLease } from './lease.ts';
import { PostgresTaskStateStore, S3ObjectStore } from 'interleave/live';
import { parseFlags, untilDone, usageError, writeTrace } from '../cli.ts';

const USAGE = `usage: node examples/iterable-task.js --items N (--db FILE | --pg postgres://user@host:port/db [--s3 s3://bucket/prefix/?endpoint=URL]) [--concurrency W] [--per-index] [--machines airflow|minimal] [--work-ms MS] [--lease-ms MS] [--wait] [--record trace.json] [--quiet]
exit codes: 0 done, 1 the task failed, 2 bad arguments, ${EXIT_LEASE} another process holds this task's lease (or took it over)`;

export async function main(argv: string[]): Promise<number> {
  const a = parseFlags(argv, {
    items: { type: 'string', default: '5000' },
    db: { type: 'string' },
    pg: { type: 'string' },
    s3: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    'per-index': { type: 'boolean', default: false },
    machines: { type: 'string', default: 'airflow' },
    'work-ms': { type: 'string', default: '0' },
    'lease-ms': { type: 'string', default: String(DEFAULT_LEASE_MS) },
    wait: { type: 'boolean', default: false },
    record: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  }, USAGE);
  if (typeof a === 'number') return a;
  const n = Number(a.items);
  const w = Number(a.concurrency);
  const workMs = Number(a['work-ms']);
  if (!Number.isInteger(n) || n < 1) return usage(`--items must be a positive integer, got '${a.items}'`);
  if (!Number.isInteger(w) || w < 1) return usage(`--concurrency must be a positive integer, got '${a.concurrency}'`);
  if (!(workMs >= 0)) return usage(`--work-ms must be a number >= 0, got '${a['work-ms']}'`);
  const leaseMs = Number(a['lease-ms']);
  if (!Number.isInteger(leaseMs) || leaseMs < 1) return usage(`--lease-ms must be a positive whole number of ms, got '${a['lease-ms']}'`);
  const say = (s: string) => a.quiet || console.log(s);
  if (a.machines !== 'airflow' && a.machines !== 'minimal') return usage(`--machines must be airflow or minimal, got '${a.machines}'`);
  // Lease diagnostics go to stderr: stdout's first line is the try starting.
  const note = (s: string) => a.quiet || console.error(s);
  if (a.pg !== undefined) {
    if (a.db !== undefined) return usage('give --db or --pg, not both');
    if (a.machines !== 'airflow') return usage('--pg runs the airflow machines (--machines airflow)');
    let store: PostgresTaskStateStore;
    let runs: S3ObjectStore | undefined;
    try {
      store = new PostgresTaskStateStore(a.pg);
      runs = a.s3 === undefined ? undefined : S3ObjectStore.fromUrl(a.s3);
    } catch (e) {
      return usage((e as Error).message);
    }
    const where = `PostgreSQL ${redact(a.pg)}${runs ? `, runs log in S3 ${runs.bucket}/${runs.prefix}` : ''}`;
    try {
      await store.open();
      return await withLease(where, () => takePgLease(store.pool, AIRFLOW_SCOPE, { ttlMs: leaseMs, wait: a.wait, say: note }), (lease) => airflow({ ...a, where }, n, w, say, lease, { store, ...(runs ? { runs } : {}) }));
    } finally {
      await store.close().catch(() => undefined);
      await runs?.close();
    }
  }
  if (a.s3 !== undefined) return usage('--s3 (the runs log) goes with --pg');
  const db = a.db ?? './state.db';
  return withLease(db, () => takeLease(db, a.machines === 'airflow' ? AIRFLOW_SCOPE : SCOPE, { ttlMs: leaseMs, wait: a.wait, say: note }), (lease) =>
    a.machines === 'airflow' ? airflow({ ...a, db, where: db }, n, w, say, lease) : minimal({ ...a, db }, n, w, workMs, say, lease),
  );
}

/** The URL without its password. */
const redact = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

/**
 * Runs `body` holding the task's lease: refuses (exit 75) when another process
 * holds it, and stops (exit 75) when it is taken over while running.
 */
async function withLease(where: string, take: () => ReturnType<typeof takeLease>, body: (lease: HeldLease) => Promise<number>): Promise<number> {
  const held = await take();
  if ('held' in held) {
    console.error(`refused: another process holds this task's lease in ${where}: ${describeHolder(held.held)}. Run again once it has ended or its lease expired, or pass --wait (exit code ${EXIT_LEASE})`);
    return EXIT_LEASE;
  }
  let lost: string | undefined;
  // Ctrl-C or a polite kill: release the lease so the next run need not wait for it to expire
  // (acknowledged checkpoints are durable; better-sqlite3 never yields inside a transaction).
  const quit = (signal: NodeJS.Signals, code: number) => () => {
    void held.end().finally(() => {
      console.error(`${signal}: stopped, lease released`);
      process.exit(code);
    });
  };
  const onInt = quit('SIGINT', 130);
  const onTerm = quit('SIGTERM', 143);
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  try {
    return await body({ ...held, lost: held.lost.then((why) => (lost = why)) });
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    await held.end();
    if (lost !== undefined) console.error(`stopped: this process lost the task's lease: ${lost} (exit code ${EXIT_LEASE})`);
  }
}

/** Awaits the run's end, or the loss of the lease (then stops the run): `lease-lost` in that case. */
async function untilDoneOrLost<T>(finished: Promise<T>, close: () => Promise<void>, lease: HeldLease): Promise<{ readonly value: T } | undefined | 'lease-lost'> {
  const r = await Promise.race([untilDone(finished, close), lease.lost.then(() => 'lease-lost' as const)]);
  if (r === 'lease-lost') await close();
  return r;
}

type Args = { db?: string; where?: string; record?: string; 'per-index'?: boolean };

/** The full Airflow model of src/machines/airflow, live. */
async function airflow(a: Args, n: number, w: number, say: (s: string) => void, lease: HeldLease, pg?: { store: PostgresTaskStateStore; runs?: S3ObjectStore }): Promise<number> {
  const t0 = performance.now();
  const o = { n, w, design: a['per-index'] ? ('per-index' as const) : ('per-round' as const), record: a.record !== undefined, lease };
  const task = pg ? await startAirflowTaskPg({ ...o, ...pg }) : startAirflowTask({ ...o, db: a.db! });
  say(`try ${task.attempt}: ${n} items, concurrency ${w}, ${a['per-index'] ? 'one checkpoint per index' : 'one checkpoint per round'} (src/machines/airflow), state in ${a.where}`);
  const every = Math.max(w, Math.ceil(n / 20));
  let ran = 0;
  let replayed = 0;
  task.system.events$.subscribe({
    next: (e) => {
      if (e.kind !== 'output') return;
      const m = e.msg;
      if (m.type === 'Phase' && m.phase === 'loop') say(task.attempt === 1 ? 'first try: nothing to read' : `checkpoints read (${m.trusted ? 'trusted' : 'ignored'})`);
      if (m.type === 'Replay') replayed++;
      if (m.type === 'Record' && ++ran % every === 0) say(`progress ${ran + replayed}/${n} (${ran} run, ${replayed} from checkpoints)`);
      if (m.type === 'Log') say(`log: ${String(m.text)}`);
    },
    error: () => {},
  });
  const done = await untilDoneOrLost(task.finished, () => task.close(), lease);
  if (done === 'lease-lost') return EXIT_LEASE;
  if (!done) return 1;
  const state = done.value;
  // The airflow-checkpoints family's parameters for this run (its guards on and tries unbounded, as live),
  // with where it started: its try number and the task state it found.
  await record(a, task.system, {
    design: a['per-index'] ? 'per-index' : 'per-round', items: n, taskConcurrency: w, staleGuard: true, markerGuard: true, tries: 1_000_000,
    resumeTry: task.attempt, resumeState: Object.keys(task.found).length ? JSON.stringify(task.found) : '',
  });
  await task.close();
  const s = (performance.now() - t0) / 1000;
  say(`${state}: ${n} items (${ran} run, ${replayed} from checkpoints) in ${s.toFixed(2)} s, ${task.writes()} state-store writes`);
  return state === 'success' || state === 'skipped' ? 0 : 1;
}

async function record(a: Args, system: import('../../src/live/runner.ts').LiveSystem, params?: Record<string, unknown>): Promise<void> {
  if (a.record) console.log(`recorded ${await writeTrace(a.record, system, params)} steps to ${a.record}`);
}

/** The example's own minimal machine (examples/iterable-task/machine.ts), live. */
async function minimal(a: Args, n: number, w: number, workMs: number, say: (s: string) => void, lease: HeldLease): Promise<number> {
  const t0 = performance.now();
  const task = startIterableTask({ n, w, db: a.db!, workMs, perIndex: a['per-index'], progressEvery: Math.max(w, Math.ceil(n / 20)), live: { record: a.record !== undefined }, lease });
  say(`attempt ${task.attempt}: ${n} items, concurrency ${w}, ${a['per-index'] ? 'one checkpoint per index' : 'one checkpoint per round'}, state in ${a.db}`);
  task.system.events$.subscribe({
    next: (e) => {
      if (e.kind !== 'output') return;
      const m = e.msg;
      if (m.type === 'resumed') say(m.covered ? `resumed: ${m.covered} items covered by ${m.batches} durable checkpoint(s), ${m.todo} to run` : `fresh start: ${m.todo} to run`);
      if (m.type === 'progress') say(`progress ${m.done}/${m.n} (${Math.floor((100 * (m.done as number)) / (m.n as number))}%)`);
    },
    error: () => {},
  });
  const done = await untilDoneOrLost(task.finished, () => task.close(), lease);
  if (done === 'lease-lost') return EXIT_LEASE;
  if (!done) return 1;
  const end = done.value;
  const s = (performance.now() - t0) / 1000;
  await record(a, task.system);
  await task.close();
  if (end.type === 'already-complete') say('already complete: the completion marker is present, nothing to do');
  else if (end.type === 'complete') say(`complete: ${n} items (${end.resumed} from checkpoints) in ${s.toFixed(2)} s, ${task.writes()} state-store writes`);
  else {
    console.error(`failed: ${String(end.why)}`);
    return 1;
  }
  return 0;
}

const usage = (msg: string): number => usageError(msg, USAGE);
