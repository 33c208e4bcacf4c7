// Trace files recorded with externals (live runs) read against a model: which actors
// ran as externals, the schedule the model replays (the replies of modelled externals
// dropped), and `replayTraceFile`, which replays any trace file in simulation.
import { Divergence, ScenarioError, toPlain, withExternals, withInputs, type RecordedEvent, type Scenario, type TraceEvent, type World } from '../../actors/index.ts';
import { replaySchedule, runSchedule, type ReplayOutcome, type ScheduleInput } from './replay.ts';
import type { StepOrigin, TraceFile, Violation } from '../types.ts';

/** The actors a trace file says ran as externals (live recordings), else none. */
export function externalsOf(file: Pick<TraceFile, 'options'>): string[] {
  const x = file.options?.externals;
  return Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];
}

/**
 * The scenario to replay a trace file on: for a live recording, the actors that
 * ran as externals are swapped for externals again, so the recorded replies (the
 * `inputs`) are what they answer. Use this before `replaySchedule(sc, file.schedule, file.inputs)`.
 */
export function scenarioForTrace(sc: Scenario, file: Pick<TraceFile, 'options'>): Scenario {
  const ext = externalsOf(file).filter((id) => sc.index.has(id));
  return ext.length ? withExternals(sc, ext) : sc;
}

/**
 * A live recording's schedule for the model: the replies of actors the scenario
 * models (recorded as `input:` steps from externals) are dropped, since the model
 * answers for itself at the delivery; the other inputs are renumbered.
 */
export function modelSchedule(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>): ModelSchedule {
  const modelled = modelledExternals(sc, file);
  const byIndex = new Map(((file.inputs ?? []) as ScheduleInput[]).map((x) => [x.index, x]));
  const schedule: string[] = [];
  const inputs: ScheduleInput[] = [];
  const origin: number[] = [];
  const dropped: ScheduleInput[] = [];
  file.schedule.forEach((id, i) => {
    const inp = byIndex.get(i);
    if (inp && modelled.has(inp.from)) return void dropped.push(inp);
    if (inp) inputs.push({ ...inp, index: schedule.length });
    schedule.push(id.startsWith('timer:') ? currentStepId(sc, id) : id);
    origin.push(i);
  });
  return { schedule, inputs, origin, dropped };
}

/** A live recording's schedule for the model, with where each step was in the recording and the replies dropped. */
export interface ModelSchedule {
  readonly schedule: string[];
  readonly inputs: ScheduleInput[];
  /** Per step of `schedule`: its position in the recording. */
  readonly origin: readonly number[];
  /** The recorded replies of modelled externals (the model gives its own), with their positions in the recording. */
  readonly dropped: readonly ScheduleInput[];
}

/** The actors a live recording ran as externals that the scenario models (they answer for themselves on replay). */
export function modelledExternals(sc: Scenario, file: Pick<TraceFile, 'options'>): Set<string> {
  return new Set(externalsOf(file).filter((id) => sc.index.has(id) && sc.actorList[sc.index.get(id)!]!.kind !== 'external'));
}

/**
 * Replays a trace file (live or checked) in simulation: what `interleave replay` does,
 * for a scenario you build yourself. A checked trace replays its schedule as
 * {@link replaySchedule} does. A live recording replays on
 * the model: actors that ran as externals but are modelled answer for themselves
 * (so every property, including those reading a store's state, is checked), and a
 * live reply the model would not give shows up as a `Divergence`. With `recorded`,
 * they are swapped for externals fed by the recorded replies instead.
 *
 * Two lengths: `recordedSteps` is the file's schedule, the run as recorded (what
 * `interleave replay` reports); `schedule` is what was replayed, which for a live
 * recording on the model lacks the `answeredByModel` replies the model gave itself.
 */
