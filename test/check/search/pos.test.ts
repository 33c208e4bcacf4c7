// POS (partial order sampling) beside PCT: it finds a depth-3 ordering bug in a few
// hundred runs where PCT needs thousands, every failing run replays alone from its seed
// and its schedule, a seed gives the same check twice, and options it has no use for
// are refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorldHasher, deriveSeed, estimateK, runOne, runSchedule } from 'interleave/kernel';
import { check, type SampleConfig } from 'interleave';
import { main } from '../../../src/cli/main.ts';
import { plain } from '../../../src/report/style.ts';
import { lostUpdate, orderingBug, randomSystem } from '../../fixtures/check/models.ts';

const MODELS = new URL('../../fixtures/check/models.ts', import.meta.url).pathname;
const K = 14;
const pos: SampleConfig = { strategy: 'pos', root: 0, maxDepth: 1000, faultRate: 0 };

function runsToBug(sc: ReturnType<typeof orderingBug>, cfg: SampleConfig, root: number, cap: number): number {
  for (let i = 0; i < cap; i++) if (runOne(sc, { ...cfg, root }, deriveSeed(root, i)).found) return i + 1;
  return Infinity;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('pos', () => {
  it('finds the depth-3 ordering bug at K = 14 in at most 200 median runs over 20 seeds, far fewer than PCT', () => {
    const sc = orderingBug(K, 3);
    const byPos = Array.from({ length: 20 }, (_, s) => runsToBug(sc, pos, 1000 + s, 2000));
    expect(byPos.every(Number.isFinite)).toBe(true);
    expect(median(byPos)).toBeLessThanOrEqual(200);
    const pct: SampleConfig = { strategy: 'pct', root: 0, maxDepth: 1000, faultRate: 0, pct: { depth: 3, k: estimateK(sc, 1000, 0) } };
    const byPct = Array.from({ length: 20 }, (_, s) => runsToBug(sc, pct, 1000 + s, 2000));
    expect(median(byPct)).toBeGreaterThan(3 * median(byPos));
  });

  it('check finds it; the failing run replays alone from its seed, and the shrunk schedule replays', async () => {
    const sc = orderingBug(K, 3);
    const raw = await check(sc, { strategy: 'pos', seed: 11, runs: 2000, shrink: false });
    expect(raw.ok).toBe(false);
    expect(raw.strategy).toBe('pos');
    expect(raw.violation!.property).toMatchObject({ kind: 'monitor', name: 'order' });
    const alone = runOne(sc, { ...pos, root: 11, maxDepth: 10_000, faultRate: 0.1 }, raw.violation!.seed!);
    expect(alone.found?.schedule).toEqual(raw.violation!.schedule);
    const shrunk = await check(sc, { strategy: 'pos', seed: 11, runs: 2000 });
    expect(shrunk.violation!.seed).toBe(raw.violation!.seed);
    expect(runSchedule(sc, shrunk.violation!.schedule, { detail: false, lenient: false }).property).toMatchObject({ kind: 'monitor', name: 'order' });
  });

  it('every failing run replays from its seed and its schedule (faults on)', () => {
    const sc = lostUpdate({ noise: 3 });
    const cfg: SampleConfig = { ...pos, root: 5, faultRate: 0.2 };
    let failures = 0;
    for (let i = 0; i < 300; i++) {
      const seed = deriveSeed(5, i);
      const out = runOne(sc, cfg, seed);
      if (!out.found) continue;
      failures++;
      expect(runOne(sc, cfg, seed).found?.schedule).toEqual(out.found.schedule);
      expect(runSchedule(sc, out.found.schedule, { detail: false, lenient: false }).property).toEqual(out.found.property);
    }
    expect(failures).toBeGreaterThan(5);
  });

  it('one seed, one check: the same runs, states and counterexample', async () => {
    const sc = orderingBug(10, 3, 2);
    const a = await check(sc, { strategy: 'pos', seed: 3, runs: 1500 });
    const b = await check(sc, { strategy: 'pos', seed: 3, runs: 1500 });
    expect(a.ok).toBe(false);
    for (const r of [a, b]) delete r.stats.phases;
    expect({ ...b.stats, ms: 0, statesPerSecond: 0, memory: undefined }).toEqual({ ...a.stats, ms: 0, statesPerSecond: 0, memory: undefined });
    expect(b.violation!.seed).toBe(a.violation!.seed);
    expect(b.violation!.schedule).toEqual(a.violation!.schedule);
    const c = await check(sc, { strategy: 'pos', seed: 4, runs: 1500 });
    expect(c.violation!.seed).not.toBe(a.violation!.seed);
  });

  it('swarm runs pos over worker threads and reports the run one thread does', async () => {
    const sc = orderingBug(8, 3);
    const opts = { strategy: 'swarm' as const, swarmStrategy: 'pos' as const, seed: 7, runs: 2000, shrink: false };
    const one = await check(sc, { ...opts, workers: 0 });
    const two = await check(sc, { ...opts, workers: 1, source: { module: MODELS, export: 'orderingBug', args: [8, 3] } });
    expect(one.ok).toBe(false);
    expect(one.options.swarmStrategy).toBe('pos');
    expect(two.violation!.seed).toBe(one.violation!.seed);
    expect(two.violation!.schedule).toEqual(one.violation!.schedule);
  });

  it('a sampling check counts the distinct worlds its runs met, hashed from their parents as from scratch (random systems)', async () => {
    for (let seed = 0; seed < 30; seed++) {
      const sc = randomSystem(seed, seed % 2 === 0);
      for (const strategy of ['pos', 'random'] as const) {
        const r = await check(sc, { strategy, seed, runs: 40, shrink: false, countDistinct: true });
        const h = new WorldHasher(sc, false);
        const seen = new Set<string>();
        const last = r.ok ? 40 : (r.stats.runs ?? 0);
        for (let i = 0; i < last; i++) runOne(sc, { strategy, root: seed, maxDepth: 10_000, faultRate: 0.1 }, deriveSeed(seed, i), (w) => void seen.add(JSON.stringify(h.fp(w))));
        expect(r.stats.distinctStates, `${strategy} on random system ${seed}`).toBe(seen.size);
      }
    }
  });

  it('refuses options it has no use for', async () => {
    const sc = orderingBug(4, 3);
    await expect(check(sc, { strategy: 'pos', depth: 2 })).rejects.toThrow(/depth is PCT's bug depth; pos has no parameters/);
    await expect(check(sc, { strategy: 'swarm', swarmStrategy: 'pos', depth: 2 })).rejects.toThrow(/pos has no parameters/);
    await expect(check(sc, { strategy: 'swarm', swarmStrategy: 'bogus' as never })).rejects.toThrow(/unknown swarmStrategy 'bogus'; use one of random, pct, pos/);
  });
});

describe('pos on the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'interleave-pos-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await main(argv, { out: (s) => (stdout += `${s}\n`), err: (s) => (stderr += `${s}\n`), style: plain, errStyle: plain, tty: false });
    return { code, stdout, stderr };
  }

  it('--strategy pos runs, and says how to repeat it', async () => {
    const r = await run('check', 'lost-update', '--strategy', 'pos', '--seed', '7', '--runs', '500', '--json', '--out', join(dir, 'pos.json'));
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.strategy).toBe('pos');
    expect(j.rerun).toContain('--strategy pos --seed 7');
  });

  it('says distinct states were not counted, and counts them with --count-distinct', async () => {
    const args = ['check', 'lost-update', '--param', 'design=compare-and-set', '--strategy', 'pos', '--seed', '1', '--runs', '100'];
    const plainRun = await run(...args);
    expect(plainRun.code).toBe(0);
    expect(plainRun.stdout).toContain('distinct not counted (--count-distinct)');
    const counted = await run(...args, '--count-distinct');
    expect(counted.code).toBe(0);
    expect(counted.stdout).toMatch(/ \d+ distinct, /);
    expect(counted.stdout).not.toContain('not counted');
  });

  it('bad options exit 2 with what to do', async () => {
    let r = await run('check', 'lost-update', '--strategy', 'pos', '--depth', '2');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--depth is PCT's bug depth; pos has no parameters: drop --depth, or use --strategy pct");
    r = await run('check', 'lost-update', '--strategy', 'poss');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Allowed choices are dfs, bfs, random, pct, pos, swarm/);
    r = await run('check', 'lost-update', '--strategy', 'pos', '--shard', '1/2');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--shard splits dfs, bfs and swarm checks, not pos');
  });
});
