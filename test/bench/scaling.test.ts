// The scaling table's script on its smallest size: the exchange shards together explore
// exactly the one process's states and every row is written; bad input exits 2 before
// anything runs, and a run that fails stops the table. (A borrowed many-core machine runs
// this script from the packed package.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../bench/scaling.sh', import.meta.url));
const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'interleave-scaling-test-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function scaling(out: string, env: Record<string, string> = {}) {
  return spawnSync('bash', [SCRIPT, out], { encoding: 'utf8', env: { ...process.env, ITEMS: '3', SHARDS: '2', WORKERS: '1', RUNS: '20', ...env } });
}

describe('bench/scaling.sh', () => {
  it('writes one row per run, and the exchange shards explore exactly the single search', () => {
    const out = fresh();
    const r = scaling(out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const table = readFileSync(join(out, 'table.md'), 'utf8');
    const one = JSON.parse(readFileSync(join(out, 'one.json'), 'utf8')) as { ok: boolean; complete: boolean; stats: { distinctStates: number } };
    expect(one.ok && one.complete).toBe(true);
    expect(table).toContain(`| one process, --no-por | 1 |`);
    expect(table).toContain(`(${one.stats.distinctStates} states) |`);
    const shardRow = table.split('\n').find((l) => l.startsWith('| --exchange, all at once | 2 |'));
    expect(shardRow?.trim().endsWith('| 1.000 |')).toBe(true);
    expect(readFileSync(join(out, 'merge-2.txt'), 'utf8')).toMatch(/all properties hold .*2 shards/);
    const swarmRow = table.split('\n').find((l) => /^\| 1 \| [\d.]+ \| [\d.]+ \| 1\.00 \| [\d.]+ \|$/.test(l));
    expect(swarmRow).toBeDefined();
    expect(r.stdout).toContain(table.trim().split('\n').at(-1));
  });

  it('refuses a folder that is not empty, and an interleave that is not there, with exit 2', () => {
    const used = fresh();
    writeFileSync(join(used, 'keep.txt'), 'mine');
    const a = scaling(used);
    expect(a.status).toBe(2);
    expect(a.stderr).toContain('is not empty');
    expect(readFileSync(join(used, 'keep.txt'), 'utf8')).toBe('mine');
    const b = scaling(join(fresh(), 'new'), { IL: '/nowhere/interleave.js' });
    expect(b.status).toBe(2);
    expect(b.stderr).toContain('no interleave at /nowhere/interleave.js');
  });

  it('stops at the first run that leaves no result, naming it and where its log is', () => {
    const out = fresh();
    const r = scaling(out, { ITEMS: 'many' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`no result ${join(out, 'one.json')}; see the .log files in ${out}`);
    expect(readFileSync(join(out, 'one.log'), 'utf8')).toContain("parameter 'items' of 'airflow-checkpoints' must be a whole number");
  });
});
