// A trace as a numbered step list, one line a step:
//   12  worker:LE  ← reader:LE#0  EndChannel   (LE: waiting → consuming)
import { countText } from './count-text.ts';
import { propertyNote, stepNotes, type Legend } from '../actors/legend.ts';
import type { ReportContext } from './context.ts';
import { busyActors, fileView, type StepView, type TraceView } from './model.ts';
import { contextChanges, contextLine, type ContextChange } from './context-change.ts';
import type { DeviationKind, StepOrigin } from '../check/types.ts';
import type { TraceFileData } from './schema.ts';
import { plain, type Style } from './style.ts';

/** The short label of an actor (`worker:LE` → `LE`), used where the line already names it. */
export function shortName(actor: string): string {
  const i = actor.lastIndexOf(':');
  return i >= 0 && i < actor.length - 1 ? actor.slice(i + 1) : actor;
}

/** Strips control characters so a payload cannot move the cursor or recolour the terminal. */
export function safeText(s: string): string {
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function columns(s: StepView): [string, string, string] {
  switch (s.kind) {
    case 'deliver':
      return [s.actor, `← ${s.from ?? '?'}`, s.outcome !== undefined ? `${s.what} !${s.outcome}` : s.what];
    case 'input':
      return [s.actor, `⇐ ${s.from ?? '?'}`, `${s.what} (input)`];
    case 'timer':
      return [s.actor, '⏲ timer', s.what];
    case 'fault':
      return [s.actor, `✗ ${s.what}`, ''];
    case 'drop':
      return [s.actor, `✗ drop ← ${s.from ?? '?'}`, s.what];
    case 'tick':
      return ['', '⏱ tick', s.what];
    default:
      return ['', s.id, ''];
  }
}

function movesText(s: StepView): string {
  if (s.moves.length === 0) return '';
  return `(${s.moves.map((m) => `${m.actor === s.actor ? shortName(m.actor) : m.actor}: ${m.change}`).join('; ')})`;
}

/** The numbered step list (step 0, the initial world, is left out). */
/** `notes`: 'alerts' (default) prints failures, losses, outputs and failed I/O under their step; 'all' every side event; 'none' nothing. */
/** `cycleStart`: a liveness lasso; the steps after it are marked ↻ under a line saying they repeat. */
/** `legend`: its step notes are printed under their steps (✎). */
/** `context`: under each step, per actor, the context keys it changed, old → new (Δ), values cut at `contextWidth`. */
export function formatSteps(view: TraceView, style: Style = plain, opts: { readonly failStep?: number; readonly notes?: 'alerts' | 'all' | 'none'; readonly cycleStart?: number; readonly legend?: Legend; readonly marks?: readonly (string | undefined)[]; readonly context?: boolean; readonly contextWidth?: number } = {}): string[] {
  const steps = view.steps.slice(1);
  const ctx = opts.context ? contextChanges(view) : undefined;
  const rows = steps.map((s) => columns(s).map(safeText));
  const w = [0, 1, 2].map((i) => Math.max(0, ...rows.map((r) => r[i]!.length)));
  const nw = String(steps.length).length;
  const out: string[] = [];
  steps.forEach((s, k) => {
    const r = rows[k]!;
    const cyc = opts.cycleStart !== undefined && s.n > opts.cycleStart;
    if (cyc && s.n === opts.cycleStart! + 1) out.push(style.cyan(`${' '.repeat(nw + 2)}↻ cycle: steps ${s.n}..${steps.length} repeat forever`));
    const line = `${cyc ? '↻' : ' '}${String(s.n).padStart(nw + 1)}  ${r[0]!.padEnd(w[0]!)}  ${r[1]!.padEnd(w[1]!)}  ${r[2]!.padEnd(w[2]!)}   ${safeText(movesText(s))}`.trimEnd();
    const bad = s.failed || s.n === opts.failStep;
    out.push(bad ? style.red(line) : line);
    const mark = opts.marks?.[s.n - 1];
    if (mark) out.push(style.yellow(`${' '.repeat(nw + 4)}${safeText(mark)}`));
    const notes = opts.notes === 'none' ? [] : opts.notes === 'all' ? s.notes : s.alerts;
    for (const note of notes) out.push(style.dim(`${' '.repeat(nw + 4)}· ${safeText(note)}`));
    for (const [actor, cs] of byActor(ctx?.[s.n] ?? [])) out.push(`${' '.repeat(nw + 4)}${style.dim('Δ')} ${safeText(actor === s.actor ? shortName(actor) : actor)}: ${safeText(contextLine(cs, 110, opts.contextWidth ?? 24))}`);
    for (const note of stepNotes(opts.legend, s.id)) out.push(style.cyan(`${' '.repeat(nw + 4)}✎ ${safeText(note)}`));
  });
  return out;
}

function byActor(cs: readonly ContextChange[]): Map<string, ContextChange[]> {
  const m = new Map<string, ContextChange[]>();
  for (const c of cs) m.set(c.actor, [...(m.get(c.actor) ?? []), c]);
  return m;
}

/**
 * A property's name for a reader: a bare id (`INV-4`, no spaces) with the legend's line
 * for it in parentheses; a name that already has words as it is.
 */
export function propertyLabel(legend: Legend | undefined, name: string): string {
  const note = /\s/.test(name.trim()) ? undefined : propertyNote(legend, name);
  return note === undefined ? name : `${name} (${note})`;
}

/** `1 step`, `2 steps`. */
export function stepsText(n: number): string {
  return `${countText(n)} step${n === 1 ? '' : 's'}`;
}

/** How the last line of a counterexample reads: where it fails, or where its cycle closes. */
export function lassoEnd(length: number, cycleStart: number | undefined): string {
  return cycleStart === undefined ? `after step ${length}` : `after step ${length} the run is back at the world after step ${cycleStart}, forever`;
}

function paramsText(params: Readonly<Record<string, unknown>>): string {
  const e = Object.entries(params);
  // A long value (a resumed run's recorded state) is shortened: the trace file has it whole.
  const short = (v: unknown) => (String(v).length > 40 ? `${String(v).slice(0, 30)}… (${String(v).length} chars)` : String(v));
  return e.length ? ` (${e.map(([k, v]) => `${k}=${short(v)}`).join(', ')})` : '';
}

/**
 * The legend's lines for the actors of a trace and its property:
 * `LE      the loop-end worker`, then `I12: …`.
 */
export function legendLines(legend: Legend | undefined, actors: readonly string[], property?: string): string[] {
  if (!legend) return [];
  const roles = actors.filter((a) => legend.actors?.[a] !== undefined);
  const w = Math.max(0, ...roles.map((a) => a.length));
  const lines = roles.map((a) => `  ${safeText(a).padEnd(w)}  ${safeText(legend.actors![a]!)}`);
  const p = property !== undefined ? propertyNote(legend, property) : undefined;
  if (p !== undefined) lines.push(`  ${safeText(property!.split(/\s+/)[0] ?? property!)}: ${safeText(p)}`);
  return lines.length ? ['legend:', ...lines] : [];
}

/** The marks of a counterexample's steps that deviate from the recording it was found around. */
export function deviationMarks(origins: readonly StepOrigin[] | undefined): (string | undefined)[] | undefined {
  if (!origins?.some((o) => o.deviation)) return undefined;
  const what: Record<DeviationKind, string> = {
    reorder: 'moved earlier',
    fault: 'fault injected',
    'timer-early': 'timer fired early',
    'timer-late': 'timer fired late',
    'input-earlier': 'input arrived earlier',
    unrecorded: 'not in the recording',
  };
  return origins.map((o) => (o.deviation ? `◆ ${what[o.deviation]}${o.recorded !== undefined ? ` (recorded as step ${o.recorded})` : ''}` : undefined));
}

/** A whole trace file as text: header, legend, steps, the violated property. */
export function formatText(f: TraceFileData, style: Style = plain, ctx: ReportContext = {}): string {
  const view = fileView(f);
  const lines: string[] = [];
  const p = f.property;
  lines.push(
    p ? style.red(`✗ ${p.kind} '${safeText(p.name)}' violated: ${safeText(p.message)}`) : style.green('no property violated in this trace'),
    `scenario ${safeText(f.scenario.name)}${safeText(paramsText(f.scenario.params))}, seed ${f.seed}, ${stepsText(f.schedule.length)}${f.originalLength > f.schedule.length ? ` (shrunk from ${f.originalLength})` : ''}`,
    ...legendLines(ctx.legend, busyActors(view), p?.name).map((l) => style.dim(l)),
    '',
    ...formatSteps(view, style, { failStep: p ? f.schedule.length : undefined, context: true, ...(f.cycleStart !== undefined ? { cycleStart: f.cycleStart } : {}), ...(ctx.legend ? { legend: ctx.legend } : {}), ...(deviationMarks(f.recorded?.steps) ? { marks: deviationMarks(f.recorded?.steps)! } : {}) }),
  );
  if (p) lines.push(style.red(`${' '.repeat(String(f.schedule.length).length + 4)}✗ ${lassoEnd(f.schedule.length, f.cycleStart)}: ${safeText(propertyLabel(ctx.legend, p.name))}`));
  if (f.passing) {
    lines.push('', `a nearby passing schedule (${stepsText(f.passing.schedule.length)})${f.passing.note ? `: ${safeText(f.passing.note)}` : ''}:`, ...formatSteps(fileViewOf(f.passing), style, ctx.legend ? { legend: ctx.legend } : {}));
  }
  return `${lines.join('\n')}\n`;
}

function fileViewOf(p: { readonly schedule: readonly string[]; readonly trace: readonly unknown[] }): TraceView {
  return fileView({ schedule: p.schedule, trace: p.trace } as TraceFileData);
}
