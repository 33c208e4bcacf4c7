// `npm run bench -- hosts`: the live adapters across hosts, against local servers the
// bench starts (s3rver on a loopback port; PostgreSQL from its server binaries).
// 1. S3ObjectStore: 1 KiB puts and gets, one at a time (p50/p99 latency) and 16 at once (ops/s).
// 2. PostgresTaskStateStore: ts.set (plain and fenced by a PostgresTaskLease) and ts.get, the same way.
// 3. Lease take-over after SIGKILL: a child holds the lease (heartbeat every ttl/3) and is
//    killed at a random moment; another holder polls acquire() every 10 ms; the time from
//    the kill to its acquisition, for ttl 1,000 ms.
// Wall-clock figures on whatever machine runs it; the client's CPU time is printed beside them.
// Flags: --quick (fewer operations, 3 take-overs).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PostgresTaskLease, PostgresTaskStateStore, S3ObjectStore } from '../src/live/index.ts';
import type { Message } from '../src/actors/types.ts';
import { tsGet, tsSet } from '../src/storage/index.ts';
import { pgAvailable, startPg } from '../test/helpers/pg-server.ts';
import { startS3 } from '../test/helpers/s3-server.ts';
import { rng } from '../src/actors/prng.ts';
import { printTable, type Cell } from './table.ts';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** `ops` calls one at a time (latencies), then `ops` calls 16 at a time (throughput). */
async function measure(name: string, ops: number, call: (i: number) => Promise<Message>): Promise<Cell[]> {
  const lat: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    const s = performance.now();
    const r = await call(i);
    if (r.type.endsWith('.error')) throw new Error(`${name}: ${String(r.message)}`);
    lat.push(performance.now() - s);
  }
  const seq = ops / ((performance.now() - t0) / 1000);
  const t1 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < ops; i = next++) {
        const r = await call(ops + i);
        if (r.type.endsWith('.error')) throw new Error(`${name}: ${String(r.message)}`);
      }
    }),
  );
  const par = ops / ((performance.now() - t1) / 1000);
  const cpu = process.cpuUsage(cpu0);
  return [name, ops, Math.round(seq), Math.round(par), pct(lat, 50).toFixed(2), pct(lat, 99).toFixed(2), ((cpu.user + cpu.system) / 1000 / (2 * ops)).toFixed(3)];
}

async function takeover(url: string, ttl: number, runs: number): Promise<number[]> {
  const pool = new PostgresTaskStateStore(url);
  const r = rng(7);
  const out: number[] = [];
  try {
    for (let k = 0; k < runs; k++) {
      const child = spawn(process.execPath, [join(import.meta.dirname, 'lease-holder.child.mjs'), url, String(ttl)], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((res, rej) => {
        child.stdout!.on('data', (b: Buffer) => b.toString().includes('held') && res());
        child.on('exit', (c) => rej(new Error(`lease holder exited ${c}`)));
      });
      // Somewhere in the heartbeat cycle.
      await new Promise((res) => setTimeout(res, ttl + r.int(ttl)));
      const me = new PostgresTaskLease(pool.pool, { dagId: 'bench', runId: 'lease', taskId: 't', mapIndex: -1 }, `taker-${k}`, { ttlMs: ttl });
      const exited = new Promise((res) => child.on('exit', res));
      child.kill('SIGKILL');
      const t0 = performance.now();
      for (;;) {
        if ((await me.acquire()).ok) break;
        await new Promise((res) => setTimeout(res, 10));
      }
      out.push(performance.now() - t0);
      await exited;
      await me.release();
    }
  } finally {
    await pool.close();
  }
  return out;
}

export default async function (argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const ops = quick ? 200 : 1_000;
  const body = new Uint8Array(1024).fill(7);
  const rows: Cell[][] = [];
  const s3 = await startS3();
  const store = new S3ObjectStore({ ...s3.options, prefix: 'bench/' });
  try {
    rows.push(await measure('S3 put 1 KiB (s3rver)', ops, (i) => store.put(`k${i % 64}`, body)));
    rows.push(await measure('S3 get 1 KiB (s3rver)', ops, (i) => store.get(`k${i % 64}`)));
  } finally {
    await store.close();
    await s3.close();
  }
  if (!pgAvailable('bench/hosts.bench.ts')) return printTable('Live adapters on local servers', COLUMNS, rows);
  const pg = await startPg();
  try {
    const ts = new PostgresTaskStateStore(pg.url);
    const fenced = new PostgresTaskStateStore(pg.url);
    const scope = { dagId: 'bench', runId: 'r', taskId: 't', mapIndex: -1 };
    const lease = new PostgresTaskLease(fenced.pool, scope, 'bench', { ttlMs: 60_000 });
    await lease.acquire();
    fenced.fence(lease);
    const value = JSON.stringify('x'.repeat(1000));
    rows.push(await measure('PostgreSQL ts.set 1 KB', ops, (i) => ts.handle(tsSet(scope, `k${i % 64}`, value))));
    rows.push(await measure('PostgreSQL ts.set 1 KB, fenced', ops, (i) => fenced.handle(tsSet(scope, `k${i % 64}`, value))));
    rows.push(await measure('PostgreSQL ts.get', ops, (i) => ts.handle(tsGet(scope, `k${i % 64}`))));
    await ts.close();
    await fenced.close();
    printTable('Live adapters on local servers', COLUMNS, rows, 'one at a time: ops/s and latency percentiles; 16 at once: ops/s; CPU: this process, user + system, per operation');
    const ttl = 1_000;
    const t = await takeover(pg.url, ttl, quick ? 3 : 8);
    printTable('Lease take-over after SIGKILL (PostgreSQL)', ['lease ttl ms', 'take-overs', 'min ms', 'median ms', 'max ms'], [[ttl, t.length, Math.round(Math.min(...t)), Math.round(pct(t, 50)), Math.round(Math.max(...t))]], 'from the kill to the other holder acquire(); the holder renewed every ttl/3, so the lease had between 2/3 ttl and ttl left');
  } finally {
    await pg.close();
  }
}

const COLUMNS = ['operation', 'ops', 'ops/s (1 at a time)', 'ops/s (16 at once)', 'p50 ms', 'p99 ms', 'CPU ms/op'];
