// The Materialize actors are statecharts: the worker's loop, the pool's idle/busy,
// the client's arrivals and answers are chart states, and a message the protocol
// does not expect where it arrives is unhandled and reported by the kernel.
import { describe, expect, it } from 'vitest';
import { check, replaySchedule, queryOf } from 'interleave';
import { MachineStepper } from '../../../src/actors/xstate-adapter.ts';
import { buildScenario } from '../../../src/machines/materialize/scenario.ts';
import * as C from '../../../src/machines/materialize/cases.ts';
import { clientMachine } from '../../../src/machines/materialize/client.ts';
import { lookup } from '../../../src/machines/materialize/config.ts';

describe('materialize charts: unexpected messages are reported, not swallowed', () => {
  it("a Loop reaching a parked worker (no step or unit of work running) is unhandled in state 'parked'", async () => {
    const setup = C.idleLookup({ design: 'inline' });
    const r = await check(buildScenario({ ...setup, env: [{ to: 'w0', msg: { type: 'Loop', ms: 1, unit: 'work' } }] }), { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property).toMatchObject({ kind: 'unhandled', name: 'w0' });
    expect(r.violation!.property.message).toBe("actor 'w0' in state 'parked' has no transition for 'Loop' from 'env' (the message would be lost)");
    expect(r.violation!.schedule).toEqual(['deliver:env->w0:Loop']);
  });

  it('a SliceDone for a walk the pool is not running is unhandled in the idle pool', async () => {
    const setup = C.idleLookup({ design: 'offload', slotRelease: 'walk-end' });
    const r = await check(buildScenario({ ...setup, env: [{ to: 'pool', msg: { type: 'SliceDone', key: 'p9.w0' } }] }), { strategy: 'bfs' });
    expect(r.violation!.property).toMatchObject({ kind: 'unhandled', name: 'pool' });
    expect(r.violation!.property.message).toMatch(/in state 'idle' has no transition for 'SliceDone'/);
  });

  it('the client takes no response before the run starts, and counts a stray one after', () => {
    const client = new MachineStepper(clientMachine, 'client');
    const s0 = client.initial({ workers: 1, peeks: [lookup('p1', 'a', 1)] }).snapshot;
    const response = { type: 'WorkerResponse', w: 0, uuid: 'p1', response: { kind: 'rows', rows: [] } };
    expect(client.step(s0, response).unhandled).toBe(true);
    const s1 = client.step(s0, { type: 'Start' });
    expect(s1.snapshot.value).toEqual({ arrivalsOver: 'waiting' });
    const s2 = client.step(s1.snapshot, response);
    expect(s2.snapshot.value).toEqual({ arrivalsOver: 'answered' });
    const s3 = client.step(s2.snapshot, response);
    expect(s3.unhandled).toBe(false);
    expect(s3.snapshot.context.strays).toBe(1);
  });
});

describe('materialize charts: the worker moves through the loop as the protocol names it', () => {
  it('an idle inline lookup: parked -> stepping (unparked) -> step 3 walking it -> parked, answered', () => {
    const sc = buildScenario(C.idleLookup({ design: 'inline' }));
    const states: unknown[] = [];
    const schedule = ['deliver:env->client:Start', 'deliver:client->w0:PeekCmd', 'deliver:w0->w0:Loop', 'deliver:w0->w0:Loop'];
    for (let k = 0; k <= schedule.length; k++) states.push(queryOf(sc, replaySchedule(sc, schedule.slice(0, k)).world).value('w0'));
    expect(states).toEqual(['parked', 'parked', 'stepping', { serving: { commands: 'walking' } }, 'parked']);
    const end = replaySchedule(sc, [...schedule, 'deliver:w0->client:WorkerResponse']);
    expect(queryOf(sc, end.world).value('client')).toEqual({ arrivalsOver: 'answered' });
  });

  it('an offloaded lookup: the pool is busy while the walk runs and idle after; retirement happens in step 4', () => {
    const sc = buildScenario(C.idleLookup({ design: 'offload', slotRelease: 'walk-end' }));
    const walk = ['deliver:env->client:Start', 'deliver:client->w0:PeekCmd', 'deliver:w0->w0:Loop', 'deliver:w0->pool:SpawnWalk'];
    const q = (s: readonly string[]) => queryOf(sc, replaySchedule(sc, s).world);
    expect(q(walk).value('pool')).toBe('busy');
    expect(q(walk).value('w0')).toBe('parked');
    const fired = replaySchedule(sc, [...walk, 'timer:pool:p1.w0']);
    expect(queryOf(sc, fired.world).value('pool')).toBe('idle');
    const retired = replaySchedule(sc, [...walk, 'timer:pool:p1.w0', 'deliver:pool->w0:WalkResult', 'deliver:w0->w0:Loop']);
    const kinds = retired.trace.filter((e) => e.kind === 'emit').map((e) => (e.kind === 'emit' ? String(e.msg.type) : ''));
    expect(kinds.lastIndexOf('StepEnd')).toBeLessThan(kinds.indexOf('Retire'));
    expect(queryOf(sc, retired.world).value('w0')).toBe('parked');
  });
});
