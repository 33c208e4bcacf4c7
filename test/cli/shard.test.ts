// `interleave check --shard i/n --result FILE` and `interleave merge`: shards as
// separate processes (the union of their fingerprints is one process's), the shard
// index from the environment of batch engines, and merge's exit codes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveShard } from '../../src/cli/shard-env.ts';
import { cli, runMain, scratchDir, startCli } from '../helpers/cli.ts';

const run = runMain;

const start = startCli;

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('sharded check as separate processes', () => {
  it('two shards (one from INTERLEAVE_SHARD) together visit what one process visits; merge says complete', { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    const cas = ['--param', 'design=compare-and-set', '--param', 'clients=3', '--strategy', 'dfs', '--shard-prefix', '2'];
    const [one, a, b] = await Promise.all([
      // The one process without the reduction (shards keep stubborn sets off): every reachable state.
      start(['check', 'lost-update', ...cas.slice(0, 6), '--no-por', '--fingerprints', 'all.txt'], dir),
      start(['check', 'lost-update', ...cas, '--shard', '1/2', '--result', 's1.json', '--fingerprints', 'f1.txt'], dir),
      start(['check', 'lost-update', ...cas, '--result', 's2.json', '--fingerprints', 'f2.txt'], dir, { INTERLEAVE_SHARD: '2/2' }),
    ]);
    expect([one.code, a.code, b.code]).toEqual([0, 0, 0]);
    expect(b.stderr).toContain('shard 2/2 (from INTERLEAVE_SHARD)');
    const f1 = lines(join(dir, 'f1.txt'));
    const f2 = lines(join(dir, 'f2.txt'));
    expect([...new Set([...f1, ...f2])].sort()).toEqual(lines(join(dir, 'all.txt')));
    expect(f1.length).toBeLessThan(lines(join(dir, 'all.txt')).length);
    const s2 = json(join(dir, 's2.json'));
    expect(s2).toMatchObject({ schemaVersion: 1, kind: 'interleave-check-result', scenario: { name: 'lost-update', params: { design: 'compare-and-set', clients: 3 } }, shard: { i: 2, n: 2 }, ok: true, complete: true, violation: null });
    expect(s2.fingerprintDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(s2.distinctFingerprints).toBe(f2.length);

    // merge reads files; in this process (the shards above are the separate processes).
    const merged = await run('merge', join(dir, 's1.json'), join(dir, 's2.json'));
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain('complete: every shard explored its whole slice');
    // Each shard's share, so a user sees whether the split paid; a lopsided split without communication gets a note.
    const states = [json(join(dir, 's1.json')), s2].map((r) => r.stats.distinctStates as number);
    const pct = (k: number) => Math.round((100 * states[k]!) / (states[0]! + states[1]!));
    expect(merged.stdout).toContain(`shards: 1/2 ${states[0]!.toLocaleString('en-US')} distinct states (${pct(0)}%) in `);
    expect(merged.stdout).toContain(`2/2 ${states[1]!.toLocaleString('en-US')} (${pct(1)}%) in `);
    const withStates = (file: string, to: string, distinct: number) => {
      const r = json(join(dir, file));
      writeFileSync(join(dir, to), JSON.stringify({ ...r, stats: { ...r.stats, distinctStates: distinct } }));
    };
    withStates('s1.json', 'lop1.json', 3000);
    withStates('s2.json', 'lop2.json', 1000);
    const lopsided = await run('merge', join(dir, 'lop1.json'), join(dir, 'lop2.json'));
    expect(lopsided.code).toBe(0);
    expect(lopsided.stdout).toContain('note: shard 1/2 holds 75% of the states, so these 2 shards can finish at most about 1.33x sooner than one process');
    withStates('s1.json', 'even1.json', 1000);
    withStates('s2.json', 'even2.json', 1000);
    expect((await run('merge', join(dir, 'even1.json'), join(dir, 'even2.json'))).stdout).not.toContain('note:');
    expect(JSON.parse((await run('merge', '--json', join(dir, 'lop1.json'), join(dir, 'lop2.json'))).stdout).stats.perShard).toEqual([
      { shard: '1/2', distinctStates: 3000, ms: expect.any(Number) },
      { shard: '2/2', distinctStates: 1000, ms: expect.any(Number) },
    ]);
    // A missing shard, a shard twice: exit 2 naming them.
    const missing = await run('merge', join(dir, 's1.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('shard 2/2 missing');
    const twice = await run('merge', join(dir, 's1.json'), join(dir, 's1.json'), join(dir, 's2.json'));
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('shard 1/2 is given 2 times');
    // Another parameter value in one shard: not the same check.
    expect((await run('check', 'lost-update', ...cas.slice(0, 2), '--param', 'clients=2', ...cas.slice(4), '--shard', '2/2', '--result', join(dir, 'other.json'))).code).toBe(0);
    const mixed = await run('merge', join(dir, 's1.json'), join(dir, 'other.json'));
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/other\.json \(shard 2\/2\) has parameters .*"clients":2/);
    // Another deal (--shard-lookahead 0 deals the partition level itself): its shards cover everything too, but do not merge with the default deal's.
    const [c, d] = await Promise.all([1, 2].map((i) => start(['check', 'lost-update', ...cas, '--shard-lookahead', '0', '--shard', `${i}/2`, '--result', `l${i}.json`, '--fingerprints', `l${i}.txt`], dir)));
    expect([c!.code, d!.code]).toEqual([0, 0]);
    expect([...new Set([...lines(join(dir, 'l1.txt')), ...lines(join(dir, 'l2.txt'))])].sort()).toEqual(lines(join(dir, 'all.txt')));
    expect(json(join(dir, 'l1.json')).shard.prefixDepth).toBeLessThan(json(join(dir, 's1.json')).shard.prefixDepth);
    expect((await run('merge', join(dir, 'l1.json'), join(dir, 'l2.json'))).code).toBe(0);
    const deals = await run('merge', join(dir, 's1.json'), join(dir, 'l2.json'));
    expect(deals.code).toBe(2);
    expect(deals.stderr).toMatch(/partition/);
    expect((await run('check', 'lost-update', '--strategy', 'dfs', '--shard-lookahead', '2')).code).toBe(2);
    // And another shard count.
    expect((await run('check', 'lost-update', ...cas, '--shard', '2/3', '--result', join(dir, 'three.json'))).code).toBe(0);
    const counts = await run('merge', '--json', join(dir, 's1.json'), join(dir, 'three.json'));
    expect(counts.code).toBe(2);
    expect(JSON.parse(counts.stdout).problems[0].message).toContain('shard count 3');
  });

  it('a violation: the shards that hold one exit 1, merge prints the shortest and its trace replays', { timeout: 120_000 }, async () => {
    const dir = scratchDir();
    const args = ['check', 'lost-update', '--param', 'clients=3', '--strategy', 'bfs', '--shard-prefix', '2'];
    const codes: number[] = [];
    for (const i of [1, 2, 3]) codes.push((await run(...args, '--shard', `${i}/3`, '--result', join(dir, `s${i}.json`), '--out', join(dir, `t${i}.json`))).code);
    expect(codes).toContain(1);
    const files = [1, 2, 3].map((i) => json(join(dir, `s${i}.json`)));
    files.forEach((f, k) => expect(f.ok).toBe(codes[k] === 0));
    const m = await run('merge', '--out', join(dir, 'merged.json'), ...[1, 2, 3].map((i) => join(dir, `s${i}.json`)));
    expect(m.code).toBe(1);
    expect(m.stdout).toContain("invariant 'no-lost-update' violated");
    const shortest = Math.min(...files.filter((f) => f.violation).map((f) => f.violation.steps));
    expect(json(join(dir, 'merged.json')).schedule.length).toBe(shortest);
    // The merged trace is a normal trace from the initial world: replay runs it.
    // Replayed by the command's main in this process (e2e.test.ts replays in a child).
    const replay = await run('replay', join(dir, 'merged.json'));
    expect(replay.code).toBe(1);
    expect(replay.stdout).toContain('still fails');
  });
});

describe('shard from the environment, and refusals', () => {
  it('reads INTERLEAVE_SHARD (1-based), JOB_COMPLETION_INDEX and Slurm arrays (0-based)', () => {
    expect(resolveShard(undefined, undefined, { INTERLEAVE_SHARD: '3/4' })).toMatchObject({ index: 2, count: 4 });
    expect(resolveShard(undefined, 4, { JOB_COMPLETION_INDEX: '0' })).toMatchObject({ index: 0, count: 4 });
    expect(resolveShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_COUNT: '4' })).toMatchObject({ index: 3, count: 4 });
    expect(resolveShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '4' })).toMatchObject({ index: 3, count: 4 });
    // The flag wins over the environment; nothing set: the whole check.
    expect(resolveShard({ index: 0, count: 2 }, undefined, { INTERLEAVE_SHARD: '2/2' })).toMatchObject({ index: 0, count: 2 });
    expect(resolveShard(undefined, undefined, {})).toBeUndefined();
    const bad: [NodeJS.ProcessEnv, number | undefined, RegExp][] = [
      [{ INTERLEAVE_SHARD: '0/4' }, undefined, /INTERLEAVE_SHARD takes i\/n with 1 ≤ i ≤ n/],
      [{ INTERLEAVE_SHARD: '5/4' }, undefined, /got '5\/4'/],
      [{ JOB_COMPLETION_INDEX: '1' }, undefined, /pass --shard-count/],
      [{ JOB_COMPLETION_INDEX: '4' }, 4, /not below --shard-count 4/],
      [{ JOB_COMPLETION_INDEX: 'x' }, 4, /whole number/],
      [{ SLURM_ARRAY_TASK_ID: '2' }, undefined, /SLURM_ARRAY_TASK_COUNT is not/],
      [{ SLURM_ARRAY_TASK_ID: '9', SLURM_ARRAY_TASK_COUNT: '4' }, undefined, /contiguous array/],
      [{}, 3, /--shard-count needs the shard index from the environment/],
    ];
    for (const [env, count, re] of bad) expect(() => resolveShard(undefined, count, env), JSON.stringify(env)).toThrow(re);
  });

  it('a Kubernetes index with --shard-count runs that shard; bad uses exit 2', async () => {
    const dir = scratchDir();
    const k8s = cli(['check', 'lost-update', '--param', 'design=compare-and-set', '--strategy', 'dfs', '--shard-count', '2', '--result', 'r.json'], { cwd: dir, env: { JOB_COMPLETION_INDEX: '1' } });
    expect(k8s.code).toBe(0);
    expect(json(join(dir, 'r.json')).shard).toMatchObject({ i: 2, n: 2 });
    const cases: [string[], RegExp][] = [
      [['check', 'rally', '--strategy', 'bfs', '--shard', '1/2'], /declares liveness properties, which a sharded search cannot decide/],
      [['check', 'lost-update', '--strategy', 'random', '--shard', '1/2'], /--shard splits dfs, bfs and swarm checks, not random/],
      [['check', 'lost-update', '--strategy', 'swarm', '--result', join(dir, 'x.json')], /--result records a dfs\/bfs check/],
      [['check', 'lost-update', '--shard-prefix', '4'], /--shard-prefix applies to a sharded dfs\/bfs/],
      [['merge', join(dir, 'nope.json')], /cannot read .*nope\.json: no such file/],
    ];
    for (const [argv, re] of cases) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
    }
  });
});
