// `npm run bench -- shard-oracle`: can a sharded check with no communication between
// shards (docs/sharding.md) pay on a model at all, by any deal of the frontier at any
// prefix depth? Builds the model's whole state graph once (the worlds and steps of
// `check --no-por`, shard-oracle-graph.ts), then for each cut (prefix = breadth-first
// levels 0..d, frontier = level d + 1; and the cut at the first fault) computes exactly
// what each frontier world reaches below the cut (shard-oracle-reach.ts) and scores
// 2-way deals on it (shard-oracle-deal.ts):
// - reach of a frontier world: min / median / max of |R(f)| / all worlds;
// - lower bounds over every deal (proofs in shard-oracle-deal.ts): the larger shard's
//   share and the duplication no deal can beat;
// - the checker's deal (src/check/distributed/shard.ts, runPrefix; src/check/distributed/shard-deal.ts) with its
//   frontier at that cut and its partition level SHARD_LOOKAHEAD_LEVELS above, and an
//   experiment: components of shared ancestry 4 levels up (shard-oracle-prefix-deals.ts);
// - the best deal found: greedy plus local search (from it and from both prefix deals),
//   minimising the larger share down to the goal's 59% (1 / 1.7), then the duplication;
//   with at most 20 frontier worlds every deal is tried, so it is the best there is.
// The last column: YES when the best deal meets the goal; "no (bound)" when a lower
// bound proves no deal at that cut can; "no (all deals)" when every deal was tried.
// Shares and duplication count worlds each shard expands (prefix, its frontier worlds,
// what they reach); the CLI's distinctStates adds the other shard's frontier worlds.
// Counts, so the figures do not depend on the machine's load.
//   --model=M        airflow (default; items 5 and 6 take about 4 minutes on a loaded
//                    2-core machine, items=8 about 11 and 1.1 GB), amber (2,056 states,
//                    seconds), materialize (556,121 states, about 10 minutes), or all
//   --scenario=NAME --param=k=v ...   any built-in family instead (the whole graph must fit in memory)
//   --items=5,6      airflow-checkpoints sizes (taskConcurrency=2, default faults)
//   --max-frontier=N deepest cut: the first level with more than N worlds (default 3000)
//   --cap=S          the larger share the goal allows (default 0.59)
//   --weights        instead: the checker's deal with other weights for the frontier worlds
//                    (shard-oracle-weights.ts), at every cut where it is defined
import { parseParams, type Scenario } from '../src/actors/index.ts';
import { loadFamily } from '../src/machines/family-table.ts';
import { buildGraph, faultFree, type ExplicitGraph } from './shard-oracle-graph.ts';
import { checkerDeal, componentDeal } from './shard-oracle-prefix-deals.ts';
import { DEFAULT_SHARD_PREFIX, LOOKAHEAD_GROWTH, SHARD_LOOKAHEAD_LEVELS } from '../src/check/distributed/shard.ts';
import { depthCut, faultCut, reachOf, type Cut, type Reach } from './shard-oracle-reach.ts';
import { DealState, bounds, exhaustiveDeal, greedyDeal, improve, totalOf, type Score } from './shard-oracle-deal.ts';
import { median, printTable, type Cell } from './table.ts';
import { WEIGHT_COLUMNS, weightRow } from './shard-oracle-weights.ts';
import { flag } from './flags.ts';

interface Model {
  readonly label: string;
  readonly family: string;
  readonly params: Record<string, string>;
}

