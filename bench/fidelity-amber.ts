// The Amber loop's rows of the fidelity table (bench/fidelity-rows.ts): the counts
// the source's tests state for single and nested loops, D0's state row against
// 4⌈B/3⌉+49, the D0/D2 byte ratio (8/3)(k+1), and the data benchmark at batch sizes
// 10/100/1000 against the source's tuples/s. Every value comes from a run of the
// model (a fault-free drive) or of the data channel; none is copied.
import { drive, queryOf, type RecordedEvent } from '../src/actors/index.ts';
import { d0FormulaBytes, valuesOf } from '../src/machines/amber/data.ts';
import { portBase, resultUri, stateUri } from '../src/machines/amber/messages.ts';
import { amberScenario, type AmberParams } from '../src/machines/amber/scenario.ts';
import { resultBatchesOf, stateRowsOf, type StoreState } from '../src/machines/amber/store.ts';
import { payloadFor, traffic } from './amber.bench.ts';
import { channelThroughput, SOURCE_TUPLES_PER_S } from './data-plane.ts';
import type { FidelityRow, FidelityTable } from './fidelity-rows.ts';

/** One fault-free run (the first enabled delivery or timer, no fault), and what the rows read from it. */
function runLoop(p: Partial<AmberParams>) {
  const sc = amberScenario({ overlapFault: false, maxCellBytes: 1 << 30, ...p });
  const r = drive(sc, (_w, steps) => steps.find((s) => s.kind === 'timer' || (s.kind === 'deliver' && s.outcome === undefined)), { maxSteps: 50_000, detail: false, stopOnFailure: false });
  const q = queryOf(sc, r.world);
  const store = q.context('store') as StoreState;
  const coord = q.context('coordinator') as { phase: string; execs: Record<string, number>; jumps: Record<string, number> };
  const io = (op: string, key: string, by: string) => r.events.filter((e: RecordedEvent) => e.kind === 'io' && e.op === op && e.key === key && e.detail?.by === by);
  return {
    coord,
    rows: (op: string) => valuesOf(resultBatchesOf(store, resultUri(portBase(op)))).length,
    state: (op: string) => stateRowsOf(store, stateUri(portBase(op))),
    io,
    resets: (op: string) => io('create', resultUri(portBase(op)), op).filter((e) => e.kind === 'io' && e.detail?.reset).length,
  };
}

const row = (figure: string, source: string, got: string, tolerance: string, holds: boolean): FidelityRow => ({ family: 'amber', figure, source, interleave: got, tolerance, holds });
const counts = (figure: string, want: number[], got: number[]) => row(figure, want.join(' / '), got.join(' / '), 'exact', want.every((w, i) => w === got[i]));

/** The counts the source's tests state (design D2): single loop, nested 3x3, both JVM chains. */
export function amberCountRows(): FidelityRow[] {
  const rows: FidelityRow[] = [];
  const rIn = resultUri(portBase('Src'));
  // Counts (design D2, the source's tests): single loop, nested 3x3, and both JVM chains.
  const single = runLoop({ design: 'read-at-endchannel' });
  rows.push(counts('single loop: LE.out rows / LS runs / jumps / LE reads of R_in', [3, 3, 2, 3], [single.rows('LE'), single.coord.execs.LS ?? 0, single.coord.jumps.LS ?? 0, single.io('open', rIn, 'LE').length]));
  const nested = runLoop({ design: 'read-at-endchannel', topology: 'nested' });
  rows.push(
    counts('nested 3x3: OE.out / IE.out rows', [9, 3], [nested.rows('OE'), nested.rows('IE')]),
    counts('nested 3x3: inner / outer jumps', [6, 2], [nested.coord.jumps.IS ?? 0, nested.coord.jumps.OS ?? 0]),
    counts('nested 3x3: OS / IS runs, IE resets', [3, 9, 3], [nested.coord.execs.OS ?? 0, nested.coord.execs.IS ?? 0, nested.resets('IE')]),
    counts('nested 3x3: IE reads of R(OS.out) / OE reads of R_in', [9, 3], [nested.io('open', resultUri(portBase('OS')), 'IE').length, nested.io('open', rIn, 'OE').length]),
  );
  const jvm = runLoop({ design: 'read-at-endchannel', topology: 'jvm-chain' });
  const nestedJvm = runLoop({ design: 'read-at-endchannel', topology: 'nested-jvm-chain' });
  rows.push(counts('JVM chain LE.out rows / nested JVM chain OE.out, IE.out rows', [3, 9, 3], [jvm.rows('LE'), nestedJvm.rows('OE'), nestedJvm.rows('IE')]));
  return rows;
}

