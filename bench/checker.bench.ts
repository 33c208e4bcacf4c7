// The model checker's speed and memory, and how fast sampling finds ordering bugs.
//
// 1. Exhaustive dfs on (a) a token ring of xstate machines, (b) the lost-update
//    model (compare-and-set, scaled up), (c) the protocol families of the catalog
//    (default parameters, capped): distinct states/s, transitions/s and bytes/state,
//    with and without partial-order reduction. Rates are per second of this
//    process's CPU time (the machine is shared; wall time mostly measures others).
// 2. The same machines' bare cached-scope xstate transition rate (the kernel's fast
//    path, `MachineStepper.step`, on (snapshot, event) pairs sampled from random
//    walks) and the kernel's `apply` rate. Goal: distinct states/s >= 0.5x bare.
// 3. Runs to the first failure of random vs pct on an ordering bug of depth 1 and 2
//    with K steps per actor, median over 20 seeds, runs per seed capped.
//    Goal: pct needs >= 100x fewer runs than random at K = 14.
// 3b. Runs to an ordering bug of depth 1, 2 and 3 at K = 14 (bench/sampler-rows.ts): pct, pos
//    and fast-check's scheduler, with CPU per run, also through check(). Goal: pos <= 200
//    median runs at depth 3, at no more CPU per run than fast-check (through check() too).
//
// 1b. Liveness (bench/liveness-rows.ts): the same models with and without their liveness
//    properties: distinct states/s and bytes/state of the stored graph and the SCC pass.
//
// 4. One machine, every event: a single xstate machine checked against every event
//    sequence through scenario inputs, beside @xstate/graph's getAdjacencyMap on the
//    same machine at three sizes (same state counts; goal: faster than @xstate/graph),
//    then a parallel statechart with two bounded counters up to N = 150 (CPU, wall, peak
//    RSS), then a small check's CPU layer by layer (adapter, kernel, check), each run in a
//    child process of its own; then dfs and bfs rates on two protocol models.
// 5. The nondeterminism sample (src/check/purity.ts): check CPU time with the default
//    re-step sample against `determinism: false`, runs alternated, median per model.
//    Goal: under 5% of check time.
//
// 6. Partial-order reduction (bench/por-rows.ts): lost update, token ring, k independent
//    pairs, airflow-checkpoints, every step conflicting (and with --long materialize-peeks
//    workers=2 walk-end), reduction off and on in one run: states, transitions, CPU, ratios.
//
//   npm run bench -- checker                 (about two minutes of CPU)
//   npm run bench -- checker --por [--long]  (only table 6, and the first-violation table)
//   npm run bench -- checker --first          (only the first-violation table: bench/first-violation-rows.ts)
//   npm run bench -- checker --determinism   (only table 5)
//   npm run bench -- checker --sampler       (only table 3b)
//   npm run bench -- checker --every-event   (only table 4)
//   npm run bench -- checker --quick         (smaller models, cap 1000)
//   npm run bench -- checker --cap=20000     (raise the runs cap for random)
import { transition } from 'xstate';
import { apply, deriveSeed, enabled, initialWorld, isFault, rng, type Scenario, type Step, type World } from '../src/actors/index.ts';
import { check, estimateK, runOne, type CheckResult, type SampleConfig } from '../src/check/index.ts';
import { allToOne, independentPairs, lostUpdate, machineRing, orderingBug } from '../test/fixtures/check/models.ts';
import { median, printTable } from './table.ts';
import { COUNTERS_HEADER, COUNTERS_NOTE, EVERY_EVENT_HEADER, EVERY_EVENT_NOTE, LAYER_HEADER, LAYER_NOTE, countersRows, everyEventRows, layerRows } from './every-event.ts';
import { PROTOCOL_RATES_HEADER, PROTOCOL_RATES_NOTE, protocolRateRows } from './protocol-rates.ts';
import { LIVENESS_HEADER, LIVENESS_NOTE, livenessRows } from './liveness-rows.ts';
import { POR_HEADER, POR_NOTE, porRows } from './por-rows.ts';
import { FIRST_HEADER, FIRST_NOTE, firstViolationRows } from './first-violation-rows.ts';
import { SAMPLER_HEADER, samplerNote, samplerRows } from './sampler-rows.ts';

/**
 * Parameters of catalog families that hold (so the bench measures a full exploration,
 * not time to a bug); a family may be measured under several. Others run with defaults.
 */
