// The `interleave` command: list, check, replay, show, simulate, bench.
// `main` parses argv, runs one command and returns the exit code:
// 0 all properties hold, 1 a violation, 2 bad input, 130 interrupted.
// A command's module is imported when it runs, so `--version` and `--help` load only
// commander and this file's few imports (npm run bench -- cli measures the start-up).
import { Command, CommanderError, Option } from 'commander';
import { FORMATS } from '../report/formats.ts';
import type { CheckFlags } from './commands/check.ts';
import type { ShowFlags } from './commands/show.ts';
import { EXIT, UsageError, didYouMean } from './errors.ts';
import { processIo, type Io } from './io.ts';
import { collectParam, intArg, scenarioNames, secondsArg, secondsArgFor, shardArg } from './options.ts';
import { VERSION } from './version.ts';
import { PhaseClock, cpuNowMs } from '../check/phases.ts';

const STRATEGIES = ['dfs', 'bfs', 'random', 'pct', 'pos', 'swarm'] as const;
const SCENARIO_HELP = "a scenario: a name (see 'interleave list'), or your module ./path/to/module.(ts|js|mjs)[#export]";
const CONFIG_HELP = 'the project config listing scenario modules (default: the nearest interleave.config.(js|mjs|ts) from here up to the project root)';

function program(io: Io, setCode: (n: number) => void): Command {
  const p = new Command('interleave')
    .description('Model-check, replay and simulate the protocols of distributed dataflows, modelled as xstate machines.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .addHelpCommand('help [command]', 'show help for a command')
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: (s) => io.out(s.replace(/\n$/, '')), writeErr: (s) => io.err(s.replace(/\n$/, '')) })
    .addHelpText('after', `
Exit codes: 0 every property holds, 1 a violation was found, 2 bad input, 3 internal error, 130 interrupted.

Examples:
  $ npx interleave list
  $ npx interleave check lost-update
  $ npx interleave check lost-update --param design=compare-and-set
  $ npx interleave replay .interleave/lost-update-seed0.json
  $ npx interleave show .interleave/lost-update-seed0.json --format mermaid
  $ npx interleave check ./scenarios.ts#checkout      (your own scenario module)`);

  p.command('list')
    .description("list the scenarios (built-in, and your project's from interleave.config.*) with their parameters and defaults")
    .argument('[module...]', 'list the scenarios these modules export instead (./path/to/module.ts)')
    .option('--config <file>', CONFIG_HELP)
    .option('--json', 'print one JSON document')
    .action(async (modules: string[], o: { json?: boolean; config?: string }) => setCode(await (await import('./commands/list.ts')).runList(io, modules, o)));

  p.command('check')
    .description('explore the schedules of a scenario and check its properties')
    .argument('<scenario>', SCENARIO_HELP)
    .option('-p, --param <key=value>', 'a scenario parameter (repeatable); see `interleave list`', collectParam, [])
    .addOption(new Option('-s, --strategy <name>', 'search strategy').choices(STRATEGIES))
    .option('--seed <n>', 'seed for random, pct, pos and swarm (and tie-breaks)', intArg('--seed'))
    .option('--runs <n>', 'random/pct/pos/swarm: number of runs', intArg('--runs', 1))
    .option('--count-distinct', 'random/pct/pos/swarm: hash every world the runs meet to count the distinct ones (off by default: the verdict needs no fingerprints)')
    .option('--depth <n>', 'pct: bug depth d (d-1 priority change points); pos has none', intArg('--depth', 1))
    .option('--max-states <n>', 'stop after this many states', intArg('--max-states', 1))
    .option('--max-depth <n>', 'do not explore past this many steps', intArg('--max-depth', 1))
    .option('--time-limit <seconds>', 'stop after this long', secondsArg)
    .option('--workers <n>', 'swarm: worker threads (0 runs in this thread)', intArg('--workers', 0))
    .option('--shard <i/n>', 'run slice i of n (1-based) of a dfs, bfs or swarm check, for several processes or machines; also from INTERLEAVE_SHARD, JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID (docs/sharding.md)', shardArg)
    .option('--shard-count <n>', 'the shard count when the index comes from JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or a Slurm array', intArg('--shard-count', 1))
    .option('--shard-prefix <c>', `sharded dfs/bfs: the shared prefix grows until a level has c worlds per shard (default 128), then 6 levels more`, intArg('--shard-prefix', 1))
    .option('--shard-lookahead <levels>', 'sharded dfs/bfs: levels the shared prefix explores past that level before it deals its last level out (default 6; 0 deals the partition level itself)', intArg('--shard-lookahead', 0))
    .option('--exchange <dir>', 'sharded dfs/bfs, exchange mode: each world is explored by one owner shard, the shards send each other worlds as files in this shared directory (one empty directory per run; also INTERLEAVE_EXCHANGE); all shards run at once, no state is explored twice, POR is off (docs/sharding.md)')
    .option('--exchange-timeout <seconds>', 'exchange mode: stop the run, incomplete, when a shard has been silent (or not started) this long (default 120)', secondsArgFor('--exchange-timeout'))
    .option('--share-visited <dir>', 'sharded dfs/bfs, shared-visited mode: every shard runs the shared prefix and tells the others, as files in this shared directory, the fingerprints of the worlds it visits, so a world is explored again only when two shards meet it before hearing of each other; a shard that runs out of its own frontier worlds takes the others\' (one empty directory per run; also INTERLEAVE_SHARE_VISITED); all shards run at once; sleep sets stay on, claims carry their marks (docs/sharding.md)')
    .option('--result <file>', "dfs/bfs: write the result as JSON (atomically) for 'interleave merge'")
    .option('--fingerprints <file>', 'dfs/bfs: write the visited fingerprints, sorted, one hex line each')
    .option('--no-por', 'turn partial-order reduction off')
    .option('--no-determinism-check', 'dfs/bfs and --from: do not re-step a sample of transitions to catch impure machines')
    .addOption(new Option('--frontier <kind>', 'bfs: compact (default; an entry is its parent and step, worlds re-derived) or worlds (a world per entry)').choices(['compact', 'worlds']))
    .option('--from <trace.json>', 'explore around a recorded run (a live recording or any saved trace) instead of from scratch')
    .option('--within <k>', 'with --from: deviations (reorderings, faults) allowed from the recorded schedule (default 1)', intArg('--within', 0))
    .option('--ignore-data', 'with --from: compare only the recorded steps and reply types with the model, not the data in the recorded replies')
    .option('--require-complete', 'exit 1 (not 0) when no violation was found but the exploration was not complete (cut by a budget or a bound); the output says INCOMPLETE')
    .option('--trace-limit <name=value>', 'a trace file limit <name>=<n>, repeatable: bytes, depth, string, items (see docs/cli.md)', collectParam, [])
    .option('-o, --out <file>', 'where to write the counterexample JSON (HTML next to it); default .interleave/<scenario>-seed<N>.json')
    .option('--config <file>', CONFIG_HELP)
    .option('--json', 'print one JSON document and nothing else')
    .option('--charts', "draw each actor's statechart in the HTML viewer too (off by default: laying them out takes longer than the search; `interleave show <trace.json> --format html` draws them)")
    .option('-v, --verbose', "also print the search's internals (the fingerprint collision bound, which search, reduced or full, met which violation first) and where the time went: wall and CPU per phase")
    .addHelpText('after', `
Exit codes: 0 every property holds (the output says whether exploration was complete
or cut by a budget), 1 a violation (counterexample printed and saved), 2 bad input
(with --from: a recording that does not fit the model). With --require-complete an
exploration that was not complete exits 1 too (the output says INCOMPLETE).
Deadlock: nothing enabled while a machine waits (not final, no 'idle'/'end' tag, out of
its initial state or its initial state sent a request on entry).
Ctrl-C stops the search and prints the stats so far (exit 130).

Examples:
  $ npx interleave check lost-update
  $ npx interleave check lost-update --param design=compare-and-set --param clients=3
  $ npx interleave check ping-pong --strategy random --runs 500 --seed 7 --json
  $ npx interleave check ./test/scenarios.ts#election --param tieBreak=by-id`)
    .action(async (name: string, o: CheckFlags) => {
      const clock = startClock();
      const end = clock.start();
      const command = await import('./commands/check.ts');
      end('moduleLoad');
      setCode(await command.runCheck(io, name, o, clock));
    });

  p.command('merge')
    .description("combine the result files of a sharded check ('check --shard i/n --result FILE'): exit 1 with the shortest counterexample, 0 when every shard is present and complete, 2 naming missing, duplicate or mismatched shards")
    .argument('<files...>', "result files written by 'interleave check --result'")
    .option('-o, --out <file>', 'where to write the counterexample trace (HTML next to it); default .interleave/<scenario>-merged.json')
    .option('--json', 'print one JSON document')
    .action(async (files: string[], o: { json?: boolean; out?: string }) => setCode(await (await import('./commands/merge.ts')).runMerge(io, files, o)));

  p.command('replay')
    .description('re-run a saved counterexample: exit 1 if it still fails, 0 if not, 2 if it no longer fits the model')
    .argument('<trace.json>', "a trace file written by 'interleave check'")
    .option('--config <file>', CONFIG_HELP)
    .option('--json', 'print one JSON document')
    .option('--ignore-data', 'compare only the recorded steps and reply types with the model, not the data in the recorded replies')
    .option('--trace-limit <name=value>', 'a trace file limit <name>=<n>, repeatable: bytes, depth, string, items (see docs/cli.md)', collectParam, [])
    .action(async (path: string, o: { json?: boolean; config?: string; traceLimit: string[]; ignoreData?: boolean }) => setCode(await (await import('./commands/replay.ts')).runReplay(io, path, o)));

  p.command('show')
    .description("render a saved trace as a step list, a Mermaid sequence diagram, an HTML viewer or JSON; with --machines, draw a scenario's statecharts")
    .argument('<trace.json|scenario>', "a trace file written by 'interleave check' (with --machines: " + SCENARIO_HELP + ')')
    .addOption(new Option('-f, --format <format>', 'output format (default text, or from the --out extension; with --machines: mermaid, html or json)').choices(FORMATS))
    .option('-o, --out <file>', 'write to a file instead of stdout')
    .option('--machines', "draw each actor's statechart of the scenario instead (Mermaid stateDiagram-v2; html: SVG charts; json: the machine config Stately's tools import)")
    .option('-p, --param <key=value>', 'with --machines: a scenario parameter (repeatable)', collectParam, [])
    .option('--actor <id>', 'with --machines: only the chart of this actor')
    .option('--trace-limit <name=value>', 'a trace file limit <name>=<n>, repeatable: bytes, depth, string, items (see docs/cli.md)', collectParam, [])
    .option('--no-verify', "draw the file as saved, without re-running its schedule on the scenario")
    .option('--config <file>', CONFIG_HELP)
    .action(async (path: string, o: ShowFlags & { machines?: boolean; param: string[]; actor?: string }) => {
      if (o.machines) return setCode(await (await import('./commands/show-machines.ts')).runShowMachines(io, path, o));
      if (o.param.length || o.actor !== undefined) throw new UsageError(`${o.param.length ? '--param' : '--actor'} goes with --machines (drawing a scenario's statecharts); a trace file records its own parameters`);
      setCode(await (await import('./commands/show.ts')).runShow(io, path, o));
    });

  p.command('simulate')
    .description("run a scenario's virtual-time study and print its metrics tables")
    .argument('<scenario>', 'a scenario with a cost model (a name, or ./module.ts#export)')
    .option('-p, --param <key=value>', 'a scenario parameter (repeatable)', collectParam, [])
    .option('--config <file>', CONFIG_HELP)
    .option('--seed <n>', 'seed of the simulation', intArg('--seed'))
    .option('--json', 'print one JSON document')
    .action(async (name: string, o: { param: string[]; seed?: number; json?: boolean; config?: string }) => setCode(await (await import('./commands/simulate.ts')).runSimulate(io, name, o)));

  p.command('bench')
    .description('run the benchmarks, all of them without a name (in a clone of the repository: the package does not ship them)')
    .argument('[name...]', 'benchmarks to run')
    .allowUnknownOption(true)
    .helpOption('-h, --help', 'show help for a command')
    .action(async (names: string[], _o: unknown, cmd: Command) => {
      const extra = cmd.args.filter((a) => a.startsWith('-'));
      setCode(await (await import('./commands/bench.ts')).runBench(names.filter((n) => !n.startsWith('-')), extra));
    });
  return p;
}

