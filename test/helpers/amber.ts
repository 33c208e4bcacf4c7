// Shared helpers of the Amber loop tests: one fault-free run, and views of its trace.
import { drive, queryOf, type RecordedEvent, type Scenario, type WorldQuery } from 'interleave';
import { valuesOf } from '../../src/machines/amber/data.ts';
import { portBase, resultUri, stateUri } from '../../src/machines/amber/messages.ts';
import { startOf, amberScenario, type AmberParams } from '../../src/machines/amber/scenario.ts';
import { resultBatchesOf, stateRowsOf, type StoreState } from '../../src/machines/amber/store.ts';

export interface OneRun {
  readonly sc: Scenario;
  readonly events: readonly RecordedEvent[];
  readonly q: WorldQuery;
  readonly end: string;
  readonly store: StoreState;
  /** Values of an operator's output result doc. */
  out(op: string): number[];
  /** Rows of an operator's output state doc. */
  states(op: string): ReturnType<typeof stateRowsOf>;
  emits(type: string, op?: string): any[];
  io(op: string, key?: string, by?: string): Extract<RecordedEvent, { kind: 'io' }>[];
  sends(from: string, type: string): Extract<RecordedEvent, { kind: 'send' }>[];
}

/**
 * One run, always taking the first enabled non-fault step (deterministic, fault-free).
 * With a materialized start, `events` and `schedule` begin with the earlier regions'
 * run the start was derived from, so whole-run counts read the same for both starts
 * (the events then equal a scratch run's).
 */
export function runOnce(p: Partial<AmberParams>): OneRun & { schedule: readonly string[] } {
  const sc = amberScenario({ overlapFault: false, ...p });
  const r = drive(sc, (_w, steps) => steps.find((s) => s.kind === 'timer' || (s.kind === 'deliver' && s.outcome === undefined)), { maxSteps: 20_000, stopOnFailure: false });
  const q = queryOf(sc, r.world);
  const store = q.context('store') as StoreState;
  const st = startOf(sc);
  // The materialized run's boot events (step 0) restate the world the prefix ended in.
  const events = st.kind === 'materialized' ? [...st.seed.prefix.events, ...r.events.filter((e) => e.step > 0)] : r.events;
  return {
    sc,
    schedule: st.kind === 'materialized' ? [...st.seed.prefix.schedule, ...r.schedule] : r.schedule,
    events,
    q,
    end: r.end,
    store,
    out: (op) => valuesOf(resultBatchesOf(store, resultUri(portBase(op)))),
    states: (op) => stateRowsOf(store, stateUri(portBase(op))),
    emits: (type, op) => events.filter((e) => e.kind === 'emit' && e.msg.type === type && (op === undefined || e.msg.op === op)).map((e) => (e as any).msg),
    io: (op, key, by) => events.filter((e): e is Extract<RecordedEvent, { kind: 'io' }> => e.kind === 'io' && e.op === op && (key === undefined || e.key === key) && (by === undefined || e.detail?.by === by)),
    sends: (from, type) => events.filter((e): e is Extract<RecordedEvent, { kind: 'send' }> => e.kind === 'send' && e.from === from && e.msg.type === type),
  };
}

/** Property failures (monitor or error events) recorded in a run. */
export function failures(run: OneRun): string[] {
  return run.events.filter((e) => e.kind === 'monitor-fail' || e.kind === 'error' || e.kind === 'unhandled').map((e) => JSON.stringify(e));
}

/** Every `eventually` and invariant of the scenario evaluated on the final world (true, or the message). */
export function verdicts(run: OneRun): Record<string, true | string> {
  const out: Record<string, true | string> = {};
  for (const group of [run.sc.invariants ?? {}, run.sc.eventually ?? {}]) {
    for (const [n, p] of Object.entries(group)) {
      const v = p(run.q);
      out[n] = v === true ? true : String(v);
    }
  }
  return out;
}
