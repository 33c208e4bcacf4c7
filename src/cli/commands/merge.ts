// `interleave merge <files…>`: the verdict of a sharded check from its shards' result
// files. Exit 2 when the files are not the shards of one check (another scenario,
// parameters, interleave version, shard count, partition or options) or when a shard
// is missing or given twice; else exit 1 with the shortest counterexample if a shard
// found one; else exit 0, "complete" only when every shard is complete.
import { dirname, join, resolve } from 'node:path';
import { formatHtmlPieces, formatSteps, stepsText, traceView } from '../../report/index.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printJson, type Io } from '../io.ts';
import { shellWord } from '../options.ts';
import { readResult, type ShardResultFile } from '../shard-result.ts';
import { statusLine } from '../progress.ts';
import { modulePathFrom, writeAtomically } from '../../check/trace/trace-file.ts';

/** What shards of one check share; a difference is a mismatch. */
/** A shard's distinct states (a dfs or bfs shard always counts them; a sampled check's file without the count adds none). */
function distinctOf(r: ShardResultFile): number {
  return r.stats.distinctStates ?? 0;
}

function identity(r: ShardResultFile): Record<string, string> {
  const sorted = (o: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
  return {
    scenario: r.scenario.name + (r.scenario.module ? ` (${r.scenario.module})` : ''),
    parameters: sorted(r.scenario.params),
    'interleave version': r.tool.version,
    'shard count': String(r.shard.n),
    // Exchange shards of different runs explored parts of different searches; modes do not mix.
    mode: r.shard.mode ?? 'prefix',
    'run id': r.shard.runId ?? '-',
    'shard prefix': String(r.shard.prefix ?? '-'),
    // The same scenario and version give the same prefix: a difference means another model.
    // The partition level and the frontier depth decide the deal (--shard-prefix, --shard-lookahead).
    partition: `depth ${r.shard.prefixDepth ?? '-'}, partition level ${r.shard.partitionDepth ?? '-'}, ${r.shard.frontier ?? '-'} frontier worlds`,
    options: sorted(r.options),
  };
}

interface Problem {
  kind: 'mismatch' | 'missing' | 'duplicate';
  message: string;
}

function problems(files: string[], rs: ShardResultFile[]): Problem[] {
  const out: Problem[] = [];
  const ref = identity(rs[0]!);
  rs.forEach((r, k) => {
    if (k === 0) return;
    const id = identity(r);
    for (const key of Object.keys(ref)) {
      if (id[key] !== ref[key]) out.push({ kind: 'mismatch', message: `${files[k]} (shard ${r.shard.i}/${r.shard.n}) has ${key} ${id[key]}, ${files[0]} has ${ref[key]}` });
    }
  });
  if (out.length > 0) return out;
  const n = rs[0]!.shard.n;
  const by = new Map<number, string[]>();
  rs.forEach((r, k) => by.set(r.shard.i, [...(by.get(r.shard.i) ?? []), files[k]!]));
  for (const [i, fs] of by) if (fs.length > 1) out.push({ kind: 'duplicate', message: `shard ${i}/${n} is given ${fs.length} times: ${fs.join(', ')}` });
  const missing = Array.from({ length: n }, (_, j) => j + 1).filter((i) => !by.has(i));
  if (missing.length > 0) out.push({ kind: 'missing', message: `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${n}`).join(', ')} missing (have ${[...by.keys()].sort((a, b) => a - b).join(', ')} of 1..${n})` });
  return out;
}

/** The trace file to save: a user's module path is relative to the file, so re-anchor it. */
function traceAt(r: ShardResultFile, from: string, to: string): ShardResultFile['violation'] & object {
  const v = r.violation!;
  const mod = (v.trace.scenario as { module?: { path: string; export: string } }).module;
  if (!mod) return v;
  const path = modulePathFrom(to, resolve(dirname(resolve(from)), mod.path));
  return { ...v, trace: { ...v.trace, scenario: { ...v.trace.scenario, module: { ...mod, path } } } as typeof v.trace };
}

/**
 * Each shard's distinct states, share of the sum and exploration time, so a user sees
 * whether the split paid. A split without communication whose largest shard holds well
 * over 1/n of the states gains at most 1 / that share over one process.
 */
function printShares(io: Io, shards: readonly { shard: string; distinctStates: number; ms: number }[], total: number, mode: string | undefined): void {
  const pct = (x: number) => `${Math.round((100 * x) / Math.max(1, total))}%`;
  const n = (x: number) => x.toLocaleString('en-US');
  io.out(`shards: ${shards.map((x, k) => `${x.shard} ${n(x.distinctStates)}${k === 0 ? ' distinct states' : ''} (${pct(x.distinctStates)}) in ${(x.ms / 1000).toFixed(1)} s`).join(', ')}`);
  const largest = shards.reduce((a, b) => (b.distinctStates > a.distinctStates ? b : a));
  const share = largest.distinctStates / Math.max(1, total);
  if ((mode ?? 'prefix') === 'prefix' && share > 1.2 / shards.length) {
    io.out(
      io.style.yellow(
        `note: shard ${largest.shard} holds ${pct(largest.distinctStates)} of the states, so these ${shards.length} shards can finish at most about ${(1 / share).toFixed(2)}x sooner than one process; ` +
          'shards that can reach one directory even out with --share-visited DIR, and another --shard-prefix may deal better (docs/sharding.md, "Will a split without communication pay on my model?")',
      ),
    );
  }
}

/**
 * What the split cost: CPU summed over the shards and, for an exchange run, the traffic,
 * the duplicated transfers, the slowest start-up and the balance (largest shard against an even share).
 */
export function costLines(rs: readonly ShardResultFile[]): string[] {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const cpu = rs.reduce((a, r) => a + (r.cpuMs ?? 0), 0);
  const states = rs.reduce((a, r) => a + distinctOf(r), 0);
  const largest = rs.reduce((a, r) => (distinctOf(r) > distinctOf(a) ? r : a));
  const balance = distinctOf(largest) / Math.max(1, states / rs.length);
  const out = [`cost: ${sec(cpu)} of CPU summed over the ${rs.length} shards (largest ${sec(Math.max(...rs.map((r) => r.cpuMs ?? 0)))}), ${n(states / Math.max(0.001, cpu / 1000))} distinct states per CPU second; balance ${balance.toFixed(2)} (largest shard ${largest.shard.i}/${largest.shard.n} against an even share)`];
  const xs = rs.map((r) => ({ r, x: r.shard.exchange })).filter((e) => e.x !== undefined);
  if (xs.length === rs.length) {
    const sum = (f: (x: NonNullable<ShardResultFile['shard']['exchange']>) => number) => xs.reduce((a, e) => a + f(e.x!), 0);
    const sent = sum((x) => x.worldsSent);
    const dup = sum((x) => x.worldsReceivedDuplicate ?? x.worldsReceived - x.worldsReceivedNew);
    out.push(`traffic: ${n(sent)} worlds sent (${(sent / Math.max(1, states)).toFixed(2)} a state), ${n(sum((x) => x.worldsReceived))} received, ${n(dup)} of them duplicates (${((100 * dup) / Math.max(1, sum((x) => x.worldsReceived))).toFixed(1)}%), ${(sum((x) => x.bytesSent) / 1048576).toFixed(1)} MB in ${n(sum((x) => x.batchesSent))} batches`);
    const ups = xs.filter((e) => e.x!.startup).map((e) => ({ i: e.r.shard.i, up: e.x!.startup!, cpu: e.r.cpuMs ?? 0 }));
    if (ups.length > 0) {
      const worst = ups.reduce((a, b) => (b.up.cpuMs / Math.max(1, b.cpu) > a.up.cpuMs / Math.max(1, a.cpu) ? b : a));
      const mean = ups.reduce((a, u) => a + u.up.cpuMs, 0) / ups.length;
      out.push(`start-up: ${sec(mean)} of CPU on average from process start to the first owned world; at most ${((100 * worst.up.cpuMs) / Math.max(1, worst.cpu)).toFixed(1)}% of a shard's CPU (shard ${worst.i}/${rs[0]!.shard.n}: ${sec(worst.up.cpuMs)} of ${sec(worst.cpu)})`);
    }
  }
  return out;
}

