// The src/machines lint rules (eslint-rules/machines.js), run through the project's own
// eslint.config.js: a wildcard handler and phase-mirroring `always` routing are
// reported under src/machines; a real statechart is not; other folders are not checked.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();
async function ruleHits(code: string, filePath = 'src/machines/sample/chart.ts'): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath });
  return r!.messages.filter((m) => m.ruleId?.startsWith('machines/')).map((m) => `${m.ruleId}:${m.line}`);
}

const BAD = `import { setup } from 'xstate';
type Ctx = { phase: 'idle' | 'running' };
const named = setup({ guards: { isRunning: ({ context }: { context: Ctx }) => context.phase === 'running', hasWork: ({ context }: { context: Ctx }) => context.phase !== 'idle' && 1 > 0 } });
const to = (phase: Ctx['phase']) => ({ guard: ({ context }: { context: Ctx }) => context.phase === phase, target: phase });
export const m = setup({ types: {} as { context: Ctx; events: { type: string } } }).createMachine({
  context: { phase: 'idle' },
  initial: 'idle',
  on: { '*': { actions: () => {} } },
  states: {
    idle: { always: [to('running')] },
    running: { always: { guard: ({ context }) => context.phase === 'idle', target: 'idle' } },
    other: { on: { 'stash.*': { target: 'idle' } } },
  },
});
`;

const GOOD = `import { setup } from 'xstate';
type Ctx = { pending: number; phase: string };
export const m = setup({ types: {} as { context: Ctx; events: { type: 'Go' } | { type: 'Done'; phase: string } } }).createMachine({
  context: { pending: 2, phase: 'x' },
  initial: 'idle',
  states: {
    idle: { on: { Go: { target: 'running' } } },
    running: {
      on: {
        Done: [
          { guard: ({ context }) => context.pending > 1, actions: () => {} },
          { guard: ({ event }) => event.phase === 'last', target: 'done' },
        ],
      },
      after: { 200: { target: 'idle' } },
    },
    done: { type: 'final' },
  },
});
`;

describe('machines lint rules', () => {
  it("report a '*' handler, a partial wildcard and every phase-mirroring guard (inline, built by a helper, or named in setup) under src/machines", async () => {
    expect(await ruleHits(BAD)).toEqual(['machines/no-phase-mirroring:3', 'machines/no-phase-mirroring:4', 'machines/no-wildcard-on:8', 'machines/no-phase-mirroring:11', 'machines/no-wildcard-on:12']);
  });

  it('pass a statechart with named events, guards on counts and on event data, and after-timers', async () => {
    expect(await ruleHits(GOOD)).toEqual([]);
  });

  it('apply to src/machines only', async () => {
    expect(await ruleHits(BAD, 'src/report/chart.ts')).toEqual([]);
  });
});
