// Shared-visited mode (`check --shard i/n --share-visited DIR`, docs/sharding.md) with
// shards as separate processes: the union of the worlds each shard visited itself is
// one unreduced search's (as fingerprint lists and as the digest of their union); merge
// says complete; a violation is found, merged and replayed; a missing shard, a stale
// directory, mixed modes and liveness exit 2; a shard that ends early never lets merge
// say complete.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintDigest } from 'interleave/kernel';
import { runMain, scratchDir, startCli } from '../helpers/cli.ts';

const run = runMain;
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const RANDOM = join(import.meta.dirname, '..', 'fixtures', 'check', 'random-scenarios.ts');

/** sha256 of a set of 16-digit hex fingerprints, as a result file's fingerprintDigest. */
const digestOf = (hex: Iterable<string>) => fingerprintDigest(BigUint64Array.from([...new Set(hex)].map((x) => BigInt(`0x${x}`))).sort());

/**
 * `count` shared-visited shards as processes side by side, and one --no-por search in this
 * process (the reference, which needs no process of its own); the shards' union of own
 * fingerprints against the single search. With `fromEnv` the shards take their index and
 * the run's directory from INTERLEAVE_SHARD and INTERLEAVE_SHARE_VISITED instead of flags.
 */
async function compare(dir: string, scenario: string, args: string[], count: number, shardArgs = ['--shard-prefix', '2'], fromEnv = false): Promise<{ files: { shard: Record<string, unknown>; fingerprintDigest: string; complete: boolean }[]; own: string[][]; all: string[]; stderr: string[] }> {
  const started = Array.from({ length: count }, (_, k) => {
    const out = ['--result', `s${k + 1}.json`, '--fingerprints', `f${k + 1}.txt`];
    if (fromEnv) return startCli(['check', scenario, ...args, ...shardArgs, ...out], dir, { INTERLEAVE_SHARD: `${k + 1}/${count}`, INTERLEAVE_SHARE_VISITED: 'run' });
    return startCli(['check', scenario, ...args, ...shardArgs, '--shard', `${k + 1}/${count}`, '--share-visited', 'run', ...out], dir);
  });
  const one = await run('check', scenario, ...args, '--no-por', '--fingerprints', join(dir, 'all.txt'), '--result', join(dir, 'single.json'));
  const shards = await Promise.all(started);
  expect([one.code, ...shards.map((x) => x.code)], [one.stderr, ...shards.map((x) => x.stderr)].join('\n')).toEqual(Array(count + 1).fill(0));
  const own = shards.map((_, k) => lines(join(dir, `f${k + 1}.txt`)));
  const all = lines(join(dir, 'all.txt'));
  expect([...new Set(own.flat())].sort(), scenario).toEqual(all);
  // The same by digest: the union's digest is the single search's.
  expect(digestOf(own.flat())).toBe(json(join(dir, 'single.json')).fingerprintDigest);
  const files = shards.map((_, k) => json(join(dir, `s${k + 1}.json`)));
  files.forEach((f, k) => expect(f.fingerprintDigest, `shard ${k + 1}`).toBe(digestOf(own[k]!)));
  return { files, own, all, stderr: shards.map((x) => x.stderr) };
}

