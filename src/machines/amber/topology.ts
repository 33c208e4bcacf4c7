// Workflow shapes of the protocol's scenarios: which operators, in which regions,
// reading which ports, with which user code; plus the reference output the loop
// must produce, computed directly from the input table.
import type { Table } from 'apache-arrow';
import { batchOfTable, inputTable, valuesOf } from './data.ts';
import { portBase, type InputChannel } from './messages.ts';
import type { Plan } from './coordinator.ts';
import { countingEnd, failingEnd, perRowStart, referenceLoop, reservedEnd, reservedStart, wholeTableStart, type LoopCode } from './user-code.ts';
import type { OpSpec } from './worker.ts';

export type Topology = 'single' | 'nested' | 'jvm-chain' | 'nested-jvm-chain' | 'fan-in';
export const TOPOLOGIES: readonly Topology[] = ['single', 'nested', 'jvm-chain', 'nested-jvm-chain', 'fan-in'];

export interface TopologyOptions {
  readonly topology: Topology;
  readonly rows: number;
  /** Bytes of a wide string column per row (large-table scenario). */
  readonly payloadBytes: number;
  readonly updateError: boolean;
  readonly reservedTable: 'none' | 'init' | 'update-rebind' | 'update-delete';
  /** A Python UDF hop in the body that emits its own unstamped state, or blanks the envelope (scenario 13). */
  readonly bodyState: 'none' | 'before' | 'after' | 'blank';
  readonly missingConfig: boolean;
  /** Python pass-through hops in a single loop's body (k of the protocol's cost model). */
  readonly bodyHops: number;
}

/** A loop in the workflow: its Loop Start / Loop End ids and the expected counts. */
export interface LoopInfo {
  readonly ls: string;
  readonly le: string;
  /** LE.out rows at the end. */
  readonly outRows: readonly number[];
  /** Executions of the Loop Start (iterations over the whole run). */
  readonly lsExecs: number;
  readonly jumps: number;
}

export interface Workflow {
  readonly ops: readonly OpSpec[];
  readonly plan: Plan;
  readonly readers: readonly { readonly id: string; readonly worker: string }[];
  readonly loops: readonly LoopInfo[];
  readonly input: Table;
}

export function buildWorkflow(o: TopologyOptions): Workflow {
  const input = inputTable(o.rows, o.payloadBytes);
  const src: OpSpec = { id: 'Src', kind: 'source', source: batchOfTable(input) };
  const endCode = (v: string) =>
    o.updateError ? failingEnd() : o.reservedTable === 'update-rebind' ? reservedEnd(v, 'rebind') : o.reservedTable === 'update-delete' ? reservedEnd(v, 'delete') : countingEnd(v);
  const startCode = (v: string) => (o.reservedTable === 'init' ? reservedStart(v) : perRowStart(v));
  const links: [string, string][] = [];
  let ops: OpSpec[];
  let levels: string[][];
  const nested = o.topology === 'nested' || o.topology === 'nested-jvm-chain';
  if (nested) {
    const body: OpSpec[] = o.topology === 'nested-jvm-chain' ? [{ id: 'Limit', kind: 'jvm' }] : [];
    ops = [
      src,
      { id: 'OS', kind: 'loopStart', start: wholeTableStart('i') },
      { id: 'IS', kind: 'loopStart', start: startCode('j') },
      ...body,
      { id: 'IE', kind: 'loopEnd', end: endCode('j') },
      { id: 'OE', kind: 'loopEnd', end: countingEnd('i') },
    ];
    const chain = ops.map((x) => x.id);
    for (let k = 1; k < chain.length; k++) links.push([chain[k - 1]!, chain[k]!]);
    levels = chain.map((x) => [x]);
  } else if (o.topology === 'fan-in') {
    ops = [src, { id: 'LS', kind: 'loopStart', start: startCode('i') }, { id: 'Limit', kind: 'jvm' }, { id: 'Sleep', kind: 'python' }, { id: 'LE', kind: 'loopEnd', end: endCode('i') }];
    links.push(['Src', 'LS'], ['LS', 'Limit'], ['LS', 'Sleep'], ['Limit', 'LE'], ['Sleep', 'LE']);
    levels = [['Src'], ['LS'], ['Limit', 'Sleep'], ['LE']];
  } else {
    const body: OpSpec[] = [];
    if (o.topology === 'jvm-chain') body.push({ id: 'Limit', kind: 'jvm' });
    for (let k = 1; k <= o.bodyHops; k++) body.push({ id: `Py${k}`, kind: 'python' });
    if (o.bodyState !== 'none') body.push({ id: 'Udf', kind: 'python', ...(o.bodyState === 'blank' ? { blanksEnvelope: true } : { bodyState: o.bodyState }) });
    ops = [src, { id: 'LS', kind: 'loopStart', start: startCode('i') }, ...body, { id: 'LE', kind: 'loopEnd', end: endCode('i') }];
    const chain = ops.map((x) => x.id);
    for (let k = 1; k < chain.length; k++) links.push([chain[k - 1]!, chain[k]!]);
    levels = chain.map((x) => [x]);
  }
  const inputs: Record<string, InputChannel[]> = {};
  const readers: { id: string; worker: string }[] = [];
  for (const [from, to] of links) {
    const list = (inputs[to] ??= []);
    const id = `${to}.r${list.length}`;
    list.push({ reader: id, base: portBase(from) });
    readers.push({ id, worker: to });
  }
  const loopStartPortUris: Record<string, string> = {};
  if (!o.missingConfig) for (const op of ops) if (op.kind === 'loopStart') loopStartPortUris[op.id] = inputs[op.id]![0]!.base;
  const outBase = Object.fromEntries(ops.map((x) => [x.id, portBase(x.id)]));
  const reuse = Object.fromEntries(ops.filter((x) => x.kind === 'loopEnd').map((x) => [x.id, true]));
  return { ops, plan: { levels, inputs, outBase, reuse, loopStartPortUris }, readers, loops: expectedLoops(o, input), input };
}

/** The loops' expected results, by running the user code directly on the input table. */
function expectedLoops(o: TopologyOptions, input: Table): LoopInfo[] {
  const code = (start: LoopCode['start'], end: LoopCode['end']): LoopCode => ({ start, end });
  if (o.topology === 'nested' || o.topology === 'nested-jvm-chain') {
    const innerCode = code(perRowStart('j'), countingEnd('j'));
    let lastInner: Table[] = [];
    const outer = referenceLoop(code(wholeTableStart('i'), countingEnd('i')), input, (body) => {
      const r = referenceLoop(innerCode, body);
      lastInner = r.rows;
      return { rows: r.rows, iterations: r.iterations };
    });
    return [
      { ls: 'IS', le: 'IE', outRows: valuesOf(lastInner.map(batchOfTable)), lsExecs: outer.innerIterations, jumps: outer.innerIterations - outer.iterations },
      { ls: 'OS', le: 'OE', outRows: valuesOf(outer.rows.map(batchOfTable)), lsExecs: outer.iterations, jumps: outer.iterations - 1 },
    ];
  }
  const r = referenceLoop(code(perRowStart('i'), countingEnd('i')), input);
  // Fan-in: the Loop End's one port has two inbound links, so each iteration's rows arrive twice.
  const copies = o.topology === 'fan-in' ? 2 : 1;
  const rows = valuesOf(r.rows.map(batchOfTable)).flatMap((v) => Array<number>(copies).fill(v));
  return [{ ls: 'LS', le: 'LE', outRows: rows, lsExecs: r.iterations, jumps: r.iterations - 1 }];
}
