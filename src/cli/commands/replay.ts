// `interleave replay <trace.json>`: re-run a saved counterexample against today's model.
import { EXIT } from '../errors.ts';
import { printJson, type Io } from '../io.ts';
import { formatSteps, toPlainTrace, traceView } from '../replay-view.ts';
import { rerunTrace, scenarioOfTrace } from '../trace-rerun.ts';
import { readTrace, traceLimits } from './trace-file.ts';

export async function runReplay(io: Io, path: string, flags: { json?: boolean; config?: string; traceLimit?: string[] }): Promise<number> {
  const file = readTrace(path, traceLimits(flags.traceLimit));
  const { sc } = await scenarioOfTrace(file, path, flags.config);
  const out = await rerunTrace(file, path, sc);
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
