// The `interleave` command end to end, through a child process: exit codes,
// --json, messages for bad input, saved counterexamples, replay and divergence. Each
// command and exit code is seen from a child process at least once; further variations
// (what check, replay, show, list and simulate say about their input) call the same main
// in this process.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTraceText } from 'interleave';
import { cli, cliInterrupted, runMainIn, scratchDir } from '../helpers/cli.ts';
import { lostUpdateTrace } from '../helpers/report-traces.ts';

const dir = scratchDir();
const run = (...args: string[]) => cli(args, { cwd: dir });
// The same command's main in this process, from the same directory: for the variations of a
// command whose exit code and output a child process already shows, where another child
// would add only its start-up (replay and show start through tsx, about a second of CPU; a
// check of a bundled scenario, from the CLI's compiled cache, about a quarter).
const here = (...args: string[]) => runMainIn(dir, ...args);

describe('help and usage', () => {
  it('--help exits 0; no command or an unknown one exits 2', async () => {
    const h = run('check', '--help');
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^Usage: interleave check \[options\] <scenario>/);
    expect((await here()).code).toBe(2);
    const r = run('chek', 'ping-pong');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'chek'");
    expect(r.stderr).toMatch(/commands: list, check, merge, replay, show, simulate, bench/);
  });

  it('prints the version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(run('--version').stdout.trim()).toBe(pkg.version);
  });
});

describe('list', () => {
  it('shows each scenario with its parameters, allowed values and defaults', () => {
    const r = run('list');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ping-pong +two actors/);
    expect(r.stdout).toContain('--param rounds=<int 1..1000>  default 3');
    expect(r.stdout).toContain('--param design=<read-then-write | compare-and-set>  default read-then-write');
  });

  it('--json is one valid JSON document', async () => {
    const r = await here('list', '--json');
    const data = JSON.parse(r.stdout);
    expect(data.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['ping-pong', 'lost-update']));
    expect(data.find((f: { name: string }) => f.name === 'ping-pong').params.rounds).toMatchObject({ type: 'int', default: 3 });
  });
});

describe('check: bad input exits 2 and names the valid choices', () => {
  it('unknown flag', () => {
    const r = run('check', 'ping-pong', '--bogus');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
    expect(r.stderr).toMatch(/options of 'interleave check': --param, --strategy, --seed/);
  });

  it('unknown scenario, with a suggestion', async () => {
    const r = await here('check', 'ping-pnog');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown scenario 'ping-pnog' (did you mean 'ping-pong'?); registered scenarios: ");
    expect(r.stderr).toMatch(/registered scenarios: .*\bping-pong\b/);
    expect(r.stderr).toMatch(/registered scenarios: .*\blost-update\b/);
  });

  it('bad --param names the parameters', async () => {
    const r = await here('check', 'ping-pong', '--param', 'round=3');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/scenario 'ping-pong' has no parameter 'round'; its parameters are: rounds/);
  });

  it('bad --strategy names the strategies', async () => {
    const r = await here('check', 'ping-pong', '--strategy', 'astar');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Allowed choices are dfs, bfs, random, pct, pos, swarm/);
  });

  it('--json errors are JSON too', async () => {
    const r = await here('check', 'nope', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toContain("unknown scenario 'nope'");
  });
});

describe('check: verdicts', () => {
  it('exits 0 when every property holds and says the exploration was complete', () => {
    const r = run('check', 'ping-pong');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✓ all properties hold for ping-pong');
    expect(r.stdout).toContain('exploration complete');
  });

  it('says so when a budget cut the exploration', async () => {
    const r = await here('check', 'ping-pong', '--max-states', '3');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('exploration not complete: cut by the --max-states budget');
  });

  it('--json prints one JSON document and nothing else', () => {
    const r = run('check', 'ping-pong', '--strategy', 'random', '--runs', '20', '--seed', '5', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ ok: true, complete: false, cutBy: 'runs', strategy: 'random', seed: 5, scenario: { name: 'ping-pong', params: { rounds: 3 } } });
    expect(j.stats.runs).toBe(20);
    expect(r.stderr).toBe('');
  });
});

