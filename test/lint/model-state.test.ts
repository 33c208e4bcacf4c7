// `interleave/eslint`: state shared between actors outside their snapshots, which the
// run-time purity sample cannot see when it is written once, is reported in the model's
// source. The first model is the one the checker calls complete with `missed` unreached.
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { check, defineScenario } from 'interleave';
import interleave from 'interleave/eslint';

const linter = new Linter({ configType: 'flat' });
function hits(code: string): string[] {
  const config = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as never, sourceType: 'module' as const }, ...interleave.configs.recommended } as never];
  return linter.verify(code, config, { filename: 'model.ts' }).map((m) => `${m.ruleId ?? 'parse'}:${m.line}${m.ruleId ? '' : ` ${m.message}`}`);
}

const SHARED = `import { setup } from 'xstate';
const shared = new Map<string, number>();
export const a = setup({}).createMachine({ initial: 'idle', states: { idle: { on: { go: { target: 'done', actions: () => { shared.set('x', 1); } } } }, done: {} } });
export const b = setup({}).createMachine({
  initial: 'idle',
  states: { idle: { on: { look: [{ guard: () => shared.get('x') === 1, target: 'saw' }, { target: 'missed' }] } }, saw: {}, missed: {} },
});
`;

const COUNTER = `import { setup } from 'xstate';
let seen = 0;
const log: string[] = [];
const cache = { hits: 0 };
export const m = setup({}).createMachine({ on: { Try: { guard: () => ++seen <= 2, actions: () => { log.push('t'); cache.hits += 1; delete (cache as any).x; Object.assign(cache, { y: 1 }); } } } });
`;

const PURE = `import { assign, setup } from 'xstate';
const LIMIT = 2;
const names = new Map([['a', 1]]);
let configured = 0;
configured = 3;
export function build(n: number) {
  const local = new Map<string, number>();
  local.set('x', n);
  let count = 0;
  count++;
  return setup({}).createMachine({ context: { n: configured }, on: { Try: { guard: ({ context }) => context.n < LIMIT && names.get('a') === 1, actions: assign({ n: ({ context }) => context.n + count }) } } });
}
`;

describe('interleave/eslint no-module-state', () => {
  it('reports the module-level Map one actor writes and another reads', () => {
    expect(hits(SHARED)).toEqual(['interleave/no-module-state:3']);
  });

  it('in plain JavaScript too', () => {
    const js = [{ files: ['**/*.js'], ...interleave.configs.recommended } as never];
    const code = SHARED.replace('new Map<string, number>()', 'new Map()');
    expect(linter.verify(code, js, { filename: 'model.js' }).map((m) => `${m.ruleId}:${m.line}`)).toEqual(['interleave/no-module-state:3']);
  });

  it('reports a module-level counter and objects changed inside functions, each way', () => {
    expect(hits(COUNTER)).toEqual(['interleave/no-module-state:5', 'interleave/no-module-state:5', 'interleave/no-module-state:5', 'interleave/no-module-state:5', 'interleave/no-module-state:5']);
  });

  it('passes constants read inside functions, module-level setup, and state local to a function', () => {
    expect(hits(PURE)).toEqual([]);
  });

  it('the recommended config also forbids the wall clock and randomness', () => {
    expect(hits(`export const f = () => Date.now() + Math.random() + performance.now();\n`)).toEqual(['no-restricted-properties:1', 'no-restricted-properties:1', 'no-restricted-properties:1']);
  });

  it('the model it reports is one the run-time check cannot see without a source: a complete search with `missed` unreached', async () => {
    // The run-time half, stated plainly in docs/checker.md: write-once state shared
    // between actors gives the same result on every re-step from the same world, and
    // with no `source` there is no module to evaluate again.
    const shared = new Map<string, number>();
    const a = setup({}).createMachine({ initial: 'idle', states: { idle: { on: { go: { target: 'done', actions: () => void shared.set('x', 1) } } }, done: { tags: ['end'] } } });
    const b = setup({}).createMachine({
      initial: 'idle',
      states: { idle: { on: { look: [{ guard: () => shared.get('x') === 1, target: 'saw' }, { target: 'missed' }] } }, saw: { tags: ['end'] }, missed: { tags: ['end'] } },
    });
    const sc = defineScenario({ name: 'shared-map', actors: { a, b }, start: [{ to: 'a', msg: { type: 'go' } }, { to: 'b', msg: { type: 'look' } }], reachable: { missed: (q) => q.matches('b', 'missed') } });
    const r = await check(sc, { strategy: 'bfs', por: false });
    expect(r.complete).toBe(true);
    expect(r.unreached).toEqual(['missed']);
  });
});