const BENCH_PARAMS: Record<string, Record<string, string | number | boolean>[]> = {
  'amber-loop': [{ design: 'read-at-endchannel' }, { design: 'read-at-endchannel', topology: 'nested', rows: 3 }],
  'materialize-peeks': [{ fixture: 'check', slotRelease: 'walk-end', peeks: 3 }],
};

/** Small models are checked repeatedly until this much CPU has passed, so JIT and GC noise average out. */
const MIN_CPU_MS = 400;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** (world, step) pairs from seeded random walks: the transitions an exploration actually takes. */
function samplePairs(sc: Scenario, n: number): [World, Step][] {
  const out: [World, Step][] = [];
  const r = rng(1);
  while (out.length < n) {
    let w = initialWorld(sc, { detail: false }).world;
    for (let d = 0; d < 200 && out.length < n; d++) {
      const steps = enabled(sc, w).filter((s) => !isFault(s));
      if (steps.length === 0) break;
      const s = r.pick(steps);
      out.push([w, s]);
      w = apply(sc, w, s, { detail: false }).world;
    }
  }
  return out;
}

/** Calls per CPU second of `fn(i)` over the pairs, for about `ms` of CPU. */
function rateOver(count: number, fn: (i: number) => void, ms: number): number {
  const t0 = cpuMs();
  let n = 0;
  while (cpuMs() - t0 < ms) {
    for (let i = 0; i < count; i++) fn(i);
    n += count;
  }
  return (n * 1000) / (cpuMs() - t0);
}

/** Bare cached-scope xstate transitions per second over the machine deliveries among the pairs. */
function bareRates(sc: Scenario, pairs: [World, Step][], ms: number): { xstate: number; publicTransition: number; apply: number } {
  const machine: { stepper: any; snap: any; msg: any }[] = [];
  for (const [w, s] of pairs) {
    if (s.kind !== 'deliver') continue;
    const a = sc.actorList[s.to]!;
    if (a.kind !== 'machine') continue;
    const msg = w.inbox[s.to]!.find((c) => c.from === s.from)!.queue[0]!;
    machine.push({ stepper: a.stepper, snap: w.snaps[s.to], msg });
  }
  const xstate = machine.length ? rateOver(machine.length, (i) => machine[i]!.stepper.step(machine[i]!.snap, machine[i]!.msg), ms) : NaN;
  let publicTransition = NaN;
  if (machine.length) {
    try {
      publicTransition = rateOver(machine.length, (i) => transition(machine[i]!.stepper.machine, machine[i]!.snap, machine[i]!.msg), ms);
    } catch {
      // Some machines cannot run under the public transition() (sendParent, system.get of unknown actors).
    }
  }
  const applyRate = rateOver(pairs.length, (i) => apply(sc, pairs[i]![0], pairs[i]![1], { detail: false }), ms);
  return { xstate, publicTransition, apply: applyRate };
}

interface Measured {
  r: CheckResult;
  /** CPU ms of one check (the mean over `runs`). */
  cpu: number;
  runs: number;
}

async function measure(sc: Scenario, por: boolean, caps: { maxStates?: number; timeLimitMs?: number }, minCpu: number): Promise<Measured> {
  const c0 = cpuMs();
  let r: CheckResult;
  let runs = 0;
  do {
    r = await check(sc, { strategy: 'dfs', por, shrink: false, ...caps });
    runs++;
  } while (cpuMs() - c0 < minCpu);
  return { r, cpu: (cpuMs() - c0) / runs, runs };
}

