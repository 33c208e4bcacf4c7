// `interleave replay <trace.json>`: re-run a saved counterexample against today's model.
import { Divergence, ScenarioError, parseParams } from '../../actors/index.ts';
import { loadChecker } from '../check-api.ts';
import { EXIT, UsageError } from '../errors.ts';
import { printJson, type Io } from '../io.ts';
import { resolveFamily } from '../options.ts';
import { formatSteps, toPlainTrace, traceView } from '../replay-view.ts';
import { buildScenario } from './check.ts';
import { readTrace } from './trace-file.ts';

export async function runReplay(io: Io, path: string, flags: { json?: boolean }): Promise<number> {
  const file = readTrace(path);
  const f = await resolveFamily(file.scenario.name);
  let p;
  try {
    p = parseParams(f, file.scenario.params);
  } catch (e) {
    if (e instanceof ScenarioError) throw new UsageError(`${path}: the trace's parameters no longer fit scenario '${f.name}': ${e.message}`);
    throw e;
  }
  const sc = buildScenario(f, p);
  const api = await loadChecker();
  let out;
  try {
    // A live recording's store replies are dropped where the scenario models the store (src/check/from-trace.ts).
    const { modelSchedule } = await import('../../check/from-trace.ts');
    const m = modelSchedule(sc, file);
    out = api.replaySchedule(sc, m.schedule, m.inputs.length ? m.inputs : undefined);
  } catch (e) {
    if (e instanceof Divergence || (e instanceof Error && e.name === 'Divergence')) {
      const d = e as Divergence;
      const enabled = d.enabledIds.length ? d.enabledIds.join(', ') : '(nothing: the run had ended)';
      throw new UsageError(`${path}: replay diverges at step ${d.index + 1}: '${d.expected}' is not enabled there (the model changed since the trace was saved); enabled at that point: ${enabled}`);
    }
    if (e instanceof ScenarioError) throw new UsageError(`${path}: ${e.message}`);
    throw e;
  }
  const o = io.style;
  const saved = file.property;
  const v = out.violation;
  if (flags.json) {
    printJson(io, {
      ok: !v,
      scenario: file.scenario,
      steps: file.schedule.length,
      saved: saved ?? null,
      ...(v ? { violation: { property: v.property, schedule: v.schedule } } : { verdict: saved ? 'fixed, or the model changed' : 'no property is violated' }),
    });
    return v ? EXIT.violation : EXIT.ok;
  }
  if (!v) {
    io.out(saved
      ? o.green(`✓ the schedule (${file.schedule.length} steps) no longer violates ${saved.kind} '${saved.name}': fixed, or the model changed`)
      : o.green(`✓ the ${file.options.mode === 'live' ? 'recorded live run' : 'schedule'} (${file.schedule.length} steps) replays on the model and no property is violated`));
    return EXIT.ok;
  }
  const same = saved && saved.name === v.property.name && saved.kind === v.property.kind;
  io.out(o.red(`✗ still fails: ${v.property.kind} '${v.property.name}' violated: ${v.property.message}`));
  if (saved && !same) io.out(o.yellow(`(the trace was saved for ${saved.kind} '${saved.name}'; this run fails a different property first)`));
  io.out(formatSteps(traceView(v.schedule, toPlainTrace(v.trace)), o, { failStep: v.schedule.length }).join('\n'));
  return EXIT.violation;
}
