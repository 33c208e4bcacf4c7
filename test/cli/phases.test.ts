// Where a check's time goes: `stats.phases` in --json and the --verbose table; the viewer's
// statecharts only with --charts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { Io } from '../../src/cli/io.ts';
import { plain } from '../../src/report/style.ts';
import { check } from '../../src/check/index.ts';
import { lostUpdate } from '../fixtures/check/models.ts';

const dir = mkdtempSync(join(tmpdir(), 'interleave-phases-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const io: Io = { out: (s) => (stdout += `${s}\n`), err: () => {}, style: plain, errStyle: plain, tty: false };
  const code = await main(argv, io);
  return { code, stdout };
}

const timed = (p: unknown) => expect(p).toEqual({ wallMs: expect.any(Number), cpuMs: expect.any(Number) });

describe('phases', () => {
  it('check --json reports wall and CPU per phase, from module load to the viewer', async () => {
    const r = await run('check', 'lost-update', '--json', '--out', join(dir, 'a.json'));
    expect(r.code).toBe(1);
    const phases = JSON.parse(r.stdout).stats.phases;
    expect(Object.keys(phases)).toEqual(['moduleLoad', 'scenarioBuild', 'search', 'determinism', 'firstViolation', 'shrink', 'nearbyPassing', 'traceWrite', 'htmlWrite'].filter((k) => k in phases));
    for (const k of ['moduleLoad', 'scenarioBuild', 'search', 'determinism', 'shrink', 'nearbyPassing', 'traceWrite', 'htmlWrite']) timed(phases[k]);
    for (const p of Object.values(phases) as { wallMs: number; cpuMs: number }[]) expect(Math.min(p.wallMs, p.cpuMs)).toBeGreaterThanOrEqual(0);
  });

  it('a passing check has the phases it ran (no shrink, no viewer)', async () => {
    const r = await run('check', 'lost-update', '--param', 'design=compare-and-set', '--json');
    expect(r.code).toBe(0);
    const phases = JSON.parse(r.stdout).stats.phases;
    timed(phases.search);
    timed(phases.scenarioBuild);
    for (const k of ['shrink', 'nearbyPassing', 'traceWrite', 'htmlWrite']) expect(phases[k]).toBeUndefined();
  });

  it('--verbose prints the phase table after the verdict', async () => {
    const r = await run('check', 'lost-update', '--verbose', '--out', join(dir, 'b.json'));
    expect(r.code).toBe(1);
    const table = r.stdout.slice(r.stdout.indexOf('\nphase'));
    for (const label of ['module load', 'scenario build', 'search', 're-step sample', 'shrink and final replay', 'nearby passing schedule', 'trace write', 'viewer (HTML) write', 'process so far']) expect(table).toMatch(new RegExp(`^${label.replace(/[()]/g, '\\$&')} +[\\d,]+ +[\\d,]+$`, 'm'));
    expect((await run('check', 'lost-update', '--out', join(dir, 'c.json'))).stdout).not.toContain('\nphase');
  });

  it('prints the per-state memory figures of a large search only with --verbose, each with its unit', async () => {
    const chain = `${join(process.cwd(), 'test/fixtures/user-scenarios/long-chain.ts')}#longChain`;
    const quiet = await run('check', chain);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toMatch(/10,501 distinct.*; peak RSS \d+ MB\)$/m);
    expect(quiet.stdout).not.toContain('B/state');
    const loud = await run('check', chain, '--verbose');
    expect(loud.stdout).toMatch(/; peak RSS \d+ MB \([\d,]+ B\/state; heap \+[\d,]+ B\/state, visited set [\d,]+ B\/state\)\)$/m);
  }, 60_000);

  it('the viewer has the statecharts only with --charts; the counterexample is the same', async () => {
    await run('check', 'lost-update', '--out', join(dir, 'plain.json'));
    await run('check', 'lost-update', '--charts', '--out', join(dir, 'charts.json'));
    expect(readFileSync(join(dir, 'plain.html'), 'utf8')).not.toContain('<figure class="machine"');
    expect(readFileSync(join(dir, 'charts.html'), 'utf8')).toContain('<figure class="machine"');
    const schedule = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')).schedule;
    expect(schedule('plain.json')).toEqual(schedule('charts.json'));
  });

  it('check() from the API reports its own phases', async () => {
    const r = await check(lostUpdate(), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    for (const k of ['search', 'determinism', 'shrink', 'nearbyPassing'] as const) timed(r.stats.phases?.[k]);
    expect(r.stats.phases?.moduleLoad).toBeUndefined();
    const off = await check(lostUpdate(), { strategy: 'bfs', determinism: false, shrink: false });
    expect(off.stats.phases?.determinism).toBeUndefined();
    expect(off.stats.phases?.shrink).toBeDefined();
  });
});
