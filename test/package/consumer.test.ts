// Does what a user does: `npm pack`, install the tarball into a fresh project outside the
// repository with no tsx, no typescript and no TypeScript sources of interleave, and there
// import it from plain .mjs, type-check .ts files against its .d.ts (strict, and with
// exactOptionalPropertyTypes), run a vitest suite
// with interleave/vitest on the project's own scenario (test/fixtures/consumer, written for
// this test), check that scenario with the `interleave` command and replay its trace, and
// run the bundled models from dist/. Slow (a full build), one file.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, installTarball, pack, removeConsumer, tarballFiles, type Consumer } from '../helpers/pack.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/consumer/', import.meta.url));
const LIVE_FIXTURE = fileURLToPath(new URL('../fixtures/consumer-live/', import.meta.url));
const MINUTES = 60_000;

let tgz: string;
let c: Consumer | undefined;
/** A second project from the same tarball, with better-sqlite3 installed: live runs on real storage. */
let withSqlite: Consumer | undefined;

function run(cmd: string, args: readonly string[], cwd = c!.dir) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' };
  delete env.FORCE_COLOR;
  delete env.VITEST; // the consumer's vitest is a run of its own
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;
  delete env.TEST;
  delete env.NODE_ENV;
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 5 * MINUTES });
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}

beforeAll(() => {
  tgz = pack();
  c = installTarball(tgz, ['xstate', 'vitest', '@types/node']);
  for (const f of readdirSync(FIXTURE)) copyFileSync(join(FIXTURE, f), join(c.dir, f));
  withSqlite = installTarball(tgz, ['xstate', 'better-sqlite3']);
  for (const f of readdirSync(LIVE_FIXTURE)) copyFileSync(join(LIVE_FIXTURE, f), join(withSqlite.dir, f));
}, 10 * MINUTES);

afterAll(() => {
  removeConsumer(c);
  removeConsumer(withSqlite);
});

/** A declaration file with an error, placed among interleave's: typeErrors must report it. */
const PROBE = 'node_modules/interleave/dist/type-probe.d.ts';
const PROBE_ERROR = "error TS2314: Generic type 'Promise<T>' requires 1 type argument(s).";

/**
 * Other packages' parsed .d.ts files, shared between programs whose options parse and bind
 * them alike: keyed as the compiler's document registry keys the files its language
 * service shares between projects (the options that affect a source file, and the file's
 * module format). The project's and interleave's files are parsed afresh for each program.
 */
const registry = ts.createDocumentRegistry();
const parsedFiles = new Map<string, ts.SourceFile>();
const own = (f: string) => !f.includes('/node_modules/') || f.includes('/node_modules/interleave/');

function compilerHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const key = registry.getKeyForCompilationSettings(options);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, onError, shouldCreate) => {
    if (own(fileName)) return parse(fileName, version, onError, shouldCreate);
    const id = `${key}|${typeof version === 'object' ? version.impliedNodeFormat : ''}|${fileName}`;
    let sf = parsedFiles.get(id);
    if (!sf) {
      sf = parse(fileName, version, onError, shouldCreate);
      if (sf) parsedFiles.set(id, sf);
    }
    return sf;
  };
  return host;
}

/**
 * The errors `tsc -p config` (skipLibCheck off) reports in the project's files and in
 * interleave's .d.ts files, from the compiler's API in this process: the program is the
 * one tsc builds, and every one of those files gets its full semantic check, with the
 * options, global and syntax diagnostics of the whole program; the .d.ts files of other
 * packages (vitest, vite, Node, xstate), which tsc would check too and which are three
 * quarters of its time, are left out, as interleave cannot change them. A probe .d.ts with
 * an error among interleave's files shows that those are checked: its one error is
 * expected and taken out of the list.
 */
function typeErrors(config: string): string[] {
  const dir = c!.dir;
  writeFileSync(join(dir, PROBE), 'export declare const probe: Promise<number, string>;\n');
  try {
    const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => expect.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')) });
    if (!parsed) throw new Error(`cannot read ${config}`);
    expect(parsed.errors).toEqual([]);
    expect(parsed.options).toMatchObject({ strict: true, skipLibCheck: false, noEmit: true });
    const program = ts.createProgram({ rootNames: [...parsed.fileNames, join(dir, PROBE)], options: parsed.options, host: compilerHost(parsed.options) });
    const checked = program.getSourceFiles().filter((sf) => own(sf.fileName));
    // The .d.ts files of every entry point the project imports are in the program.
    expect(checked.filter((sf) => sf.fileName.includes('/node_modules/interleave/dist/')).length).toBeGreaterThan(10);
    const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...program.getSyntacticDiagnostics(), ...checked.flatMap((sf) => program.getSemanticDiagnostics(sf))];
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' };
    const errors = diagnostics.map((d) => ts.formatDiagnostic(d, host).trim());
    expect(errors.filter((e) => e.startsWith(PROBE)).map((e) => e.slice(e.indexOf('error')))).toEqual([PROBE_ERROR]);
    return errors.filter((e) => !e.startsWith(PROBE));
  } finally {
    rmSync(join(dir, PROBE));
  }
}

