// Two real processes of the iterable-task example on one SQLite file: started at
// once, exactly one runs and the other exits 75; after a SIGKILL of the owner a
// retry proceeds only once the dead owner's lease expired; and a paused owner (a
// zombie) that resumes after another process took over is fenced: it writes
// nothing and exits 75, and the task's state holds every index exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AIRFLOW_SCOPE } from '../../examples/iterable-task/airflow.ts';
import { EXIT_LEASE } from '../../examples/iterable-task/lease.ts';
import { readTaskDb } from '../../examples/iterable-task/live.ts';
import { MARKER_KEY } from '../../src/machines/airflow/config.ts';
import { SqliteTaskLease, readLease } from 'interleave/live';
import { bundleMain, type BundledEntry } from '../helpers/bundled-entry.ts';

// The example's main (examples/iterable-task.js runs it through tsx) compiled once, so a
// start costs a fraction of a second of CPU; the lease logic it runs is the same code.
let script: BundledEntry;
beforeAll(async () => {
  script = await bundleMain(join(import.meta.dirname, '..', '..', 'examples', 'iterable-task', 'main.ts'));
});
afterAll(() => script?.remove());
const dir = mkdtempSync(join(tmpdir(), 'interleave-lease-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly child: ChildProcess;
  /** Resolves on the first line of output. */
  readonly started: Promise<void>;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>;
}

function start(db: string, n: number, extra: string[] = []): Run {
  const child = spawn(process.execPath, [script.file, '--items', String(n), '--db', db, '--concurrency', '16', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let first: () => void = () => {};
  const started = new Promise<void>((r) => (first = r));
  child.stdout!.on('data', (b: Buffer) => ((out += b.toString()), first()));
  child.stderr!.on('data', (b: Buffer) => ((out += b.toString()), first()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, out }));
  });
  return { child, started, done };
}

/** Per index, how many success entries the batch keys hold; and the marker. */
function stored(db: string, n: number) {
  const s = readTaskDb(db, AIRFLOW_SCOPE);
  const count = new Array<number>(n).fill(0);
  for (const [k, v] of Object.entries(s.kv)) {
    if (!k.startsWith('_iterable_batch_')) continue;
    for (const e of JSON.parse(v) as { i: number; s: string }[]) if (e.s === 'success') count[e.i]!++;
  }
  const marker = s.kv[MARKER_KEY] === undefined ? undefined : (JSON.parse(s.kv[MARKER_KEY]!) as { completed: boolean });
  return { ...s, count, marker };
}

/** True when some connection holds the file's write lock (a paused process inside a transaction). */
function writeLocked(db: string): boolean {
  const c = new Database(db, { timeout: 0 });
  try {
    c.exec('BEGIN IMMEDIATE');
    c.exec('ROLLBACK');
    return false;
  } catch {
    return true;
  } finally {
    c.close();
  }
}

describe('one process per task: the lease in the SQLite file', () => {
  it('two processes started at once on one file: exactly one runs the work, the other exits 75 and changes nothing', { timeout: 120_000 }, async () => {
    const db = join(dir, 'twice.db');
    const n = 4000;
    const [x, y] = [start(db, n, ['--quiet']), start(db, n, ['--quiet'])];
    const results = await Promise.all([x.done, y.done]);
    const codes = results.map((r) => r.code).sort();
    expect(codes, results.map((r) => r.out).join('\n---\n')).toEqual([0, EXIT_LEASE]);
    const loser = results.find((r) => r.code === EXIT_LEASE)!;
    expect(loser.out).toMatch(/refused: another process holds this task's lease in .*twice\.db: '[^']+' \(token 1,/);
    expect(loser.out).toContain('--wait');
    const s = stored(db, n);
    expect(s.attempts).toBe(1); // the refused process did not even count a try
    expect(s.runs.length).toBe(n); // every index ran once, in one process
    expect(new Set(s.runs.map((r) => r.attempt))).toEqual(new Set([1]));
    expect(s.count.every((c) => c === 1)).toBe(true);
    expect(s.marker?.completed).toBe(true);
    expect(readLease(new Database(db, { readonly: true }), AIRFLOW_SCOPE)).toMatchObject({ owner: '', token: 1 }); // released at the end
  });

  it('after a SIGKILL of the owner its lease blocks a retry until it expires; a retry with --wait then takes over and finishes', { timeout: 120_000 }, async () => {
    const db = join(dir, 'killed.db');
    const n = 3000;
    const owner = start(db, n, ['--lease-ms', '1500']);
    await owner.started;
    owner.child.kill('SIGKILL');
    const dead = await owner.done;
    expect(dead.signal).toBe('SIGKILL');
    const conn = new Database(db);
    const before = readLease(conn, AIRFLOW_SCOPE)!;
    expect(before.token).toBe(1);
    expect(before.owner).not.toBe('');
    // Another owner right after the kill: refused, the dead owner's lease is still live.
    const probe = new SqliteTaskLease(conn, AIRFLOW_SCOPE, 'probe', { ttlMs: 1500 });
    const r = probe.acquire();
    expect(r.ok, 'the dead owner\u2019s lease should still be live right after the kill').toBe(false);
    conn.close();
    // The retry waits for the expiry (or finds it expired already) and takes over.
    const retry = await start(db, n, ['--wait', '--lease-ms', '1500']).done;
    expect(retry.code, retry.out).toBe(0);
    expect(retry.out).toContain(`lease: took over from '${before.owner}'`);
    const after = readLease(new Database(db, { readonly: true }), AIRFLOW_SCOPE)!;
    expect(after.token).toBe(2);
    // It acquired only once the dead owner's lease had expired.
    expect(after.acquiredAt).toBeGreaterThanOrEqual(before.expiresAt);
    const s = stored(db, n);
    expect(s.marker?.completed).toBe(true);
    expect(s.count.every((c) => c === 1)).toBe(true);
  });

  it('a paused owner (a zombie) resumed after another process took over writes nothing and exits 75', { timeout: 120_000 }, async () => {
    const db = join(dir, 'zombie.db');
    const n = 3000;
    const zombie = start(db, n, ['--lease-ms', '600']);
    await zombie.started;
    await new Promise((r) => setTimeout(r, 300));
    // Pause it outside a transaction (a process paused inside one would hold SQLite's write lock).
    for (let k = 0; ; k++) {
      zombie.child.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, 20));
      if (!writeLocked(db)) break;
      zombie.child.kill('SIGCONT');
      await new Promise((r) => setTimeout(r, 5 + k));
    }
    const paused = readLease(new Database(db, { readonly: true }), AIRFLOW_SCOPE)!;
    const before = stored(db, n);
    // Another process takes over once the zombie's lease expired, and finishes the task.
    const next = await start(db, n, ['--wait', '--lease-ms', '600']).done;
    expect(next.code, next.out).toBe(0);
    expect(next.out).toContain(`took over from '${paused.owner}'`);
    const finished = stored(db, n);
    expect(finished.marker?.completed).toBe(true);
    expect(finished.count.every((c) => c === 1)).toBe(true);
    // The zombie resumes: fenced, it stops with 75 and leaves the state as the new owner left it.
    zombie.child.kill('SIGCONT');
    const z = await zombie.done;
    expect(z.code, z.out).toBe(EXIT_LEASE);
    expect(z.out).toMatch(/stopped: this process lost the task's lease: the task's lease was taken over by (another process|'[^']+') \(token 2, this process holds token 1\)/);
    const end = stored(db, n);
    expect(end.kv).toEqual(finished.kv);
    expect(end.attempts).toBe(2);
    expect(before.attempts).toBe(1);
  });
});
