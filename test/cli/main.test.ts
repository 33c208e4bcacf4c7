// The CLI in-process (main(argv, io)) for the many usage cases; e2e.test.ts
// runs the real command in a child process for the exit-code contract.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { Io } from '../../src/cli/io.ts';
import { plain, styleFor } from '../../src/report/style.ts';
import { progressText } from '../../src/cli/progress.ts';

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (s) => (stdout += `${s}\n`), err: (s) => (stderr += `${s}\n`), style: plain, errStyle: plain, tty: false };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('interleave (in-process)', () => {
  it('has --help on every command', async () => {
    for (const cmd of [[], ['list'], ['check'], ['replay'], ['show'], ['simulate'], ['bench']]) {
      const r = await run(...cmd, '--help');
      expect(r.code, cmd.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: interleave/);
    }
    const check = (await run('check', '--help')).stdout;
    for (const flag of ['--param', '--strategy', '--seed', '--runs', '--depth', '--max-states', '--max-depth', '--time-limit', '--workers', '--shard', '--no-por', '--out', '--json']) expect(check).toContain(flag);
    expect((await run('help', 'show')).stdout).toContain('--format <format>');
  });

  it('bad --param values name the valid choices', async () => {
    let r = await run('check', 'ping-pong', '--param', 'round=3');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/scenario 'ping-pong' has no parameter 'round'; its parameters are: rounds \(did you mean 'rounds'\?\)/);
    r = await run('check', 'lost-update', '--param', 'design=optimistic');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("parameter 'design' of 'lost-update' must be one of read-then-write, compare-and-set; got 'optimistic'");
    r = await run('check', 'ping-pong', '--param', 'rounds=0');
    expect(r.stderr).toContain("parameter 'rounds' of 'ping-pong' must be within 1..1000; got 0");
    r = await run('check', 'ping-pong', '--param', 'rounds=2.5');
    expect(r.stderr).toContain("parameter 'rounds' of 'ping-pong' must be a whole number; got '2.5'");
    r = await run('simulate', 'ping-pong', '--param', 'rounds');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--param takes key=value, got 'rounds'; parameters of 'ping-pong': rounds=<int 1..1000>");
  });

  it('bad flag values name what is expected', async () => {
    const cases: [string[], RegExp][] = [
      [['check', 'ping-pong', '--strategy', 'astar'], /Allowed choices are dfs, bfs, random, pct, pos, swarm/],
      [['check', 'ping-pong', '--seed', 'x'], /--seed must be a whole number ≥ 0; got 'x'/],
      [['check', 'ping-pong', '--runs', '0'], /--runs must be a whole number ≥ 1; got '0'/],
      [['check', 'ping-pong', '--shard', '5/2'], /--shard takes i\/n with 1 ≤ i ≤ n/],
      [['check', 'ping-pong', '--time-limit', '-1'], /--time-limit takes seconds/],
      [['check', 'ping-pong', 'extra'], /too many arguments/],
      [['show', 'x.json', '--format', 'pdf'], /Allowed choices are text, mermaid, html, json/],
      [['replay'], /missing required argument 'trace\.json'/],
    ];
    for (const [argv, msg] of cases) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
  });

  it('with --json even a parse error is one JSON document on stdout and nothing on stderr', async () => {
    const r = await run('check', 'ping-pong', '--bogus', '--json');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('');
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ ok: false, error: { code: 'bad-input' } });
    expect(j.error.message).toMatch(/unknown option '--bogus'; options of 'interleave check': --param/);
    const s = await run('simulate', 'ping-pong', '--json');
    expect(JSON.parse(s.stdout).error.message).toContain("scenario 'ping-pong' has no simulation");
  });

  it('list shows every parameter with its allowed values and default', async () => {
    const r = await run('list');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--param rounds=<int 1..1000>  default 3');
    expect(r.stdout).toContain('--param clients=<int 1..6>  default 2');
  });
});

describe('progress and colours', () => {
  it('the progress line shows states, distinct states per second, depth and elapsed time', () => {
    const t = progressText({ states: 12345, distinctStates: 6789, transitions: 12000, depth: 17, queue: 40, ms: 2500, statesPerSecond: 2715.6 }, 'checking x');
    expect(t).toBe('checking x · 12,345 states · 6,789 distinct (2,716/s) · depth 17 · queue 40 · 2.5s');
    // A sampled check that does not count distinct states (countDistinct) leaves them out.
    const s = progressText({ states: 12345, transitions: 12000, depth: 17, queue: 0, ms: 2500, runs: 40 }, 'checking x');
    expect(s).toBe('checking x · 12,345 states · depth 17 · queue 0 · 40 runs · 2.5s');
  });

  it('colours only a TTY, never with NO_COLOR; FORCE_COLOR forces them', () => {
    expect(styleFor({ isTTY: true }, {}).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(styleFor({ isTTY: false }, {}).red('x')).toBe('x');
    expect(styleFor({ isTTY: true }, { NO_COLOR: '1' }).red('x')).toBe('x');
    expect(styleFor({ isTTY: false }, { FORCE_COLOR: '1' }).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(styleFor({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' }).red('x')).toBe('x');
  });
});
