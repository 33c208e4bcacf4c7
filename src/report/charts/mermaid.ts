// A statechart as a Mermaid `stateDiagram-v2`: the machine is one composite state
// (so machine-level transitions have a source), nested states are composites,
// parallel regions are separated by `--`, final states lead to `[*]`.
import { mermaidText } from '../mermaid.ts';
import { allStates, contextLines, contextOnly, type ChartState, type MachineChart } from './chart.ts';

/** One diagram; `title` goes in the front matter, `notes` become `%%` comments. */
export function chartMermaid(chart: MachineChart, opts: { readonly title?: string; readonly notes?: readonly string[] } = {}): string {
  const alias = new Map(allStates(chart).map((s, i) => [s.path, s === chart.root ? 'machine' : `s${i}`]));
  const a = (p: string) => alias.get(p)!;
  const lines: string[] = [];
  if (opts.title !== undefined) lines.push('---', `title: ${mermaidText(opts.title).replace(/:/g, ' -')}`, '---');
  lines.push('stateDiagram-v2');
  for (const n of opts.notes ?? []) lines.push(`  %% ${mermaidText(n)}`);
  const label = (s: ChartState) => (s === chart.root ? chart.id : s.type === 'history' ? (s.history === 'deep' ? 'H*' : 'H') : s.key);
  const block = (s: ChartState, ind: string): void => {
    const inner = `${ind}  `;
    lines.push(`${ind}state "${mermaidText(label(s))}" as ${a(s.path)} {`);
    if (s.initial !== undefined) lines.push(`${inner}[*] --> ${a(s.initial)}`);
    s.children.forEach((c, i) => {
      if (s.type === 'parallel' && i > 0) lines.push(`${inner}--`);
      if (c.children.length) block(c, inner);
      else {
        lines.push(`${inner}state "${mermaidText(label(c))}" as ${a(c.path)}`);
        if (c.type === 'final') lines.push(`${inner}${a(c.path)} --> [*]`);
      }
    });
    lines.push(`${ind}}`);
  };
  if (contextOnly(chart)) {
    // No states: one box (an empty composite is a Mermaid error), its context in a note.
    lines.push(`  state "${mermaidText(chart.id)}" as machine`);
    const ctx = contextLines(chart.context);
    if (ctx.length) lines.push('  note right of machine', '    context', ...ctx.map((l) => `    ${mermaidText(l)}`), '  end note');
  } else block(chart.root, '  ');
  for (const t of chart.transitions) {
    const to = t.targets.length ? t.targets : [t.source];
    for (const x of to) lines.push(`  ${a(t.source)} --> ${a(x)} : ${mermaidText(t.label)}`);
  }
  return `${lines.join('\n')}\n`;
}
