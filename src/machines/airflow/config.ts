// The vocabulary of the iterable-task checkpoint model: entries, keys, outcome
// scripts and the configuration every actor of a scenario is built from.
import { ScenarioError } from '../../actors/index.ts';

export type Design = 'per-index' | 'per-round' | 'overwrite-one-key';
export type Backend = 'database' | 'object-storage';

/** An indexed task's outcome in one attempt, as the checkpoint stores it. */
export type EntryStatus = 'success' | 'skipped' | 'up_for_retry';
export interface Entry {
  readonly i: number;
  readonly s: EntryStatus;
  /** try_number of the attempt that recorded it. */
  readonly t: number;
}

/**
 * What the operator of one index does in one attempt:
 * s success, k skip, f failure (retry), n FAIL_WITHOUT_RETRY, x fail-fast
 * (TaskDeferred and friends), d DeadlockImminentError (also fail-fast).
 */
export type Outcome = 's' | 'k' | 'f' | 'n' | 'x' | 'd';
const OUTCOMES = new Set(['s', 'k', 'f', 'n', 'x', 'd']);

export const MARKER_KEY = '_iterable_completed';
export const ALL_KEY = '_iterable_all';
export const batchKey = (n: number): string => `_iterable_batch_${n}`;
export const indexKey = (i: number): string => `_iterable_${i}`;
/** The batch number of a batch key, or -1. */
export function batchNumber(key: string): number {
  return key.startsWith('_iterable_batch_') ? Number(key.slice(16)) : -1;
}

export type Marker = { readonly completed: true; readonly try_number: number; readonly since?: number } | { readonly completed: false; readonly since: number };