describe('check: a violation, saved and replayed', () => {
  let out: ReturnType<typeof run>;
  // A child process; on a loaded machine its start-up alone can pass the 10 s hook default.
  beforeAll(() => {
    out = run('check', 'lost-update', '--strategy', 'bfs');
  }, 60_000);

  it('exits 1 and prints the property, the steps, the seed, the replay command and the files', () => {
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("✗ invariant 'no-lost-update' violated: all 2 clients finished but the counter is 1");
    expect(out.stdout).toMatch(/^ +1 {2}client\d +← env +start +\(client\d: idle → reading\)$/m);
    // The store is a reducer: its writes show under their steps, the lost one as a version bump only.
    expect(out.stdout).toMatch(/^ +\d+ {2}store +← client\d +Put\n +Δ store: value 0 → 1, version 0 → 1$/m);
    expect(out.stdout).toMatch(/^ +\d+ {2}store +← client\d +Put\n +Δ store: version 1 → 2$/m);
    expect(out.stdout).toMatch(/^seed {6}0 \(bfs;/m);
    expect(out.stdout).toContain('replay    npx interleave replay .interleave/lost-update-seed0.json');
    expect(out.stdout).toContain('viewer    .interleave/lost-update-seed0.html');
    expect(out.stdout).toContain('the fixed design passes: npx interleave check lost-update --param design=compare-and-set');
    expect(existsSync(join(dir, '.interleave/lost-update-seed0.json'))).toBe(true);
    expect(readFileSync(join(dir, '.interleave/lost-update-seed0.html'), 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('the fixed design passes', async () => {
    const r = await here('check', 'lost-update', '--param', 'design=compare-and-set');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('exploration complete');
  });

  it('--json on a violation is valid JSON with the schedule and the paths; --out chooses them', () => {
    const r = run('check', 'lost-update', '--json', '--out', 'cex/lu.json');
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.ok).toBe(false);
    expect(j.violation.property.name).toBe('no-lost-update');
    expect(j.violation.schedule.length).toBe(j.violation.steps.length);
    expect(j.trace).toEqual({ json: 'cex/lu.json', html: 'cex/lu.html' });
    expect(existsSync(join(dir, 'cex/lu.html'))).toBe(true);
  });

  it('replay of the saved counterexample still fails: exit 1', () => {
    const r = run('replay', '.interleave/lost-update-seed0.json');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ still fails: invariant 'no-lost-update' violated");
  });

  it('replay of a prefix that no longer fails: exit 0, fixed or the model changed', async () => {
    const f = JSON.parse(readFileSync(join(dir, '.interleave/lost-update-seed0.json'), 'utf8'));
    f.schedule = f.schedule.slice(0, 3);
    f.trace = f.trace.filter((e: { step: number }) => e.step <= 3);
    delete f.passing;
    writeFileSync(join(dir, 'prefix.json'), JSON.stringify(f));
    const r = await here('replay', 'prefix.json');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("no longer violates invariant 'no-lost-update': fixed, or the model changed");
  });

  it("an edited step exits 2 naming the file's step, which the scenario cannot take, and the steps it can", async () => {
    const f = JSON.parse(readFileSync(join(dir, '.interleave/lost-update-seed0.json'), 'utf8'));
    f.schedule[3] = 'deliver:store->client9:Value';
    writeFileSync(join(dir, 'diverged.json'), JSON.stringify(f));
    const r = await here('replay', 'diverged.json');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/diverged\.json: step 4 of the file, 'deliver:store->client9:Value', is not a step scenario 'lost-update' can take \(the steps it can take there: deliver:.*\)\. The file's schedule was edited/);
  });

  it('a trace whose parameters the scenario no longer accepts exits 2', async () => {
    const f = JSON.parse(readFileSync(join(dir, '.interleave/lost-update-seed0.json'), 'utf8'));
    f.scenario.params.design = 'gone';
    writeFileSync(join(dir, 'params.json'), JSON.stringify(f));
    const r = await here('replay', 'params.json');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("must be one of read-then-write, compare-and-set; got 'gone'");
  });

  it('show renders the saved trace in every format', async () => {
    const text = run('show', '.interleave/lost-update-seed0.json');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^✗ invariant 'no-lost-update' violated/);
    expect((await here('show', '.interleave/lost-update-seed0.json', '--format', 'mermaid')).stdout).toMatch(/^sequenceDiagram\n {2}participant/);
    const r = await here('show', '.interleave/lost-update-seed0.json', '--out', 'view/x.html');
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'view/x.html'), 'utf8')).toMatch(/^<!doctype html>/);
  });

  it("show reads a trace saved before reducers' state changes were recorded, and adds them from the re-run", async () => {
    const f = JSON.parse(readFileSync(join(dir, '.interleave/lost-update-seed0.json'), 'utf8'));
    expect(f.trace.some((e: { kind: string }) => e.kind === 'context')).toBe(true);
    f.trace = f.trace.filter((e: { kind: string }) => e.kind !== 'context');
    writeFileSync(join(dir, 'older.json'), JSON.stringify(f));
    const r = await here('show', 'older.json');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Δ store: version 1 → 2');
    // Drawn as saved, it has none; a trace that differs otherwise is still refused.
    expect((await here('show', 'older.json', '--no-verify')).stdout).not.toContain('Δ store');
    f.trace = f.trace.filter((e: { kind: string; step: number }) => !(e.kind === 'state' && e.step === 3));
    writeFileSync(join(dir, 'older-edited.json'), JSON.stringify(f));
    expect((await here('show', 'older-edited.json')).code).toBe(2);
  });
});

