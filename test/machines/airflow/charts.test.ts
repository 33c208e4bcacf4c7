// The Airflow task process is a statechart (task-process.ts): its states are the
// protocol's phases, it moves on named events and conditions, and a message no state
// expects is unhandled and reported by the kernel (the phase-mirroring machine it
// replaces took every event in every phase and ignored the unexpected ones).
import { describe, expect, it } from 'vitest';
import { defineScenario, drive, queryOf, check } from 'interleave';
import { initialWorld, isFailureEvent } from 'interleave/kernel';
import { strayDelivery, worldWhere } from '../../helpers/charts.ts';
import { buildAirflow } from '../../../src/machines/airflow/scenario.ts';

describe('unexpected messages to the task process are reported', () => {
  const sc = buildAirflow({ items: 3, W: 2 });

  it("an operator end of the current try after the try ended (the loop never lets one outlive it)", () => {
    const w = worldWhere(sc, (x) => queryOf(sc, x).matches('task', 'exited'));
    const r = strayDelivery(sc, w, 'runner', 'task', { type: 'RunEnd', a: 1, i: 0, o: 's' });
    const ev = r.events.find((e) => e.kind === 'unhandled');
    expect(ev).toMatchObject({ kind: 'unhandled', actor: 'task', from: 'runner', state: 'exited', msg: { type: 'RunEnd' } });
    expect(isFailureEvent(ev!)).toBe(true);
    // One of an abandoned try (a = 0 here: older than the current) is expected and ignored.
    expect(strayDelivery(sc, w, 'runner', 'task', { type: 'RunEnd', a: 0, i: 0, o: 's' }).events.some((e) => e.kind === 'unhandled')).toBe(false);
  });

  it('a Relaunch without the lease, and a SIGTERM the model never sends', () => {
    const w = initialWorld(sc).world;
    const relaunch = strayDelivery(sc, w, 'runner', 'task', { type: 'Relaunch' });
    expect(relaunch.events.find((e) => e.kind === 'unhandled')).toMatchObject({ actor: 'task', state: 'idle', msg: { type: 'Relaunch' } });
    // softKill is 'none': no state expects a SigTerm.
    const sig = strayDelivery(sc, w, 'runner', 'task', { type: 'SigTerm', a: 1, kind: 'sigterm' });
    expect(sig.events.find((e) => e.kind === 'unhandled')).toMatchObject({ actor: 'task', msg: { type: 'SigTerm' } });
  });

  it('an answer of a dead try is expected in every state and ignored', () => {
    const w = worldWhere(sc, (x) => queryOf(sc, x).matches('task', 'looping'));
    const r = strayDelivery(sc, w, 'supervisor', 'task', { type: 'OKResponse', a: 0, rid: 1 });
    expect(r.events.some((e) => e.kind === 'unhandled')).toBe(false);
  });

  it('a later Start over a running try abandons it: its operators are cancelled, the new try runs its own', () => {
    const w = worldWhere(sc, (x) => queryOf(sc, x).matches('task', 'looping') && x.timers.length > 0);
    expect(w.timers.map((t) => t.id)).toEqual(['run:1:0', 'run:1:1']);
    const r = strayDelivery(sc, w, 'runner', 'task', { type: 'Start', a: 2 });
    expect(r.events.some((e) => e.kind === 'unhandled')).toBe(false);
    expect(queryOf(sc, r.world).context('task').a).toBe(2);
    // Try 2 reads its marker first: no operator runs yet, and none of try 1 is left to end.
    expect(r.world.timers.map((t) => t.id)).toEqual([]);
  });

  it('the checker reports a stray message as an unhandled violation naming the task process', async () => {
    const stray = defineScenario({ name: 'airflow-stray', actors: sc.actors, start: [{ from: 'runner', to: 'task', msg: { type: 'LeaseGranted', token: 1 } }] });
    const r = await check(stray, { strategy: 'bfs' });
    expect(r.ok).toBe(false);
    expect(r.violation!.property).toMatchObject({ kind: 'unhandled', name: 'task' });
    expect(r.violation!.schedule).toEqual(['deliver:runner->task:LeaseGranted']);
  });
});

describe('the chart', () => {
  it('walks the phases: idle, looping, closing (rest, then marker), exited', () => {
    const sc = buildAirflow({ items: 3, W: 2 });
    const seen: string[] = [];
    drive(
      sc,
      (w, steps) => {
        const q = queryOf(sc, w);
        for (const s of ['idle', 'reading', 'looping', { closing: 'rest' }, { closing: 'marker' }, 'exited'] as const) {
          const name = typeof s === 'string' ? s : `closing.${s.closing}`;
          if (q.matches('task', s as any) && seen.at(-1) !== name) seen.push(name);
        }
        return steps.find((s) => s.kind === 'timer' || (s.kind === 'deliver' && s.outcome === undefined));
      },
      { detail: false },
    );
    // Try 1 reads nothing; the rest of 3 mod 2 = 1 entry, then the marker, then the end.
    expect(seen).toEqual(['idle', 'looping', 'closing.rest', 'closing.marker', 'exited']);
  });

  it('with the lease, waiting for it is an after-timer of the waiting state', () => {
    const sc = buildAirflow({ items: 2, W: 1, lease: true, processes: 2 });
    const r = drive(sc, (_w, steps) => steps.find((s) => s.kind === 'timer' || (s.kind === 'deliver' && s.outcome === undefined)), { detail: true });
    const timers = r.events.filter((e) => e.kind === 'timer-set' && e.id.includes('idle')) as { id: string; actor: string }[];
    expect(timers.length).toBeGreaterThan(0);
    for (const t of timers) expect(t.id).toBe(`xstate.after.0.${t.actor}.idle.waiting`);
  });
});