/** D0's state row against 4⌈B/3⌉+49, its state bytes per iteration against 2(k+1)(4⌈B/3⌉+49), and D0/D2 bytes against (8/3)(k+1), at B = 64 KiB. */
export function amberByteRows(ks: readonly number[] = [0, 2, 4]): FidelityRow[] {
  const rows: FidelityRow[] = [];

  // D0: one state row holds the loop variables (s bytes) plus the table as base64 IPC in JSON.
  const { payload, ipcBytes } = payloadFor(64 * 1024);
  const d0 = runLoop({ design: 'table-in-state', payloadBytes: payload });
  const st = d0.state('LS')[0];
  const vars = st ? JSON.stringify((({ table: _t, ...rest }) => rest)(JSON.parse(st.content) as Record<string, unknown>)) : '';
  const tablePart = st ? st.content.length - vars.length : 0;
  rows.push(row(`D0 state row minus loop variables, B=${ipcBytes}`, `4⌈B/3⌉+49 = ${d0FormulaBytes(ipcBytes)}`, String(tablePart), 'exact', tablePart === d0FormulaBytes(ipcBytes)));
  for (const k of ks) {
    const t0 = traffic({ design: 'table-in-state', payloadBytes: payload, bodyHops: k });
    const formula = 2 * (k + 1) * d0FormulaBytes(ipcBytes);
    // The formula leaves out the loop variables (s bytes per row): ±1% covers them at 64 KiB.
    rows.push(row(`D0 state bytes/iter, B=${ipcBytes}, k=${k}`, `2(k+1)(4⌈B/3⌉+49) = ${formula}`, String(Math.round(t0.stateBytes)), '±1%', Math.abs(t0.stateBytes - formula) <= formula * 0.01));
    // D0's fat-state traffic against what D2 adds (its Loop End's one read of R_in, P bytes; here P = B).
    const t2 = traffic({ design: 'read-at-endchannel', payloadBytes: payload, bodyHops: k });
    const ratio = t0.stateBytes / t2.leTableBytes;
    const want = (8 / 3) * (k + 1);
    rows.push(row(`D0 state bytes / D2 read of R_in, k=${k}`, `(8/3)(k+1) = ${want.toFixed(2)}`, ratio.toFixed(2), '±5%', Math.abs(ratio - want) <= want * 0.05));
  }

  return rows;
}

/** The data benchmark: tuples per CPU second of the simulated channel (Arrow IPC per message) against the source's tuples/s and the ≥ 1,000× goal. */
export async function dataPlaneRows(reps: number): Promise<FidelityRow[]> {
  const rows: FidelityRow[] = [];
  for (const bs of [10, 100, 1000] as const) {
    const m = await channelThroughput(bs, { reps });
    const times = m.tuplesPerCpuS / SOURCE_TUPLES_PER_S[bs];
    rows.push(row(`data benchmark bs=${bs}: tuples per CPU s, IPC per message`, SOURCE_TUPLES_PER_S[bs].toLocaleString('en-US'), `${Math.round(m.tuplesPerCpuS).toLocaleString('en-US')} = ${Math.round(times).toLocaleString('en-US')}×`, '≥ 1,000× (goal)', times >= 1000));
  }
  return rows;
}

export async function amberFidelity(opts: { quick?: boolean } = {}): Promise<FidelityTable> {
  const rows = [...amberCountRows(), ...amberByteRows(opts.quick ? [2] : [0, 2, 4]), ...(await dataPlaneRows(opts.quick ? 5 : 15))];
  const notComputed = opts.quick ? ['amber D0 bytes at k = 0 and 4 (quick mode runs k = 2)'] : [];
  return { rows, notComputed };
}