/** The airflow-checkpoints model's configuration: design, sizes, open points, guards and faults (`airflowConfig` fills in defaults). */
export interface AirflowConfig {
  /** The checkpoint design: `per-round` (after e5abeccb1e), `per-index` (before) or `overwrite-one-key` (the rejected alternative). */
  readonly design: Design;
  /** N, the input items (indexed tasks). */
  readonly items: number;
  /** task_concurrency: outcomes per round and indexed tasks in flight. */
  readonly W: number;
  /** Tries of the task instance (retries + 1). */
  readonly tries: number;
  /** Per attempt (0-based), per index; missing means success. */
  readonly script: readonly (readonly Outcome[])[];
  /** The task state store's backend: `database` (row cap, size warning) or `object-storage`. */
  readonly backend: Backend;
  /** Operator I/O per executed index, virtual ms (a pure delay, no resource). */
  readonly opMs: number;
  /** Serialised size of one entry (result included), in bytes. */
  readonly entryBytes: number;
  /** F7: a write larger than this logs a warning (and proceeds), in bytes. */
  readonly maxValueStorageBytes: number;
  /** Row cap of the database backend (MySQL MEDIUMTEXT: 16 MiB); 0 = no cap. */
  readonly rowCapBytes: number;
  // Open points of the protocol's appendix, as switches with the protocol's defaults.
  /** (3) record the entry before the XCom push (default) or after it. */
  readonly recordFirst: boolean;
  /** (4) the round-closing coroutine awaits the write holding its slot (default), or a detached task does. */
  readonly writeAwait: 'closing-slot' | 'detached';
  /** (5) a failed marker write fails the attempt (default) or is only logged. */
  readonly markerFailureFails: boolean;
  /** (6) numbering after a clear-after-success rerun. */
  readonly rerunNumbering: 'restartAt0' | 'appendAfterExisting';
  /** (7) old protocol: per-index retry reads inside each coroutine (default) or all up front. */
  readonly oldReads: 'in-coroutine' | 'upfront';
  /** H2 guard: ignore a batch written by an older attempt than a lower key (default off, as in the seed). */
  readonly staleGuard: boolean;
  /**
   * H6 guard: a retry that finds a completed marker treats it as a clear-after-success
   * rerun only when the runner says the try follows a clear (default off, as in the seed:
   * a hard kill after the marker makes the retry ignore every checkpoint).
   */
  readonly markerGuard: boolean;
  /** H5: keep the channel held until a cancelled request's response arrives (default on). */
  readonly h5Guard: boolean;
  // Faults (F1-F12) as switches; the checker chooses where they strike within `faultBudget`.
  /** Faults one run may take (each switched-on fault costs one). */
  readonly faultBudget: number;
  /** F1 (and F9 with the object-storage backend): a state-store write may fail with no effect. */
  readonly writeError: boolean;
  /** F2: a write may persist yet answer an error. */
  readonly ambiguousWrite: boolean;
  /** F3: a startup read may fail. */
  readonly readError: boolean;
  /** F4: the task process may be SIGKILLed at any step (the restart is the next try). */
  readonly hardKill: boolean;
  /** F5: SIGTERM (no retry) or execution_timeout (retry) during try `softKillTry`. */
  readonly softKill: 'none' | 'sigterm' | 'timeout';
  /** The try that gets the soft kill (1-based). */
  readonly softKillTry: number;
  /** F10: a batch may vanish (retention cleanup, bucket lifecycle) just before a retry reads it; the checker chooses when. */
  readonly externalDelete: boolean;
  /** F10 deterministic: batch numbers deleted before try `deleteBeforeTry`. */
  readonly deleteKeys: readonly number[];
  /** The try before which `deleteKeys` are removed. */
  readonly deleteBeforeTry: number;
  /** F12: a manual clear after a successful try, keeping or discarding the task state. */
  readonly clear: 'none' | 'keep' | 'discard';
  /** Shards of the store's rows (1: the storage reducer's state as is; more for long simulations). */
  readonly storeShards: number;
  /** Build the properties (invariants, monitors); off for long simulations. */
  readonly properties: boolean;
  /** Only these properties (by name, e.g. ['INV-2']); null for all. */
  readonly only: readonly string[] | null;
  /** Also check LIV-1 and LIV-3 as liveness properties over every run, cycles included (the checker then runs without POR). */
  readonly liveness: boolean;
  /**
   * Where the run starts (a live run that resumed): the try the runner starts next,
   * and the task state store's keys with their values as the process found them.
   */
  readonly resumeTry: number;
  /** With `resumeTry`: the task state keys and values the run starts with. */
  readonly resumeRows: Readonly<Record<string, unknown>>;
  /**
   * The task's lease (lease.ts): a process takes it before it runs, waits while
   * another holds it, and may take it over once the holder's lease expired.
   */
  readonly lease: boolean;
  /** With the lease: the store refuses a write whose fencing token is not current (off: a broken store, to see LEASE-2 fail). */
  readonly fencing: boolean;
  /** Task processes started at once on the one task: 2 is a double dispatch or a zombie's successor (the second is `task2`). */
  readonly processes: number;
}

/**
 * Parses an outcome script: letters per index, an optional count before a letter
 * repeats it (`37s f 62s` = 37 successes, one failure, 62 successes; spaces are
 * ignored), attempts separated by `/`. Indices past the script succeed.
 */
export function parseOutcomes(text: string): Outcome[][] {
  if (text.trim() === '') return [];
  return text.split('/').map((part, a) => {
    const out: Outcome[] = [];
    const re = /(\d*)([a-z])/g;
    const clean = part.replace(/\s+/g, '');
    let m: RegExpExecArray | null;
    let consumed = 0;
    while ((m = re.exec(clean)) !== null) {
      if (m.index !== consumed) break;
      consumed = re.lastIndex;
      const c = m[2]!;
      if (!OUTCOMES.has(c)) throw new ScenarioError(`outcome script: '${c}' in attempt ${a + 1} is not an outcome; use s (success), k (skip), f (failure), n (fail without retry), x (fail-fast), d (DeadlockImminentError)`);
      const k = m[1] === '' ? 1 : Number(m[1]);
      for (let j = 0; j < k; j++) out.push(c as Outcome);
    }
    if (consumed !== clean.length) throw new ScenarioError(`outcome script: cannot read '${clean.slice(consumed)}' in attempt ${a + 1}; write letters with optional counts, e.g. 'ssfsk' or '37s f 62s', attempts separated by '/'`);
    return out;
  });
}

