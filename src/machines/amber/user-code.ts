// User code of the loop operators, as pure TypeScript functions in the scenario
// (the Python snippets `initialization`, `output`, `update`, `condition`), and a
// reference interpreter that runs a loop directly on the input table, so the model's
// output can be compared row for row with what the loop should produce.
import type { Table } from 'apache-arrow';

/** User loop variables (JSON-serialisable). */
export type Vars = Readonly<Record<string, unknown>>;

/** The update's namespace: the incoming state plus the injected `table`. */
export type Namespace = Readonly<Record<string, unknown>> & { readonly table?: Table };

export interface LoopStartCode {
  /** `initialization`: the fresh loop variables of a Loop Start execution. */
  init(): Vars;
  /** `output`: the body input of this iteration, from the variables and the buffered table. */
  output(vars: Vars, table: Table): Table;
}

export interface LoopEndCode {
  /** `update`: runs in a namespace of the incoming state plus `table`; returns the namespace after it. May throw (user error). */
  update(ns: Namespace): Namespace;
  /** `condition`: true to jump back to the Loop Start. */
  condition(vars: Vars, table: Table): boolean;
}

/** `i = 0`, output `table.iloc[i]`: the per-row loop of the protocol's scenarios. */
export function perRowStart(v: string): LoopStartCode {
  return {
    init: () => ({ [v]: 0 }),
    output: (vars, table) => {
      const i = Number(vars[v]);
      return table.slice(i, i + 1);
    },
  };
}

/** `i = 0`, output `table`: the outer loop of the nested scenario. */
export function wholeTableStart(v: string): LoopStartCode {
  return { init: () => ({ [v]: 0 }), output: (_vars, table) => table };
}

/** `i += 1`, `i < len(table)`. */
export function countingEnd(v: string): LoopEndCode {
  return {
    update: (ns) => ({ ...ns, [v]: Number(ns[v]) + 1 }),
    condition: (vars, table) => Number(vars[v]) < table.numRows,
  };
}

/** Spec scenario 9: `update = "i += undefined_name"`. */
export function failingEnd(): LoopEndCode {
  return {
    update: () => {
      throw new Error("NameError: name 'undefined_name' is not defined");
    },
    condition: () => false,
  };
}

/** Spec scenario 11: an update that rebinds (`table = 1`) or deletes (`del table`) the reserved name. */
export function reservedEnd(v: string, how: 'rebind' | 'delete'): LoopEndCode {
  return {
    update: (ns) => {
      if (how === 'rebind') return { ...ns, [v]: Number(ns[v]) + 1, table: 1 as unknown as Table };
      const { table: _t, ...rest } = ns;
      return { ...rest, [v]: Number(ns[v]) + 1 };
    },
    condition: (vars, table) => Number(vars[v]) < table.numRows,
  };
}

/** Spec scenario 11: an initialization that defines `table = 1`. */
export function reservedStart(v: string): LoopStartCode {
  return { init: () => ({ [v]: 0, table: 1 }), output: (vars, table) => perRowStart(v).output(vars, table) };
}

export const RESERVED = 'table';

/** The error the runtime raises when user code touches `table`. */
export function reservedError(where: string): string {
  return `ValueError: '${RESERVED}' is reserved by the loop runtime (${where})`;
}

export interface LoopCode {
  readonly start: LoopStartCode;
  readonly end: LoopEndCode;
}

/**
 * Runs one loop directly (no actors): the rows its Loop End emits over all
 * iterations, and the iteration count. `inner` runs a nested loop on each body input.
 */
export function referenceLoop(code: LoopCode, table: Table, inner?: (body: Table) => { rows: Table[]; iterations: number }): { rows: Table[]; iterations: number; innerIterations: number } {
  let vars: Vars = code.start.init();
  const rows: Table[] = [];
  let iterations = 0;
  let innerIterations = 0;
  for (;;) {
    iterations++;
    const body = code.start.output(vars, table);
    if (inner) {
      const r = inner(body);
      rows.push(...r.rows);
      innerIterations += r.iterations;
    } else rows.push(body);
    const ns = code.end.update({ ...vars, table });
    const { table: _t, ...next } = ns;
    vars = next;
    if (!code.end.condition(vars, table)) break;
    if (iterations > 10_000) throw new Error('reference loop did not terminate within 10,000 iterations');
  }
  return { rows, iterations, innerIterations };
}
