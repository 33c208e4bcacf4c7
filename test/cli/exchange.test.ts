// Exchange mode (`check --shard i/n --exchange DIR`, docs/sharding.md) with shards as
// separate processes: their owned fingerprints are disjoint and together one unreduced
// search's; merge says complete; a violation is found, merged and replayed; a missing
// shard, a stale directory, mixed modes and liveness are refused with exit 2; one shard of
// a run samples the owner choice and every shard reports it; amber-loop nested (Arrow
// record batches in its worlds) is carried, its shards' union the unreduced search.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain, scratchDir, startCli } from '../helpers/cli.ts';

const run = runMain;

const start = startCli;

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('exchange mode as separate processes', () => {
  it('lost update (compare-and-set, 3 clients): disjoint owned sets whose union is the --no-por search; merge complete; stale directory and missing shard exit 2', { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    const cas = ['--param', 'design=compare-and-set', '--param', 'clients=3', '--strategy', 'bfs'];
    const shards = [
      start(['check', 'lost-update', ...cas, '--shard', '1/2', '--exchange', 'run', '--exchange-timeout', '60', '--result', 's1.json', '--fingerprints', 'f1.txt'], dir),
      start(['check', 'lost-update', ...cas, '--result', 's2.json', '--fingerprints', 'f2.txt'], dir, { INTERLEAVE_SHARD: '2/2', INTERLEAVE_EXCHANGE: 'run' }),
    ] as const;
    // The unreduced reference search needs no process of its own.
    const one = await run('check', 'lost-update', ...cas, '--no-por', '--fingerprints', join(dir, 'all.txt'));
    const [a, b] = await Promise.all(shards);
    expect([one.code, a.code, b.code], a.stderr + b.stderr).toEqual([0, 0, 0]);
    expect(b.stderr).toContain('shard 2/2 (from INTERLEAVE_SHARD), exchanging worlds through');
    expect(a.stdout).toContain('exploration complete');
    expect(a.stdout).toMatch(/exchange {2}shard 1\/2 of run [0-9a-f]+ in .*run: owns [\d,]+ worlds; sent [\d,]+ worlds/);
    expect(a.stdout).toContain('POR off: exchange mode');
    const f1 = lines(join(dir, 'f1.txt'));
    const f2 = lines(join(dir, 'f2.txt'));
    // Disjoint, and together the unreduced search.
    expect(f1.filter((x) => new Set(f2).has(x))).toEqual([]);
    expect([...f1, ...f2].sort()).toEqual(lines(join(dir, 'all.txt')));
    expect(f1.length).toBeGreaterThan(0);
    expect(f2.length).toBeGreaterThan(0);
    const s1 = json(join(dir, 's1.json'));
    expect(s1).toMatchObject({ shard: { i: 1, n: 2, mode: 'exchange' }, ok: true, complete: true, options: { por: false } });
    expect(s1.shard.runId).toBe(json(join(dir, 's2.json')).shard.runId);
    // Under symmetry nothing is sampled: the fingerprint in both.
    expect([s1.shard.exchange.owner, s1.shard.exchange.ownerSampledBy]).toEqual(['fingerprint', undefined]);
    expect(s1.shard.exchange.worldsSent).toBeGreaterThan(0);
    // Start-up ends at the first owned world, within the process's CPU; the rate is owned worlds per CPU second.
    const x1 = s1.shard.exchange;
    expect(x1.startup.cpuMs).toBeGreaterThan(0);
    expect(x1.startup.cpuMs).toBeLessThanOrEqual(s1.cpuMs);
    expect(x1.statesPerCpuSecond).toBe(Math.round(s1.stats.distinctStates / (s1.cpuMs / 1000)));
    expect(x1.worldsReceivedDuplicate).toBe(x1.worldsReceived - x1.worldsReceivedNew);
    expect(a.stdout).toMatch(/start-up {2}[\d.]+ s from process start to the first owned world/);

    const merged = await run('merge', join(dir, 's1.json'), join(dir, 's2.json'));
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain('complete: the run ended with every shard idle and no world in transit');
    const s2 = json(join(dir, 's2.json'));
    const cpu = ((s1.cpuMs + s2.cpuMs) / 1000).toFixed(1);
    expect(merged.stdout).toContain(`cost: ${cpu} s of CPU summed over the 2 shards`);
    const sent = (s1.shard.exchange.worldsSent + s2.shard.exchange.worldsSent).toLocaleString('en-US');
    expect(merged.stdout).toContain(`traffic: ${sent} worlds sent`);
    expect(merged.stdout).toMatch(/start-up: [\d.]+ s of CPU on average from process start to the first owned world; at most [\d.]+% of a shard's CPU/);
    const missing = await run('merge', join(dir, 's1.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('shard 2/2 missing');
    // The directory of an ended run, and of another check: exit 2 saying what to do.
    const again = await run('check', 'lost-update', ...cas, '--shard', '1/2', '--exchange', join(dir, 'run'));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already (completed|started)|already ended|holds a run of this check that already ended/);
    expect(again.stderr).toContain('give every run its own empty directory');
    const other = await run('check', 'lost-update', '--param', 'clients=2', '--strategy', 'bfs', '--shard', '1/2', '--exchange', join(dir, 'run'));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/holds the files of another run .*params/);
    // A shard of the no-communication mode does not merge with exchange shards.
    expect((await run('check', 'lost-update', ...cas, '--shard', '2/2', '--result', join(dir, 'p2.json'))).code).toBe(0);
    const mixed = await run('merge', join(dir, 's1.json'), join(dir, 'p2.json'));
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/has mode prefix, .* has exchange/);
  });

  it('airflow, 3 shards started at once: one shard samples the owner choice, all three report it', { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    const args = ['check', 'airflow-checkpoints', '--param', 'items=2', '--param', 'taskConcurrency=2', '--strategy', 'dfs', '--exchange', 'run'];
    const rs = await Promise.all([1, 2, 3].map((i) => start([...args, '--shard', `${i}/3`, '--result', `s${i}.json`], dir)));
    expect(rs.map((r) => r.code), rs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 0]);
    const xs = [1, 2, 3].map((i) => json(join(dir, `s${i}.json`)).shard.exchange);
    const by = xs[0].ownerSampledBy;
    expect([1, 2, 3]).toContain(by);
    for (const x of xs) expect([x.owner, x.ownerSampledBy]).toEqual(['actor:supervisor', by]);
    rs.forEach((r, k) => expect(r.stdout).toContain(k + 1 === by ? '(sampled by this shard)' : `(sampled by shard ${by}/3)`));
    expect((await run('merge', ...[1, 2, 3].map((i) => join(dir, `s${i}.json`)))).code).toBe(0);
  });

  it('a violation: found by a shard, every shard stops, merge exits 1 and its trace replays', { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    const args = ['check', 'lost-update', '--param', 'clients=3', '--strategy', 'bfs', '--exchange', 'run'];
    const rs = await Promise.all([1, 2].map((i) => start([...args, '--shard', `${i}/2`, '--result', `s${i}.json`, '--out', `t${i}.json`], dir)));
    const codes = rs.map((r) => r.code);
    expect(codes, rs.map((r) => r.stderr).join('\n')).toContain(1);
    for (const c of codes) expect([0, 1]).toContain(c);
    const files = [1, 2].map((i) => json(join(dir, `s${i}.json`)));
    // A shard that did not find it was stopped by the one that did: not complete.
    for (const f of files) expect(f.complete).toBe(false);
    const quiet = rs.find((r) => r.code === 0);
    if (quiet) expect(quiet.stdout).toMatch(/exploration not complete: stopped by shard \d\/2: shard \d\/2 found a violation/);
    const m = await run('merge', '--out', join(dir, 'merged.json'), join(dir, 's1.json'), join(dir, 's2.json'));
    expect(m.code).toBe(1);
    expect(m.stdout).toContain("invariant 'no-lost-update' violated");
    // Replayed by the command's main in this process (e2e.test.ts replays in a child).
    const replay = await run('replay', join(dir, 'merged.json'));
    expect(replay.code).toBe(1);
    expect(replay.stdout).toContain('still fails');
  });

  it('refusals: no shard, a sampling strategy, --shard-prefix, liveness; workers outside a swarm', async () => {
    const cases: [string[], RegExp][] = [
      [['check', 'lost-update', '--exchange', '/tmp/x'], /--exchange splits one search over shards: give the shard too/],
      [['check', 'lost-update', '--strategy', 'swarm', '--shard', '1/2', '--exchange', '/tmp/x'], /--exchange splits a dfs or bfs search, not swarm/],
      [['check', 'lost-update', '--shard', '1/2', '--shard-prefix', '4', '--exchange', '/tmp/x'], /exchange mode has no prefix/],
      [['check', 'rally', '--strategy', 'bfs', '--shard', '1/2', '--exchange', '/tmp/x'], /declares liveness properties, which a sharded search cannot decide/],
      // Workers belong to the swarm: random with workers is refused, never run in one thread.
      [['check', 'lost-update', '--strategy', 'random', '--workers', '4'], /--workers 4 runs the threads of --strategy swarm; random runs in one thread: use --strategy swarm --workers 4/],
      [['check', 'lost-update', '--strategy', 'pct', '--workers', '2'], /use --strategy swarm --workers 2 \(it spreads PCT runs/],
    ];
    for (const [argv, re] of cases) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
    }
  });

  it('a swarm given more workers than cores runs them and says so, in text and in --json', async () => {
    const w = String(availableParallelism() + 1);
    const note = `${w} worker threads on ${availableParallelism()} cores take turns on them`;
    const text = await run('check', 'lost-update', '--param', 'design=compare-and-set', '--strategy', 'swarm', '--workers', w, '--runs', '20');
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(`note: ${note}`);
    const j = await run('check', 'lost-update', '--param', 'design=compare-and-set', '--strategy', 'swarm', '--workers', w, '--runs', '20', '--json');
    expect(JSON.parse(j.stdout).swarm).toMatchObject({ workers: Number(w), note: expect.stringContaining(note) });
  });
});

