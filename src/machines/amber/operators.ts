// The loop operators' contract (operator.py, post-PR), as pure functions over plain
// values: Loop Start produces its user variables (never `table`), Loop End's
// `attach_loop_table` / `run_update` / `condition`. Designs differ only in where the
// table comes from; D0 carries it inside the State as base64 Arrow IPC in JSON.
import { TEXERA_BYTES, base64Of, batchOfBase64, tableOf, type Batch } from './data.ts';
import type { StateRow } from './messages.ts';
import { RESERVED, reservedError, type LoopEndCode, type Vars } from './user-code.ts';

/** The loop designs: D0 before the PR, D1 its first commit, D2 its final form. */
export type Design = 'table-in-state' | 'read-at-consume' | 'read-at-endchannel';
/** Every loop design, D0 to D2. */
export const DESIGNS: readonly Design[] = ['table-in-state', 'read-at-consume', 'read-at-endchannel'];

/** The Loop End operator's own state. `loopTable` non-null iff a run_update succeeded (I4). */
export interface LoopEndState {
  readonly vars: Vars;
  readonly attached: Batch | null;
  readonly loopTable: Batch | null;
  readonly attaches: number;
  readonly updates: number;
}

export const FRESH_LOOP_END: LoopEndState = { vars: {}, attached: null, loopTable: null, attaches: 0, updates: 0 };

/** `attach_loop_table`: runtime-only; does not mark the loop consumed. */
export function attachLoopTable(s: LoopEndState, t: Batch): LoopEndState {
  return { ...s, attached: t, attaches: s.attaches + 1 };
}

/** `run_update(code, incoming)`: takes the attachment; fails loud without one; guards the reserved name. */
export function runUpdate(s: LoopEndState, code: LoopEndCode, incoming: Vars): { state: LoopEndState; error?: string } {
  if (s.attached === null) return { state: s, error: 'RuntimeError: loop input table was not attached before run_update' };
  const taken = { ...s, attached: null };
  const table = tableOf([s.attached]);
  let ns;
  try {
    ns = code.update({ ...incoming, table });
  } catch (e) {
    return { state: taken, error: e instanceof Error ? e.message : String(e) };
  }
  if (!(RESERVED in ns) || ns[RESERVED] !== table) return { state: taken, error: reservedError(RESERVED in ns ? 'update rebinds it' : 'update deletes it') };
  const { [RESERVED]: _t, ...vars } = ns as Record<string, unknown>;
  return { state: { ...taken, vars, loopTable: s.attached, updates: s.updates + 1 } };
}

/** `condition()`: False while nothing was consumed in this executor. */
export function evalCondition(s: LoopEndState, code: LoopEndCode): { value: boolean; error?: string } {
  if (s.loopTable === null) return { value: false };
  try {
    return { value: code.condition(s.vars, tableOf([s.loopTable])) };
  } catch (e) {
    return { value: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** Loop Start `produce_state_on_finish`: the user variables only; raises on a user `table`. */
export function produceLoopStartState(vars: Vars): { vars?: Vars; error?: string } {
  if (RESERVED in vars) return { error: reservedError('initialization defines it') };
  return { vars };
}

/** The State's JSON `content`. D0 adds the buffered table as base64 Arrow IPC. */
export function stateContent(vars: Vars, design: Design, table?: Batch): string {
  if (design === 'table-in-state' && table) return JSON.stringify({ ...vars, [RESERVED]: { [TEXERA_BYTES]: 'bytes', payload: base64Of(table) } });
  return JSON.stringify(vars);
}

/** Parses a State's content; D0's `table` comes back separately. */
export function parseState(row: StateRow): { vars: Vars; table?: Batch } {
  const o = JSON.parse(row.content) as Record<string, any>;
  const t = o[RESERVED];
  if (t && typeof t === 'object' && t[TEXERA_BYTES] === 'bytes') {
    const { [RESERVED]: _t, ...vars } = o;
    return { vars, table: batchOfBase64(String(t.payload)) };
  }
  return { vars: o };
}
