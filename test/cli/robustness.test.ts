// The command under a user's ordinary mishaps: output piped into `head`, `show --out`
// at a place that cannot hold the file, a hand-edited trace, and the root --help
// examples, which must name files that `check` really writes.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, scratchDir, runMain, runMainIn } from '../helpers/cli.ts';

const TS = fileURLToPath(new URL('../fixtures/user-scenarios/election.ts', import.meta.url));

const run = runMain;

/** Runs the command with its stdout pipe closed by the reader at once, as `| head -0` would. */
function closedStdout(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => done({ code, stderr }));
  });
}

describe('output piped into a reader that stops early', () => {
  it('list ends quietly with exit 0', async () => {
    const r = await closedStdout(['list'], scratchDir());
    expect(r.stderr).not.toMatch(/EPIPE|Error|internal/);
    expect(r.code).toBe(0);
  });

  it('check of a violation still exits 1 (and writes its trace)', async () => {
    const dir = scratchDir();
    const r = await closedStdout(['check', 'lost-update'], dir);
    expect(r.stderr).not.toMatch(/EPIPE|internal/);
    expect(r.code).toBe(1);
    expect(existsSync(join(dir, '.interleave/lost-update-seed0.json'))).toBe(true);
  });
});

describe('show --out replaces its file atomically', () => {
  it('writes a new file and renames it over the old one (a killed show leaves the old file whole)', async () => {
    const dir = scratchDir();
    const trace = join(dir, 'e.json');
    expect((await run('check', `${TS}#electionFamily`, '--out', trace)).code).toBe(1);
    const out = join(dir, 'charts', 'e.mmd');
    mkdirSync(join(dir, 'charts'));
    writeFileSync(out, 'old drawing\n');
    // A second name for the old file: an in-place write would change it too, a rename does not.
    linkSync(out, join(dir, 'old.mmd'));
    const r = await run('show', trace, '--out', out);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^sequenceDiagram/m);
    expect(readFileSync(join(dir, 'old.mmd'), 'utf8')).toBe('old drawing\n');
    expect(readdirSync(join(dir, 'charts'))).toEqual(['e.mmd']);
  });
});

describe('show --out at a place that cannot hold the file: exit 2, no stack', () => {
  let trace: string;
  let dir: string;
  beforeAll(async () => {
    dir = scratchDir();
    trace = join(dir, 'e.json');
    expect((await run('check', `${TS}#electionFamily`, '--out', trace)).code).toBe(1);
  });

  it('a directory', async () => {
    mkdirSync(join(dir, 'adir'));
    const r = await run('show', trace, '--out', join(dir, 'adir'), '--format', 'html');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--out ${join(dir, 'adir')} is a directory; give a file name`);
  });

  it('a path under a file', async () => {
    const r = await run('show', trace, '--out', join(trace, 'x.html'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot write ${join(trace, 'x.html')}: a part of the path is a file, not a directory; choose another place with --out FILE`);
  });

  // root writes anywhere chmod allows; sysfs refuses even root.
  it.runIf(process.platform === 'linux')('a read-only place', async () => {
    let out: string;
    if (process.getuid?.() === 0) out = '/sys/interleave-show-test.html';
    else {
      const ro = join(dir, 'ro');
      mkdirSync(ro);
      chmodSync(ro, 0o555);
      out = join(ro, 'x.html');
    }
    const r = await run('show', trace, '--out', out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot write ${out}: permission denied (a read-only place); choose another place with --out FILE`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('hand-edited traces', () => {
  let dir: string;
  let file: { schedule: string[]; [k: string]: unknown };
  beforeAll(async () => {
    dir = scratchDir();
    expect((await run('check', `${TS}#electionFamily`, '--out', join(dir, 'e.json'))).code).toBe(1);
    file = JSON.parse(readFileSync(join(dir, 'e.json'), 'utf8'));
  });
  const edited = (name: string, edit: (f: typeof file) => void): string => {
    const f = JSON.parse(JSON.stringify(file));
    edit(f);
    writeFileSync(join(dir, name), JSON.stringify(f));
    return join(dir, name);
  };

  it("replay of an edited step id says the file's step is not one the scenario can take", async () => {
    const p = edited('step.json', (f) => (f.schedule[2] = f.schedule[2]!.replace('Claim', 'Clam')));
    const r = await run('replay', p);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/step 3 of the file, 'deliver:[ab]->[ab]:Clam', is not a step scenario 'two-peer-election' can take \(the steps it can take there: deliver:/);
    expect(r.stderr).not.toMatch(/^error: .*the model changed since the trace was saved; enabled/);
  });

  it('show of an edited schedule notices that the saved trace is not what it produces; --no-verify draws it', async () => {
    // Two steps swapped: both still valid, so only the re-run tells the trace is stale.
    const p = edited('swapped.json', (f) => ([f.schedule[0], f.schedule[1]] = [f.schedule[1]!, f.schedule[0]!]));
    const r = await run('show', p);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('the saved trace is not what its schedule produces (they differ from step 1');
    const forced = await run('show', p, '--no-verify');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("✗ invariant 'one-leader' violated");
  });

  it('show of an edited step id exits 2 like replay', async () => {
    const p = edited('step2.json', (f) => (f.schedule[0] = 'deliver:env->c:start'));
    const r = await run('show', p, '--format', 'mermaid');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("step 1 of the file, 'deliver:env->c:start', is not a step scenario 'two-peer-election' can take");
  });

  it('show of the untouched file verifies it and draws it', async () => {
    const r = await run('show', join(dir, 'e.json'));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('the root --help examples are true', () => {
  it('every trace file they name is what `check` of that scenario writes', async () => {
    const help = await run('--help');
    const named = [...new Set([...help.stdout.matchAll(/\.interleave\/([a-z-]+)-seed(\d+)\.json/g)].map((m) => m[0]))];
    expect(named.length).toBeGreaterThan(0);
    const dir = scratchDir();
    for (const path of named) {
      const [, name] = /\.interleave\/([a-z-]+)-seed\d+\.json/.exec(path)!;
      expect(help.stdout).toContain(`npx interleave check ${name}\n`);
      expect((await runMainIn(dir, 'check', name!)).code).toBe(1);
      expect(existsSync(join(dir, path)), path).toBe(true);
    }
  });
});