export function replayTraceFile(
  sc: Scenario,
  file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>,
  opts: { readonly recorded?: boolean } = {},
): {
  /** The scenario replayed (with externals swapped in when `recorded`). */
  scenario: Scenario;
  /**
   * The schedule replayed: the file's, except that a live recording replayed on the model
   * leaves out the recorded replies of the actors the scenario models, which the model
   * gives itself at their delivery. So `schedule.length` is `recordedSteps - answeredByModel`.
   */
  schedule: string[];
  /** Steps in the file's schedule (`file.schedule.length`): the run as recorded. */
  recordedSteps: number;
  /** Recorded replies left out of `schedule` because the scenario models their sender (0 for a checked trace or with `recorded`). */
  answeredByModel: number;
  /** Its trace events. */
  trace: RecordedEvent[];
  /** The world at the end. */
  world: World;
  /** The property that failed on the way, if any. */
  violation?: Violation;
} {
  const recordedSteps = file.schedule.length;
  if (opts.recorded) {
    const s = scenarioForTrace(sc, file);
    return { scenario: s, schedule: [...file.schedule], recordedSteps, answeredByModel: 0, ...replaySchedule(s, file.schedule, file.inputs as ScheduleInput[] | undefined) };
  }
  const msc = modelScenario(sc, file);
  const m = modelSchedule(msc, file);
  return { scenario: msc, schedule: m.schedule, recordedSteps, answeredByModel: m.dropped.length, ...replaySchedule(msc, m.schedule, m.inputs.length ? m.inputs : undefined) };
}

// ---------------------------------------------------------------------------
// Where a live run started, and whether a recording fits the model
// ---------------------------------------------------------------------------

/** Bodies up to this many bytes that hold JSON are recorded decoded too, so a difference names the field. */
export const RECORDED_JSON_BYTES = 4096;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The JSON a byte body holds (small bodies only), else undefined. */
function jsonOf(b: Uint8Array): unknown {
  if (b.byteLength === 0 || b.byteLength > RECORDED_JSON_BYTES) return undefined;
  const c = b[0]!;
  if (c !== 0x7b && c !== 0x5b && c !== 0x20 && c !== 0x22) return undefined; // `{`, `[`, ` `, `"`
  try {
    return JSON.parse(utf8.decode(b)) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A recorded payload as plain JSON: `toPlain`'s projection (bytes as `{ $bytes, fnv }`), with
 * the decoded JSON of small byte bodies that hold JSON added as `json`.
 */
export function plainData(v: unknown): unknown {
  if (ArrayBuffer.isView(v)) {
    const b = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    const j = jsonOf(b);
    return j === undefined ? toPlain(b) : { ...(toPlain(b) as object), json: j };
  }
  if (Array.isArray(v)) return v.map(plainData);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o).sort()) if (o[k] !== undefined) out[k] = plainData(o[k]);
    return out;
  }
  return toPlain(v);
}

/** Bytes in a recording's `options.initial`: `{ $base64 }`, so the model starts from the exact contents. */
export function encodeInitial(v: unknown): unknown {
  if (ArrayBuffer.isView(v)) return { $base64: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
  if (Array.isArray(v)) return v.map(encodeInitial);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, encodeInitial(x)]));
  return v;
}

/** The inverse of {@link encodeInitial}. */
export function decodeInitial(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decodeInitial);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.$base64 === 'string' && Object.keys(o).length === 1) return new Uint8Array(Buffer.from(o.$base64, 'base64'));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decodeInitial(x)]));
  }
  return v;
}

/** The actors' inputs a live recording says its run started from (`options.initial`), decoded; empty when none. */
export function recordedInitial(file: Pick<TraceFile, 'options'>): Record<string, unknown> {
  const x = file.options?.initial;
  if (x === undefined || x === null) return {};
  if (typeof x !== 'object' || Array.isArray(x)) throw new ScenarioError(`the trace's options.initial must be an object of actor inputs by actor id, got ${JSON.stringify(x).slice(0, 80)}`);
  return decodeInitial(x) as Record<string, unknown>;
}

/**
 * The scenario a live recording replays on: the modelled actors it recorded a start for
 * (`options.initial`, the live storage's contents when the run began) start from that
 * input instead of the scenario's. Any other trace: the scenario itself.
 */
export function modelScenario(sc: Scenario, file: Pick<TraceFile, 'options'>): Scenario {
  const init = recordedInitial(file);
  const mine = Object.fromEntries(Object.entries(init).filter(([id]) => sc.index.has(id) && sc.actorList[sc.index.get(id)!]!.kind !== 'external'));
  return Object.keys(mine).length ? withInputs(sc, mine) : sc;
}

