// A process holding a PostgreSQL task lease with its heartbeat (ttl/3), until killed:
// bench/hosts.bench.ts SIGKILLs it and times the take-over. Args: URL TTL_MS.
import { setInterval } from 'node:timers';
import { registerSource } from '../scripts/source-loader.mjs';

registerSource();
const { PostgresTaskLease } = await import('../src/storage/live/pg-lease.ts');
const { openPgPool } = await import('../src/storage/live/pg-connection.ts');
const [url, ttl] = process.argv.slice(2);
const pool = openPgPool(url, 1);
const lease = new PostgresTaskLease(pool, { dagId: 'bench', runId: 'lease', taskId: 't', mapIndex: -1 }, `holder-${process.pid}`, { ttlMs: Number(ttl) });
for (;;) {
  const r = await lease.acquire();
  if (r.ok) break;
  await new Promise((res) => setTimeout(res, 10));
}
setInterval(() => lease.renew().catch(() => process.exit(4)), Math.floor(Number(ttl) / 3));
console.log('held');
