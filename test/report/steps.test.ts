// Every kind of step in the text, Mermaid and viewer model: deliveries, timers,
// drops, crashes, restarts, unhandled messages, from a real run of the kernel.
import { setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { defineScenario, drive, send, formatMermaid, formatSteps, formatText, type Step, type TraceFileData } from 'interleave';
import { enabled } from 'interleave/kernel';
import { fileView, propertyLabel } from '../../src/report/index.ts';
import { runTraceFile } from '../helpers/report-traces.ts';

// A sender that pings twice on a timer; a receiver that only knows `ping`.
const sender = setup({}).createMachine({
  id: 'sender',
  initial: 'waiting',
  states: {
    waiting: { after: { 100: { target: 'sent', actions: [send('receiver', { type: 'ping' }), send('receiver', { type: 'ping' }), send('receiver', { type: 'odd' })] } } },
    sent: {},
  },
});
const receiver = setup({}).createMachine({ id: 'receiver', initial: 'idle', states: { idle: { on: { ping: 'got' } }, got: { on: { ping: 'idle' } } } });

const sc = defineScenario({
  name: 'steps',
  actors: { sender, receiver },
  faults: { budget: 3, drop: [['sender', 'receiver']], crash: ['receiver'], restart: ['receiver'] },
  unhandled: 'trace',
});

function runOf(want: readonly string[]): TraceFileData {
  const pick = (steps: readonly Step[], depth: number) => steps.find((s) => s.id === want[depth]) ?? undefined;
  const run = drive(sc, (_w, steps, depth) => pick(steps, depth), { maxSteps: want.length });
  expect(run.schedule).toEqual(want);
  return runTraceFile('steps', run);
}

describe('step kinds', () => {
  it('the kernel offers the steps this test takes', () => {
    const ids = enabled(sc, drive(sc, () => undefined).world).map((s) => s.id);
    expect(ids).toContain('timer:sender:xstate.after.100.sender.waiting');
  });

  const f = runOf([
    'timer:sender:xstate.after.100.sender.waiting',
    'drop:sender->receiver:ping',
    'deliver:sender->receiver:ping',
    'deliver:sender->receiver:odd',
    'crash:receiver',
    'restart:receiver',
  ]);
  const lines = formatSteps(fileView(f));

  it('prints a line for each kind', () => {
    expect(lines[0]).toMatch(/^ +1 {2}sender +⏲ timer +xstate\.after\.100\.sender\.waiting/);
    expect(lines[0]).toContain('(sender: waiting → sent)');
    // The timer's id, once (its message is named like it).
    expect(lines[0]!.split('xstate.after.100.sender.waiting')).toHaveLength(2);
    expect(lines[1]).toMatch(/^ +2 {2}receiver +✗ drop ← sender +ping$/);
    expect(lines.some((l) => /· ping from sender to receiver dropped \(fault: message lost\)/.test(l))).toBe(true);
    expect(lines.find((l) => /^ +3 /.test(l))).toMatch(/receiver +← sender +ping +\(receiver: idle → got\)/);
    expect(lines.find((l) => /^ +4 /.test(l))).toMatch(/receiver +← sender +odd/);
    expect(lines.some((l) => /· receiver has no transition for odd from sender in state got/.test(l))).toBe(true);
    expect(lines.find((l) => /^ +5 /.test(l))).toMatch(/receiver +✗ crash$/);
    expect(lines.find((l) => /^ +6 /.test(l))).toMatch(/receiver +✗ restart/);
  });

  it('draws drops, timers and faults in Mermaid', () => {
    const m = formatMermaid(f);
    expect(m).toMatch(/a\d-xa\d: 2 ping \(dropped\)/);
    expect(m).toMatch(/a\d->>a\d: 1 timer xstate\.after\.100\.sender\.waiting/);
    expect(m).toMatch(/Note over a\d: 5 ✗ crash/);
  });

  it('links each delivery to the step that sent it', () => {
    const v = fileView(f);
    expect(v.steps[3]!.sentAt).toBe(1);
    expect(v.steps[2]!.kind).toBe('drop');
    expect(v.steps[2]!.sentAt).toBe(1);
  });

  it('renders a trace without a property as such', () => {
    expect(formatText(f)).toMatch(/^no property violated in this trace/);
  });

  it('says "1 step" for one step', () => {
    expect(formatText(runOf(['timer:sender:xstate.after.100.sender.waiting']))).toMatch(/, 1 step\n/);
    expect(formatText(f)).toMatch(/, 6 steps\n/);
  });
});

describe('property names for a reader', () => {
  const legend = { properties: { 'INV-4': 'batch keys are a contiguous prefix', I12: 'the loop completes' } };
  it('puts a bare id in words from the legend, and leaves a name that has words', () => {
    expect(propertyLabel(legend, 'INV-4')).toBe('INV-4 (batch keys are a contiguous prefix)');
    expect(propertyLabel(legend, 'I12 loop completes with the reference output')).toBe('I12 loop completes with the reference output');
    expect(propertyLabel(legend, 'INV-9')).toBe('INV-9');
    expect(propertyLabel(undefined, 'INV-4')).toBe('INV-4');
  });
});
