// Replaying a live recording on the model, and saying why it diverges. On the
// model, the replies a live store (or scheduler) gave are dropped and the modelled
// actor answers instead. When the replay then stops fitting the recording, the
// cause is almost always an answer that differs: the model started from other
// state than the live run found, or it changed. So a divergence is explained by
// the first recorded reply the model answered differently, field by field.
import { Divergence, toPlain, type Scenario, type TraceEvent } from '../actors/index.ts';
import { modelSchedule, modelledExternals, type ModelSchedule } from '../check/trace/recorded.ts';
import { replaySchedule, runSchedule, type ScheduleInput } from '../check/trace/replay.ts';
import type { TraceFile } from '../check/types.ts';

type LiveFile = Pick<TraceFile, 'options' | 'schedule' | 'inputs'>;

/** A replay that stopped fitting the recording, with the recorded reply the model answered differently (if one did). */
export class LiveDivergence extends Error {
  override name = 'LiveDivergence';
  constructor(
    /** 0-based position in the recording's schedule where the replay stopped fitting. */
    readonly step: number,
    readonly divergence: Divergence,
    /** The first recorded reply the model answered differently, in words; undefined when every reply matched. */
    readonly input: string | undefined,
  ) {
    super(input ? `replay diverges at step ${step + 1}: ${input}` : `replay diverges at step ${step + 1}: '${divergence.expected}' is not enabled there`);
  }
}

/**
 * Replays a live recording on the model (every property checked); throws `LiveDivergence`
 * when it stops fitting. `steps` counts the schedule replayed on the model: the
 * recording's, without the `answered` recorded replies of the actors in `answeredBy`,
 * which the model gives itself.
 */
export function replayOnModel(sc: Scenario, file: LiveFile) {
  const m = modelSchedule(sc, file);
  try {
    return { ...replaySchedule(sc, m.schedule, m.inputs.length ? m.inputs : undefined), steps: m.schedule.length, answered: m.dropped.length, answeredBy: [...new Set(m.dropped.map((x) => x.from))] };
  } catch (e) {
    if (!(e instanceof Divergence)) throw e;
    throw new LiveDivergence(m.origin[e.index] ?? file.schedule.length, e, inputMismatch(sc, file, m, e.index));
  }
}

const show = (v: unknown): string => {
  const t = JSON.stringify(v);
  return t === undefined ? 'nothing' : t.length > 160 ? `${t.slice(0, 157)}...` : t;
};

/** Where two plain values first differ, as `path: recorded X, model Y`; undefined when equal. */
export function firstDifference(recorded: unknown, model: unknown, path = ''): string | undefined {
  if (Object.is(recorded, model)) return undefined;
  const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (obj(recorded) && obj(model) && Array.isArray(recorded) === Array.isArray(model)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(model)])];
    for (const k of keys) {
      const d = firstDifference(recorded[k], model[k], path === '' ? k : Array.isArray(recorded) ? `${path}[${k}]` : `${path}.${k}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return `${path === '' ? 'the message' : path}: recorded ${show(recorded)}, the model ${show(model)}`;
}

/**
 * The first recorded reply, before the model step `at`, that the model's own actor
 * answered differently (paired per channel in order), or that the model never gave.
 */
export function inputMismatch(sc: Scenario, file: LiveFile, m: ModelSchedule, at: number): string | undefined {
  const modelled = modelledExternals(sc, file);
  const upTo = m.origin[at] ?? file.schedule.length;
  const recorded = m.dropped.filter((x) => x.index < upTo);
  if (recorded.length === 0) return undefined;
  // The model's run up to the divergence: every step there fits, so it replays strictly.
  const prefix = m.schedule.slice(0, at);
  const inputs = m.inputs.filter((x: ScheduleInput) => x.index < at);
  const run = runSchedule(sc, prefix, { detail: true, lenient: false, ...(inputs.length ? { inputs } : {}) });
  const sent = new Map<string, unknown[]>();
  for (const e of run.trace as TraceEvent[]) {
    if (e.kind !== 'send' || !modelled.has(e.from)) continue;
    const ch = `${e.from}\u0000${e.to}`;
    if (!sent.has(ch)) sent.set(ch, []);
    sent.get(ch)!.push(toPlain(e.msg));
  }
  const taken = new Map<string, number>();
  for (const r of recorded) {
    const ch = `${r.from}\u0000${r.to}`;
    const k = taken.get(ch) ?? 0;
    taken.set(ch, k + 1);
    const msg = r.msg as { type?: string };
    const what = `the live '${r.from}' answered '${r.to}' with ${msg.type ?? '?'} (recorded at step ${r.index + 1})`;
    const mine = sent.get(ch)?.[k];
    if (mine === undefined) return `${what}, but the model's '${r.from}' never sends it that message: ${show(toPlain(r.msg))}`;
    const d = firstDifference(toPlain(r.msg), mine);
    if (d !== undefined) return `${what}; the model's '${r.from}' answers differently, ${d}`;
  }
  return undefined;
}