async function throughput(quick: boolean): Promise<void> {
  const models: [string, Scenario, { maxStates?: number; timeLimitMs?: number }][] = [
    [quick ? '(a) token ring, 6 xstate nodes' : '(a) token ring, 8 xstate nodes', quick ? machineRing(6, 1, 2) : machineRing(8, 1, 2), {}],
    [quick ? '(b) lost update CAS, 3 clients x 2' : '(b) lost update CAS, 3 clients x 3', lostUpdate({ cas: true, clients: 3, rounds: quick ? 2 : 3 }), {}],
    ['(b) lost update, 3 clients, checked at quiescence', lostUpdate({ clients: 3, asEventually: true }), {}],
    ['(d) every step conflicts: 6 senders x 4 messages to one sink', allToOne(6, 4), {}],
  ];
  try {
    const { families } = await import('../src/machines/catalog.ts');
    const { parseParams } = await import('../src/actors/family.ts');
    for (const f of families) {
      if (f.name === 'ping-pong' || f.name === 'lost-update') continue;
      for (const params of BENCH_PARAMS[f.name] ?? [{}]) {
        try {
          const label = Object.entries(params).map(([k, v]) => `${k}=${String(v)}`).join(' ') || 'defaults';
          models.push([`(c) ${f.name} ${label}`, f.build(parseParams(f, params)), { maxStates: quick ? 5_000 : 30_000, timeLimitMs: 120_000 }]);
        } catch (e) {
          console.log(`(c) ${f.name}: skipped, build failed: ${(e as Error).message}`);
        }
      }
    }
  } catch (e) {
    console.log(`(c) protocol scenarios skipped: ${(e as Error).message}`);
  }
  const rows: (string | number)[][] = [];
  const ratioRows: (string | number)[][] = [];
  for (const [name, sc, caps] of models) {
    let off: Measured, on: Measured;
    try {
      // Warm-up (JIT) on the same model, then the measured runs.
      const minCpu = quick ? MIN_CPU_MS / 4 : MIN_CPU_MS;
      const w0 = cpuMs();
      do {
        await check(sc, { strategy: 'dfs', por: false, shrink: false, maxStates: 3_000 });
        await check(sc, { strategy: 'dfs', por: true, shrink: false, maxStates: 3_000 });
      } while (cpuMs() - w0 < minCpu / 2);
      off = await measure(sc, false, caps, minCpu);
      on = await measure(sc, true, caps, minCpu);
    } catch (e) {
      console.log(`${name}: skipped: ${(e as Error).message}`);
      continue;
    }
    for (const [label, m] of [['off', off], ['on', on]] as const) {
      const s = m.r.stats;
      rows.push([
        name,
        label === 'on' ? String(m.r.options.reduction ?? (m.r.options.por ? 'on' : 'off')) : 'off',
        m.r.complete ? 'yes' : `no (${m.r.cutBy ?? 'violation'})`,
        s.distinctStates!,
        label === 'on' ? Number((off.r.stats.distinctStates! / Math.max(1, s.distinctStates!)).toFixed(2)) : '',
        label === 'on' ? Number((m.cpu / off.cpu).toFixed(2)) : '',
        s.states,
        s.transitions,
        m.runs,
        Math.round(m.cpu),
        Math.round((s.distinctStates! * 1000) / m.cpu),
        Math.round((s.transitions * 1000) / m.cpu),
        Number(s.bytesPerState.toFixed(1)),
      ]);
    }
    const pairs = samplePairs(sc, 2000);
    const bare = bareRates(sc, pairs, quick ? 300 : 1000);
    const onRate = (on.r.stats.distinctStates! * 1000) / on.cpu;
    const offRate = (off.r.stats.distinctStates! * 1000) / off.cpu;
    const best = Math.max(onRate, offRate);
    const bestRun = onRate >= offRate ? on : off;
    const ratio = (x: number) => (Number.isFinite(x) ? Number((best / x).toFixed(2)) : 'n/a');
    ratioRows.push([
      name,
      Number.isFinite(bare.publicTransition) ? Math.round(bare.publicTransition) : 'n/a',
      Math.round(bare.xstate),
      Math.round(bare.apply),
      Math.round((off.r.stats.distinctStates! * 1000) / off.cpu),
      Math.round((on.r.stats.distinctStates! * 1000) / on.cpu),
      Number((bestRun.r.stats.transitions / bestRun.r.stats.distinctStates!).toFixed(2)),
      ratio(bare.publicTransition),
      ratio(bare.xstate),
    ]);
  }
  printTable(
    'exhaustive dfs: states, rates (per CPU second) and memory, POR off/on',
    ['model', 'reduction', 'complete', 'distinct', 'off/on distinct', 'on/off CPU', 'generated', 'transitions', 'runs', 'CPU ms/run', 'distinct/s', 'transitions/s', 'B/state'],
    rows,
    `generated = successor states computed (duplicates included). reduction = result.options.reduction: stubborn sets remove states, sleep sets\ntransitions; stubborn sets turn themselves off (sleep sets only) when a predicate does not declare the actors it reads (result.options.stubbornNote).\nruns = checks of the same model averaged (repeated until ${MIN_CPU_MS} ms of CPU, ${MIN_CPU_MS / 4} with --quick).\n` +
      'B/state = visited-set bytes / distinct states: 8-byte fingerprint slots (+1 byte sleep-set mark with POR), grown 1.5x at 7/8 full,\nso 9.1-13.7 B (10.3-15.4 with POR) at any size; tiny models pay for the initial 1,024 slots.',
  );
  printTable(
    'distinct states/s against the bare transition rate of the same machines (goal >= 0.5x)',
    ['model', 'public transition()/s', 'cached-scope step/s', 'kernel apply/s', 'distinct/s POR off', 'distinct/s POR on', 'transitions / distinct', 'best / public', 'best / cached'],
    ratioRows,
    'Rates over (snapshot, event) pairs sampled from random walks of the same model. public transition() = xstate\'s pure transition function;\ncached-scope step = MachineStepper.step, the kernel\'s fast path; kernel apply = the whole step (world update, actions, monitors).\n' +
      'transitions / distinct (of the faster run): steps a check computes per distinct state. Were every step computed afresh, best / cached\ncould not exceed about its inverse; dfs/bfs reuse a step for a (snapshot, message) pair met before (src/actors/step-memo.ts), so it can.',
  );
}

