// `interleave replay <trace.json>`: re-run a saved counterexample against today's model.
import { Divergence, type Scenario } from '../../actors/index.ts';
import type { replayLasso as ReplayLasso } from '../../check/liveness/lasso.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printJson, type Io } from '../io.ts';
import { formatSteps, toPlainTrace, traceView } from '../replay-view.ts';
import { deviationMarks, stepsText } from '../../report/index.ts';
import { rerunTrace, scenarioOfTrace, type Rerun } from '../trace-rerun.ts';
import { readTrace, traceLimits } from '../read-trace.ts';

export async function runReplay(io: Io, path: string, flags: { json?: boolean; config?: string; traceLimit?: string[]; ignoreData?: boolean }): Promise<number> {
  const file = readTrace(path, traceLimits(flags.traceLimit));
  const { sc } = await scenarioOfTrace(file, path, flags.config);
  if (file.property?.kind === 'liveness') return replayLiveness(io, path, file, sc, (await import('../../check/liveness/lasso.ts')).replayLasso, flags);
  const out = await rerunTrace(file, path, sc, { ignoreData: flags.ignoreData ?? false });
  const cut = file.options.cut === true;
  if (cut && !flags.json) io.err(io.errStyle.yellow(`note: ${path}: the recording was cut short (it has no end line: the run was killed or crashed); it holds the run's first ${file.schedule.length} steps, up to its last flushed batch`));
  const o = io.style;
  const saved = file.property;
  const v = out.violation;
  if (flags.json) {
    printJson(io, {
      ok: !v,
      scenario: file.scenario,
      steps: file.schedule.length,
      ...(cut ? { cut: true } : {}),
      // A live recording on the model: the steps replayed, without the replies the model gave itself.
      ...(out.answered ? { modelSteps: out.steps, answeredByModel: out.answered } : {}),
      saved: saved ?? null,
      ...(v ? { violation: { property: v.property, schedule: v.schedule } } : { verdict: saved ? 'fixed, or the model changed' : 'no property is violated' }),
    });
    return v ? EXIT.violation : EXIT.ok;
  }
  if (!v) {
    io.out(saved
      ? o.green(`✓ the schedule (${stepsText(file.schedule.length)}) no longer violates ${saved.kind} '${saved.name}': fixed, or the model changed`)
      : o.green(`✓ the ${file.options.mode === 'live' ? 'recorded live run' : 'schedule'} (${stepsText(file.schedule.length)}) replays on the model and no property is violated`));
    if (out.answered) io.out(modelledReplies(out, 'of them'));
    return EXIT.ok;
  }
  const same = saved && saved.name === v.property.name && saved.kind === v.property.kind;
  io.out(o.red(`✗ still fails: ${v.property.kind} '${v.property.name}' violated: ${v.property.message}`));
  if (saved && !same) io.out(o.yellow(`(the trace was saved for ${saved.kind} '${saved.name}'; this run fails a different property first)`));
  if (out.answered) io.out(modelledReplies(out, `of its ${file.schedule.length} recorded steps`));
  // A counterexample found around a recording keeps its marks where it replays the same steps.
  const marks = v.schedule.length === file.schedule.length ? deviationMarks(file.recorded?.steps) : undefined;
  io.out(formatSteps(traceView(v.schedule, toPlainTrace(v.trace)), o, { failStep: v.schedule.length, context: true, ...(marks ? { marks } : {}) }).join('\n'));
  return EXIT.violation;
}

/** Why a live recording took fewer steps on the model than it recorded. */
function modelledReplies(out: Rerun, of: string): string {
  const who = out.answeredBy.map((a) => `'${a}'`).join(', ');
  return `  ${out.steps} ${of} on the model: it gave the ${out.answered} recorded ${out.answered === 1 ? 'reply' : 'replies'} of ${who} itself`;
}

/** A liveness counterexample: run the prefix, then the cycle once, and confirm it is still a violation. */
function replayLiveness(io: Io, path: string, file: ReturnType<typeof readTrace>, sc: Scenario, replayLasso: typeof ReplayLasso, flags: { json?: boolean }): number {
  const name = file.property!.name;
  let out;
  try {
    out = replayLasso(sc, file.schedule, file.cycleStart, name);
  } catch (e) {
    if (e instanceof Divergence || (e instanceof Error && e.name === 'Divergence')) {
      const d = e as Divergence;
      throw new UsageError(`${path}: replay diverges at step ${d.index + 1}: '${d.expected}' is not enabled there (the model changed since the trace was saved); enabled at that point: ${d.enabledIds.join(', ') || '(nothing)'}`);
    }
    throw e;
  }
  const o = io.style;
  const v = out.property;
  if (flags.json) {
    printJson(io, { ok: !v, scenario: file.scenario, steps: file.schedule.length, saved: file.property, ...(file.cycleStart !== undefined ? { cycleStart: file.cycleStart } : {}), ...(out.loop ? { loop: out.loop } : {}), ...(v ? { violation: { property: v, schedule: out.schedule } } : { verdict: out.note ?? 'no property is violated' }) });
    return v ? EXIT.violation : EXIT.ok;
  }
  const loop = out.loop ? `the cycle (steps ${file.cycleStart! + 1}..${file.schedule.length}) ${out.loop.returns ? `returns to the same world (fingerprint ${out.loop.from})` : `ends at fingerprint ${out.loop.to}, not ${out.loop.from}`}` : undefined;
  if (!v) {
    io.out(o.green(`✓ the schedule (${stepsText(file.schedule.length)}) no longer violates liveness '${name}': ${out.note ?? 'it holds'}`));
    if (loop) io.out(loop);
    return EXIT.ok;
  }
  if (v.kind !== 'liveness' || v.name !== name) {
    io.out(o.red(`✗ still fails: ${v.kind} '${v.name}' violated: ${v.message}`));
    io.out(o.yellow(`(the trace was saved for liveness '${name}'; this run fails a different property first)`));
  } else io.out(o.red(`✗ still fails: ${v.message}`));
  io.out(formatSteps(traceView(out.schedule, toPlainTrace(out.trace)), o, { failStep: out.schedule.length, ...(file.cycleStart !== undefined ? { cycleStart: file.cycleStart } : {}) }).join('\n'));
  if (loop) io.out(o.cyan(`↻ ${loop}`));
  return EXIT.violation;
}