export function outcomeOf(cfg: AirflowConfig, attempt: number, i: number): Outcome {
  return cfg.script[attempt - 1]?.[i] ?? 's';
}

export function isFailFast(o: Outcome): boolean {
  return o === 'x' || o === 'd';
}

/** The defaults of every `AirflowConfig` field (those of `interleave list`). */
export const DEFAULT_CONFIG: AirflowConfig = {
  design: 'per-round',
  items: 5,
  W: 16,
  tries: 2,
  script: [],
  backend: 'database',
  opMs: 0,
  entryBytes: 100,
  maxValueStorageBytes: 65535,
  rowCapBytes: 16 * 1024 * 1024,
  recordFirst: true,
  writeAwait: 'closing-slot',
  markerFailureFails: true,
  rerunNumbering: 'restartAt0',
  oldReads: 'in-coroutine',
  staleGuard: false,
  h5Guard: true,
  markerGuard: false,
  faultBudget: 0,
  writeError: false,
  ambiguousWrite: false,
  readError: false,
  hardKill: false,
  softKill: 'none',
  softKillTry: 1,
  externalDelete: false,
  deleteKeys: [],
  deleteBeforeTry: 2,
  clear: 'none',
  storeShards: 1,
  properties: true,
  only: null,
  liveness: false,
  resumeTry: 1,
  resumeRows: {},
  lease: false,
  fencing: true,
  processes: 1,
};

/** A whole configuration: `over` on top of the defaults, validated (throws a `ScenarioError` naming a bad field). */
export function configOf(over: Partial<AirflowConfig>): AirflowConfig {
  const cfg = { ...DEFAULT_CONFIG, ...over };
  if (!Number.isInteger(cfg.items) || cfg.items < 0) throw new ScenarioError(`items must be a whole number >= 0, got ${cfg.items}`);
  if (!Number.isInteger(cfg.W) || cfg.W < 1) throw new ScenarioError(`taskConcurrency must be at least 1 (Airflow refuses 0), got ${cfg.W}`);
  if (!Number.isInteger(cfg.tries) || cfg.tries < 1) throw new ScenarioError(`tries must be at least 1, got ${cfg.tries}`);
  if (cfg.processes !== 1 && cfg.processes !== 2) throw new ScenarioError(`processes must be 1 or 2, got ${cfg.processes}`);
  // The lease's expiry may come between any two steps: a zero-delay timer, which would fire before every operator end if operators took time.
  if (cfg.lease && cfg.opMs !== 0) throw new ScenarioError(`the lease model is untimed (an expiry may come at any step), so it needs opMs=0; got opMs=${cfg.opMs}`);
  if (!Number.isInteger(cfg.resumeTry) || cfg.resumeTry < 1) throw new ScenarioError(`resumeTry must be a whole number >= 1, got ${cfg.resumeTry}`);
  if (cfg.resumeTry > cfg.tries) throw new ScenarioError(`resumeTry ${cfg.resumeTry} is past the last try (tries = ${cfg.tries}); raise tries`);
  return cfg;
}

/** The `resumeState` parameter: a JSON object of task state keys and their values (what a resumed run found). */
export function parseResumeState(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ScenarioError(`resumeState must be JSON (an object of task state keys and their values), but it does not parse: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ScenarioError('resumeState must be a JSON object of task state keys and their values, e.g. {"_iterable_batch_0": [{"i": 0, "s": "success", "t": 1}]}');
  for (const [k, x] of Object.entries(v)) if (k === '' || x === null || x === undefined) throw new ScenarioError(`resumeState: key '${k}' needs a non-empty name and a value (not null)`);
  return v as Record<string, unknown>;
}