/** Distinct states and CPU of a full and a reduced dfs on k independent ping-pong pairs. */
async function pairsScaling(quick: boolean): Promise<void> {
  const rows: (string | number)[][] = [];
  for (let k = 1; k <= (quick ? 5 : 6); k++) {
    const sc = independentPairs(k);
    const row: (string | number)[] = [k];
    for (const por of [false, true]) {
      const c0 = cpuMs();
      const r = await check(sc, { strategy: 'dfs', por, shrink: false });
      row.push(r.stats.distinctStates!, Math.round(cpuMs() - c0));
    }
    rows.push(row);
  }
  printTable(
    'k independent actor pairs (dfs): full vs reduced distinct states',
    ['k', 'distinct, POR off', 'CPU ms off', 'distinct, POR on', 'CPU ms on'],
    rows,
    'Each pair: a pinger asks its own ponger twice (test/fixtures/check/models.ts independentPairs). Full: 6^k; reduced: 5k + 1.',
  );
}

function runsToBug(sc: Scenario, cfg: SampleConfig, seed: number, cap: number): number {
  for (let i = 0; i < cap; i++) if (runOne(sc, { ...cfg, root: seed }, deriveSeed(seed, i)).found) return i + 1;
  return Infinity;
}

function sampling(quick: boolean, cap: number): void {
  const seeds = quick ? 10 : 20;
  const rows: (string | number)[][] = [];
  for (const depth of [1, 2] as const) {
    for (const K of [6, 10, 14]) {
      const sc = orderingBug(K, depth);
      const k = estimateK(sc, 1000, 0);
      const random: SampleConfig = { strategy: 'random', root: 0, maxDepth: 1000, faultRate: 0 };
      const pct: SampleConfig = { strategy: 'pct', root: 0, maxDepth: 1000, faultRate: 0, pct: { depth, k } };
      const t0 = cpuMs();
      const r = Array.from({ length: seeds }, (_, s) => runsToBug(sc, random, 1000 + s, cap));
      const p = Array.from({ length: seeds }, (_, s) => runsToBug(sc, pct, 1000 + s, cap));
      const mr = median(r);
      const mp = median(p);
      const show = (x: number) => (Number.isFinite(x) ? x : `>${cap}`);
      const ratio = Number.isFinite(mr) ? (mr / mp).toFixed(0) : `>${(cap / mp).toFixed(0)}`;
      rows.push([depth, K, k, show(mr), show(mp), ratio, r.filter((x) => !Number.isFinite(x)).length, Math.round(cpuMs() - t0)]);
    }
  }
  printTable(
    `runs to the first failure, median over ${seeds} seeds (cap ${cap} runs per seed)`,
    ['bug depth', 'K steps/actor', 'pct k', 'random', 'pct (d = bug depth)', 'random / pct', 'random seeds capped', 'CPU ms'],
    rows,
    'Ordering bug: two actors with K self-steps each; depth 1 = B finishes before A starts, depth 2 = A steps once, then B runs to completion (see test/fixtures/check/models.ts).',
  );
}