describe('shared-visited mode as separate processes', () => {
  it('lost update (compare-and-set, 3 clients): the union is the --no-por search; merge complete; stale directory, another run, mixed modes and a missing shard exit 2', { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    const cas = ['--param', 'design=compare-and-set', '--param', 'clients=3', '--strategy', 'dfs', '--shard-prefix', '2'];
    const { files, own, all } = await compare(dir, 'lost-update', cas.slice(0, 6), 2);
    // Sleep sets on in the shards (claims carry marks); the union is still every world of the unreduced search.
    for (const f of files) expect(f).toMatchObject({ shard: { n: 2, mode: 'share-visited', prefix: 2 }, complete: true, options: { por: true } });
    expect(files[0]!.shard.runId).toBe(files[1]!.shard.runId);
    // Some frontier worlds were left for the other shard to start (a shard visited less than all).
    expect(Math.min(...own.map((o) => o.length))).toBeLessThan(all.length);
    const sv = files.map((f) => f.shard.shareVisited as { claimsSent: number; claimsReceived: number });
    expect(sv[0]!.claimsSent + sv[1]!.claimsSent).toBeGreaterThan(0);

    const merged = await run('merge', join(dir, 's1.json'), join(dir, 's2.json'));
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('complete: every shard ended with its own search empty');
    const missing = await run('merge', join(dir, 's1.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('shard 2/2 missing');
    // A shard started again in the run's directory, and another check in it: exit 2 saying what to do.
    const again = await run('check', 'lost-update', ...cas, '--shard', '1/2', '--share-visited', join(dir, 'run'));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/shard 1\/2 already started in .*a shard cannot rejoin a run/);
    const other = await run('check', 'lost-update', ...cas.slice(0, 2), '--param', 'clients=2', ...cas.slice(4), '--shard', '1/2', '--share-visited', join(dir, 'run'));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/holds the files of another run .*params/);
    // An exchange run's directory is another run too.
    const xrun = await run('check', 'lost-update', ...cas.slice(0, 6), '--shard', '1/2', '--exchange', join(dir, 'run'));
    expect(xrun.code).toBe(2);
    expect(xrun.stderr).toMatch(/holds the files of another run .*mode "share-visited" there, "exchange" here/);
    // A shard of the no-communication mode does not merge with shared-visited shards.
    expect((await run('check', 'lost-update', ...cas, '--shard', '2/2', '--result', join(dir, 'p2.json'))).code).toBe(0);
    const mixed = await run('merge', join(dir, 's1.json'), join(dir, 'p2.json'));
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/has mode prefix, .* has share-visited/);
  });

  it('random systems (a user module; bfs and dfs, 2 and 3 shards, INTERLEAVE_SHARE_VISITED): the union of the shards\' own worlds is the --no-por search', { timeout: 300_000 }, async () => {
    // r14's shards take the shard and the directory from the environment.
    const cases: [string, string, number, boolean][] = [
      ['r1', 'bfs', 2, false],
      ['r11', 'dfs', 3, false],
      ['r14', 'dfs', 2, true],
      ['r24', 'bfs', 2, false],
    ];
    for (const [name, strategy, count, fromEnv] of cases) {
      const dir = scratchDir();
      const { files, stderr } = await compare(dir, `${RANDOM}#${name}`, ['--strategy', strategy], count, undefined, fromEnv);
      for (const f of files) expect(f).toMatchObject({ complete: true, shard: { mode: 'share-visited' } });
      if (fromEnv) expect(stderr[1]).toMatch(/shard 2\/2 \(from INTERLEAVE_SHARD\), sharing visited worlds through .*run/);
      const m = await run('merge', ...files.map((_, k) => join(dir, `s${k + 1}.json`)));
      expect(m.code, m.stderr).toBe(0);
      expect(m.stdout).toContain('complete: every shard ended with its own search empty');
    }
  });

  it('a violation: found by a shard, the others stop, merge exits 1 and its trace replays', { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    const args = ['check', 'lost-update', '--param', 'clients=3', '--strategy', 'bfs', '--shard-prefix', '2', '--share-visited', 'run'];
    const rs = await Promise.all([1, 2].map((i) => startCli([...args, '--shard', `${i}/2`, '--result', `s${i}.json`, '--out', `t${i}.json`], dir)));
    const codes = rs.map((r) => r.code);
    expect(codes, rs.map((r) => r.stderr).join('\n')).toContain(1);
    for (const c of codes) expect([0, 1]).toContain(c);
    const files = [1, 2].map((i) => json(join(dir, `s${i}.json`)));
    // A shard that found one is not complete; one that did not was stopped by the finder, or had
    // ended its own search (the violating world was the finder's claim) before the stop note.
    files.forEach((f, k) => {
      if (!f.ok) expect(f.complete).toBe(false);
      else if (!f.complete) expect(rs[k]!.stdout).toMatch(/exploration not complete: stopped by shard \d\/2: shard \d\/2 found a violation/);
    });
    const m = await run('merge', '--out', join(dir, 'merged.json'), join(dir, 's1.json'), join(dir, 's2.json'));
    expect(m.code).toBe(1);
    expect(m.stdout).toContain("invariant 'no-lost-update' violated");
    // Replayed by the command's main in this process (e2e.test.ts replays in a child).
    const replay = await run('replay', join(dir, 'merged.json'));
    expect(replay.code).toBe(1);
    expect(replay.stdout).toContain('still fails');
  });

  it('a shard cut by a budget or the depth bound: merge never says complete', { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    // A bundled scenario: its shards run from the CLI's compiled cache, not through tsx (the
    // random systems above are the user-module case).
    const base = ['check', 'lost-update', '--param', 'design=compare-and-set', '--param', 'clients=3', '--strategy', 'dfs', '--shard-prefix', '2'];
    // Shard 1 runs out of its state budget and stops the run; shard 2, started after, stops at once.
    const b1run = await startCli([...base, '--shard', '1/2', '--share-visited', 'budget', '--result', 'b1.json', '--max-states', '40'], dir);
    const b2run = await startCli([...base, '--shard', '2/2', '--share-visited', 'budget', '--result', 'b2.json', '--max-states', '40'], dir);
    expect([b1run.code, b2run.code]).toEqual([0, 0]);
    expect(json(join(dir, 'b1.json'))).toMatchObject({ complete: false, cutBy: 'maxStates' });
    expect(json(join(dir, 'b2.json'))).toMatchObject({ complete: false, cutBy: 'stopped' });
    expect(b2run.stdout).toContain('exploration not complete: stopped by shard 1/2: shard 1/2 ended early (maxStates)');
    const m = await run('merge', join(dir, 'b1.json'), join(dir, 'b2.json'));
    expect(m.code).toBe(0);
    expect(m.stdout).toContain('not complete: shard 1/2 cut by maxStates');
    expect(m.stdout).not.toMatch(/^complete/m);
    expect(m.stdout).not.toMatch(/^shards:/m); // the shares of a cut run say nothing about the split
    // A depth bound that cuts: both shards say so, merge is not complete.
    const ds = await Promise.all([1, 2].map((i) => startCli([...base, '--max-depth', '6', '--shard', `${i}/2`, '--share-visited', 'depth', '--result', `d${i}.json`], dir)));
    expect(ds.map((r) => r.code)).toEqual([0, 0]);
    const md = await run('merge', '--json', join(dir, 'd1.json'), join(dir, 'd2.json'));
    expect(JSON.parse(md.stdout)).toMatchObject({ ok: true, complete: false });
  });

  it('refusals: no shard, a sampling strategy, --exchange too, liveness', async () => {
    const cases: [string[], RegExp][] = [
      [['check', 'lost-update', '--share-visited', '/tmp/x'], /--share-visited splits one search over shards: give the shard too/],
      [['check', 'lost-update', '--strategy', 'swarm', '--shard', '1/2', '--share-visited', '/tmp/x'], /--share-visited splits a dfs or bfs search, not swarm/],
      [['check', 'lost-update', '--shard', '1/2', '--share-visited', '/tmp/x', '--exchange', '/tmp/y'], /two sharded modes/],
      [['check', 'rally', '--strategy', 'bfs', '--shard', '1/2', '--share-visited', '/tmp/x'], /declares liveness properties, which a sharded search cannot decide/],
    ];
    for (const [argv, re] of cases) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
    }
  });
});
