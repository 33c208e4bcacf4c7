// What a step changed in the actors' contexts (a reducer's: its state), old → new. A trace
// records per step only the new values of the keys that changed (step 0: the whole initial context), so
// the old value of a key is the last one the trace recorded before the step.
import type { TraceView } from './model.ts';

/** One context key a step changed: its value before (undefined: not recorded) and after. */
export interface ContextChange {
  readonly actor: string;
  readonly key: string;
  readonly from: unknown;
  readonly to: unknown;
  /** False when the trace never recorded this key before the step. */
  readonly known: boolean;
}

/** Per step (index = step number), the context keys it changed, in trace order; step 0 has none. */
export function contextChanges(view: TraceView): ContextChange[][] {
  const last = new Map<string, Map<string, unknown>>();
  return view.steps.map((s) => {
    const out: ContextChange[] = [];
    for (const [actor, keys] of Object.entries(s.changed)) {
      let known = last.get(actor);
      if (!known) last.set(actor, (known = new Map()));
      for (const [key, to] of Object.entries(keys)) {
        if (s.n > 0) {
          if (known.has(key)) diff(actor, key, known.get(key), to, out, 0);
          else out.push({ actor, key, from: undefined, to, known: false });
        }
        known.set(key, to);
      }
    }
    return out;
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));

/** The paths under `key` whose values differ (records compared key by key, a few levels down). */
function diff(actor: string, key: string, from: unknown, to: unknown, out: ContextChange[], depth: number): void {
  if (same(from, to)) return;
  if (depth < 3 && isRecord(from) && isRecord(to)) {
    for (const k of new Set([...Object.keys(from), ...Object.keys(to)])) {
      const path = key === '' ? k : `${key}.${k}`;
      if (!(k in from)) out.push({ actor, key: path, from: undefined, to: to[k], known: false });
      else if (!(k in to)) out.push({ actor, key: path, from: from[k], to: undefined, known: true });
      else diff(actor, path, from[k], to[k], out, depth + 1);
    }
    return;
  }
  out.push({ actor, key, from, to, known: true });
}

/** A value in one short line: JSON, cut in the middle past `width` characters. */
export function shortValue(v: unknown, width = 24): string {
  let s: string;
  try {
    s = v === undefined ? 'undefined' : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return shortText(s, width);
}

/** Text cut in the middle past `width` characters (keys and values differ at their ends). */
function shortText(s: string, width: number): string {
  if (s.length <= width) return s;
  const head = Math.ceil((width - 1) * 0.6);
  return `${s.slice(0, head)}…${s.slice(s.length - (width - 1 - head))}`;
}

/**
 * One actor's changes in a line: `holder null → "bob", sold 1 → 2`, each value cut
 * at `valueWidth`, the line at `width` (then `… +N more`).
 */
export function contextLine(changes: readonly ContextChange[], width = 110, valueWidth = 24): string {
  // A reducer's state that is not a record is recorded whole, under the key ''.
  const parts = changes.map((c) => `${c.key === '' ? '' : `${shortText(c.key, 40)} `}${c.known ? `${shortValue(c.from, valueWidth)} → ` : '= '}${shortValue(c.to, valueWidth)}`);
  let line = '';
  for (let i = 0; i < parts.length; i++) {
    const next = line ? `${line}, ${parts[i]}` : parts[i]!;
    const rest = parts.length - i - 1;
    if (next.length > width && line) return `${line}, … +${parts.length - i} more`;
    line = next;
    if (rest === 0) break;
  }
  return line;
}