describe('malformed trace files exit 2 naming the problem', () => {
  const cases: [string, string, RegExp][] = [
    ['missing.json', '', /no such file: missing\.json/],
    ['notjson.json', '{"schemaVersion": 1,', /notjson\.json: not JSON/],
    ['array.json', '[]', /expected a JSON object/],
    ['newer.json', JSON.stringify({ schemaVersion: 7, kind: 'interleave-trace' }), /'schemaVersion' is 7, written by a newer interleave/],
    ['noschedule.json', JSON.stringify({ schemaVersion: 1, kind: 'interleave-trace', tool: { name: 'interleave', version: '0' }, scenario: { name: 'ping-pong', params: {} }, options: {}, seed: 0, property: null, originalLength: 0, trace: [] }), /field 'schedule': expected array, received undefined/],
  ];
  for (const [name, text, msg] of cases) {
    it(name, async () => {
      if (text) writeFileSync(join(dir, name), text);
      for (const cmd of name === 'newer.json' || name === 'notjson.json' ? ['replay', 'show'] : ['replay']) {
        // The first through a child process (the exit code it sets), the others in this one.
        const r = name === 'missing.json' ? run(cmd, name) : await here(cmd, name);
        expect(r.code, `${cmd} ${name}`).toBe(2);
        expect(r.stderr).toMatch(msg);
      }
    });
  }
});

describe('fuzzed trace files through the command (fast-check samples)', () => {
  it('every rejected file exits 2 with a message naming the file', async () => {
    const valid = JSON.parse(JSON.stringify(lostUpdateTrace()));
    const keys = Object.keys(valid);
    const samples = fc.sample(
      fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        fc.tuple(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => JSON.stringify({ ...valid, [k]: v })),
      ),
      { numRuns: 6, seed: 7 },
    ).filter((t) => !parseTraceText(t).ok);
    expect(samples.length).toBeGreaterThan(3);
    for (const [i, text] of samples.entries()) {
      const name = `fuzz-${i}.json`;
      writeFileSync(join(dir, name), text);
      const r = await here(i % 2 ? 'show' : 'replay', name);
      expect(r.code, text.slice(0, 200)).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: ${name}: `));
    }
  }, 180_000);
});

describe('simulate', () => {
  it('prints the tables of a family with a cost model', async () => {
    const r = run('simulate', 'lost-update', '--seed', '3');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\| design +\| +runs \| +lost \|/);
    expect(r.stdout).toMatch(/\| compare-and-set +\| +200 \| +0 \|/);
    const j = JSON.parse((await here('simulate', 'lost-update', '--json')).stdout);
    expect(j.tables[0].rows).toHaveLength(2);
  });

  it('exits 2 for a family without one, naming those that have one', async () => {
    const r = await here('simulate', 'ping-pong');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/scenario 'ping-pong' has no simulation \(no cost model\); scenarios with one: .*lost-update/);
  });
});

describe('bench', () => {
  it('delegates to bin/bench.js (unknown benchmark: exit 2 and the list)', () => {
    const r = run('bench', 'no-such-bench');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown benchmark 'no-such-bench'");
  });
});

describe('terminal behaviour', () => {
  it('colours only when asked and never with NO_COLOR', () => {
    const plain = run('check', 'lost-update');
    expect(plain.stdout).not.toContain('\u001b[');
    const forced = cli(['check', 'lost-update'], { cwd: dir, env: { FORCE_COLOR: '1', NO_COLOR: '' } });
    expect(forced.stdout).toContain('\u001b[31m');
    const both = cli(['check', 'lost-update'], { cwd: dir, env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(both.stdout).not.toContain('\u001b[');
  });

  it('Ctrl-C stops a check and prints the stats so far', async () => {
    const r = await cliInterrupted(['check', 'ping-pong', '--param', 'rounds=1000', '--strategy', 'random', '--runs', '100000000', '--seed', '1'], { cwd: dir, when: 'checking', afterMs: 300 });
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/stopped by Ctrl-C: no violation in the part explored so far \(\d[\d,]* states/);
  });
});
