// interleave/vitest: toHoldUnder and toBeViolatedBy, imported by package name as a user
// would (inside the repository the names resolve to src/, see vitest.config.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { replayTraceFile, type Scenario } from 'interleave';
import { familySource, lostUpdate, pingPong } from 'interleave/machines';
import { toBeViolatedBy, toHoldUnder } from 'interleave/vitest';
import { cli, scratchDir } from '../helpers/cli.ts';

describe('toHoldUnder', () => {
  it('passes on a complete exploration with no violation', async () => {
    await expect(lostUpdate('compare-and-set')).toHoldUnder({ strategy: 'bfs' });
    await expect(pingPong(2)).toHoldUnder({ strategy: 'dfs' });
  });

  it('fails on a violation, showing the counterexample, the seed, the files and the replay', async () => {
    const out = join(scratchDir(), 'lost.json');
    const r = await toHoldUnder(lostUpdate(), { out });
    expect(r.pass).toBe(false);
    const msg = r.message();
    expect(msg).toContain("expected scenario 'lost-update' to hold, but invariant 'no-lost-update' is violated");
    expect(msg).toMatch(/counterexample: \d+ steps/);
    expect(msg).toContain('  1. ');
    expect(msg).toMatch(/seed {6}0 \(bfs\)/);
    expect(msg).toContain(`trace     ${out}`);
    expect(msg).toContain(`viewer    ${out.replace(/\.json$/, '.html')}`);
    expect(msg).toContain('replayTraceFile(scenario');
    expect(existsSync(out) && existsSync(out.replace(/\.json$/, '.html'))).toBe(true);
    // The replay the message offers reproduces the violation.
    const replayed = replayTraceFile(lostUpdate(), JSON.parse(readFileSync(out, 'utf8')));
    expect(replayed.violation?.property.name).toBe('no-lost-update');
    // Through expect, the failure is an assertion error with that message.
    await expect(expect(lostUpdate()).toHoldUnder({ out: false })).rejects.toThrow(/invariant 'no-lost-update' is violated/);
    await expect(lostUpdate()).not.toHoldUnder({ out: false });
  });

  it('fails when a budget cut the exploration, unless allowIncomplete', async () => {
    const r = await toHoldUnder(lostUpdate('compare-and-set'), { maxStates: 3 });
    expect(r.pass).toBe(false);
    expect(r.message()).toContain('exploration not complete: cut by the maxStates budget');
    await expect(lostUpdate('compare-and-set')).toHoldUnder({ maxStates: 3, allowIncomplete: true });
    // Sampling is never complete either.
    expect((await toHoldUnder(pingPong(2), { strategy: 'random', runs: 20, seed: 1 })).pass).toBe(false);
    await expect(pingPong(2)).toHoldUnder({ strategy: 'random', runs: 20, seed: 1, allowIncomplete: true });
  });

  it('writes a catalog family trace that `interleave replay` reproduces (exit 1)', async () => {
    const dir = scratchDir();
    const r = await toHoldUnder(lostUpdate(), { out: join(dir, 'lu.json'), source: familySource('lost-update', { design: 'read-then-write', clients: 2 })! });
    expect(r.message()).toContain(`replay    npx interleave replay ${join(dir, 'lu.json')}`);
    const res = cli(['replay', join(dir, 'lu.json')], { cwd: dir });
    expect(res.stdout + res.stderr).toContain('no-lost-update');
    expect(res.code).toBe(1);
  });

  it("records a module source in the trace, relative to it, so the replay command can rebuild the scenario", async () => {
    const dir = scratchDir();
    const module = fileURLToPath(new URL('../fixtures/consumer/scenarios.js', import.meta.url));
    const { overbooked } = (await import(module)) as { overbooked: Scenario };
    const r = await toHoldUnder(overbooked, { out: join(dir, 'traces', 'o.json'), source: { module, export: 'overbooked' } });
    expect(r.message()).toContain(`replay    npx interleave replay ${join(dir, 'traces', 'o.json')}`);
    const file = JSON.parse(readFileSync(join(dir, 'traces', 'o.json'), 'utf8'));
    expect(file.scenario.module).toEqual({ path: relative(join(dir, 'traces'), module), export: 'overbooked' });
  });
});

describe('toBeViolatedBy', () => {
  it('passes when the named property is the one violated', async () => {
    await expect(lostUpdate()).toBeViolatedBy('no-lost-update', { out: false });
    await expect(lostUpdate('compare-and-set')).not.toBeViolatedBy('no-lost-update');
  });

  it('fails when nothing is violated, or another property broke', async () => {
    const none = await toBeViolatedBy(lostUpdate('compare-and-set'), 'no-lost-update');
    expect(none.pass).toBe(false);
    expect(none.message()).toContain("to be violated by 'no-lost-update', but no property was violated (exploration complete");
    const other = await toBeViolatedBy(lostUpdate(), 'deadlock', { out: false });
    expect(other.pass).toBe(false);
    expect(other.message()).toContain("but invariant 'no-lost-update' broke first");
    expect(other.message()).toMatch(/counterexample: \d+ steps/);
  });

  it('rejects what is not a scenario', async () => {
    await expect(toBeViolatedBy({}, 'x')).rejects.toThrow(/must be given a scenario made with defineScenario/);
    await expect(toBeViolatedBy(lostUpdate(), '')).rejects.toThrow(/give the name of the property/);
    await expect(toBeViolatedBy(lostUpdate(), 'some-other-property')).rejects.toThrow(/has no property named 'some-other-property'; its properties are 'no-lost-update', 'deadlock'/);
  });
});