describe('the packed package', { timeout: 5 * MINUTES }, () => {
  it('ships compiled JavaScript, types and runtime assets, and no sources, tests or benchmarks', () => {
    const files = tarballFiles(tgz);
    for (const f of ['package.json', 'bin/interleave.js', 'dist/index.js', 'dist/index.d.ts', 'dist/live/index.js', 'dist/storage/index.d.ts', 'dist/vitest/index.d.ts', 'dist/machines/index.js', 'dist/check/distributed/swarm-boot.mjs', 'dist/check/distributed/swarm-worker.js', 'dist/kernel/index.js', 'dist/report/viewer.client.js', 'docs/trace.schema.json']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => /^(src|test|bench|scripts|examples|\.ci)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(c!.dir, 'node_modules/interleave/package.json'), 'utf8'));
    // Nothing to compile on install: better-sqlite3 is an optional peer, tsx not a dependency at all.
    expect(Object.keys(pkg.dependencies)).not.toContain('better-sqlite3');
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx');
    expect(pkg.peerDependenciesMeta['better-sqlite3']).toEqual({ optional: true });
    expect(pkg.scripts?.install ?? pkg.scripts?.postinstall ?? pkg.scripts?.preinstall).toBeUndefined();
    // The fresh project has none of what a clone has.
    for (const absent of ['tsx', 'typescript', 'better-sqlite3', 'pg', '@aws-sdk/client-s3', 'interleave/src', 'interleave/test']) expect(existsSync(join(c!.dir, 'node_modules', absent))).toBe(false);
    expect(c!.dir.startsWith(REPO)).toBe(false);
  });

  it('imports from plain .mjs: check, replay, trace files, storage, live, machines; SQLite says what to install', () => {
    const r = run(process.execPath, ['use.mjs']);
    expect(r.code, r.out).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o.bad.ok).toBe(false);
    expect(o.bad.property).toBe('never-overbooked');
    expect(o.bad.text).toContain("invariant 'never-overbooked' violated: the desk booked 2 rooms for its 1 room");
    expect(o.good).toEqual({ ok: true, complete: true });
    expect(o.traceValid).toBe(true);
    expect(o.replayed).toBe('never-overbooked');
    expect(o.sqlite).toContain('needs the optional peer dependency better-sqlite3');
    expect(o.sqlite).toContain('npm install better-sqlite3');
    expect(o.pg).toContain('npm install pg');
    expect(o.s3).toContain('npm install @aws-sdk/client-s3');
    expect(o.booked).toBe(1);
    expect(o.families).toContain('lost-update');
    expect(o.objectStore).toBe('function');
  });

  it.each(['tsconfig.json', 'tsconfig.bundler.json'])('type-checks a .ts file against the .d.ts files (tsc --noEmit, strict, skipLibCheck off): %s', (config) => {
    // NodeNext and Bundler resolution: what a Node project and a Vite/esbuild project use.
    expect(typeErrors(config)).toEqual([]);
  });

  it('type-checks every entry point and a typed scenario under exactOptionalPropertyTypes, skipLibCheck off', () => {
    // xstate 5.33's own setup.d.ts does not compile under exactOptionalPropertyTypes
    // (TS2344, its state schema), which no package depending on it can change: typeErrors
    // leaves other packages' files out, and any error in interleave's .d.ts or the project's
    // file fails.
    expect(typeErrors('tsconfig.exact.json')).toEqual([]);
  });

  it('runs a vitest suite with interleave/vitest: the passing file passes', () => {
    const r = run(process.execPath, [join(c!.dir, 'node_modules/vitest/vitest.mjs'), 'run', 'holds.spec.js']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/2 passed/);
  });

  it('and the failing one fails with the counterexample, the seed, the trace files and a replay', () => {
    const r = run(process.execPath, [join(c!.dir, 'node_modules/vitest/vitest.mjs'), 'run', 'fails.spec.js']);
    expect(r.code).toBe(1);
    expect(r.out).toContain("expected scenario 'hotel-ask-then-book' to hold, but invariant 'never-overbooked' is violated");
    expect(r.out).toMatch(/counterexample: \d+ steps/);
    expect(r.out).toMatch(/seed {6}0 \(bfs\)/);
    expect(r.out).toContain('trace     .interleave/hotel-ask-then-book-seed0.json');
    expect(r.out).toContain('replay    npx interleave replay .interleave/hotel-ask-then-book-seed0.json');
    expect(readFileSync(join(c!.dir, '.interleave/hotel-ask-then-book-seed0.html'), 'utf8')).toContain('<script');
    // The replay the message offers: the trace names its module, so the command rebuilds it.
    const replayed = run(process.execPath, [c!.bin, 'replay', '.interleave/hotel-ask-then-book-seed0.json']);
    expect(replayed.code, replayed.out).toBe(1);
    expect(replayed.out).toContain("still fails: invariant 'never-overbooked' violated");
  });

  it("checks the project's own scenarios from the command line: a violation (exit 1), replayed (exit 1); the fix holds (exit 0)", () => {
    const checked = run(process.execPath, [c!.bin, 'check', './scenarios.js#overbooked', '--out', 'cli/overbooked.json']);
    expect(checked.code, checked.out).toBe(1);
    expect(checked.out).toContain("invariant 'never-overbooked' violated");
    const replayed = run(process.execPath, [c!.bin, 'replay', 'cli/overbooked.json']);
    expect(replayed.code, replayed.out).toBe(1);
    expect(replayed.out).toContain("still fails: invariant 'never-overbooked' violated");
    const safe = run(process.execPath, [c!.bin, 'check', './scenarios.js#safe']);
    expect(safe.code, safe.out).toBe(0);
    expect(safe.out).toContain('exploration complete');
  });

  it('runs the interleave command from dist/: --version, a built-in check (exit 1), a swarm over worker threads', () => {
    const version = run(process.execPath, [c!.bin, '--version']);
    expect(version.code, version.out).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
    const checked = run(process.execPath, [c!.bin, 'check', 'lost-update']);
    expect(checked.code, checked.out).toBe(1);
    expect(checked.out).toContain("invariant 'no-lost-update' violated");
    const replayed = run(process.execPath, [c!.bin, 'replay', '.interleave/lost-update-seed0.json']);
    expect(replayed.code, replayed.out).toBe(1);
    const swarm = run(process.execPath, [c!.bin, 'check', 'lost-update', '--strategy', 'swarm', '--workers', '2', '--runs', '200', '--seed', '3', '--json']);
    expect(swarm.code, swarm.out).toBe(1);
    expect(JSON.parse(swarm.stdout).violation.property.name).toBe('no-lost-update');
  });
});

