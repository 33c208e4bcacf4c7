// The reduction trusts what predicates and monitors declare they read and watch
// (`reads`, `readsEach`, `readsView`, `MonitorDef.reads`, `eventsOnly`, `watches`).
// These tests check each declaration of the built-in models on sampled reachable
// worlds (test/fixtures/check/reads-honesty.ts), and that the check catches wrong ones.
import { describe, expect, it } from 'vitest';
import { reads, readsEach, readsView, defineScenario, parseParams, type Scenario } from 'interleave';
import { families } from 'interleave/machines';
import { dishonestDeclarations, walk } from '../../fixtures/check/reads-honesty.ts';
import { lostUpdate } from '../../fixtures/check/models.ts';
import { randomActors } from '../../fixtures/check/random-actors.ts';

function family(name: string, params: Record<string, string> = {}): Scenario {
  const f = families.find((x) => x.name === name)!;
  return f.build(parseParams(f, params));
}

function problems(sc: Scenario, walks = 40, depth = 120): string[] {
  return dishonestDeclarations(sc, walk(sc, 7, walks, depth), 400, 11);
}

describe('reads / watches declarations are honest on sampled worlds', () => {
  const cases: [string, Record<string, string>][] = [
    ['materialize-peeks', { workers: '2', slotRelease: 'walk-end' }],
    ['materialize-peeks', { peeks: '4', faults: '1' }],
    ['airflow-checkpoints', {}],
    ['airflow-checkpoints', { design: 'per-index' }],
    ['airflow-checkpoints', { design: 'overwrite-one-key' }],
    ['airflow-checkpoints', { externalDelete: 'true', readError: 'true', ambiguousWrite: 'true' }],
    ['airflow-checkpoints', { softKill: 'sigterm', clear: 'keep', tries: '3' }],
    ['airflow-checkpoints', { clear: 'discard', deleteKeys: '1', oldReads: 'upfront' }],
  ];
  for (const [name, params] of cases) {
    it(`${name} ${JSON.stringify(params)}`, () => {
      expect(problems(family(name, params))).toEqual([]);
    });
  }

  it('lost-update fixture and 30 random actor systems', () => {
    expect(problems(lostUpdate({ clients: 3 }))).toEqual([]);
    for (let seed = 1; seed <= 30; seed++) expect(problems(randomActors(seed).sc, 10, 60), `seed ${seed}`).toEqual([]);
  });
});

describe('the honesty check catches wrong declarations', () => {
  const counter = (to: string) => ({ kind: 'reducer' as const, init: () => 0, receive: (s: number, msg: { type: string }) => ({ state: s + 1, send: msg.type === 'go' ? [{ to, msg: { type: 'bump' } }] : [] }) });
  const build = (extra: Partial<Parameters<typeof defineScenario>[0]>) =>
    defineScenario({
      name: 'honesty',
      actors: { a: counter('b'), b: counter('a') },
      start: [
        { to: 'a', msg: { type: 'go' } },
        { to: 'b', msg: { type: 'go' } },
        { to: 'a', msg: { type: 'x' } },
      ],
      ...extra,
    });

  it('a predicate that reads an actor it does not declare', () => {
    const sc = build({ invariants: { sum: reads(['a'], (q) => q.context('a') !== q.context('b') || 'a and b are equal') } });
    expect(problems(sc).join('\n')).toMatch(/sum: answer differs/);
  });
  it('readsEach over a condition that is not per actor', () => {
    const sc = build({ invariants: { pair: readsEach(['a', 'b'], (q) => q.context('a') >= q.context('b') - 1) } });
    expect(problems(sc).join('\n')).toMatch(/pair: not a conjunction/);
  });
  it('a view that reads an actor it does not list', () => {
    const sc = build({ invariants: { v: readsView(['a'], (q) => [q.context('a'), q.context('b')], () => true) } });
    expect(problems(sc).join('\n')).toMatch(/v: view differs/);
  });
  it('a monitor that reads an actor it does not declare, and one that reacts to an event it does not watch', () => {
    const sc = build({
      monitors: {
        peek: { init: 0, reads: ['a'], watches: () => true, observe: (s: number, _e, q) => (q.context('b') > 1 ? s + 1 : s) },
        sly: { init: 0, eventsOnly: true, watches: (e) => e.kind === 'send', observe: (s: number, e) => (e.kind === 'deliver' ? Math.min(s + 1, 3) : s) },
      },
    });
    const found = problems(sc).join('\n');
    expect(found).toMatch(/peek: observes deliver differently/);
    expect(found).toMatch(/sly: reacts to deliver event it does not watch/);
  });
});
