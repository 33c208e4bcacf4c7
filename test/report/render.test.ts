// Text, Mermaid and HTML renderings of a counterexample, and the schedule diff.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fileView, scriptSafeJson } from '../../src/report/index.ts';
import { diffSchedules, formatHtml, formatMermaid, formatSteps, formatText } from 'interleave';
import { mermaidText } from 'interleave/kernel';
import { lostUpdateTrace } from '../helpers/report-traces.ts';

const f = lostUpdateTrace({ passing: true });

describe('text', () => {
  it('prints one numbered line per step: receiver, sender, message, state change', () => {
    const lines = formatSteps(fileView(f));
    expect(lines).toHaveLength(f.schedule.length);
    expect(lines[0]).toMatch(/^ +1 {2}client1 +← env +start +\(client1: idle → reading\)$/);
    expect(lines[2]).toMatch(/^ +3 {2}store +← client1 +Get$/);
    lines.forEach((l, i) => expect(l.trim().startsWith(`${i + 1} `)).toBe(true));
  });

  it('uses the short actor name when the line already names the actor', () => {
    const g = structuredClone(f);
    for (const e of g.trace as any[]) {
      for (const k of ['actor', 'from', 'to']) if (e[k] === 'client1') e[k] = 'worker:LE';
    }
    const lines = formatSteps(fileView(g));
    expect(lines[0]).toMatch(/worker:LE +← env +start +\(LE: idle → reading\)/);
  });

  it('states the property, the seed and the shrink', () => {
    const t = formatText(f);
    expect(t).toMatch(/^✗ invariant 'no-lost-update' violated: all 2 clients finished but the counter is 1/);
    expect(t).toContain('seed 1, 10 steps (shrunk from 12)');
    expect(t).toContain('a nearby passing schedule (10 steps)');
  });

  it('strips terminal control characters from payloads', () => {
    const g = structuredClone(f);
    (g.property as any).message = 'evil \u001b[2J clear';
    expect(formatText(g)).not.toContain('\u001b');
  });
});

describe('mermaid', () => {
  it('is a sequenceDiagram with one arrow per delivery and notes for state changes', () => {
    const m = formatMermaid(f);
    const lines = m.trim().split('\n');
    expect(lines[0]).toBe('sequenceDiagram');
    expect(lines.filter((l) => l.includes('participant'))).toHaveLength(4);
    expect(lines.filter((l) => l.includes('->>'))).toHaveLength(f.schedule.length);
    expect(m).toContain('Note over a1: idle → reading');
  });

  it('escapes what would break the diagram', () => {
    expect(mermaidText('a;b#c<d>\ne')).toBe('a#59;b#35;c#lt;d#gt; e');
  });
});

describe('html', () => {
  const html = formatHtml(f);

  it('is one file that loads nothing from the network', () => {
    expect(html).not.toMatch(/\b(src|href)\s*=/i);
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html).toContain("default-src 'none'");
  });

  it('pins its one script by hash in the CSP', () => {
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!, 'utf8').digest('base64');
    expect(html).toContain(`script-src 'sha256-${hash}'`);
  });

  it('embeds payloads so they cannot close the data island', () => {
    const g = structuredClone(f);
    (g.trace as any[])[4].msg.note = '</script><script>alert(1)</script><!--';
    (g.property as any).message = '<img src=x onerror=alert(1)>';
    const h = formatHtml(g);
    const island = /<script type="application\/json" id="trace-data">([\s\S]*?)<\/script>/.exec(h)![1]!;
    expect(island).not.toMatch(/[<>]/);
    expect(JSON.parse(island).steps.flatMap((s: any) => s.events).some((e: any) => e.msg?.note === '</script><script>alert(1)</script><!--')).toBe(true);
    expect(h).not.toContain('<img');
    expect(scriptSafeJson('\u2028')).toBe('"\\u2028"');
  });
});

describe('schedule diff', () => {
  it('marks the first step where the counterexample departs from the passing schedule', () => {
    const d = diffSchedules(f.schedule, f.passing!.schedule);
    expect(d.firstDivergentStep).toBe(4);
    expect(d.rows[d.firstDivergentRow]!.aId).toBe('deliver:client2->store:Get');
    expect(d.rows.filter((r) => r.same).length).toBeGreaterThan(0);
    // Every step of both schedules appears once, in order.
    expect(d.rows.filter((r) => r.a !== undefined).map((r) => r.aId)).toEqual(f.schedule);
    expect(d.rows.filter((r) => r.b !== undefined).map((r) => r.bId)).toEqual(f.passing!.schedule);
  });

  it('reports equal schedules as not divergent', () => {
    expect(diffSchedules(['a', 'b'], ['a', 'b']).firstDivergentStep).toBe(-1);
  });
});