function optionList(cmd: Command): string {
  return cmd.options.map((o) => o.long ?? o.short).filter(Boolean).join(', ');
}

/** What commander's own message leaves out: the valid choices. */
async function explain(err: CommanderError, cmd: Command, root: Command): Promise<string | undefined> {
  const name = cmd === root ? 'interleave' : `interleave ${cmd.name()}`;
  switch (err.code) {
    case 'commander.unknownOption':
      return `options of '${name}': ${optionList(cmd)} (see '${name} --help')`;
    case 'commander.unknownCommand':
      return `commands: ${root.commands.map((c) => c.name()).join(', ')} (see 'interleave --help')`;
    case 'commander.missingArgument':
    case 'commander.excessArguments':
      return `usage: ${name} ${cmd.usage()}${['check', 'simulate'].includes(cmd.name()) ? `; scenarios: ${(await scenarioNames()).join(', ')}` : ''}`;
    case 'commander.missingMandatoryOptionValue':
    case 'commander.optionMissingArgument':
      return `see '${name} --help'`;
    default:
      return undefined;
  }
}

/** The process's start-up (node, the loader, this file's imports), counted once: by the first command a process runs. */
let startup: { wallMs: number; cpuMs: number } | undefined;
let started = false;

/** A phase clock for a command, holding the process's start-up when it is the first. */
function startClock(): PhaseClock {
  const clock = new PhaseClock();
  if (startup) clock.add('moduleLoad', startup.wallMs, startup.cpuMs);
  startup = undefined;
  return clock;
}

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  if (!started) startup = { wallMs: performance.now(), cpuMs: cpuNowMs() };
  started = true;
  let code: number = EXIT.ok;
  const json = argv.includes('--json');
  // With --json, commander's own error text is collected and printed as the JSON error instead.
  const errors: string[] = [];
  const cmdIo: Io = json ? { ...io, err: (t) => void errors.push(t) } : io;
  const root = program(cmdIo, (n) => (code = n));
  let failed: Command = root;
  const override = (cmd: Command) =>
    cmd.exitOverride((err) => {
      failed = cmd;
      throw err;
    });
  override(root);
  for (const c of root.commands) override(c);
  try {
    if (argv.length === 0) {
      root.outputHelp({ error: true });
      return EXIT.usage;
    }
    await root.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
      const more = await explain(e, failed, root);
      if (json) {
        const message = [e.message.replace(/^error: /, ''), more].filter(Boolean).join('; ');
        io.out(JSON.stringify({ ok: false, error: { code: 'bad-input', message } }, null, 2));
      } else if (more) io.err(more);
      return EXIT.usage;
    }
    if (e instanceof UsageError) {
      if (json) io.out(JSON.stringify({ ok: false, error: { code: 'bad-input', message: e.message } }, null, 2));
      else io.err(`${io.errStyle.red('error:')} ${e.message}`);
      return EXIT.usage;
    }
    const msg = e instanceof Error ? (e.stack ?? e.message) : String(e);
    if (json) io.out(JSON.stringify({ ok: false, error: { code: 'internal', message: e instanceof Error ? e.message : String(e) } }, null, 2));
    else io.err(`${io.errStyle.red('internal error')} (please report it): ${msg}`);
    return 3;
  } finally {
    startup = undefined;
  }
}

export { didYouMean };
