// `interleave check ./module.(ts|mjs)[#export]`: a user's own scenarios from the command
// line, their traces replayed and shown from another directory, a project config, and
// the exit-2 messages for modules that cannot be used. Most cases run main() in-process;
// a few run the real command for what depends on the process (cwd, files, pipes), and
// their variations run main() in-process from the same directory (runMainIn).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { check, saveTraceFile } from 'interleave';
// From their modules: interleave/live also loads the stores' live adapters and apache-arrow.
import { runLive } from '../../src/live/runner.ts';
import { liveTraceFile } from '../../src/live/recording.ts';
import { initialFingerprint } from '../../src/check/distributed/swarm.ts';
import { resolveSource } from 'interleave/kernel';
import { importModule } from '../../src/check/load-module.ts';
import { cli, scratchDir, runMain, runMainIn } from '../helpers/cli.ts';
import { blocksOf } from '../helpers/doc-blocks.ts';
import { election, electionFamily } from '../fixtures/user-scenarios/election.ts';

const FIX = fileURLToPath(new URL('../fixtures/user-scenarios/', import.meta.url));
const TS = join(FIX, 'election.ts');
const JS = join(FIX, 'election.mjs');

const run = runMain;

describe('check ./module.ts#export', () => {
  it('finds the race in a TypeScript family: exit 1, the counterexample, and a trace that names its module', async () => {
    const dir = scratchDir();
    const out = join(dir, 'traces', 'election.json');
    const r = await run('check', `${TS}#electionFamily`, '--out', out);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ invariant 'one-leader' violated: both peers think they lead");
    expect(r.stdout).toMatch(/^ +4 {2}[ab] +← [ab] +Claim/m);
    expect(r.stdout).toContain(`replay    npx interleave replay ${out}`);
    const file = JSON.parse(readFileSync(out, 'utf8'));
    expect(file.scenario.name).toBe('two-peer-election');
    expect(file.scenario.params).toEqual({ tieBreak: 'none' });
    // Relative to the trace file, so the pair can move together.
    expect(resolve(join(dir, 'traces'), file.scenario.module.path)).toBe(TS);
    expect(file.scenario.module.export).toBe('electionFamily');
    expect(readFileSync(join(dir, 'traces', 'election.html'), 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('the fixed design and a plain exported scenario hold: exit 0, complete', async () => {
    const fixedParam = await run('check', `${TS}#electionFamily`, '--param', 'tieBreak=by-id');
    expect(fixedParam.code).toBe(0);
    expect(fixedParam.stdout).toContain('exploration complete');
    const plainSc = await run('check', `${TS}#electionFixed`);
    expect(plainSc.code).toBe(0);
    expect(plainSc.stdout).toContain('✓ all properties hold for two-peer-election-fixed');
  });

  it("'#' may name the scenario instead of the export", async () => {
    const r = await run('check', `${TS}#two-peer-election`, '--param', 'tieBreak=by-id', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).scenario).toMatchObject({ name: 'two-peer-election', params: { tieBreak: 'by-id' } });
  });

  it('a JavaScript module with one scenario needs no #export', async () => {
    const dir = scratchDir();
    const r = await run('check', JS, '--out', join(dir, 'js.json'), '--json');
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.violation.property.name).toBe('one-leader');
    expect(JSON.parse(readFileSync(join(dir, 'js.json'), 'utf8')).scenario.module.export).toBe('election');
  });

  it('several scenarios and no #export: exit 2 listing the choices', async () => {
    const r = await run('check', TS);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('exports 2 scenarios; choose one with');
    expect(r.stderr).toContain(`${TS}#electionFamily`);
    expect(r.stderr).toContain(`${TS}#electionFixed`);
  });

  it('list <module> shows what it exports, with parameters', async () => {
    const r = await run('list', TS);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^two-peer-election +two peers claim leadership at once +\(.*election\.ts#electionFamily\)$/m);
    expect(r.stdout).toContain('--param tieBreak=<none | by-id>  default none');
    expect(r.stdout).toMatch(/^two-peer-election-fixed .*#electionFixed\)$/m);
  });
});

describe('modules that cannot be used exit 2 naming the problem', () => {
  it.each([
    ['a missing file', ['check', './no-such-scenarios.ts'], 'no such module: ./no-such-scenarios.ts'],
    ['a missing export', ['check', `${TS}#electionFamliy`], `has no scenario export 'electionFamliy' (did you mean 'electionFamily'?); it exports: `],
    ['nothing usable', ['check', join(FIX, 'nothing.mjs')], 'exports no scenario or family (its exports: answer, helper); export one made with defineScenario(...) or defineFamily(...)'],
    ['a module that throws', ['check', join(FIX, 'throws.mjs')], 'cannot load '],
    ['a directory', ['check', `${FIX}#x`], 'is a directory'],
    ['list of a missing module', ['list', './missing.mjs'], 'no such module: ./missing.mjs'],
  ])('%s', async (_name, argv, message) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('a module that throws: the error is quoted', async () => {
    const r = await run('check', join(FIX, 'throws.mjs'));
    expect(r.stderr).toContain('this module is broken on purpose');
  });

  it('a TypeScript module without tsx installed says to install tsx or compile', async () => {
    await expect(importModule(TS, { tsxApi: 'no-such-tsx-package/esm/api' })).rejects.toThrow(/is TypeScript, and loading TypeScript needs tsx, which is not installed: install it \(npm install --save-dev tsx\) or compile the module to \.js/);
  });
});

describe('a project config lists scenario modules by name', () => {
  function project(): string {
    const dir = scratchDir();
    writeFileSync(join(dir, 'interleave.config.mjs'), `export default { scenarios: [${JSON.stringify(TS)}, ${JSON.stringify(JS)}] };\n`);
    return dir;
  }

  it('--config: list shows them, check and simulate find them by name', async () => {
    const dir = project();
    const cfg = join(dir, 'interleave.config.mjs');
    const l = await run('list', '--config', cfg);
    expect(l.code).toBe(0);
    expect(l.stdout).toMatch(/^ping-pong /m);
    // Named as typed on a command line: relative to the current directory when that is shorter
    // (a clone under /tmp is near the scratch directory), else absolute.
    const rel = relative(process.cwd(), cfg);
    expect(l.stdout).toContain(`from ${rel.length < cfg.length ? rel : cfg}:`);
    expect(l.stdout).toMatch(/^js-election +two peers claim leadership at once \(JavaScript module\)/m);
    const c = await run('check', 'js-election', '--config', cfg, '--out', join(dir, 'js.json'));
    expect(c.code).toBe(1);
    expect(c.stdout).toContain("✗ invariant 'one-leader' violated");
    const s = await run('simulate', 'js-election', '--config', cfg);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain("scenario 'js-election' has no simulation");
  });

  it('a config that lists no modules, or a bad one, exits 2 naming the config', async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, 'bad.config.mjs'), 'export default { scenarios: "./x.ts" };\n');
    const r = await run('list', '--config', join(dir, 'bad.config.mjs'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('expected `export default { scenarios: [');
    writeFileSync(join(dir, 'missing.config.mjs'), 'export default { scenarios: ["./gone.ts"] };\n');
    const m = await run('check', 'gone', '--config', join(dir, 'missing.config.mjs'));
    expect(m.code).toBe(2);
    expect(m.stderr).toContain("scenario module './gone.ts': no such module");
    const n = await run('list', '--config', join(dir, 'none.mjs'));
    expect(n.code).toBe(2);
    expect(n.stderr).toContain('--config: no such file');
  });

  it('the real command finds interleave.config.mjs in its directory', () => {
    const dir = project();
    const r = cli(['list'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('from ./interleave.config.mjs:');
    expect(r.stdout).toMatch(/^two-peer-election-fixed /m);
  });
});

describe('replay and show a user trace from another directory', () => {
  it('replay exits 1 (still fails) and show renders the verified trace', async () => {
    const dir = scratchDir();
    const made = await runMainIn(dir, 'check', `${JS}`, '--out', 'traces/js.json');
    expect(made.code).toBe(1);
    const elsewhere = scratchDir();
    const trace = join(dir, 'traces', 'js.json');
    const r = cli(['replay', trace], { cwd: elsewhere });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ still fails: invariant 'one-leader' violated");
    const s = await runMainIn(elsewhere, 'show', trace);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('scenario js-election (tieBreak=none)');
    expect(s.stderr).toBe('');
  });

  it('a trace whose module moved away exits 2 saying where it looked', async () => {
    const dir = scratchDir();
    await run('check', `${TS}#electionFamily`, '--out', join(dir, 'e.json'));
    const file = JSON.parse(readFileSync(join(dir, 'e.json'), 'utf8'));
    file.scenario.module.path = '../gone/election.ts';
    writeFileSync(join(dir, 'moved.json'), JSON.stringify(file));
    const r = await run('replay', join(dir, 'moved.json'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("was saved from scenario 'two-peer-election' of ../gone/election.ts#electionFamily (relative to the trace file), and there is no module at");
    // show cannot verify it, says so, and draws it as saved.
    const s = await run('show', join(dir, 'moved.json'));
    expect(s.code).toBe(0);
    expect(s.stderr).toContain('note: cannot verify the trace against its scenario');
  });
});

describe('a live recording of your own scenario', () => {
  async function recording() {
    const live = runLive(electionFamily.build({ tieBreak: 'by-id' }), { timeScale: 0 });
    await live.whenQuiescent();
    await live.stop();
    return liveTraceFile(live.recording());
  }

  it('saveTraceFile with its module: replay and check --from rebuild the scenario from another directory', async () => {
    const dir = scratchDir();
    const trace = join(dir, 'runs', 'live.json');
    const saved = saveTraceFile(trace, await recording(), { module: TS, export: 'electionFamily' });
    expect(saved.scenario.module).toEqual({ path: relative(join(dir, 'runs'), TS).split(sep).join('/'), export: 'electionFamily' });
    expect(JSON.parse(readFileSync(trace, 'utf8'))).toEqual(saved);
    const elsewhere = scratchDir();
    const r = cli(['replay', trace], { cwd: elsewhere });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('replays on the model and no property is violated');
    // The recording names its parameters (tieBreak=by-id); the family's default cannot follow it.
    const misfit = await runMainIn(elsewhere, 'check', `${TS}#electionFamily`, '--from', trace);
    expect(misfit.code).toBe(2);
    expect(misfit.stderr).toContain('the recording does not fit two-peer-election');
    expect(misfit.stderr).toContain('The recording was made with tieBreak=by-id: pass --param tieBreak=by-id.');
    const fits = await runMainIn(elsewhere, 'check', `${TS}#electionFamily`, '--param', 'tieBreak=by-id', '--from', trace, '--within', '2');
    expect(fits.code, fits.stderr).toBe(0);
    expect(fits.stdout).toContain('exploration complete');
  });

  it('without its module: exit 2 saying how to record it, or found through the config of a parent directory', async () => {
    const dir = scratchDir();
    saveTraceFile(join(dir, 'traces', 'bare.json'), await recording());
    const bare = cli(['replay', 'bare.json'], { cwd: join(dir, 'traces') });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("unknown scenario 'two-peer-election', and the trace does not say which module it came from");
    expect(bare.stderr).toContain('saveTraceFile(path, file, { module, export })');
    // A project: package.json and interleave.config.mjs at its root, the command run in a subdirectory.
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(dir, 'interleave.config.mjs'), `export default { scenarios: [${JSON.stringify(`${TS}#electionFamily`)}] };\n`);
    const found = await runMainIn(join(dir, 'traces'), 'replay', 'bare.json');
    expect(found.code, found.stderr).toBe(0);
    // The search stops at the project's root: a config above it is not this project's.
    const inner = join(dir, 'inner');
    mkdirSync(join(inner, 'traces'), { recursive: true });
    writeFileSync(join(inner, 'package.json'), '{ "type": "module" }\n');
    saveTraceFile(join(inner, 'traces', 'bare.json'), await recording());
    expect((await runMainIn(join(inner, 'traces'), 'replay', 'bare.json')).code).toBe(2);
  });
});

describe('swarm workers rebuild a user scenario from its module', () => {
  afterEach(() => vi.restoreAllMocks());

  it('resolveSource builds the family with the given parameters (same initial world)', async () => {
    const sc = await resolveSource({ module: TS, export: 'electionFamily', params: { tieBreak: 'by-id' } });
    expect(sc.params).toEqual({ tieBreak: 'by-id' });
    expect(initialFingerprint(sc, false)).toBe(initialFingerprint(election('by-id'), false));
  });

  it('with a module source the swarm uses worker threads; without one it says so on stderr', async () => {
    const sc = electionFamily.build({ tieBreak: 'none' });
    const withSource = await check(sc, { strategy: 'swarm', runs: 40, seed: 3, workers: 1, source: { module: TS, export: 'electionFamily', params: { tieBreak: 'none' } } });
    expect(withSource.options.workers).toBe(1);
    expect(withSource.options.swarmNote).toBeUndefined();
    expect(withSource.violation?.property.name).toBe('one-leader');
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const without = await check(sc, { strategy: 'swarm', runs: 40, seed: 3, workers: 1 });
      expect(without.options.workers).toBe(0);
      expect(String(without.options.swarmNote)).toContain("no scenario source for 'two-peer-election'");
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('ran in this thread'), expect.objectContaining({ code: 'INTERLEAVE_SWARM_ONE_THREAD' }));
    } finally {
      warn.mockRestore();
    }
  });
});

describe('the example module of docs/cli.md', () => {
  it('behaves as the docs say: the race exits 1 with .interleave/scenarios-election-seed0.json, by-id holds, the config finds it by name', async () => {
    const blocks = blocksOf('docs/cli.md', readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8'));
    const mod = blocks.find((b) => b.file === 'scenarios.mjs');
    const cfg = blocks.find((b) => b.file === 'interleave.config.mjs');
    expect(mod && cfg).toBeTruthy();
    // Inside the repository, so that the block's `import ... from 'interleave'` resolves.
    const dir = fileURLToPath(new URL(`../../scratch/cli-doc-${process.pid}/`, import.meta.url));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'scenarios.mjs'), mod!.code);
    writeFileSync(join(dir, 'interleave.config.mjs'), cfg!.code);
    try {
      const race = await run('check', join(dir, 'scenarios.mjs'), '--out', join(dir, '.interleave/'));
      expect(race.code).toBe(1);
      expect(race.stdout).toContain("✗ invariant 'one-leader' violated");
      expect(existsSync(join(dir, '.interleave/scenarios-election-seed0.json'))).toBe(true);
      expect((await run('check', join(dir, 'scenarios.mjs'), '--param', 'tieBreak=by-id')).code).toBe(0);
      const byName = await run('check', 'election', '--config', join(dir, 'interleave.config.mjs'), '--out', join(dir, 'by-name.json'));
      expect(byName.code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
