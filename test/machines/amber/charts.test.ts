// The Amber worker and coordinator are statecharts (worker.ts, coordinator.ts): a
// message no state of the chart expects is unhandled, and the kernel reports it
// (the phase-function machines they replace ignored such messages silently). The
// coordinator's EndWorker retry is an `after` timer of its per-operator region.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineScenario, queryOf, check } from 'interleave';
import { initialWorld, isFailureEvent } from 'interleave/kernel';
import { strayDelivery, worldWhere } from '../../helpers/charts.ts';
import { coordinatorMachine } from '../../../src/machines/amber/coordinator.ts';
import { portBase } from '../../../src/machines/amber/messages.ts';
import { DESIGNS } from '../../../src/machines/amber/operators.ts';
import { countingEnd, perRowStart } from '../../../src/machines/amber/user-code.ts';
import { workerMachine, type OpSpec } from '../../../src/machines/amber/worker.ts';
import { amberScenario } from '../../../src/machines/amber/scenario.ts';
import { runOnce } from '../../helpers/amber.ts';

describe('unexpected messages to the Amber actors are reported', () => {
  const sc = amberScenario({ design: 'read-at-endchannel', overlapFault: false, start: 'materialized' });

  it('a store reply the Loop End worker never asked for (it is not started yet)', () => {
    const r = strayDelivery(sc, initialWorld(sc).world, 'store', 'LE', { type: 'PortReset', base: portBase('LE') });
    const ev = r.events.find((e) => e.kind === 'unhandled');
    expect(ev).toMatchObject({ kind: 'unhandled', actor: 'LE', from: 'store', state: 'ready', policy: 'error' });
    expect(isFailureEvent(ev!)).toBe(true);
  });

  it('a reset answer while the running worker takes input, and a second Start while it runs', () => {
    const w = worldWhere(sc, (x) => queryOf(sc, x).matches('LE', { running: 'awaitingInput' }));
    const reset = strayDelivery(sc, w, 'store', 'LE', { type: 'PortReset', base: portBase('LE') });
    expect(reset.events.find((e) => e.kind === 'unhandled')).toMatchObject({ actor: 'LE', state: 'running.awaitingInput' });
    const start = strayDelivery(sc, w, 'coordinator', 'LE', { type: 'Start', exec: 9, loopStartPortUris: {}, inputs: [], outBase: portBase('LE') });
    expect(start.events.find((e) => e.kind === 'unhandled')).toMatchObject({ actor: 'LE', msg: { type: 'Start' } });
  });

  it('an EndWorkerAck from a worker the coordinator did not ask to end', () => {
    const w = worldWhere(sc, (x) => queryOf(sc, x).matches('coordinator', 'executing'));
    const r = strayDelivery(sc, w, 'LE', 'coordinator', { type: 'EndWorkerAck', op: 'LE', exec: 1 });
    expect(r.events.find((e) => e.kind === 'unhandled')).toMatchObject({ actor: 'coordinator', msg: { type: 'EndWorkerAck' } });
  });

  it('the checker reports a stray message as an unhandled violation naming the worker', async () => {
    const stray = defineScenario({
      name: 'amber-stray',
      actors: sc.actors,
      start: [...sc.start!, { from: 'store', to: 'LE', msg: { type: 'Pinned', uri: 'x', gen: 1, files: [] } }],
    });
    const r = await check(stray, { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property).toMatchObject({ kind: 'unhandled', name: 'LE' });
    // bfs: the shortest run that shows it is the stray delivery itself.
    expect(r.violation!.schedule).toEqual(['deliver:store->LE:Pinned']);
  });
});

describe('the charts', () => {
  it('the EndWorker retry is an after-timer of the coordinator region of the worker being ended (#6960 race)', () => {
    const run = runOnce({ design: 'read-at-endchannel', endWorkerRace: true, start: 'scratch' });
    const timers = run.events.filter((e) => e.kind === 'timer-set' && e.actor === 'coordinator') as { id: string }[];
    expect(timers.length).toBeGreaterThan(0);
    for (const t of timers) expect(t.id).toMatch(/^xstate\.after\.200\.coordinator\.executing\.\w+\.retrying$/);
    expect(run.q.matches('coordinator', 'completed')).toBe(true);
  });

  it('a Loop End held after a failed back-edge write is paused and still answers EndWorker (the coordinator gives up after its attempts)', () => {
    const run = runOnce({ design: 'read-at-endchannel', backEdgeWriteError: true, endWorkerAttempts: 2, start: 'scratch' });
    expect(run.q.matches('LE', 'paused')).toBe(true);
    expect(run.sends('LE', 'EndWorkerFailed').map((e) => e.msg.reason)).toEqual(['worker is paused on an exception', 'worker is paused on an exception']);
    expect(run.q.matches('coordinator', 'failed')).toBe(true);
  });
});

describe('docs/amber.md names every state of the charts', () => {
  const doc = readFileSync(new URL('../../../docs/amber.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### The worker and coordinator charts'), doc.indexOf("Operators' user code is pure TypeScript"));
  /** State paths down to `depth` levels (parallel regions and sub-charts below that are described in words). */
  const paths = (node: any, prefix: string, depth: number): string[] =>
    Object.entries(node.states ?? {}).flatMap(([k, child]) => {
      const p = prefix ? `${prefix}.${k}` : k;
      return depth > 1 ? [p, ...paths(child, p, depth - 1)] : [p];
    });

  it('the worker (every kind and design) and the coordinator', () => {
    const opts = { holdOrder: 'consume-first' as const, endWorkerRace: false };
    const ops: OpSpec[] = [
      { id: 'Src', kind: 'source' },
      { id: 'LS', kind: 'loopStart', start: perRowStart('i') },
      { id: 'LE', kind: 'loopEnd', end: countingEnd('i') },
      { id: 'Py', kind: 'python' },
    ];
    const worker = new Set(DESIGNS.flatMap((design) => ops.flatMap((op) => paths(workerMachine(op, { ...opts, design }).root, '', 2))));
    const coordinator = paths(coordinatorMachine({ levels: [['A']], inputs: {}, outBase: { A: 'a' }, reuse: {}, loopStartPortUris: {} }, { endWorkerRace: false, endWorkerAttempts: 3, retryMs: 200 }).root, '', 3).filter((p) => p !== 'executing.A'); // A: the operator's region
    const missing = [...worker, ...coordinator.map((p) => p.split('.').at(-1)!)].filter((p) => !section.includes(`\`${p}\``));
    expect(missing).toEqual([]);
  });
});
