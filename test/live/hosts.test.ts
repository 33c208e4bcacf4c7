// Two "hosts" on one PostgreSQL and one S3 endpoint (both started by the test): two
// processes of the iterable-task example with separate working directories run the
// same task with --pg and --s3 (--wait: the one without the lease waits for it). The
// holder is SIGKILLed at seeded moments and restarted; the other host takes over once
// the lease expires. Then the holder is paused (SIGSTOP) past its lease: the other takes
// over, and the paused one, resumed, writes nothing more and stops with exit code 75.
// Checked: nothing lost (every index succeeded exactly once in the final checkpoints),
// no index durable at a kill runs again, re-runs bounded by the kill window, and no
// write of the paused try lands after the take-over. Also: both examples record on
// the servers and their recordings replay on the model.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from 'interleave';
import { PostgresTaskStateStore, S3ObjectStore } from 'interleave/live';
import { AIRFLOW_SCOPE } from '../../examples/iterable-task/airflow.ts';
import { MARKER_KEY } from '../../src/machines/airflow/config.ts';
import { runMain } from '../helpers/cli.ts';
import { bundleMain, type BundledEntry } from '../helpers/bundled-entry.ts';
import { pgAvailable, startPg, type LocalPg } from '../helpers/pg-server.ts';
import { startS3, type LocalS3 } from '../helpers/s3-server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const N = 800;
const W = 8;
const WINDOW = W * (W + 1);
const LEASE_MS = 1_000;