const show = (v: unknown): string => {
  const t = JSON.stringify(v);
  return t === undefined ? 'nothing' : t.length > 160 ? `${t.slice(0, 157)}...` : t;
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isBytesPlain = (v: unknown): v is { $bytes: number; fnv: string; json?: unknown } => isObj(v) && typeof v.$bytes === 'number' && typeof v.fnv === 'string';

/**
 * Where two plain values first differ, as `path: recorded X, the model Y`; undefined when equal.
 * Bytes compare by JSON content, then size, then digest. An object's fields are those recorded:
 * a field only the model has (added by a newer store) is not a difference.
 */
export function firstDifference(recorded: unknown, model: unknown, path = ''): string | undefined {
  if (Object.is(recorded, model)) return undefined;
  const at = path === '' ? 'the message' : path;
  if (isBytesPlain(recorded) && isBytesPlain(model)) {
    if (recorded.json !== undefined && model.json !== undefined) {
      const d = firstDifference(recorded.json, model.json, `${at} (JSON)`);
      if (d !== undefined) return d;
    }
    const text = (b: { json?: unknown }) => (b.json === undefined ? '' : ` ${show(b.json)}`);
    if (recorded.$bytes !== model.$bytes) return `${at}: recorded ${recorded.$bytes} bytes${text(recorded)}, the model ${model.$bytes} bytes${text(model)}`;
    if (recorded.fnv !== model.fnv) return `${at}: the bytes differ (recorded digest fnv ${recorded.fnv}${text(recorded)}, the model's ${model.fnv}${text(model)})`;
    return undefined;
  }
  if (isObj(recorded) && isObj(model) && Array.isArray(recorded) === Array.isArray(model)) {
    // A field the recording does not have is one the model's store added since (a newer
    // version's `etag`, say): only what was recorded is compared.
    const keys = Array.isArray(recorded) ? [...new Set([...Object.keys(recorded), ...Object.keys(model)])] : Object.keys(recorded);
    for (const k of keys) {
      const d = firstDifference(recorded[k], model[k], path === '' ? k : Array.isArray(recorded) ? `${path}[${k}]` : `${path}.${k}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return `${at}: recorded ${show(recorded)}, the model ${show(model)}`;
}

/** A recorded reply of a modelled actor and the model's own answer that differ. */
export interface ReplyMismatch {
  /** 0-based position of the recorded reply in the file's schedule. */
  readonly index: number;
  /** The difference in words: which reply, which key, both values. */
  readonly text: string;
  /** True when only the data differ (the model gave a reply of the same type). */
  readonly data: boolean;
}

/**
 * The first recorded reply of a modelled actor, before the file position `upTo`, that the
 * model's own actor answered differently (paired per channel in order; `sends` are the
 * model's messages along its replay), or that the model never gave. With `ignoreData`,
 * replies of the same type are not compared field by field.
 */
export function replyMismatch(sc: Scenario, file: Pick<TraceFile, 'options'>, m: ModelSchedule, sends: readonly TraceEvent[], upTo: number, ignoreData = false): ReplyMismatch | undefined {
  const modelled = modelledExternals(sc, file);
  const recorded = m.dropped.filter((x) => x.index < upTo);
  if (recorded.length === 0) return undefined;
  const sent = new Map<string, unknown[]>();
  for (const e of sends) {
    if (e.kind !== 'send' || !modelled.has(e.from)) continue;
    const ch = `${e.from}\u0000${e.to}`;
    if (!sent.has(ch)) sent.set(ch, []);
    sent.get(ch)!.push(e.msg);
  }
  const taken = new Map<string, number>();
  for (const r of recorded) {
    const ch = `${r.from}\u0000${r.to}`;
    const k = taken.get(ch) ?? 0;
    taken.set(ch, k + 1);
    const msg = r.msg as { type?: string; key?: unknown };
    const key = typeof msg.key === 'string' ? ` for key '${msg.key}'` : '';
    const what = `the live '${r.from}' answered '${r.to}' with ${msg.type ?? '?'}${key} (recorded at step ${r.index + 1})`;
    const mine = sent.get(ch)?.[k];
    if (mine === undefined) return { index: r.index, data: false, text: `${what}, but the model's '${r.from}' never sends it that message: ${show(r.msg)}` };
    const type = (mine as { type?: unknown }).type;
    if (type !== msg.type) return { index: r.index, data: false, text: `${what}; the model's '${r.from}' answers differently, type: recorded ${show(msg.type)}, the model ${show(type)}` };
    if (ignoreData) continue;
    const d = firstDifference(r.msg, plainData(mine));
    if (d !== undefined) return { index: r.index, data: true, text: `${what}; the model's '${r.from}' answers differently, ${d}` };
  }
  return undefined;
}

/**
 * A recording that does not fit the model: a recorded step the model cannot take, or
 * (unless data are ignored) a recorded reply whose data the model's store answers
 * differently. `step` is the 0-based position in the file's schedule.
 */
export class RecordingMisfit extends Divergence {
  /** Always `'RecordingMisfit'`. */
  override name = 'RecordingMisfit';
  constructor(
    /** 0-based position in the file's schedule where the recording stops fitting. */
    readonly step: number,
    /** `step`: a recorded step the model cannot take; `data`: a recorded reply the model answers with other data. */
    readonly kind: 'step' | 'data',
    /** The step the model could not take (kind `step`), with the steps it could take there. */
    readonly divergence: Divergence | undefined,
    /** The first recorded reply the model answered differently, in words; undefined when every reply matched. */
    readonly reply: string | undefined,
    /** The file's step id at `step`. */
    expected: string,
  ) {
    super(step, divergence?.expected ?? expected, divergence?.enabledIds ?? []);
    this.message =
      kind === 'data' || !divergence
        ? `step ${step + 1}: ${reply ?? 'the recording does not fit the model'}`
        : reply
          ? `step ${step + 1} of the file, '${divergence.expected}', is not a step the model can take, because a recorded reply differs from the model's: ${reply}`
          : `step ${step + 1} of the file, '${divergence.expected}', is not a step the model can take (${divergence.enabledIds.length ? `the steps it can take there: ${divergence.enabledIds.slice(0, 8).join(', ')}${divergence.enabledIds.length > 8 ? ', …' : ''}` : 'it can take no step there: the run had ended'})`;
  }
}

/** Options of {@link fitRecording}. */
export interface FitOptions {
  /** Compare only the steps and the reply types, not the data in recorded replies (default false). */
  readonly ignoreData?: boolean;
  /** Keep the replay's trace events (default true; false keeps only the modelled actors' sends, for a long recording). */
  readonly trace?: boolean;
}

/**
 * Replays a recording on the model exactly (as `interleave replay` does: the replies of
 * modelled actors dropped, the model answering at the delivery, starting from the recorded
 * storage contents) and throws a {@link RecordingMisfit} at the first recorded step the model
 * cannot take, or the first recorded reply whose data it answers differently. The whole
 * recording is replayed, past a violated property too (`run.property` is the first one).
 */
export function fitRecording(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>, opts: FitOptions = {}): {
  /** The scenario replayed (started from the recorded storage contents). */
  scenario: Scenario;
  /** The schedule replayed on the model. */
  model: ModelSchedule;
  /** The replay's outcome. */
  run: ReplayOutcome;
} {
  const msc = modelScenario(sc, file);
  const m = modelSchedule(msc, file);
  const inputs = m.inputs.length ? m.inputs : undefined;
  let run: ReplayOutcome;
  const keep = opts.trace ?? true;
  const modelled = modelledExternals(msc, file);
  const sends: TraceEvent[] = [];
  const collect = (evs: readonly TraceEvent[]) => {
    for (const e of evs) if (e.kind === 'send' && modelled.has(e.from)) sends.push(e);
  };
  try {
    run = runSchedule(msc, m.schedule, { detail: keep, lenient: false, through: true, ...(keep ? {} : { collect }), ...(inputs ? { inputs } : {}) });
  } catch (e) {
    if (!(e instanceof Divergence)) throw e;
    const at = m.origin[e.index] ?? file.schedule.length;
    const prefix = runSchedule(msc, m.schedule.slice(0, e.index), { detail: true, lenient: true, ...(inputs ? { inputs: inputs.filter((x) => x.index < e.index) } : {}) });
    const d = replyMismatch(msc, file, m, prefix.trace, at, opts.ignoreData);
    throw new RecordingMisfit(at, 'step', e, d?.text, file.schedule[at] ?? e.expected);
  }
  const d = replyMismatch(msc, file, m, keep ? run.trace : sends, file.schedule.length, opts.ignoreData);
  if (d) throw new RecordingMisfit(d.index, d.data ? 'data' : 'step', undefined, d.text, file.schedule[d.index] ?? '');
  return { scenario: msc, model: m, run };
}

// ---------------------------------------------------------------------------
// Where each step of a counterexample found around a recording comes from
// ---------------------------------------------------------------------------

const isFaultId = (id: string): boolean => id.startsWith('crash:') || id.startsWith('restart:') || id.startsWith('drop:') || (id.startsWith('deliver:') && id.includes('!'));

/**
 * Matches each step of `schedule` to the recording (ticks and the replies the model gives
 * itself left out, as the search around it leaves them out): the earliest recorded step with
 * the same id not matched yet. A matched step that a later step of the schedule overtook in
 * recorded order moved earlier (`reorder`, `timer-early`, `input-earlier`); a timer that
 * steps recorded after it overtook fired late (`timer-late`); faults and unmatched steps are
 * `fault` and `unrecorded`.
 */
export function recordedOrigins(sc: Scenario, file: Pick<TraceFile, 'options' | 'schedule' | 'inputs'>, schedule: readonly string[]): StepOrigin[] {
  const m = modelSchedule(sc, file);
  const byId = new Map<string, number[]>();
  m.schedule.forEach((id, i) => {
    if (id.startsWith('tick:')) return;
    let l = byId.get(id);
    if (!l) byId.set(id, (l = []));
    l.push(i);
  });
  const next = new Map<string, number>();
  const pos = schedule.map((id) => {
    if (isFaultId(id)) return -1;
    const l = byId.get(id);
    const k = next.get(id) ?? 0;
    if (!l || k >= l.length) return -1;
    next.set(id, k + 1);
    return l[k]!;
  });
  // Suffix minimum and prefix maximum of the matched positions: who overtook whom.
  const sufMin = new Array<number>(pos.length + 1).fill(Infinity);
  for (let k = pos.length - 1; k >= 0; k--) sufMin[k] = pos[k]! >= 0 ? Math.min(sufMin[k + 1]!, pos[k]!) : sufMin[k + 1]!;
  let preMax = -1;
  return schedule.map((id, k) => {
    const p = pos[k]!;
    if (p < 0) return { deviation: isFaultId(id) ? 'fault' : 'unrecorded' };
    const recorded = (m.origin[p] ?? p) + 1;
    const early = sufMin[k + 1]! < p;
    const late = preMax > p;
    preMax = Math.max(preMax, p);
    const timer = id.startsWith('timer:');
    if (early) return { recorded, deviation: timer ? 'timer-early' : id.startsWith('input:env->') ? 'input-earlier' : 'reorder' };
    if (late && timer) return { recorded, deviation: 'timer-late' };
    return { recorded };
  });
}

// ---------------------------------------------------------------------------
// Step ids that survive a machine gaining (or changing) its `id`
// ---------------------------------------------------------------------------

const AFTER = /^timer:([^:]+):xstate\.after\.([^.]+)\.(.+)$/;

/**
 * A recorded step id as the scenario names that step now. xstate names a delayed transition's
 * event after the state node's id, which starts with the machine's `id` (`(machine)` when it has
 * none), so a timer recorded before a machine gained an id (`timer:w2:xstate.after.20.(machine).waiting`)
 * is `timer:w2:xstate.after.20.worker.waiting` after. The recorded machine id is swapped for
 * the current one when the rest is a state of the machine; any other id is returned as is.
 */
export function currentStepId(sc: Scenario, id: string): string {
  const m = AFTER.exec(id);
  if (!m) return id;
  const i = sc.index.get(m[1]!);
  const a = i === undefined ? undefined : sc.actorList[i];
  if (!a || a.kind !== 'machine') return id;
  const root = a.machine.id;
  const rest = m[3]!;
  if (rest.startsWith(`${root}.`)) return id;
  for (let k = rest.indexOf('.'); k >= 0; k = rest.indexOf('.', k + 1)) {
    const candidate = `${root}.${rest.slice(k + 1)}`;
    try {
      if (a.machine.getStateNodeById(candidate)) return `timer:${m[1]}:xstate.after.${m[2]}.${candidate}`;
    } catch {
      // not a state of this machine: try the next split
    }
  }
  return id;
}
