// A step prints what it changed in a parallel statechart, not every region: in the text
// report, Mermaid and the viewer's sequence chart; the viewer's state table keeps the whole value.
import { setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { defineScenario, drive, send, formatMermaid, formatSteps, type Step, type TraceFileData } from 'interleave';
import { formatStateValue } from 'interleave/kernel';
import { fileView, stateAfter, stateChange, viewerData } from '../../src/report/index.ts';
import { runTraceFile } from '../helpers/report-traces.ts';

describe('stateChange', () => {
  it('keeps a change outside parallel states whole', () => {
    expect(stateChange('ready', 'running.awaitingInput')).toBe('ready → running.awaitingInput');
    expect(stateChange('running.consumingNow.opening', 'running.consumingNow.pinning')).toBe('running.consumingNow.opening → running.consumingNow.pinning');
  });

  it('names only the regions that changed', () => {
    const from = 'executing.{Src:running,LS:running,LE:running}';
    expect(stateChange(from, 'executing.{Src:running,LS:done,LE:running}')).toBe('executing.{LS: running → done}');
    expect(stateAfter(from, 'executing.{Src:running,LS:done,LE:running}')).toBe('executing.{LS:done}');
    expect(stateChange(from, 'executing.{Src:done,LS:running,LE:failed}')).toBe('executing.{Src: running → done, LE: running → failed}');
  });

  it('descends into nested parallel regions', () => {
    expect(stateChange('p.{a:x,b:q.{c:1,d:2}}', 'p.{a:x,b:q.{c:1,d:3}}')).toBe('p.{b: q.{d: 2 → 3}}');
    expect(stateChange('{a:x,b:y}', '{a:x,b:z}')).toBe('{b: y → z}');
  });

  it('shortens a long parallel value entered or left whole to its region count, a short one stays', () => {
    const big = `executing.{${Array.from({ length: 6 }, (_, i) => `op${i}:running`).join(',')}}`;
    expect(stateChange('creatingPorts', big)).toBe('creatingPorts → executing.{6 regions}');
    expect(stateChange(big, 'done')).toBe('executing.{6 regions} → done');
    expect(stateAfter('creatingPorts', big)).toBe('executing.{6 regions}');
    expect(stateChange('idle', 'on.{a:x,b:y}')).toBe('idle → on.{a:x,b:y}');
  });

  it('prints text that is not a state value as it is', () => {
    expect(stateChange('{"n":1}', '{"n":2}')).toBe('{"n":1} → {"n":2}');
    expect(stateAfter('a{', 'b}')).toBe('b}');
  });

  it('reads what formatStateValue writes', () => {
    const v = { executing: { A: 'running', B: { busy: { x: 'on', y: 'off' } } } };
    const w = { executing: { A: 'running', B: { busy: { x: 'on', y: 'on' } } } };
    expect(stateChange(formatStateValue(v), formatStateValue(w))).toBe('executing.{B: busy.{y: off → on}}');
  });
});

// A coordinator with one region per operator, as Amber's: each `done:<op>` finishes one region.
const OPS = ['scan', 'filter', 'join', 'sort', 'sink'] as const;
const coordinator = setup({}).createMachine({
  id: 'coordinator',
  initial: 'idle',
  states: {
    idle: { on: { go: 'executing' } },
    executing: {
      type: 'parallel',
      states: Object.fromEntries(OPS.map((op) => [op, { initial: 'running', states: { running: { on: { [`done:${op}`]: 'done' } }, done: {} } }])),
    },
  },
});
const driver = setup({}).createMachine({
  id: 'driver',
  initial: 'start',
  states: { start: { on: { kick: { target: 'sent', actions: [send('coordinator', { type: 'go' }), send('coordinator', { type: 'done:join' })] } } }, sent: {} },
});
const sc = defineScenario({ name: 'regions', actors: { coordinator, driver }, inputs: [{ to: 'driver', events: ['kick'], budget: 1 }] });

function runFile(): TraceFileData {
  return runTraceFile('regions', drive(sc, (_w, steps: readonly Step[]) => steps[0], { maxSteps: 10 }));
}

describe('trace lines of a parallel statechart', () => {
  const f = runFile();
  const lines = formatSteps(fileView(f));

  it('the text report prints the entered state in short, then only the region that changed', () => {
    expect(lines.find((l) => / go /.test(l))).toContain('(coordinator: idle → executing.{5 regions})');
    const done = lines.find((l) => /done:join/.test(l));
    expect(done).toContain('(coordinator: executing.{join: running → done})');
    expect(done).not.toContain('scan');
  });

  it('Mermaid notes and the viewer use the short form; the viewer keeps the whole state in its table', () => {
    expect(formatMermaid(f)).toContain('executing.{join: running → done}');
    const d = viewerData(f);
    const step = d.steps.find((s) => s.what === 'done:join')!;
    expect(step.moves[0]).toMatchObject({ change: 'executing.{join: running → done}', after: 'executing.{join:done}' });
    expect(step.states.coordinator).toBe('executing.{scan:running,filter:running,join:done,sort:running,sink:running}');
  });
});
