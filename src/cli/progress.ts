// The live progress line of a long check (a TTY only): states, distinct states/s, depth, elapsed.
import { createRequire } from 'node:module';
import type { Observable } from 'rxjs';
import type { Progress } from './check-api.ts';
import { countText } from '../report/count-text.ts';

function n(x: number): string {
  return countText(Math.round(x));
}

export function progressText(p: Progress, label: string): string {
  const runs = p.runs !== undefined ? ` · ${n(p.runs)} runs` : '';
  const phase = p.phase ? ` · ${p.phase}` : '';
  const distinct = p.distinctStates === undefined ? '' : ` · ${n(p.distinctStates)} distinct (${n(p.statesPerSecond ?? 0)}/s)`;
  return `${label} · ${n(p.states)} states${distinct} · depth ${p.depth} · queue ${n(p.queue)}${runs}${phase} · ${(p.ms / 1000).toFixed(1)}s`;
}

/** Shows the progress of a check on stderr until `stop()`; returns a no-op when not on a TTY. */
export function showProgress(progress$: Observable<Progress>, label: string, enabled: boolean): { stop(): void } {
  if (!enabled) return { stop() {} };
  // Loaded here: a piped or scripted run draws no bar and need not load it.
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
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

/**
 * A one-line status on stderr for synchronous work, where the event loop is busy and no
 * timer could redraw a bar: each `update` rewrites the line at once (a TTY write is
 * synchronous), at most ten times a second, with the seconds elapsed. A no-op when not
 * enabled (not a TTY, or --json); `stop()` clears the line.
 */
export function statusLine(enabled: boolean, label: string, stream: NodeJS.WriteStream = process.stderr): { update(text: string, force?: boolean): void; stop(): void } {
  if (!enabled) return { update() {}, stop() {} };
  const t0 = Date.now();
  let last = -Infinity;
  let shown = false;
  return {
    update(text, force = false) {
      const now = Date.now();
      if (!force && now - last < 100) return;
      last = now;
      const line = `${label} · ${((now - t0) / 1000).toFixed(1)}s · ${text}`;
      const cols = stream.columns ?? 120;
      stream.write(`\r\u001b[2K${line.length >= cols ? `${line.slice(0, cols - 2)}…` : line}`);
      shown = true;
    },
    stop() {
      if (shown) stream.write('\r\u001b[2K');
      shown = false;
    },
  };
}