async function scenarioOf(m: Model): Promise<Scenario> {
  const f = await loadFamily(m.family);
  if (!f) throw new Error(`no scenario family '${m.family}'`);
  return f.build(parseParams(f, m.params));
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pair = (s: Score) => `${s.duplication.toFixed(2)} / ${pct(s.larger)}`;

interface Row {
  cells: Cell[];
  meets: boolean;
}

/** Levels between the partition level and the frontier in the component deal (componentDeal). */
const COMPONENT_UP = 4;

/** The graph takes about 1.8 KB per state: beyond this, the analysis would take several GB. */
const MAX_STATES = 1_000_000;

/** Depth rows printed per model (narrow models have hundreds of levels). */
const MAX_ROWS = 40;

function analyse(g: ExplicitGraph, cut: Cut, capShare: number, d: number | undefined): Row {
  const r: Reach = reachOf(g, cut, 1 << 30);
  const total = totalOf(r);
  const frac = [...r.reach].map((x) => x / total);
  const lb = bounds(r);
  const anc = d === undefined ? undefined : checkerDeal(g, d, SHARD_LOOKAHEAD_LEVELS);
  const comp = d === undefined ? undefined : componentDeal(g, d, COMPONENT_UP);
  const scoreOf = (owner: Uint8Array | undefined) => (owner ? new DealState(r, total, owner).score() : undefined);
  // The best deal found: local search from the greedy deal and from the two prefix deals.
  const key = (x: Score) => Math.max(x.larger, capShare) * 4 + x.duplication;
  let best: Score | undefined;
  for (const start of [greedyDeal(r, total, capShare), anc, comp]) {
    if (!start) continue;
    const x = improve(r, total, capShare, start).score();
    if (!best || key(x) < key(best)) best = x;
  }
  // A small frontier: every deal, so the best found is the best there is.
  const exact = exhaustiveDeal(r, total, capShare)?.score();
  if (exact) best = exact;
  const s = best!;
  const meets = s.larger <= capShare && s.duplication <= 1.3;
  const a = scoreOf(anc),
    c = scoreOf(comp);
  return {
    meets,
    cells: [
      cut.name,
      cut.prefixSize,
      cut.frontier.length,
      `${pct(Math.min(...frac))} / ${pct(median(frac))} / ${pct(Math.max(...frac))}`,
      pct(r.common / total),
      `${lb.duplication.toFixed(2)} / ${pct(lb.larger)}`,
      a ? pair(a) : '-',
      c ? pair(c) : '-',
      `${pair(s)}${exact ? ' (all deals)' : ''}`,
      meets ? 'YES' : lb.larger > capShare ? 'no (bound)' : exact ? 'no (all deals)' : 'not found',
    ],
  };
}

/** The cut `check --shard i/2` makes by default: the first level with DEFAULT_SHARD_PREFIX * 2 worlds, then the lookahead (as runPrefix). */
function defaultCut(g: ExplicitGraph): number | undefined {
  const L = (k: number) => g.levelStart[k + 1]! - g.levelStart[k]!;
  const target = DEFAULT_SHARD_PREFIX * 2;
  const levels = g.levelStart.length - 1;
  let p = 0;
  while (p < levels && L(p) < target) p++;
  if (p >= levels) return undefined;
  let f = p;
  while (f + 1 < levels && f - p < SHARD_LOOKAHEAD_LEVELS && L(f) < LOOKAHEAD_GROWTH * target) f++;
  return f - 1;
}

async function oracle(m: Model, maxFrontier: number, capShare: number): Promise<void> {
  const t0 = performance.now();
  const sc = await scenarioOf(m);
  const g = buildGraph(sc, MAX_STATES);
  const rows: Cell[][] = [];
  let meets = false;
  let stop = '';
  let single = 0;
  let left = 0;
  let leftMeets = '';
  for (let d = 0; ; d++) {
    const cut = depthCut(g, d);
    if (!cut) break;
    if (cut.frontier.length < 2) {
      // One frontier world: one shard would get everything.
      single++;
      continue;
    }
    const row = analyse(g, cut, capShare, d);
    meets ||= row.meets;
    if (rows.length < MAX_ROWS) rows.push(row.cells);
    else {
      left++;
      if (row.meets && !leftMeets) leftMeets = ` (the first that meets the goal: ${cut.name}, ${String(row.cells[8])})`;
    }
    if (cut.frontier.length > maxFrontier) break;
    // The prefix only grows with depth, and both shards expand it: past this depth no deal can meet the cap.
    if ((g.n + cut.prefixSize) / (2 * g.n) > capShare) {
      stop = ` Deeper cuts left out: from ${cut.name} on, the prefix alone proves no deal meets the cap (duplication >= 1 + prefix / all, larger share >= half of that).`;
      break;
    }
  }
  if (single > 0) stop += ` ${single} depths with a single frontier world left out.`;
  if (left > 0) stop += ` ${left} more depths analysed, not printed${leftMeets}.`;
  const free = faultFree(g);
  const fc = faultCut(g, free);
  if (fc.frontier.length >= 2 && fc.frontier.length <= 4 * maxFrontier) {
    const row = analyse(g, fc, capShare, undefined);
    rows.push(row.cells);
    meets ||= row.meets;
  }
  const s = ((performance.now() - t0) / 1000).toFixed(0);
  const dflt = defaultCut(g);
  if (dflt !== undefined) stop += ` The checker's default cut (--shard-prefix ${DEFAULT_SHARD_PREFIX}, 2 shards) is depth ${dflt}.`;
  printTable(
    `${m.label}: ${g.n.toLocaleString('en-US')} worlds, ${g.transitions.toLocaleString('en-US')} transitions, ${g.levelStart.length - 1} levels; 2 shards`,
    ['cut', 'prefix', 'frontier', 'R(f) / all: min / median / max', 'reached by all', 'no deal beats (dup / larger)', `checker's deal (partition ${SHARD_LOOKAHEAD_LEVELS} up)`, `components ${COMPONENT_UP} up`, 'best deal found', `larger <= ${pct(capShare)}, dup <= 1.3?`],
    rows,
    `${meets ? 'A deal meeting the goal exists (see YES rows).' : 'No deal found meets the goal at any cut.'}${stop} (${s} s of analysis)`,
  );
}

async function weightsTable(m: Model, maxFrontier: number, capShare: number): Promise<void> {
  const t0 = performance.now();
  const g = buildGraph(await scenarioOf(m), MAX_STATES);
  const rows: Cell[][] = [];
  for (let d = 0; rows.length < MAX_ROWS; d++) {
    const cut = depthCut(g, d);
    if (!cut) break;
    const row = cut.frontier.length < 2 ? undefined : weightRow(g, cut, reachOf(g, cut, 1 << 30), d, capShare);
    if (row) rows.push(row);
    if (cut.frontier.length > maxFrontier) break;
  }
  printTable(
    `${m.label}: ${g.n.toLocaleString('en-US')} worlds; the checker's deal (partition ${SHARD_LOOKAHEAD_LEVELS} up) with other weights for a frontier world, 2 shards (duplication / larger share)`,
    WEIGHT_COLUMNS,
    rows,
    `"deal predicted": the larger share the deal's own class weights gave (enabled steps). Exact counts on the whole graph. (${((performance.now() - t0) / 1000).toFixed(0)} s of analysis)`,
  );
}

export default async function shardOracle(argv: readonly string[]): Promise<void> {
  const scenario = flag(argv, 'scenario');
  const model = flag(argv, 'model') ?? (scenario ? '' : 'airflow');
  const items = (flag(argv, 'items') ?? '5,6').split(',').map(Number);
  const maxFrontier = Number(flag(argv, 'max-frontier') ?? 3000);
  const cap = Number(flag(argv, 'cap') ?? 0.59);
  const models: Model[] = [];
  if (model === 'airflow' || model === 'all') {
    for (const n of items) models.push({ label: `airflow-checkpoints items=${n} taskConcurrency=2`, family: 'airflow-checkpoints', params: { items: String(n), taskConcurrency: '2' } });
  }
  if (model === 'amber' || model === 'all') models.push({ label: 'amber-loop nested rows=3', family: 'amber-loop', params: { topology: 'nested', rows: '3' } });
  if (model === 'materialize' || model === 'all') models.push({ label: 'materialize-peeks workers=1 peeks=4 faults=1 slotRelease=walk-end', family: 'materialize-peeks', params: { workers: '1', peeks: '4', faults: '1', slotRelease: 'walk-end' } });
  if (scenario) {
    const params = Object.fromEntries(argv.filter((x) => x.startsWith('--param=')).map((x) => x.slice(8).split('=') as [string, string]));
    models.push({ label: `${scenario} ${Object.entries(params).map(([k, v]) => `${k}=${v}`).join(' ')}`, family: scenario, params });
  }
  if (models.length === 0) throw new Error(`--model must be airflow, amber, materialize or all; got '${model}'`);
  for (const m of models) await (argv.includes('--weights') ? weightsTable : oracle)(m, maxFrontier, cap);
}
