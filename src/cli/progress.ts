// The live progress line of a long check (a TTY only): states, distinct states/s, depth, elapsed.
import cliProgress from 'cli-progress';
import type { Observable } from 'rxjs';
import type { Progress } from './check-api.ts';

function n(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

export function progressText(p: Progress, label: string): string {
  const runs = p.runs !== undefined ? ` · ${n(p.runs)} runs` : '';
  const phase = p.phase ? ` · ${p.phase}` : '';
  return `${label} · ${n(p.states)} states · ${n(p.distinctStates)} distinct (${n(p.statesPerSecond)}/s) · depth ${p.depth} · queue ${n(p.queue)}${runs}${phase} · ${(p.ms / 1000).toFixed(1)}s`;
}

/** Shows the progress of a check on stderr until `stop()`; returns a no-op when not on a TTY. */
export function showProgress(progress$: Observable<Progress>, label: string, enabled: boolean): { stop(): void } {
  if (!enabled) return { stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: (_opts, _params, payload: { text?: string }) => payload.text ?? label,
      hideCursor: true,
      clearOnComplete: true,
      fps: 8,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(1, 0, { text: `${label} · starting` });
  const sub = progress$.subscribe({ next: (p) => bar.update(0, { text: progressText(p, label) }) });
  return {
    stop() {
      sub.unsubscribe();
      bar.stop();
    },
  };
}
