// The every-event benchmark's child process on small machines: every tool (the checker,
// @xstate/graph, and interleave's kernel and adapter loops the layer table compares) counts
// the same states, the two-counter statechart's count is its formula's, and a tool the
// child does not know fails the run instead of printing a row.
import { describe, expect, it } from 'vitest';
import { everyEventChild, type EveryEventTool } from '../../bench/every-event.ts';

const TOOLS: EveryEventTool[] = ['interleave', 'graph', 'kernel', 'stepper'];

describe('bench/every-event-child.mjs', () => {
  it('counts 2(N+1)(4N+1) states of the two-counter statechart with every tool', () => {
    for (const tool of TOOLS) {
      const r = everyEventChild(tool, { model: 'counters', n: 3 });
      expect(r.states, tool).toBe(2 * 4 * 13);
      expect(r.complete, tool).toBe(true);
      expect(r.cpuMs, tool).toBeGreaterThan(0);
      expect(r.peakRss, tool).toBeGreaterThan(r.addedRss);
    }
  });

  it("counts the elevator's states alike with every tool", () => {
    const counts = TOOLS.map((tool) => everyEventChild(tool, { model: 'elevator', floors: 3, capacity: 2 }).states);
    expect(new Set(counts).size).toBe(1);
    // Not every (floor, load, state) triple is reachable: the count is the tools' own.
    expect(counts[0]).toBeGreaterThan(20);
  });

  it('fails on a tool it does not know, naming the ones it does', () => {
    expect(() => everyEventChild('nope' as EveryEventTool, { model: 'counters', n: 2 })).toThrow(/unknown tool 'nope' \(interleave, graph, kernel or stepper\)/);
  });
});
