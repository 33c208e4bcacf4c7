// `interleave check <scenario>`: explore a scenario's schedules and report the verdict.
import { familySource } from '../../machines/family-table.ts';
import { statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { ScenarioError, isModelError, isOptional, type ModelError, type Divergence, type ParamValues, type Scenario, type ScenarioFamily } from '../../actors/index.ts';
// Report modules one by one: the report index also loads the trace schema (zod), which
// writing a trace does not need.
import { busyActors, traceView } from '../../report/model.ts';
import { deviationMarks, formatSteps, lassoEnd, legendLines, stepsText, propertyLabel } from '../../report/text.ts';
import { formatHtmlPieces } from '../../report/html.ts';
import { reportContext, type ReportContext } from '../../report/context.ts';
import type { TraceFileData } from '../../report/schema.ts';
import { loadChecker, type CheckOptions, type CheckResult, type CheckerApi, type Violation } from '../check-api.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printJson, type Io } from '../io.ts';
import { paramFlags, resolveParams, shellWord } from '../options.ts';
import { showProgress } from '../progress.ts';
import { refText, resolveTarget, type Target } from '../scenario-ref.ts';
import { resolveShard, type ShardChoice } from '../shard-env.ts';
import { RESULT_KIND, RESULT_SCHEMA_VERSION, fingerprintLines, type ShardResultFile } from '../shard-result.ts';
import { VERSION } from '../version.ts';
import { exchangeChecks, exchangeLines, exchangeShard, stoppedByOther } from '../exchange-cli.ts';
import { shareVisitedChecks, shareVisitedLines, shareVisitedShard } from '../share-visited-cli.ts';
import { modulePathFrom, writeAtomically } from '../../check/trace/trace-file.ts';
import type { RecordingMisfit } from '../../check/trace/recorded.ts';
import { DATA_WHY } from '../recording-misfit.ts';
import { PhaseClock, roundPhases } from '../../check/phases.ts';
import { phaseLines } from '../phase-table.ts';
import { countText } from '../../report/count-text.ts';

export interface CheckFlags {
  param: string[];
  /** Print the search's internals too (the hash-collision bound, which search met which violation first) and wall and CPU per phase. */
  verbose?: boolean;
  strategy?: CheckOptions['strategy'];
  seed?: number;
  runs?: number;
  /** Sampled strategies: count distinct states (CheckOptions.countDistinct). */
  countDistinct?: boolean;
  depth?: number;
  maxStates?: number;
  maxDepth?: number;
  timeLimit?: number;
  workers?: number;
  shard?: { index: number; count: number };
  /** With JOB_COMPLETION_INDEX or a Slurm array: how many shards (shard-env.ts). */
  shardCount?: number;
  /** Sharded dfs/bfs: frontier worlds per shard the shared prefix waits for. */
  shardPrefix?: number;
  shardLookahead?: number;
  /** Sharded dfs/bfs: exchange mode through this shared directory (or INTERLEAVE_EXCHANGE). */
  exchange?: string;
  /** Exchange mode: seconds of a shard's silence before the run stops. */
  exchangeTimeout?: number;
  /** Sharded dfs/bfs: shared-visited mode through this shared directory (or INTERLEAVE_SHARE_VISITED). */
  shareVisited?: string;
  /** dfs/bfs: write the result JSON here (for `interleave merge`), atomically. */
  result?: string;
  /** dfs/bfs: write the visited fingerprints here, one 16-digit hex a line, sorted. */
  fingerprints?: string;
  por: boolean;
  /** False with --no-determinism-check. */
  determinismCheck?: boolean;
  /** bfs: how the frontier is held (CheckOptions.frontier). */
  frontier?: 'compact' | 'worlds';
  /** Explore within `within` deviations of this recorded trace (fromTraceRun). */
  from?: string;
  within?: number;
  /** With `from`: compare only the recorded steps and reply types, not the data in recorded replies. */
  ignoreData?: boolean;
  /** Exit 3 when no violation was found but the exploration was not complete. */
  requireComplete?: boolean;
  /** With `from`: trace file limits (`name=value`, see trace/trace-file.ts). */
  traceLimit?: string[];
  out?: string;
  config?: string;
  json?: boolean;
  /** Draw the statecharts in the viewer (their layout costs about as much as the search). */
  charts?: boolean;
}

export function buildScenario(f: ScenarioFamily, p: ParamValues): Scenario {
  try {
    return f.build(p);
  } catch (e) {
    if (e instanceof ScenarioError) throw new UsageError(`scenario '${f.name}' cannot be built with these parameters: ${e.message}`);
    throw e;
  }
}

function checkOptions(t: Target, p: ParamValues, flags: CheckFlags): CheckOptions {
  const f = t.family;
  const d = typeof f.checkDefaults === 'function' ? f.checkDefaults(p) : (f.checkDefaults ?? {});
  const o: CheckOptions = { ...d };
  if (flags.strategy !== undefined) o.strategy = flags.strategy;
  if (flags.seed !== undefined) o.seed = flags.seed;
  if (flags.runs !== undefined) o.runs = flags.runs;
  if (flags.countDistinct) o.countDistinct = true;
  if (flags.depth !== undefined) o.depth = flags.depth;
  if (flags.maxStates !== undefined) o.maxStates = flags.maxStates;
  if (flags.maxDepth !== undefined) o.maxDepth = flags.maxDepth;
  if (flags.timeLimit !== undefined) o.timeLimitMs = Math.round(flags.timeLimit * 1000);
  if (flags.workers !== undefined) o.workers = flags.workers;
  if (flags.shard !== undefined) o.shard = flags.shard;
  if (flags.shardPrefix !== undefined) o.shardPrefix = flags.shardPrefix;
  if (flags.shardLookahead !== undefined) o.shardLookahead = flags.shardLookahead;
  if (flags.exchange !== undefined) o.exchange = { dir: resolve(flags.exchange), ...(flags.exchangeTimeout !== undefined ? { timeoutMs: Math.round(flags.exchangeTimeout * 1000) } : {}) };
  if (flags.shareVisited !== undefined) o.shareVisited = { dir: resolve(flags.shareVisited) };
  if (!flags.por) o.por = false;
  if (flags.determinismCheck === false) o.determinism = false;
  if (flags.frontier !== undefined) o.frontier = flags.frontier;
  // A family's suggested PCT depth does not apply when the user picks pos (which has none).
  if (o.strategy === 'pos' && flags.depth === undefined) delete o.depth;
  // Swarm workers rebuild the scenario in their own threads, from the family's module or the user's.
  const source = t.origin ? { module: t.origin.path, export: t.origin.export, params: { ...p } } : familySource(f.name, { ...p });
  if (source) o.source = source;
  return o;
}

/**
 * The trace file of a violation, to be written to `jsonPath` (its shape is the published
 * schema's; the tests validate what check writes). A user's scenario records its module relative to that file, so replay and
 * show find it from any directory.
 */
export function traceFileOf(api: CheckerApi, sc: Scenario, t: Target, p: ParamValues, r: CheckResult, v: Violation, jsonPath: string, seed?: { schedule: readonly string[] }): TraceFileData {
  const f = t.family;
  // A source is for this process's workers; the file says where the scenario came from instead.
  const { source: _source, ...rest } = r.options as Record<string, unknown>;
  const options = t.origin ? rest : r.options;
  const base = api.toTraceFile(sc, v, { params: { ...p }, options, seed: v.seed ?? r.seed });
  const module = t.origin ? { path: modulePathFrom(jsonPath, t.origin.path), export: t.origin.export } : undefined;
  // Replay finds the family by this name (or the module), so it must be the family's.
  // A counterexample found around a live recording carries the payloads of its input steps.
  const inputs = (v as Violation & { inputs?: unknown[] }).inputs;
  const recorded = seed ? recordedOf(r, v, seed) : undefined;
  return JSON.parse(JSON.stringify({ ...base, scenario: { name: f.name, params: { ...p }, ...(module ? { module } : {}) }, ...(inputs ? { inputs } : {}), ...(recorded ? { recorded } : {}) })) as TraceFileData;
}

/** A counterexample found around a recording: the recording beside it (its path, length, the steps it covers) and each step's origin. */
function recordedOf(r: CheckResult, v: Violation, seed: { schedule: readonly string[] }): TraceFileData['recorded'] {
  if (!v.recorded) return undefined;
  const at = v.recorded.map((o) => o.recorded).filter((n): n is number => n !== undefined);
  const start = Math.max(1, Math.min(...at, seed.schedule.length));
  const end = Math.min(seed.schedule.length, Math.max(...at, start), start + 999);
  return {
    ...(typeof r.options.from === 'string' ? { from: r.options.from } : {}),
    length: seed.schedule.length,
    steps: v.recorded,
    window: { start, ids: seed.schedule.slice(start - 1, end) },
  };
}

/** The viewer's context; the statecharts only when asked for, else the commands that draw them (`show --format html` draws them too). */
function viewerContext(sc: Scenario, f: ScenarioFamily, charts: boolean, leftOut: readonly string[]): ReportContext {
  if (charts) return reportContext(sc, f.params);
  // Every actor is drawn (a machine as its chart, any other as a box): there are charts to leave out if there are actors.
  const rest = reportContext(sc, f.params, { charts: false });
  return sc.actorList.length > 0 ? { ...rest, chartsLeftOut: leftOut } : rest;
}

/** A user's scenario name may hold any character; a file name should not. */
/**
 * A trace file's default name: a built-in family's name, or a user's module and export
 * (`scenarios-election-seed0.json`), so two modules exporting scenarios of one name do not
 * overwrite each other's traces.
 */
function fileName(t: Target, seed: number, suffix = ''): string {
  const stem = t.origin ? `${basename(t.origin.path).replace(/\.[^.]*$/, '')}-${t.origin.export}` : t.family.name;
  return `${stem.replace(/[^A-Za-z0-9._-]+/g, '_')}-seed${seed}${suffix}.json`;
}

/** `--out` may name a file, or a directory (existing, or ending in '/') to put the default name in. */
function outPath(out: string | undefined, t: Target, seed: number, suffix?: string): string {
  if (out === undefined) return join('.interleave', fileName(t, seed, suffix));
  let dir = /[/\\]$/.test(out);
  try {
    dir ||= statSync(out).isDirectory();
  } catch {
    // Does not exist yet: a file path.
  }
  return dir ? join(out, fileName(t, seed, suffix)) : out;
}

export function htmlPathFor(jsonPath: string): string {
  return /\.json$/i.test(jsonPath) ? jsonPath.replace(/\.json$/i, '.html') : `${jsonPath}.html`;
}

function stats(r: CheckResult, verbose: boolean): string {
  const s = r.stats;
  const n = (x: number) => countText(Math.round(x));
  const runs = s.runs !== undefined ? `, ${n(s.runs)} runs` : '';
  const p = r.collisionProbability;
  // States are told apart by a 64-bit hash; the chance two were confused is the optimistic bound TLC prints.
  const collision = p === undefined || !verbose ? '' : `; fingerprint collision probability ${p === 0 ? '0' : p.toExponential(1)} (optimistic, as TLC)`;
  const live = s.liveness ? `, liveness graph ${n(s.liveness.edges)} edges at ${n(s.liveness.bytesPerState)} B/state` : '';
  const mb = (x: number) => `${(x / 1048576).toFixed(0)} MB`;
  const m = s.memory;
  // Per-state figures of a small search are the runtime's own memory divided by a few states;
  // a large one's are for tuning the checker, so --verbose prints them.
  const per = m && verbose && (s.distinctStates ?? 0) >= 10_000 ? ` (${n(m.rssBytesPerState)} B/state; heap +${n(m.heapGrowthBytesPerState)} B/state, visited set ${n(s.bytesPerState)} B/state)` : '';
  const mem = m ? `; peak RSS ${mb(m.peakRssBytes)}${per}` : '';
  const distinct = s.distinctStates === undefined ? 'distinct not counted (--count-distinct)' : `${n(s.distinctStates)} distinct`;
  const rate = s.statesPerSecond === undefined ? `${n(s.ms > 0 ? (s.states * 1000) / s.ms : 0)} generated/s` : `${n(s.statesPerSecond)} states/s`;
  return `${n(s.states)} states, ${distinct}, ${n(s.transitions)} transitions, max depth ${s.maxDepth}${runs}, ${(s.ms / 1000).toFixed(2)}s (${rate})${live}${collision}${mem}`;
}

/** Which search's first violation is shown, when the reduction made that a question (search/first-violation.ts in the checker). */
function firstViolationLine(r: CheckResult, verbose: boolean): string | undefined {
  const fv = r.options.firstViolation as { search: string; reduced: string; reducedDistinctStates: number } | undefined;
  if (typeof r.options.firstViolationNote === 'string') return r.options.firstViolationNote;
  if (fv?.search !== 'unreduced') return undefined;
  const [kind, ...rest] = fv.reduced.split(':');
  const name = rest.join(':');
  if (verbose) return `the reduced search met ${kind} '${name}' first (${countText(fv.reducedDistinctStates)} distinct states); shown is the unreduced search's first violation, as with --no-por`;
  // The same property either way: nothing a reader needs to know.
  const v = r.violation?.property;
  if (v && v.kind === kind && v.name === name) return undefined;
  return `the faster search (it skips reorderings that cannot matter) stopped first at ${kind} '${name}'; shown is the first violation of the full search`;
}

const CUT: Record<string, string> = {
  maxStates: 'the --max-states budget',
  maxDepth: 'the --max-depth bound',
  timeLimit: 'the --time-limit',
  runs: 'the number of --runs (sampling never proves absence)',
  stopped: 'Ctrl-C',
};

export async function runCheck(io: Io, name: string, flags: CheckFlags, clock = new PhaseClock()): Promise<number> {
  let end = clock.start();
  const t = await resolveTarget(name, flags.config);
  end('moduleLoad');
  const f = t.family;
  // Starting from a recording: where it started (a resumed run's state) comes with it.
  const tf = flags.from !== undefined ? await import('../read-trace.ts') : undefined;
  const seedFile = flags.from !== undefined ? tf!.readTrace(flags.from, tf!.traceLimits(flags.traceLimit)) : undefined;
  end = clock.start();
  const p = resolveParams(f, flags.param, seedFile?.scenario);
  const sc = buildScenario(f, p);
  end('scenarioBuild');
  const chosen = resolveShard(flags.shard, flags.shardCount);
  const envExchange = process.env.INTERLEAVE_EXCHANGE;
  if (flags.exchange === undefined && envExchange) flags = { ...flags, exchange: envExchange };
  const envShared = process.env.INTERLEAVE_SHARE_VISITED;
  if (flags.shareVisited === undefined && envShared) flags = { ...flags, shareVisited: envShared };
  const opts = checkOptions(t, p, { ...flags, ...(chosen ? { shard: { index: chosen.index, count: chosen.count } } : {}) });
  end = clock.start();
  const api0 = await loadChecker();
  end('moduleLoad');
  const fps = shardChecks(api0, sc, opts, flags, chosen);
  // How to name this scenario again on a command line.
  const arg = t.origin ? refText(t.origin) : f.name;
  const api = api0;
  const s = io.errStyle;
  if (chosen && !flags.json) io.err(s.dim(`shard ${chosen.index + 1}/${chosen.count}${chosen.from === '--shard' ? '' : ` (from ${chosen.from})`}${opts.exchange ? `, exchanging worlds through ${opts.exchange.dir}` : ''}${opts.shareVisited ? `, sharing visited worlds through ${opts.shareVisited.dir}` : ''}`));
  // Name the scenario with the parameters that differ from the defaults.
  const changed = Object.entries(p).filter(([k, v]) => f.params[k]?.default !== v);
  const short = (v: unknown) => (String(v).length > 40 ? `${String(v).slice(0, 30)}… (${String(v).length} chars)` : String(v));
  const label = `${f.name}${changed.length ? ` (${changed.map(([k, v]) => `${k}=${short(v)}`).join(', ')})` : ''}`;
  if (seedFile?.options.cut === true && !flags.json) io.err(s.yellow(`note: ${flags.from}: the recording was cut short (it has no end line: the run was killed or crashed); it holds the run's first ${seedFile.schedule.length} steps, up to its last flushed batch`));
  if (!flags.json) io.err(s.dim(`checking ${label}${opts.strategy ? ` with ${opts.strategy}` : ''}${opts.seed !== undefined ? `, seed ${opts.seed}` : ''} … (Ctrl-C stops and prints the stats so far)`));
  let run;
  try {
    if (flags.from !== undefined) {
      const { fromTraceRun } = await import('../../check/check.ts');
      // The family's depth bound is for searches from the start; a recording sets its own (its length + 1,000).
      run = fromTraceRun(sc, seedFile!, { within: flags.within ?? 1, from: flags.from, ...(flags.ignoreData ? { ignoreData: true } : {}), ...(opts.maxStates !== undefined ? { maxStates: opts.maxStates } : {}), ...(opts.timeLimitMs !== undefined ? { timeLimitMs: opts.timeLimitMs } : {}), ...(flags.maxDepth !== undefined ? { maxDepth: flags.maxDepth } : {}), ...(opts.determinism === false ? { determinism: false } : {}) });
    } else run = api.checkRun(sc, opts);
  } catch (e) {
    if (e instanceof ScenarioError || (e instanceof Error && e.name === 'ScenarioError')) throw new UsageError(e.message);
    throw e;
  }
  const bar = showProgress(run.progress$, `checking ${f.name}`, io.tty && !flags.json);
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    run.stop();
  };
  process.on('SIGINT', onSigint);
  let r: CheckResult;
  try {
    r = await run.result;
  } catch (e) {
    if (e instanceof ScenarioError || (e instanceof Error && e.name === 'ScenarioError')) throw new UsageError(e.message);
    if (seedFile && e instanceof Error && e.name === 'Divergence') throw new UsageError(recordingMisfit(flags.from!, label, seedFile.scenario.params, p, e as Divergence));
    if (isModelError(e)) throw new UsageError(modelErrorText(e, saveModelErrorTrace(api, sc, t, p, e, outPath(flags.out, t, opts.seed ?? 0, '-model-error'))));
    if (seedFile && e instanceof Error && e.name === 'RecordingMisfit') {
      const m = e as RecordingMisfit;
      if (m.divergence && m.reply === undefined) throw new UsageError(recordingMisfit(flags.from!, label, seedFile.scenario.params, p, { index: m.step, expected: m.divergence.expected, enabledIds: m.divergence.enabledIds }));
      throw new UsageError(`${flags.from!}: the recording does not fit ${label}: at step ${m.step + 1} a recorded reply differs from the model's: ${m.reply}. ${DATA_WHY} Nothing was explored.`);
    }
    if (e instanceof Error && e.name === 'ExchangeError') throw new UsageError(e.message);
    if (opts.exchange && e instanceof Error && e.name === 'WorldCodecError') throw new UsageError(`exchange mode cannot carry a world of this scenario between shards: ${e.message}; shard it without --exchange (no communication) or run it in one process`);
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
    bar.stop();
  }
  const scenario = { name: f.name, params: { ...p }, ...(t.origin ? { module: arg } : {}) };
  if (flags.fingerprints !== undefined && fps.value) writeAtomically(flags.fingerprints, fingerprintLines(fps.value));
  if (flags.result !== undefined) writeAtomically(flags.result, `${JSON.stringify(resultFile(api, sc, t, p, r, scenario, fps.value, interrupted, flags.result), null, 2)}\n`);
  r.stats.phases = { ...clock.phases, ...r.stats.phases };
  for (const note of [r.options.swarmNote, r.options.workersNote]) if (typeof note === 'string' && !flags.json) io.err(s.yellow(`note: ${note}`));
  const up = r.options.workerStartupMs as { mean: number; max: number } | undefined;
  const workersNote = r.options.workersNote;
  const swarm = up ? { swarm: { workers: r.options.workers, workerStartupMs: up, ...(workersNote ? { note: workersNote } : {}) } } : {};
  if (up && !flags.json) io.err(s.dim(`swarm     ${String(r.options.workers)} workers started in ${(up.mean / 1000).toFixed(2)} s on average (at most ${(up.max / 1000).toFixed(2)} s): thread start to the scenario rebuilt`));
  const o = io.style;

  if (r.violation) {
    const v = r.violation;
    // Shards of one check write their counterexamples side by side.
    const jsonPath = outPath(flags.out, t, r.seed, chosen && `-shard${chosen.index + 1}of${chosen.count}`);
    const phases = (r.stats.phases ??= {});
    const timed = new PhaseClock();
    end = timed.start();
    const file = traceFileOf(api, sc, t, p, r, v, jsonPath, seedFile);
    const shown = (x: string) => (resolve(x).startsWith(process.cwd()) ? relative(process.cwd(), resolve(x)) || x : resolve(x));
    const htmlPath = htmlPathFor(jsonPath);
    let writeError: string | undefined;
    try {
      writeAtomically(jsonPath, `${JSON.stringify(file, null, 2)}\n`);
      end('traceWrite');
      end = timed.start();
      const drawCharts = [`npx interleave show ${shellWord(shown(jsonPath))} --format html --out ${shellWord(shown(htmlPath))}`, `npx interleave check ${shellWord(arg)}${paramFlags(f, p)} --charts`];
      writeAtomically(htmlPath, formatHtmlPieces(file, viewerContext(sc, f, flags.charts === true, drawCharts)));
      end('htmlWrite');
    } catch (e) {
      // The violation is still the result; say why the files are missing.
      writeError = `cannot write the trace to ${jsonPath}: ${e instanceof Error ? e.message : String(e)}; choose another place with --out FILE`;
      if (!flags.json) io.err(s.yellow(`warning: ${writeError}`));
    }
    Object.assign(phases, timed.phases);
    r.stats.phases = roundPhases(phases);
    const replayCmd = `npx interleave replay ${shellWord(shown(jsonPath))}`;
    const lasso = v.cycleStart !== undefined ? { cycleStart: v.cycleStart } : {};
    const view = traceView(file.schedule, file.trace);
    const marks = deviationMarks(v.recorded);
    const steps = formatSteps(view, o, { failStep: file.schedule.length, context: true, ...lasso, ...(sc.legend ? { legend: sc.legend } : {}), ...(marks ? { marks } : {}) });
    const rerun = opts.exchange || opts.shareVisited ? `npx interleave check ${shellWord(arg)}${paramFlags(f, p)} --strategy ${r.strategy} --no-por` : flags.from !== undefined ? `npx interleave check ${shellWord(arg)}${paramFlags(f, p, false, true)} --from ${shellWord(flags.from)} --within ${flags.within ?? 1}` : `npx interleave check ${shellWord(arg)}${paramFlags(f, p)} --strategy ${r.strategy} --seed ${r.seed}${chosen ? ` --shard ${chosen.index + 1}/${chosen.count}${flags.shardPrefix !== undefined ? ` --shard-prefix ${flags.shardPrefix}` : ''}${flags.shardLookahead !== undefined ? ` --shard-lookahead ${flags.shardLookahead}` : ''}` : ''}`;
    const hint = f.hint?.(p, true);
    if (flags.json) {
      printJson(io, {
        ok: false,
        scenario,
        strategy: r.strategy,
        seed: r.seed,
        ...swarm,
        ...(v.seed !== undefined ? { runSeed: v.seed } : {}),
        complete: r.complete,
        ...(r.cutBy ? { cutBy: r.cutBy } : {}),
        stats: r.stats,
        ...(r.collisionProbability !== undefined ? { collisionProbability: r.collisionProbability } : {}),
        ...(r.shard ? { shard: r.shard } : {}),
        ...(r.exchange ? { exchange: r.exchange } : {}), ...(r.shareVisited ? { shareVisited: r.shareVisited } : {}),
        ...(r.options.firstViolation ? { firstViolation: r.options.firstViolation } : {}),
        ...(typeof r.options.firstViolationNote === 'string' ? { firstViolationNote: r.options.firstViolationNote } : {}),
        violation: {
          property: v.property,
          schedule: file.schedule,
          originalLength: v.originalLength,
          ...lasso,
          steps: formatSteps(traceView(file.schedule, file.trace), undefined, lasso).map((l) => l.trim()),
          // Around a recording: per step, its recorded position (1-based) or the kind of deviation.
          ...(v.recorded ? { recorded: v.recorded.map((x, i) => ({ step: i + 1, ...x })) } : {}),
        },
        ...(writeError ? { writeError } : { trace: { json: jsonPath, html: htmlPath }, replay: replayCmd }),
        rerun,
        unreached: r.unreached,
        ...(hint ? { hint } : {}),
      });
      return EXIT.violation;
    }
    const shrunk = v.originalLength > file.schedule.length ? ` (shrunk from ${v.originalLength})` : '';
    io.out(o.red(o.bold(`✗ ${v.property.kind} '${v.property.name}' violated`)) + o.red(`: ${v.property.message}`));
    const legend = legendLines(sc.legend, busyActors(view), v.property.name);
    if (legend.length) io.out(o.dim(legend.join('\n')));
    const dev = v.recorded?.filter((x) => x.deviation).length ?? 0;
    const around = v.recorded ? `; ${dev === 0 ? 'in the recorded order' : `${dev} step${dev === 1 ? '' : 's'} marked ◆ deviate${dev === 1 ? 's' : ''} from the recording`}` : '';
    io.out(`\ncounterexample, ${stepsText(file.schedule.length)}${shrunk}${around}:`);
    io.out(steps.join('\n'));
    io.out(o.red(`${' '.repeat(String(file.schedule.length).length + 4)}✗ ${lassoEnd(file.schedule.length, v.cycleStart)}: ${propertyLabel(sc.legend, v.property.name)}`));
    io.out('');
    io.out(`seed      ${r.seed} (${r.strategy}${v.seed !== undefined && v.seed !== r.seed ? `, failing run's seed ${v.seed}` : ''}; ${stats(r, flags.verbose === true)})`);
    if (!writeError) io.out(`replay    ${replayCmd}`);
    io.out(`search    ${rerun}`);
    const first = firstViolationLine(r, flags.verbose === true);
    if (first) io.out(typeof r.options.firstViolationNote === 'string' ? o.yellow(`note      ${first}`) : o.dim(`${flags.verbose ? 'por ' : 'note'}      ${first}`));
    if (!writeError) {
      io.out(`trace     ${shown(jsonPath)}`);
      io.out(`viewer    ${shown(htmlPath)}#step=${file.schedule.length}  (open in a browser, at the failing step; or: npx interleave show ${shellWord(shown(jsonPath))})`);
    }
    for (const line of [...exchangeLines(r, o), ...shareVisitedLines(r, o)]) io.out(line);
    if (hint) io.out(`\n${o.cyan(hint)}`);
    if (flags.verbose) io.out(phaseLines(r.stats.phases, o).join('\n'));
    return EXIT.violation;
  }
  r.stats.phases = roundPhases(r.stats.phases);

  if (r.finding) {
    const fd = r.finding;
    if (flags.json) {
      printJson(io, { ok: false, scenario, strategy: r.strategy, seed: r.seed, complete: r.complete, finding: { kind: fd.kind, goals: fd.goals, message: fd.message }, stats: r.stats, unreached: r.unreached, ...(r.vacuous ? { vacuous: r.vacuous } : {}), interrupted });
      return EXIT.violation;
    }
    io.out(o.red(`✗ never reached: ${fd.goals.join(', ')}`) + ` (${label}; ${stats(r, flags.verbose === true)})`);
    io.out(`the search was complete, so no run of this model gets there: the model may be testing nothing. If the goal may not happen, mark it optional(p) in reachable.`);
    if (fd.closest) io.out(o.dim(`closest world explored: ${closestText(sc, fd.closest)}`));
    return EXIT.violation;
  }
  const hint = f.hint?.(p, false);
  // Around a recording the depth bound is the recording's own unless --max-depth was given.
  const traceDepth = r.strategy === 'from-trace' && typeof r.options.maxDepth === 'number' ? r.options.maxDepth : undefined;
  const cutText = r.cutBy === 'maxDepth' && traceDepth !== undefined && flags.maxDepth === undefined
    ? `the depth bound of ${countText(traceDepth)} steps (the recording's ${countText(Number(r.options.seedLength))} steps + 1,000; --max-depth sets another)`
    : (CUT[r.cutBy ?? ''] ?? r.cutBy ?? 'a budget');
  const verdict = r.complete ? 'complete' : (stoppedByOther(r) ?? `cut by ${cutText}`);
  // --require-complete: a search that stopped early is not a pass.
  const incomplete = !r.complete && !interrupted && flags.requireComplete === true;
  if (flags.json) {
    printJson(io, { ok: true, scenario, strategy: r.strategy, seed: r.seed, complete: r.complete, ...(flags.requireComplete ? { requireComplete: true } : {}), ...(r.cutBy ? { cutBy: r.cutBy } : {}), ...(traceDepth !== undefined ? { within: r.options.within, depthBound: traceDepth, ...(seedFile?.options.cut === true ? { recordingCut: true } : {}) } : {}), ...(r.shard ? { shard: r.shard } : {}), ...(r.exchange ? { exchange: r.exchange } : {}), ...(r.shareVisited ? { shareVisited: r.shareVisited } : {}), ...swarm, stats: r.stats, ...(r.collisionProbability !== undefined ? { collisionProbability: r.collisionProbability } : {}), unreached: r.unreached, ...(r.vacuous ? { vacuous: r.vacuous } : {}), ...(r.options.endNote ? { endNote: r.options.endNote } : {}), interrupted, ...(hint ? { hint } : {}) });
    return interrupted ? EXIT.interrupted : incomplete ? EXIT.incomplete : EXIT.ok;
  }
  const named: [string, string][] = [
    ...Object.keys(sc.invariants ?? {}).map((k) => ['invariant', k] as [string, string]),
    ...Object.keys(sc.monitors ?? {}).map((k) => ['monitor', k] as [string, string]),
    ...Object.keys(sc.atEnd ?? {}).map((k) => ['eventually', k] as [string, string]),
    ...Object.keys(sc.liveness ?? {}).map((k) => ['liveness', k] as [string, string]),
  ];
  const props = named.map(([kind, k]) => `${kind} ${k}`);
  // Bare ids (INV-4) the legend puts in words: one property a line, with its words.
  const worded = named.some(([, k]) => propertyLabel(sc.legend, k) !== k);
  const kw = Math.max(0, ...named.map(([kind]) => kind.length));
  const nw = Math.max(0, ...named.map(([, k]) => k.length));
  const propLines = named.map(([kind, k]) => `  ${kind.padEnd(kw)}  ${k.padEnd(nw)}  ${propertyLabel(sc.legend, k) === k ? '' : propertyLabel(sc.legend, k).slice(k.length + 2, -1)}`.trimEnd());
  if (interrupted) {
    io.out(o.yellow(`stopped by Ctrl-C: no violation in the part explored so far (${stats(r, flags.verbose === true)})`));
    io.out(`a search cannot be resumed: run it again from the start with a budget, e.g.: npx interleave check ${shellWord(arg)}${paramFlags(f, p)} --time-limit 60`);
    return EXIT.interrupted;
  }
  if (worded) io.out(`${o.green(`✓ all properties hold for ${label}`)}:\n${propLines.join('\n')}`);
  else io.out(o.green(`✓ all properties hold for ${label}`) + ` (${props.length ? props.join(', ') : 'no properties declared: deadlocks and errors only'})`);
  const everything = r.strategy === 'from-trace' ? `every state within ${String(r.options.within)} deviation${r.options.within === 1 ? '' : 's'} of the recording was visited` : 'every reachable state was visited';
  io.out(r.complete
    ? `exploration complete: ${everything} (${r.strategy}; ${stats(r, flags.verbose === true)})`
    : o.yellow(`exploration not complete: ${verdict}; no violation found in the part explored (${r.strategy}, seed ${r.seed}; ${stats(r, flags.verbose === true)})`));
  if (traceDepth !== undefined) io.out(o.dim(`depth bound ${countText(traceDepth)} steps (${flags.maxDepth === undefined ? `the recording's ${countText(Number(r.options.seedLength))} steps as explored + 1,000` : '--max-depth'})`));
  if (r.unreached.length) io.out(o.yellow(`never reached${r.complete ? '' : ' (in the part explored)'}: ${r.unreached.join(', ')}`));
  if (typeof r.options.livenessNote === 'string') io.out(o.yellow(r.options.livenessNote));
  if (r.vacuous) io.out(o.yellow(`could not have failed (only evaluated where the actors they read had not moved): ${r.vacuous.join(', ')}`));
  if (typeof r.options.endNote === 'string') io.out(o.yellow(`note: ${r.options.endNote}`));
  for (const line of [...exchangeLines(r, o), ...shareVisitedLines(r, o)]) io.out(line);
  if (hint) io.out(`\n${o.cyan(hint)}`);
  if (flags.verbose) io.out(phaseLines(r.stats.phases, o).join('\n'));
  if (incomplete) {
    io.out(o.red(`INCOMPLETE: --require-complete: the exploration was ${verdict}; exit 1`));
    return EXIT.incomplete;
  }
  return EXIT.ok;
}

/** Each actor's state in a world, in one line (machines: their state; others: moved or not). */
function closestText(sc: Scenario, w: import('../../actors/index.ts').World): string {
  return sc.actorList.map((a) => {
    const snap = w.snaps[a.index] as { value?: unknown } | undefined;
    const v = a.kind === 'machine' && snap && 'value' in snap ? (typeof snap.value === 'string' ? snap.value : JSON.stringify(snap.value)) : JSON.stringify(snap)?.slice(0, 60);
    return `${a.id} ${v}`;
  }).join(', ');
}

/** Saves the schedule that reaches a model error as a trace file (no property violated); returns its path, or undefined if it could not be written. */
function saveModelErrorTrace(api: CheckerApi, sc: Scenario, t: Target, p: ParamValues, e: ModelError, jsonPath: string): string | undefined {
  if (!e.schedule) return undefined;
  try {
    const file = api.toTraceFile(sc, undefined, { params: { ...p }, options: { modelError: e.message }, seed: 0, schedule: e.schedule, trace: api.replayEvents(sc, e.schedule) });
    if (t.origin) file.scenario.module = { path: modulePathFrom(jsonPath, t.origin.path), export: t.origin.export };
    writeAtomically(jsonPath, `${JSON.stringify(file, null, 2)}\n`);
    return jsonPath;
  } catch {
    return undefined;
  }
}

function modelErrorText(e: ModelError, saved: string | undefined): string {
  const where = e.schedule === undefined ? '' : e.schedule.length === 0 ? ' in the initial world' : ` after ${e.schedule.length} step${e.schedule.length === 1 ? '' : 's'}`;
  const trace = saved ? `\nthe schedule that reaches it is saved: ${saved} (npx interleave show ${shellWord(saved)})` : '';
  return `model error${where}: ${e.message}${trace}\nThis is a mistake in the model or its properties, not a violation of the protocol.`;
}

/** Refuses shard and result flags that do not fit the check; returns where the fingerprints will land. */
function shardChecks(api: CheckerApi, sc: Scenario, opts: CheckOptions, flags: CheckFlags, chosen: ShardChoice | undefined): { value?: BigUint64Array } {
  const strategy = opts.strategy ?? 'bfs';
  const exhaustive = strategy === 'dfs' || strategy === 'bfs';
  const where = chosen && chosen.from !== '--shard' ? ` (shard ${chosen.index + 1}/${chosen.count} from ${chosen.from})` : '';
  if (flags.depth !== undefined && strategy === 'pos') throw new UsageError('--depth is PCT\'s bug depth; pos has no parameters: drop --depth, or use --strategy pct');
  if (flags.workers !== undefined && flags.workers > 1 && strategy !== 'swarm') {
    throw new UsageError(`--workers ${flags.workers} runs the threads of --strategy swarm; ${strategy} runs in one thread: ${exhaustive ? 'split a dfs/bfs over processes with --shard i/n --exchange DIR (docs/sharding.md)' : `use --strategy swarm --workers ${flags.workers} (it spreads ${strategy === 'pct' ? 'PCT' : strategy === 'pos' ? 'POS' : 'random'} runs over the workers)`}, or drop --workers`);
  }
  if (chosen && !exhaustive && strategy !== 'swarm') throw new UsageError(`--shard splits dfs, bfs and swarm checks, not ${strategy}${where}; use --strategy dfs|bfs|swarm`);
  if (chosen && exhaustive && flags.from !== undefined) throw new UsageError(`--shard does not combine with --from${where}: a search around a recording runs in one process`);
  if (chosen && exhaustive && opts.liveness !== false && api.hasLiveness(sc)) {
    throw new UsageError(`scenario '${sc.name}' declares liveness properties, which a sharded search cannot decide (a cycle may cross shards)${where}; check it in one process, or turn the liveness properties off`);
  }
  if (chosen && strategy === 'bfs' && flags.frontier === 'compact') throw new UsageError(`a sharded bfs keeps worlds in its frontier (it starts from many frontier worlds; the compact frontier numbers entries from one root): drop --frontier compact${where}`);
  for (const [flag, v] of [['--shard-prefix', flags.shardPrefix], ['--shard-lookahead', flags.shardLookahead]] as const) {
    if (v !== undefined && !(chosen && exhaustive)) throw new UsageError(`${flag} applies to a sharded dfs/bfs (--shard i/n with --strategy dfs or bfs)`);
  }
  if (flags.exchange !== undefined) exchangeChecks(flags, chosen, exhaustive, strategy);
  if (flags.shareVisited !== undefined) shareVisitedChecks(flags, chosen, exhaustive, strategy);
  for (const [flag, v] of [['--result', flags.result], ['--fingerprints', flags.fingerprints]] as const) {
    if (v !== undefined && (!exhaustive || flags.from !== undefined)) throw new UsageError(`${flag} records a dfs/bfs check (sharded or not); not ${flags.from !== undefined ? '--from' : strategy}`);
  }
  const out: { value?: BigUint64Array } = {};
  if (exhaustive && (flags.result !== undefined || flags.fingerprints !== undefined)) {
    opts.inspect = { ...opts.inspect, fingerprints: (f) => void (out.value = f) };
  }
  return out;
}

/** This process's CPU time so far (user + system), ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return Math.round((u.user + u.system) / 1000);
}

/** The result file of this check (one shard, or the whole check as shard 1/1). */
function resultFile(api: CheckerApi, sc: Scenario, t: Target, p: ParamValues, r: CheckResult, scenario: ShardResultFile['scenario'], fps: BigUint64Array | undefined, interrupted: boolean, path: string): ShardResultFile {
  const sh = r.shard;
  const o = r.options;
  const options: ShardResultFile['options'] = { por: o.por === true, symmetry: o.symmetry === true };
  for (const k of ['maxDepth', 'maxStates', 'timeLimitMs'] as const) if (typeof o[k] === 'number') options[k] = o[k] as number;
  const v = r.violation;
  // Read once: the exchange rate and the file's cpuMs must agree.
  const cpu = cpuMs();
  return {
    schemaVersion: RESULT_SCHEMA_VERSION,
    kind: RESULT_KIND,
    tool: { name: 'interleave', version: VERSION },
    scenario,
    strategy: r.strategy,
    shard: r.exchange ? exchangeShard(r.exchange, cpu) : r.shareVisited ? shareVisitedShard(r) : sh ? { i: sh.index + 1, n: sh.count, prefix: sh.prefix, prefixDepth: sh.prefixDepth, prefixStates: sh.prefixStates, frontier: sh.frontier, roots: sh.roots, ...(sh.partitionDepth === undefined ? {} : { partitionDepth: sh.partitionDepth }) } : { i: 1, n: 1 },
    options,
    ok: r.ok,
    complete: r.complete && !interrupted,
    ...(r.cutBy ? { cutBy: r.cutBy } : {}),
    interrupted,
    stats: r.stats,
    cpuMs: cpu,
    fingerprintDigest: r.exchange?.digest ?? sh?.digest ?? (fps ? api.fingerprintDigest(fps) : ''),
    distinctFingerprints: fps?.length ?? 0,
    unreached: r.unreached,
    requiredGoals: r.options.symmetry ? [] : Object.entries(sc.reachable ?? {}).filter(([, g]) => !isOptional(g)).map(([n]) => n),
    violation: v ? { property: v.property, steps: v.schedule.length, trace: traceFileOf(api, sc, t, p, r, v, path) } : null,
  };
}

/** `check --from` on a recording the scenario cannot follow: which step, and the parameters it was recorded with that differ. */
function recordingMisfit(path: string, label: string, recorded: Readonly<Record<string, unknown>>, p: ParamValues, d: Pick<Divergence, 'index' | 'expected' | 'enabledIds'>): string {
  const can = d.enabledIds.length ? `the steps it can take there: ${d.enabledIds.slice(0, 8).join(', ')}${d.enabledIds.length > 8 ? ', …' : ''}` : 'it can take no step there';
  const other = Object.entries(recorded).filter(([k, v]) => k in p && JSON.stringify(p[k]) !== JSON.stringify(v));
  const why = other.length
    ? `The recording was made with ${other.map(([k, v]) => `${k}=${String(v)}`).join(', ')}: pass ${other.map(([k, v]) => `--param ${shellWord(`${k}=${String(v)}`)}`).join(' ')}.`
    : 'The recording comes from another scenario, or the model changed since it was recorded.';
  return `${path}: the recording does not fit ${label}: step ${d.index + 1} of the file, '${d.expected}', is not a step it can take (${can}). ${why} Nothing was explored.`;
}