/** Table 4: check CPU with and without the nondeterminism re-step sample (alternated runs, medians). */
async function determinismCost(quick: boolean): Promise<void> {
  const models: [string, Scenario, { maxStates?: number }][] = [
    ['lost update CAS, 3 clients x 3', lostUpdate({ cas: true, clients: 3, rounds: quick ? 2 : 3 }), {}],
    ['token ring, 8 xstate nodes', machineRing(8, 1, 2), {}],
  ];
  try {
    const { families } = await import('../src/machines/catalog.ts');
    const { parseParams } = await import('../src/actors/family.ts');
    for (const f of families) {
      for (const params of BENCH_PARAMS[f.name] ?? []) {
        const label = Object.entries(params).map(([k, v]) => `${k}=${String(v)}`).join(' ');
        models.push([`${f.name} ${label}`, f.build(parseParams(f, params)), { maxStates: quick ? 5_000 : 30_000 }]);
      }
    }
  } catch (e) {
    console.log(`protocol scenarios skipped: ${(e as Error).message}`);
  }
  const { DETERMINISM_DEFAULTS } = await import('../src/check/index.ts');
  const rows: (string | number)[][] = [];
  const reps = quick ? 3 : 5;
  for (const [name, sc, caps] of models) {
    const on: number[] = [];
    const off: number[] = [];
    let r: CheckResult | undefined;
    for (let i = 0; i < reps; i++) {
      for (const det of i % 2 === 0 ? [true, false] : [false, true]) {
        const c0 = cpuMs();
        r = await check(sc, { strategy: 'dfs', shrink: false, determinism: det, ...caps });
        (det ? on : off).push(cpuMs() - c0);
      }
    }
    const t = r!.stats.transitions;
    const d = DETERMINISM_DEFAULTS;
    const resteps = d.repeats * (Math.min(t, d.first) + Math.max(0, Math.floor(t / d.every) - Math.floor(Math.min(t, d.first) / d.every)));
    const mOn = median(on),
      mOff = median(off);
    rows.push([name, t.toLocaleString('en-US'), resteps.toLocaleString('en-US'), Math.round(mOff), Math.round(mOn), `${(((mOn - mOff) / mOff) * 100).toFixed(1)}%`]);
  }
  printTable(
    `nondeterminism sample: check CPU with and without it (dfs, POR on, median of ${reps} alternated runs each)`,
    ['model', 'transitions', 're-steps', 'CPU ms off', 'CPU ms on (default)', 'overhead'],
    rows,
    `Default sample: the first ${DETERMINISM_DEFAULTS.first} transitions, then every ${DETERMINISM_DEFAULTS.every}th, re-stepped ${DETERMINISM_DEFAULTS.repeats}x without the step memo. Goal: overhead < 5%.\nCPU time of this process; on a shared machine the spread between runs is several percent.`,
  );
}

export default async function (argv: string[]): Promise<void> {
  const quick = argv.includes('--quick');
  if (argv.includes('--determinism')) return determinismCost(quick);
  const reduction = async () => printTable('partial-order reduction: off and on, same run (dfs)', POR_HEADER, await porRows(quick, argv.includes('--long')), POR_NOTE);
  const first = async () => printTable('first violation with the reduction on and off, same run', FIRST_HEADER, await firstViolationRows(), FIRST_NOTE);
  if (argv.includes('--first')) return first();
  const capArg = argv.find((a) => a.startsWith('--cap='));
  const cap = capArg ? Number(capArg.slice(6)) : quick ? 1000 : 8000;
  const samplers = async () => printTable('runs to an ordering bug of depth 1-3 at K = 14: pct, pos and fast-check\'s scheduler', SAMPLER_HEADER, await samplerRows(quick, cap), samplerNote(quick ? 10 : 20, cap, quick ? 50_000 : 200_000, quick ? 2_000 : 20_000));
  if (argv.includes('--sampler')) return samplers();
  if (argv.includes('--por')) {
    await reduction();
    return first();
  }
  const everyEvent = async () => {
    printTable('one machine, every event: scenario inputs against @xstate/graph', EVERY_EVENT_HEADER, everyEventRows(quick), EVERY_EVENT_NOTE);
    printTable('one machine, every event: two bounded counters, interleave bfs against @xstate/graph, per N', COUNTERS_HEADER, countersRows(quick), COUNTERS_NOTE);
    printTable("one machine, every event: a small check's CPU, interleave's layers one by one", LAYER_HEADER, layerRows(quick), LAYER_NOTE);
    printTable('protocol models: distinct states per CPU second, dfs and bfs', PROTOCOL_RATES_HEADER, await protocolRateRows(quick), PROTOCOL_RATES_NOTE);
  };
  if (argv.includes('--every-event')) return everyEvent();
  await throughput(quick);
  await pairsScaling(quick);
  await reduction();
  await first();
  printTable('liveness: the same models with and without the graph search and SCC pass (bfs)', LIVENESS_HEADER, await livenessRows(quick), LIVENESS_NOTE);
  await everyEvent();
  sampling(quick, cap);
  await samplers();
  await determinismCost(quick);
}
