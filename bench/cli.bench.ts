// `npm run bench -- cli`: cold start-up of the `interleave` command.
//   compiled: the packed package installed in a fresh project (npm pack, then the
//             tarball unpacked with its dependencies linked, as test/package-consumer does),
//             running dist/ on plain node;
//   clone:    this repository's bin/interleave.js, which runs a command that loads no
//             user module (check of a bundled scenario, --version) from its compiled cache
//             of src/ (.cache/interleave-cli), any other through tsx;
//   tsx:      the same with INTERLEAVE_TSX=1, every command through tsx;
//   npx:      the README's line, `npx interleave ...` in this repository (npm's own start-up
//             and its reading of the installed tree included), and in the fresh project
//             (npx finds node_modules/.bin/interleave there without reading the tree).
// Each command runs --runs=N times (default 5) in a fresh process; the table gives the
// median wall time and the median CPU time of the child (user + system, from the
// children's times in /proc/self/stat, 10 ms resolution). On a loaded machine wall time
// is mostly waiting for a core: read the CPU column then. Goals (idle 2-core machine):
// --version under 0.3 s, check lost-update under 1 s; the README's main job, check
// amber-loop, under 1 s of wall on an idle machine. A second table splits the main job
// into its phases (`check --json` stats.phases: wall and CPU per phase, medians).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO, installTarball, pack, removeConsumer } from '../test/helpers/pack.ts';
import { median, printTable, type Cell } from './table.ts';
import { flag } from './flags.ts';

/** CPU seconds of reaped children so far (Linux), or undefined. */
function childCpu(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 (cutime, cstime) are at 13 and 14 after the command name.
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return undefined;
  }
}

interface Mode {
  label: string;
  /** The command before its arguments. */
  argv0: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

function time(m: Mode, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): { wall: number; cpu: number | undefined; code: number | null; stdout: string } {
  const c0 = childCpu();
  const t0 = performance.now();
  const [cmd, ...pre] = m.argv0;
  const r = spawnSync(cmd!, [...pre, ...args], { cwd: m.cwd ?? cwd, env: { ...env, ...m.env }, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' });
  const wall = (performance.now() - t0) / 1000;
  const c1 = childCpu();
  return { wall, cpu: c0 !== undefined && c1 !== undefined ? c1 - c0 : undefined, code: r.status, stdout: r.stdout };
}

type PhaseRow = Record<string, { wallMs: number; cpuMs: number }>;

export default async function bench(argv: string[]): Promise<void> {
  const runs = Number(flag(argv, 'runs') ?? 5);
  const load0 = loadavg()[0]!;
  const t0 = performance.now();
  const tgz = pack();
  const c = installTarball(tgz);
  const setup = (performance.now() - t0) / 1000;
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' };
  const commands: [string, string[], number, number][] = [
    ['--version', ['--version'], 0, 0.3],
    ['check lost-update', ['check', 'lost-update', '--out', join(c.dir, 'lu.json')], 1, 1],
    ['check amber-loop', ['check', 'amber-loop', '--out', join(c.dir, 'amber.json')], 1, 1],
  ];
  const bin = join(REPO, 'bin/interleave.js');
  const modes: Mode[] = [
    { label: 'compiled (installed package, dist/)', argv0: [process.execPath, c.bin] },
    { label: 'clone (bin/interleave.js)', argv0: [process.execPath, bin] },
    { label: 'clone through tsx (INTERLEAVE_TSX=1)', argv0: [process.execPath, bin], env: { INTERLEAVE_TSX: '1' } },
    { label: 'npx interleave in the clone (README)', argv0: ['npx', 'interleave'], cwd: REPO },
    { label: 'npx interleave in a project that installed it', argv0: ['npx', 'interleave'] },
  ];
  const rows: Cell[][] = [];
  const phases: Cell[][] = [];
  try {
    for (const [label, args, want, goal] of commands) {
      for (const m of modes) {
        time(m, args, c.dir, env); // warm the file cache (and the clone's compiled cache)
        const xs = Array.from({ length: runs }, () => time(m, args, c.dir, env));
        const bad = xs.find((x) => x.code !== want);
        if (bad) throw new Error(`${m.label} ${label} exited ${bad.code}, expected ${want}`);
        const cpu = xs.every((x) => x.cpu !== undefined) ? median(xs.map((x) => x.cpu!)) : NaN;
        rows.push([label, m.label, median(xs.map((x) => x.wall)), cpu, m.label.startsWith('compiled') || label.includes('amber') ? `< ${goal} s` : '']);
      }
    }
    for (const m of modes) {
      const mode = m.label;
      const xs = Array.from({ length: runs }, () => JSON.parse(time(m, ['check', 'amber-loop', '--json', '--out', join(c.dir, 'amber-json.json')], c.dir, env).stdout).stats.phases as PhaseRow);
      for (const name of Object.keys(xs[0]!)) {
        phases.push([mode, name, median(xs.map((p) => p[name]?.wallMs ?? 0)), median(xs.map((p) => p[name]?.cpuMs ?? 0))]);
      }
      phases.push([mode, 'sum', median(xs.map((p) => Object.values(p).reduce((a, x) => a + x.wallMs, 0))), median(xs.map((p) => Object.values(p).reduce((a, x) => a + x.cpuMs, 0)))]);
    }
  } finally {
    removeConsumer(c);
  }
  printTable(
    `cold start-up of the interleave command (median of ${runs} runs)`,
    ['command', 'how it runs', 'wall s', 'CPU s', 'goal (idle)'],
    rows,
    `1-minute load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on ${availableParallelism()} cores; pack + install took ${setup.toFixed(1)} s (not in the table).`,
  );
  printTable(
    `the main job, check amber-loop, phase by phase (check --json stats.phases, median of ${runs} runs)`,
    ['how it runs', 'phase', 'wall ms', 'CPU ms'],
    phases,
    'moduleLoad: from the process start (node, the loader, the modules) to the search; CPU is the whole process (every thread), so it can exceed wall.\n' +
      'sum: the phases together; the rest of the process (printing, exit) is not in it.',
  );
}
