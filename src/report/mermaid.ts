// A trace as a Mermaid sequenceDiagram: actors as participants, deliveries as
// arrows, state changes and faults as notes.
import { actorRole, propertyNote, stepNotes } from '../actors/legend.ts';
import type { ReportContext } from './context.ts';
import { fileView } from './model.ts';
import type { TraceFileData } from './schema.ts';

const ENTITY: Record<string, string> = { '#': '#35;', ';': '#59;', '<': '#lt;', '>': '#gt;', '"': '#quot;' };

/** Mermaid text is not HTML, but `;`, `#`, `<`, `>` and newlines break or inject into it. */
export function mermaidText(s: string): string {
  return s
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\r\n\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/[#;<>"]/g, (c) => ENTITY[c]!);
}

/** A trace file as a Mermaid `sequenceDiagram`, with state changes as notes. */
export function formatMermaid(f: TraceFileData, ctx: ReportContext = {}): string {
  const view = fileView(f);
  const alias = new Map(view.actors.map((a, i) => [a, `a${i}`]));
  const who = (a: string | undefined): string => {
    if (a === undefined || !alias.has(a)) return 'a_unknown';
    return alias.get(a)!;
  };
  const lines = ['sequenceDiagram'];
  for (const a of view.actors) lines.push(`  participant ${alias.get(a)} as ${mermaidText(a)}`);
  if (view.steps.some((s) => s.n > 0 && (s.actor === '' || !alias.has(s.actor) || (s.from !== undefined && !alias.has(s.from))))) {
    lines.push('  participant a_unknown as ?');
  }
  const first = view.actors.length ? who(view.actors[0]) : 'a_unknown';
  const last = view.actors.length ? who(view.actors[view.actors.length - 1]) : 'a_unknown';
  const span = first === last ? first : `${first},${last}`;
  // The legend: each actor's role over its lifeline, the property's line across.
  for (const a of view.actors) {
    const role = actorRole(ctx.legend, a);
    if (role !== undefined) lines.push(`  Note over ${who(a)}: ${mermaidText(role)}`);
  }
  const pnote = f.property ? propertyNote(ctx.legend, f.property.name) : undefined;
  if (pnote !== undefined) lines.push(`  Note over ${span}: ${mermaidText(`${f.property!.name.split(/\s+/)[0]}: ${pnote}`)}`);
  const cycleStart = f.cycleStart;
  for (const s of view.steps.slice(1)) {
    // A liveness lasso's cycle: Mermaid's loop box around the steps that repeat forever.
    if (cycleStart !== undefined && s.n === cycleStart + 1) lines.push(`  loop ${mermaidText(`↻ steps ${s.n}..${view.steps.length - 1} repeat forever`)}`);
    const label = mermaidText(`${s.n} ${s.what}${s.outcome !== undefined ? ` !${s.outcome}` : ''}`);
    switch (s.kind) {
      case 'deliver':
      case 'input':
        lines.push(`  ${who(s.from)}->>${who(s.actor)}: ${label}`);
        break;
      case 'drop':
        lines.push(`  ${who(s.from)}-x${who(s.actor)}: ${mermaidText(`${s.n} ${s.what} (dropped)`)}`);
        break;
      case 'timer':
        lines.push(`  ${who(s.actor)}->>${who(s.actor)}: ${mermaidText(`${s.n} timer ${s.what}`)}`);
        break;
      case 'fault':
        lines.push(`  Note over ${who(s.actor)}: ${mermaidText(`${s.n} ✗ ${s.what}`)}`);
        break;
      case 'tick':
        lines.push(`  Note over ${span}: ${mermaidText(`${s.n} time → ${s.what}`)}`);
        break;
      default:
        lines.push(`  Note over ${span}: ${mermaidText(`${s.n} ${s.id}`)}`);
    }
    for (const m of s.moves) lines.push(`  Note over ${who(m.actor)}: ${mermaidText(m.change)}`);
    for (const n of s.notes) lines.push(`  Note over ${s.actor && alias.has(s.actor) ? who(s.actor) : span}: ${mermaidText(n)}`);
    for (const n of stepNotes(ctx.legend, s.id)) lines.push(`  Note over ${s.actor && alias.has(s.actor) ? who(s.actor) : span}: ${mermaidText(`✎ ${n}`)}`);
  }
  if (cycleStart !== undefined && cycleStart < view.steps.length - 1) lines.push('  end');
  if (f.property) lines.push(`  Note over ${span}: ${mermaidText(`✗ ${f.property.kind} ${f.property.name}: ${f.property.message}`)}`);
  return `${lines.join('\n')}\n`;
}
