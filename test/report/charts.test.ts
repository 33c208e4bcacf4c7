// Statecharts drawn from machine definitions: the chart model (events, guards, after,
// always, hierarchy, parallel, final), Mermaid, the Stately JSON round trip on every
// built-in machine, the layout's no-overlap rule, and `show --machines`.
import { and, createMachine, not, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { parseParams, chartMermaid, chartOf, scenarioCharts, statelyJson } from 'interleave';
import { families } from 'interleave/machines';
import { activePaths, layoutChart, takenTransitions, type ChartLayout } from '../../src/report/charts/index.ts';
import { chartSvg } from '../../src/report/charts/svg.ts';
import { runMain } from '../helpers/cli.ts';

const door = setup({ guards: { locked: () => false, keyFits: () => true } }).createMachine({
  id: 'door',
  initial: 'closed',
  on: { Alarm: '.broken' },
  states: {
    closed: { on: { Open: [{ target: 'open', guard: not('locked') }, { target: 'closed', guard: and(['locked', 'keyFits']) }] } },
    open: {
      type: 'parallel',
      on: { Close: 'closed' },
      states: {
        light: { initial: 'on', states: { on: { after: { 500: 'off' } }, off: {} } },
        fan: { initial: 'spinning', states: { spinning: { on: { Stop: 'stopped' } }, stopped: { type: 'final' } } },
      },
    },
    broken: { always: { target: 'gone', guard: 'keyFits' } },
    gone: { type: 'final' },
  },
});

function overlap(a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }): boolean {
  return a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
}

/** Pairs of labels or atomic states drawn over each other. */
function collisions(l: ChartLayout): string[] {
  const boxes = [
    ...l.states.filter((s) => !s.cluster).map((s) => ({ ...s, name: `state ${s.path}` })),
    ...l.edges.filter((e) => e.label).map((e) => ({ ...e.label!, name: `label ${e.label!.text}` })),
  ];
  const out: string[] = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) if (overlap(boxes[i]!, boxes[j]!)) out.push(`${boxes[i]!.name} / ${boxes[j]!.name}`);
  return out;
}

describe('the chart model', () => {
  const c = chartOf(door);
  it('reads states with their kinds, initial children and paths', () => {
    expect(c.root.initial).toBe('closed');
    const open = c.root.children.find((s) => s.key === 'open')!;
    expect(open.type).toBe('parallel');
    expect(open.children.map((s) => [s.path, s.initial])).toEqual([['open.light', 'open.light.on'], ['open.fan', 'open.fan.spinning']]);
    expect(c.root.children.find((s) => s.key === 'gone')!.type).toBe('final');
  });
  it('labels transitions event [guard], after timers and always', () => {
    expect(c.transitions.map((t) => `${t.source || '(machine)'} → ${t.targets.join(',')}: ${t.label}`)).toEqual([
      '(machine) → broken: Alarm',
      'closed → open: Open [!locked]',
      'closed → closed: Open [locked && keyFits]',
      'open → closed: Close',
      'open.light.on → open.light.off: after 500ms',
      'open.fan.spinning → open.fan.stopped: Stop',
      'broken → gone: [keyFits]',
    ]);
  });
  it('parses the state text of traces, parallel states included', () => {
    expect(activePaths('closed')).toEqual(['closed']);
    expect(activePaths('open.light.on')).toEqual(['open', 'open.light', 'open.light.on']);
    expect(activePaths('open.{light:off,fan:spinning}').sort()).toEqual(['open', 'open.fan', 'open.fan.spinning', 'open.light', 'open.light.off']);
    expect(activePaths('{a:b,c:d.e}').sort()).toEqual(['a', 'a.b', 'c', 'c.d', 'c.d.e']);
    expect(activePaths('a.{x:y')).toEqual([]);
  });
  it('finds the transition a step took from the states before and after', () => {
    const idx = (label: string) => c.transitions.find((t) => t.label === label)!.index;
    expect(takenTransitions(c, 'closed', 'open', { kind: 'on', type: 'Open' })).toEqual([idx('Open [!locked]')]);
    expect(takenTransitions(c, 'closed', 'closed', { kind: 'on', type: 'Open' })).toEqual([idx('Open [locked && keyFits]')]);
    expect(takenTransitions(c, 'broken', 'gone', { kind: 'none' })).toEqual([idx('[keyFits]')]);
    expect(takenTransitions(c, 'closed', 'open', { kind: 'on', type: 'Nope' })).toEqual([]);
  });
});