const available = pgAvailable('test/live/hosts.test.ts');
let pg: LocalPg | undefined;
let s3: LocalS3;
const dir = mkdtempSync(join(tmpdir(), 'interleave-hosts-'));
// The examples' mains (examples/*.js run them through tsx) compiled once, so each start
// costs a fraction of a second of CPU; same code, and the same recordings.
let script: BundledEntry | undefined;
let amber: BundledEntry | undefined;
beforeAll(async () => {
  if (!available) return;
  [pg, s3, script, amber] = await Promise.all([startPg(), startS3(), bundleMain(join(ROOT, 'examples', 'iterable-task', 'main.ts')), bundleMain(join(ROOT, 'examples', 'amber-loop', 'main.ts'))]);
});
afterAll(async () => {
  await pg?.close();
  await s3?.close();
  script?.remove();
  amber?.remove();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(f: () => T | undefined, what: string, ms = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(15);
  }
}

/** One host: a working directory and the example's process there, restarted until it exits 0. */
class Host {
  proc: ChildProcess | undefined;
  out = '';
  exits: { code: number | null; signal: string | null; out: string }[] = [];
  done = false;
  paused = false;
  constructor(
    readonly name: string,
    readonly cwd: string,
    readonly args: string[],
  ) {
    mkdirSync(cwd, { recursive: true });
  }
  start(): void {
    const child = spawn(process.execPath, [script!.file, ...this.args], { cwd: this.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...s3.env } });
    this.proc = child;
    this.out = '';
    child.stdout!.on('data', (b: Buffer) => (this.out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (this.out += b.toString()));
    child.on('exit', (code, signal) => {
      this.exits.push({ code, signal, out: this.out });
      if (this.proc !== child) return;
      this.proc = undefined;
      if (code === 0) this.done = true;
      else this.start(); // killed, or lost its lease: a restarted host waits for the lease again
    });
  }
  /** The try this host's running process holds, once it has printed it. */
  get holding(): number | undefined {
    if (this.proc === undefined || this.paused) return undefined;
    const m = /^try (\d+):/m.exec(this.out);
    return m ? Number(m[1]) : undefined;
  }
  exited(n: number): Promise<Host['exits'][number]> {
    return until(() => this.exits[n], `${this.name}'s exit`);
  }
}

interface Durable {
  /** Indices that succeeded, per batch key. */
  readonly entries: Map<string, { i: number; s: string; t: number }[]>;
  readonly indices: Set<number>;
  readonly marker: boolean;
  readonly xcom: Map<string, { try: number; value: string }>;
}

async function durable(store: PostgresTaskStateStore): Promise<Durable> {
  const s = AIRFLOW_SCOPE;
  const rows = (await store.pool.query('SELECT key, value FROM task_state WHERE dag_id = $1 AND run_id = $2 AND task_id = $3 AND map_index = $4', [s.dagId, s.runId, s.taskId, s.mapIndex])).rows;
  const entries = new Map<string, { i: number; s: string; t: number }[]>();
  const indices = new Set<number>();
  let marker = false;
  for (const r of rows) {
    const key = String(r.key);
    const v = JSON.parse(String(r.value)) as unknown;
    if (key === MARKER_KEY) marker = (v as { completed?: boolean }).completed === true;
    if (!/^_iterable_batch_\d+$/.test(key)) continue;
    const es = v as { i: number; s: string; t: number }[];
    entries.set(key, es);
    for (const e of es) if (e.s === 'success') indices.add(e.i);
  }
  const xcom = new Map<string, { try: number; value: string }>();
  const xs = await store.pool.query('SELECT key, try, value FROM xcom').catch(() => ({ rows: [] as Record<string, unknown>[] }));
  for (const x of xs.rows) xcom.set(String(x.key), { try: Number(x.try), value: String(x.value) });
  return { entries, indices, marker, xcom };
}

/** The runs log in S3: per try, the indices it started. */
async function runsLog(runs: S3ObjectStore): Promise<Map<number, number[]>> {
  const l = await runs.list('runs/');
  if (l.type !== 's3.list.ok') throw new Error(String(l.message));
  const out = new Map<number, number[]>();
  for (const k of l.keys) {
    const [, t, i] = k.split('/');
    const list = out.get(Number(t)) ?? [];
    list.push(Number(i));
    out.set(Number(t), list);
  }
  return out;
}

describe.skipIf(!available)('two hosts on one PostgreSQL and one S3 endpoint', () => {
  it('kills, restarts and a paused holder: nothing lost, no durable index re-run, no write after a lost lease', { timeout: 300_000 }, async () => {
    const db = pg!.url;
    const store = new PostgresTaskStateStore(db);
    const runs = new S3ObjectStore({ ...s3.options, prefix: 'hosts/' });
    const args = ['--items', String(N), '--concurrency', String(W), '--pg', db, '--s3', s3.url('hosts/'), '--wait', '--lease-ms', String(LEASE_MS)];
    const hosts = [new Host('A', join(dir, 'a'), args), new Host('B', join(dir, 'b'), args)];
    const r = rng(34);
    try {
      for (const h of hosts) h.start();
      // Kills: the holder, at a seeded moment after it started its try.
      const killedAt: { try: number; durable: Set<number> }[] = [];
      for (let k = 0; k < 2; k++) {
        const h = await until(() => hosts.find((x) => x.holding !== undefined && x.holding > (killedAt.at(-1)?.try ?? 0)), 'a holder');
        const t = h.holding!;
        await sleep(150 + r.int(600));
        if (h.done || h.holding !== t) break;
        const n = h.exits.length;
        h.proc!.kill('SIGKILL');
        await h.exited(n);
        killedAt.push({ try: t, durable: (await durable(store)).indices });
      }
      expect(killedAt.length, 'the task finished before the kills: raise N').toBeGreaterThan(0);

      // A paused holder: SIGSTOP past its lease, the other host takes over, then SIGCONT.
      const z = await until(() => hosts.find((x) => x.holding !== undefined && x.holding > killedAt.at(-1)!.try), 'a holder to pause');
      const zTry = z.holding!;
      await sleep(200 + r.int(300));
      expect(z.done, 'the task finished before the pause: raise N').toBe(false);
      const other = hosts.find((x) => x !== z)!;
      const zExits = z.exits.length;
      z.paused = true;
      z.proc!.kill('SIGSTOP');
      await until(() => other.holding !== undefined && other.holding > zTry, 'the take-over from the paused host');
      const atTakeover = await durable(store);
      z.proc!.kill('SIGCONT');
      z.paused = false;
      const zExit = await z.exited(zExits);
      expect(zExit.code, zExit.out).toBe(75);
      expect(zExit.out).toContain("stopped: this process lost the task's lease");

      await until(() => hosts.every((h) => h.done), 'both hosts to finish', 120_000);
      const end = await durable(store);
      const log = await runsLog(runs);

      // Nothing lost: every index succeeded exactly once in the final checkpoints, and the marker is there.
      expect(end.marker).toBe(true);
      const count = new Uint32Array(N);
      for (const es of end.entries.values()) for (const e of es) if (e.s === 'success') count[e.i]!++;
      expect([...count].every((c) => c === 1)).toBe(true);
      // No index durable at a kill runs in a later try.
      for (const k of killedAt) {
        for (const [t, idx] of log) if (t > k.try) for (const i of idx) expect(k.durable.has(i), `index ${i} was durable when try ${k.try} was killed, and ran again in try ${t}`).toBe(false);
      }
      // Re-runs only inside the kill windows (each kill, and the pause).
      const runsOf = new Map<number, number>();
      for (const idx of log.values()) for (const i of idx) runsOf.set(i, (runsOf.get(i) ?? 0) + 1);
      const reruns = [...runsOf.values()].reduce((s, c) => s + c - 1, 0);
      expect(reruns).toBeLessThanOrEqual((killedAt.length + 1) * WINDOW);
      // No write after the lost lease: every entry and XCom of the paused try was there at the take-over.
      const before = new Set([...atTakeover.entries].flatMap(([k, es]) => es.filter((e) => e.t === zTry).map((e) => `${k}:${e.i}`)));
      for (const [k, es] of end.entries) for (const e of es) if (e.t === zTry) expect(before.has(`${k}:${e.i}`), `${k} index ${e.i} of the paused try ${zTry} written after the take-over`).toBe(true);
      for (const [k, x] of end.xcom) if (x.try === zTry) expect(atTakeover.xcom.get(k)).toEqual(x);
      console.log(`two hosts: ${killedAt.length} kills (tries ${killedAt.map((k) => k.try).join(', ')}), paused try ${zTry}, ${hosts.reduce((s, h) => s + h.exits.length, 0)} processes, re-runs ${reruns}`);
    } finally {
      for (const h of hosts) {
        h.done = true;
        if (h.proc) {
          h.proc.kill('SIGCONT');
          h.proc.kill('SIGKILL');
        }
      }
      await store.close();
      await runs.close();
    }
  });

  it('both examples record on the servers, and the recordings replay on the model', { timeout: 120_000 }, async () => {
    // A database of its own: the first test's task is complete in the default one.
    const admin = new PostgresTaskStateStore(pg!.url);
    await admin.pool.query('CREATE DATABASE rec');
    await admin.close();
    const env = { ...process.env, ...s3.env };
    const it = join(dir, 'iterable.json');
    const am = join(dir, 'amber.json');
    // Asynchronously: the S3 server runs in this process.
    const run = promisify(execFile);
    await run(process.execPath, [script!.file, '--items', '40', '--concurrency', '4', '--pg', pg!.url.replace(/\/postgres$/, '/rec'), '--s3', s3.url('rec/'), '--record', it, '--quiet'], { env });
    await run(process.execPath, [amber!.file, '--rows', '2', '--s3', s3.url('amber/'), '--record', am, '--quiet'], { env });
    // Replayed by the command in this process: a recording names its scenario, not a file.
    for (const f of [it, am]) {
      const r = await runMain('replay', f);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('replays on the model and no property is violated');
    }
  });
});