export async function runMerge(io: Io, files: string[], flags: { json?: boolean; out?: string }): Promise<number> {
  if (files.length === 0) throw new UsageError("merge takes the result files of a sharded check, e.g. interleave merge shard-*.json");
  // Result files of a large check are big (a trace each): on a terminal a line says which is read.
  const status = statusLine(io.tty && !flags.json, 'merging');
  let rs: ShardResultFile[];
  try {
    rs = files.map((f, k) => {
      status.update(`reading ${k + 1}/${files.length}: ${f}`, true);
      return readResult(f);
    });
  } finally {
    status.stop();
  }
  const found = problems(files, rs);
  const mismatch = found.filter((p) => p.kind === 'mismatch');
  const o = io.style;
  const sum = (f: (r: ShardResultFile) => number) => rs.reduce((a, r) => a + f(r), 0);
  const perShard = [...rs].sort((a, b) => a.shard.i - b.shard.i).map((r) => ({ shard: `${r.shard.i}/${r.shard.n}`, distinctStates: distinctOf(r), ms: Math.round(r.stats.ms) }));
  const stats = { shards: rs.length, count: rs[0]!.shard.n, distinctStates: sum(distinctOf), states: sum((r) => r.stats.states), prefixStates: rs[0]!.shard.prefixStates ?? 0, ms: Math.max(...rs.map((r) => r.stats.ms)), cpuMs: sum((r) => r.cpuMs ?? 0), perShard };
  if (mismatch.length > 0) {
    if (flags.json) printJson(io, { ok: null, complete: false, problems: mismatch });
    else {
      io.err(o.red('these files are not the shards of one check:'));
      for (const p of mismatch) io.err(`  ${p.message}`);
      io.err(rs.some((r) => r.shard.mode !== undefined) ? `merge the --result files of the shards of one ${rs.find((r) => r.shard.mode)!.shard.mode} run (one directory, all started together); shards of two runs or modes do not combine` : "run every shard with the same scenario, --param values, interleave version, --shard …/n and --shard-prefix, then merge their --result files");
    }
    return EXIT.usage;
  }
  // A counterexample is a counterexample whichever shard found it: the shortest one.
  const bad = rs.map((r, k) => ({ r, file: files[k]! })).filter((x) => x.r.violation).sort((a, b) => a.r.violation!.steps - b.r.violation!.steps || a.r.shard.i - b.r.shard.i);
  if (bad.length > 0) {
    const { r, file } = bad[0]!;
    const out = flags.out ?? join('.interleave', `${r.scenario.name.replace(/[^A-Za-z0-9._-]+/g, '_')}-merged.json`);
    const v = traceAt(r, file, out);
    let writeError: string | undefined;
    status.update(`writing the counterexample (${stepsText(v.trace.schedule.length)}) and its viewer`, true);
    try {
      writeAtomically(out, `${JSON.stringify(v.trace, null, 2)}\n`);
      const html = out.replace(/\.json$/i, '') + '.html';
      // merge has no scenario at hand: the viewer gives the command that draws the charts.
      writeAtomically(html, formatHtmlPieces(v.trace, { chartsLeftOut: [`npx interleave show ${shellWord(out)} --format html --out ${shellWord(html)}`] }));
    } catch (e) {
      writeError = `cannot write the trace to ${out}: ${(e as Error).message}; choose another place with --out FILE`;
    }
    status.stop();
    const replay = `npx interleave replay ${shellWord(out)}`;
    const steps = formatSteps(traceView(v.trace.schedule, v.trace.trace), flags.json ? undefined : o, { failStep: v.trace.schedule.length, context: !flags.json });
    if (flags.json) {
      printJson(io, { ok: false, complete: false, shard: `${r.shard.i}/${r.shard.n}`, file, violation: { property: v.property, schedule: v.trace.schedule, steps: steps.map((l) => l.trim()) }, foundBy: bad.map((x) => `${x.r.shard.i}/${x.r.shard.n}`), ...(writeError ? { writeError } : { trace: out, replay }), problems: found, stats });
      return EXIT.violation;
    }
    io.out(o.red(o.bold(`✗ ${v.property.kind} '${v.property.name}' violated`)) + o.red(`: ${v.property.message}`));
    io.out(`\nshortest counterexample of ${bad.length} shard${bad.length > 1 ? 's' : ''} reporting one (shard ${r.shard.i}/${r.shard.n}, ${file}), ${stepsText(v.trace.schedule.length)}:`);
    io.out(steps.join('\n'));
    io.out('');
    if (writeError) io.err(o.yellow(`warning: ${writeError}`));
    else io.out(`replay    ${replay}`);
    for (const p of found) io.out(o.yellow(`note: ${p.message} (the counterexample stands)`));
    return EXIT.violation;
  }
  if (found.length > 0) {
    if (flags.json) printJson(io, { ok: null, complete: false, problems: found, stats });
    else for (const p of found) io.err(o.red(`${p.kind}: ${p.message}`));
    if (!flags.json) io.err(`merge needs every shard 1..${rs[0]!.shard.n} exactly once; rerun the missing ones with --shard i/${rs[0]!.shard.n} --result FILE`);
    return EXIT.usage;
  }
  const cut = rs.filter((r) => !r.complete).sort((a, b) => a.shard.i - b.shard.i);
  // A `reachable` property is unreached only if no shard reached it.
  const unreached = rs.map((r) => r.unreached).reduce((a, b) => a.filter((x) => b.includes(x)));
  const complete = cut.length === 0;
  // A complete search must reach its required goals; all shards together are that search.
  const missed = complete ? unreached.filter((g) => rs.every((r) => r.requiredGoals?.includes(g))) : [];
  if (missed.length > 0) {
    const message = `the complete search (all ${rs.length} shards) never reached ${missed.map((g) => `'${g}'`).join(', ')}: a model that never gets there may be testing nothing; mark a goal optional(p) if it may not happen`;
    if (flags.json) printJson(io, { ok: false, complete, finding: { kind: 'unreached', goals: missed, message }, unreached, stats });
    else io.out(`${io.style.red(`✗ never reached: ${missed.join(', ')}`)}\n${message}`);
    return EXIT.violation;
  }
  if (flags.json) {
    printJson(io, { ok: true, complete, ...(complete ? {} : { incomplete: cut.map((r) => ({ shard: `${r.shard.i}/${r.shard.n}`, cutBy: r.cutBy ?? (r.interrupted ? 'stopped' : 'unknown') })) }), unreached, stats });
    return EXIT.ok;
  }
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const mode = rs[0]!.shard.mode;
  const how = mode === 'exchange' ? 'exchange mode: each explored by its owner only' : `prefix of ${n(stats.prefixStates)} in each${mode === 'share-visited' ? '; shared-visited mode: a world twice only when two shards met it before hearing of each other' : ''}`;
  const what = `${rs[0]!.scenario.name}, ${stats.count} shard${stats.count > 1 ? 's' : ''}: ${n(stats.distinctStates)} distinct states summed over the shards (${how}), ${n(stats.states)} states`;
  io.out(o.green(`✓ all properties hold (${what})`));
  const done = {
    exchange: 'complete: the run ended with every shard idle and no world in transit, so every reachable state was visited',
    'share-visited': 'complete: every shard ended with its own search empty, having expanded every world it visited, and every world it skipped was visited by another, so every reachable state was visited',
    prefix: 'complete: every shard explored its whole slice, so every reachable state was visited',
  };
  if (complete) io.out(done[mode ?? 'prefix']);
  else io.out(o.yellow(`not complete: ${cut.map((r) => `shard ${r.shard.i}/${r.shard.n} ${(r.shard.exchange ?? r.shard.shareVisited)?.stoppedBy ? `stopped by shard ${(r.shard.exchange ?? r.shard.shareVisited)!.stoppedBy}` : `cut by ${r.cutBy ?? (r.interrupted ? 'Ctrl-C' : 'a budget')}`}`).join(', ')}; no violation in the part explored`));
  if (unreached.length) io.out(o.yellow(`never reached${complete ? '' : ' (in the part explored)'}: ${unreached.join(', ')}`));
  // Shares of a cut run say nothing about the split.
  if (complete && rs.length > 1) {
    printShares(io, perShard, stats.distinctStates, mode);
    for (const line of costLines(rs)) io.out(line);
  }
  return EXIT.ok;
}