describe('exchange mode on amber-loop nested', () => {
  // Its worlds hold Arrow record batches and Arrow IPC bytes: the batches cross as their
  // classes and parts, and the state rows' bytes must be the same in every process.
  it('rows=3: the shards own disjoint sets whose union is the --no-por search, worlds with Arrow batches crossing', { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    const amber = ['check', 'amber-loop', '--param', 'design=read-at-endchannel', '--param', 'topology=nested', '--param', 'rows=3', '--strategy', 'dfs'];
    const shards = [1, 2].map((i) => start([...amber, '--shard', `${i}/2`, '--exchange', 'run', '--result', `s${i}.json`, '--fingerprints', `f${i}.txt`], dir));
    const one = await run(...amber, '--no-por', '--fingerprints', join(dir, 'all.txt'));
    const rs = await Promise.all(shards);
    expect([one.code, ...rs.map((r) => r.code)], rs.map((r) => r.stderr).join('')).toEqual([0, 0, 0]);
    const f1 = lines(join(dir, 'f1.txt'));
    const f2 = lines(join(dir, 'f2.txt'));
    expect(f1.filter((x) => new Set(f2).has(x))).toEqual([]);
    expect([...f1, ...f2].sort()).toEqual(lines(join(dir, 'all.txt')));
    const x = [1, 2].map((i) => json(join(dir, `s${i}.json`)).shard.exchange);
    // Not vacuous: worlds crossed both ways, each carrying the loop's record batches.
    expect(x.map((e) => e.worldsReceivedNew).every((n: number) => n > 0)).toBe(true);
    const merged = await run('merge', join(dir, 's1.json'), join(dir, 's2.json'));
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain('complete: the run ended with every shard idle and no world in transit');
  });
});