describe('Mermaid stateDiagram-v2', () => {
  it('nests states, separates parallel regions and ends final states', () => {
    const m = chartMermaid(chartOf(door), { title: 'door' });
    expect(m.split('\n').slice(0, 4)).toEqual(['---', 'title: door', '---', 'stateDiagram-v2']);
    expect(m).toContain('  state "door" as machine {\n    [*] --> s1\n    state "closed" as s1\n');
    expect(m).toMatch(/state "open" as s2 \{\n {6}state "light" as s3 \{\n {8}\[\*\] --> s4\n[^]*\n {6}--\n {6}state "fan" as s6 \{/);
    expect(m).toContain('        s8 --> [*]');
    expect(m).toContain('  machine --> s9 : Alarm');
    expect(m).toContain('  s1 --> s2 : Open [!locked]');
    expect(m).toContain('  s4 --> s5 : after 500ms');
    expect(m).toContain('  s9 --> s10 : [keyFits]');
  });
});

describe('Stately JSON', () => {
  const same = (m: Parameters<typeof chartOf>[0]) => {
    const json = JSON.parse(JSON.stringify(statelyJson(m)));
    const back = createMachine(json);
    expect(chartOf(back, 'x').root).toEqual(chartOf(m, 'x').root);
    expect(chartOf(back, 'x').transitions).toEqual(chartOf(m, 'x').transitions);
  };
  it('round-trips a machine with hierarchy, parallel regions, guards, after and always', () => same(door));
  it('round-trips every machine of every built-in scenario (default parameters)', () => {
    let n = 0;
    for (const f of families) {
      const sc = f.build(parseParams(f, {}));
      for (const c of scenarioCharts(sc).charts) {
        same(c.machine);
        n++;
      }
    }
    expect(n).toBeGreaterThan(5);
  });
});

describe('layout', () => {
  it('draws no label or state over another, on the demo and every built-in chart', () => {
    expect(collisions(layoutChart(chartOf(door)))).toEqual([]);
    for (const f of families) {
      const sc = f.build(parseParams(f, {}));
      for (const c of scenarioCharts(sc).charts) expect(collisions(layoutChart(c.chart, c.actors.join(', '))), `${f.name}: ${c.actors.join(', ')}`).toEqual([]);
    }
  });
  it("puts every transition label on its own edge, nearer to it than to any other edge, on every built-in chart", () => {
    const dist = (b: { x: number; y: number; w: number; h: number }, pts: readonly (readonly [number, number])[]) => {
      // Distance from the label box to the polyline (0 when the line passes through or touches it).
      let best = Infinity;
      for (let i = 0; i + 1 < pts.length; i++) {
        const [x1, y1] = pts[i]!;
        const [x2, y2] = pts[i + 1]!;
        for (let k = 0; k <= 40; k++) {
          const x = x1 + ((x2 - x1) * k) / 40;
          const y = y1 + ((y2 - y1) * k) / 40;
          const dx = Math.max(b.x - x, 0, x - (b.x + b.w));
          const dy = Math.max(b.y - y, 0, y - (b.y + b.h));
          best = Math.min(best, Math.hypot(dx, dy));
        }
      }
      return best;
    };
    const far: string[] = [];
    let n = 0;
    for (const f of families) {
      const sc = f.build(parseParams(f, {}));
      for (const c of scenarioCharts(sc).charts) {
        const l = layoutChart(c.chart, c.actors.join(', '));
        const drawn = l.edges.filter((e) => e.label && e.points.length > 1);
        for (const e of drawn) {
          n++;
          const own = dist(e.label!, e.points);
          if (own > 3) far.push(`${f.name} ${c.actors[0]}: '${e.label!.text}' is ${own.toFixed(1)} px from its edge`);
          const other = drawn.filter((o) => o !== e).map((o) => ({ o, d: dist(e.label!, o.points) })).find((x) => x.d < own - 0.5);
          if (other) far.push(`${f.name} ${c.actors[0]}: '${e.label!.text}' is nearer to the edge of '${other.o.label!.text}'`);
        }
      }
    }
    expect(n).toBeGreaterThan(100);
    expect(far).toEqual([]);
  });
  it('stacks the regions of a parallel state, so a chart with many regions is not a thin strip', () => {
    const l = layoutChart(chartOf(door));
    const light = l.states.find((s) => s.path === 'open.light')!;
    const fan = l.states.find((s) => s.path === 'open.fan')!;
    expect(fan.y).toBeGreaterThanOrEqual(light.y + light.h);
  });
  it('draws a machine with no states as a box with the messages it answers and its context', () => {
    const counter = setup({}).createMachine({ id: 'counter', context: { n: 0, who: 'bob' }, on: { Inc: {}, Reset: {} } });
    const c = chartOf(counter);
    const svg = chartSvg(c, layoutChart(c), { uid: 'x' });
    expect(svg).toContain('• Inc');
    expect(svg).toContain('• Reset');
    expect(svg).toContain('n: 0');
    expect(svg).toContain('who: &#34;bob&#34;');
    expect(chartMermaid(c)).toContain('state "counter" as machine\n');
    expect(chartMermaid(c)).not.toContain('{\n  }');
  });
  it('puts every state inside its parent frame', () => {
    const l = layoutChart(chartOf(door));
    const byPath = new Map(l.states.map((s) => [s.path, s]));
    for (const s of l.states) {
      if (s.path === '') continue;
      const p = byPath.get(s.path.includes('.') ? s.path.slice(0, s.path.lastIndexOf('.')) : '')!;
      expect(s.x >= p.x && s.y >= p.y && s.x + s.w <= p.x + p.w && s.y + s.h <= p.y + p.h, s.path).toBe(true);
    }
  });
});

describe('interleave show --machines', () => {
  it('prints one stateDiagram-v2 per distinct machine, with the legend', async () => {
    const r = await runMain('show', '--machines', 'lost-update');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('stateDiagram-v2');
    expect(r.stdout.match(/stateDiagram-v2/g)!.length).toBe(scenarioCharts(families.find((f) => f.name === 'lost-update')!.build(parseParams(families.find((f) => f.name === 'lost-update')!, {}))).charts.length);
  });
  it('writes a self-contained page of SVG charts with --format html', async () => {
    const r = await runMain('show', '--machines', 'amber-loop', '--format', 'html');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^<!doctype html>/);
    expect(r.stdout).toContain('<svg class="statechart"');
    expect(r.stdout).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });
  it('exports the Stately config with --format json, and one actor with --actor', async () => {
    const r = await runMain('show', '--machines', 'amber-loop', '--actor', 'LE.r0', '--format', 'json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.machines).toHaveLength(1);
    expect(j.machines[0].actors).toEqual(['LE.r0']);
    expect(Object.keys(j.machines[0].machine.states)).toContain('fetching');
  });
  it('says what is wrong with an unknown actor, a reducer, or --param without --machines (exit 2)', async () => {
    const a = await runMain('show', '--machines', 'amber-loop', '--actor', 'nope');
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("scenario 'amber-loop' has no actor 'nope'; its actors: ");
    const b = await runMain('show', '--machines', 'amber-loop', '--actor', 'store');
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("actor 'store' of scenario 'amber-loop' is a reducer, not a machine");
    const c = await runMain('show', 'x.json', '--param', 'a=1');
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--param goes with --machines');
  });
});
