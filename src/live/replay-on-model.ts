// Replaying a live recording on the model, and saying why it diverges. On the
// model, the replies a live store (or scheduler) gave are dropped and the modelled
// actor answers instead, starting from the storage contents the run recorded at its
// start. The recording fits when every recorded step is one the model takes and every
// recorded reply is what the model answers (its data compared unless ignored); the
// first that is not is named, field by field (fitRecording, in the checker).
import { fitRecording, type FitOptions } from '../check/trace/recorded.ts';
import { replaySchedule } from '../check/trace/replay.ts';
import type { TraceFile } from '../check/types.ts';

export { RecordingMisfit, firstDifference } from '../check/trace/recorded.ts';

type LiveFile = Pick<TraceFile, 'options' | 'schedule' | 'inputs'>;

/**
 * Replays a live recording on the model (every property checked); throws `RecordingMisfit`
 * when it stops fitting. `steps` counts the schedule replayed on the model: the
 * recording's, without the `answered` recorded replies of the actors in `answeredBy`,
 * which the model gives itself.
 */
export function replayOnModel(sc: Parameters<typeof fitRecording>[0], file: LiveFile, opts: FitOptions = {}) {
  const { scenario, model: m, run } = fitRecording(sc, file, opts);
  const counts = { steps: m.schedule.length, answered: m.dropped.length, answeredBy: [...new Set(m.dropped.map((x) => x.from))], schedule: m.schedule };
  if (!run.property) return { trace: run.trace, world: run.world, ...counts };
  // The fit replayed past the violation; the verdict is the replay up to it.
  return { ...replaySchedule(scenario, m.schedule, m.inputs.length ? m.inputs : undefined), ...counts };
}