describe('embedded: a live run on files and SQLite, recorded and replayed on the model', { timeout: 5 * MINUTES }, () => {
  it("runs the project's machines live against FsObjectStore and SqliteTaskStateStore and saves the recording with its module", () => {
    const r = run(process.execPath, ['live.mjs'], withSqlite!.dir);
    expect(r.code, r.out).toBe(0);
    const o = JSON.parse(r.stdout);
    // The lock server let exactly one worker run; its output is a file, its run a SQLite row.
    expect(o.workers).toEqual(['done', 'skipped']);
    expect(o.objects).toHaveLength(1);
    expect(JSON.parse(o.lastRun)).toBe(o.objects[0]);
    expect(o.module).toEqual({ path: '../nightly.js', export: 'nightly' });
    expect(o.externals).toEqual(['store', 'state']);
  });

  it('replays the recording on the model from another directory (exit 0), and explores around it with check --from', () => {
    const elsewhere = join(withSqlite!.dir, 'runs');
    const replayed = run(process.execPath, [withSqlite!.bin, 'replay', 'live.json'], elsewhere);
    expect(replayed.code, replayed.out).toBe(0);
    expect(replayed.out).toContain('replays on the model and no property is violated');
    const around = run(process.execPath, [withSqlite!.bin, 'check', './nightly.js', '--param', 'design=lock-server', '--from', 'runs/live.json', '--within', '2'], withSqlite!.dir);
    expect(around.code, around.out).toBe(0);
    expect(around.out).toContain('exploration complete');
    // Recorded with the lock server, explored as get-then-put: the recording does not fit.
    const misfit = run(process.execPath, [withSqlite!.bin, 'check', './nightly.js', '--from', 'runs/live.json'], withSqlite!.dir);
    expect(misfit.code).toBe(2);
    expect(misfit.out).toContain('The recording was made with design=lock-server: pass --param design=lock-server.');
    // And the first design, checked from the start, lets both workers run.
    const race = run(process.execPath, [withSqlite!.bin, 'check', './nightly.js'], withSqlite!.dir);
    expect(race.code, race.out).toBe(1);
    expect(race.out).toContain("invariant 'one runner' violated: both workers run the job at once");
  });
});
