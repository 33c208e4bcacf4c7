// The Amber single loop live on the filesystem store: the same machines give the
// same trace shape as in simulation, and the data files really are on disk.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { amberScenario } from '../../src/machines/amber/scenario.ts';
import type { StoreState } from '../../src/machines/amber/store.ts';
import { amberFsStore } from '../../examples/amber-loop/fs-store.ts';
import { fromTrace, replayTraceFile, drive, randomChooser, simulate, type RecordedEvent, type ReducerLogic, type Scenario } from 'interleave';
import { liveTraceFile, runLive } from 'interleave/live';

const dir = mkdtempSync(join(tmpdir(), 'interleave-amber-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A trace modulo timing: per channel, the message types in order (channels are
 * FIFO), and per actor, the messages it sent and its final state. Which channel
 * goes first may differ between runs (live I/O takes real time); these may not.
 */
function shape(events: readonly RecordedEvent[], actors: readonly string[]) {
  const channels: Record<string, string[]> = {};
  const sent: Record<string, string[]> = Object.fromEntries(actors.map((a) => [a, []]));
  const last: Record<string, string> = {};
  for (const e of events) {
    if (e.kind === 'deliver') (channels[`${e.from}->${e.to}`] ??= []).push(e.msg.type);
    else if (e.kind === 'send' && sent[e.from]) sent[e.from]!.push(`${e.msg.type} to ${e.to}`);
    else if (e.kind === 'state' && actors.includes(e.actor)) last[e.actor] = e.to;
  }
  for (const a of actors) sent[a]!.sort();
  return { channels, sent, last };
}

function storeOf(sc: Scenario): { logic: ReducerLogic<StoreState>; input: unknown } {
  const a = sc.actorList[sc.index.get('store')!]!;
  if (a.kind !== 'reducer') throw new Error('expected the modelled store');
  return { logic: a.logic as ReducerLogic<StoreState>, input: a.input };
}

describe('Amber single loop, live on the filesystem store', () => {
  const params = { topology: 'single' as const, rows: 3, design: 'read-at-endchannel' as const, overlapFault: false };

  it('gives the same trace shape live as in simulation', async () => {
    const sc = amberScenario(params);
    const sim = simulate(sc, {}, { seed: 1 });
    expect(sim.end).toBe('quiescent');
    const actors = sc.ids.filter((id) => id !== 'store');
    const root = join(dir, 'single');
    const store = amberFsStore(root, storeOf(sc).logic, storeOf(sc).input);
    const live = runLive(sc, { externals: { store: store.handle }, timeScale: 0 });
    const w = await live.whenQuiescent();
    await live.stop();
    expect(live.errors).toEqual([]);
    expect(live.failures).toEqual([]);
    expect(shape(live.recording().events, actors)).toEqual(shape(sim.events, actors));
    // Other interleavings of the model have the same shape too.
    expect(shape(drive(sc, randomChooser(7), { maxSteps: 20_000 }).events, actors)).toEqual(shape(sim.events, actors));
    // The coordinator finished, and the data went through the disk.
    expect(live.world().failure).toBeUndefined();
    expect(w.timers.length).toBe(0);
    expect(store.io.puts).toBeGreaterThan(0);
    expect(store.io.gets).toBeGreaterThan(0);
    expect(existsSync(root) && readdirSync(root).length).toBeGreaterThan(0);
    // The recording replays on the model (its store answering for itself), every property checked.
    const rep = replayTraceFile(sc, liveTraceFile(live.recording()));
    expect(rep.violation?.property).toBeUndefined();
    expect(shape(rep.trace, actors)).toEqual(shape(live.recording().events, actors));
    // And the model, following the live schedule with its own store, agrees: no property fails.
    const seeded = fromTrace(sc, liveTraceFile(live.recording()), { within: 0 });
    expect(seeded.violation?.property).toBeUndefined();
  });

  it('one fault away from a passing live run of read-at-consume: the CI hang (I12); read-at-endchannel holds', async () => {
    // Production: design D1 ran live and completed (a live run takes no fault).
    const d1 = { topology: 'single' as const, rows: 2, design: 'read-at-consume' as const };
    const sc = amberScenario({ ...d1, overlapFault: false });
    const store = amberFsStore(join(dir, 'd1'), storeOf(sc).logic, storeOf(sc).input);
    const live = runLive(sc, { externals: { store: store.handle }, timeScale: 0 });
    await live.whenQuiescent();
    await live.stop();
    expect(live.failures).toEqual([]);
    const file = liveTraceFile(live.recording());
    // The model with the overlap fault (a reader's fetch gets 403 while its worker's main loop reads).
    expect(fromTrace(amberScenario({ ...d1, overlapFault: true }), file, { within: 0 }).ok).toBe(true);
    const r = fromTrace(amberScenario({ ...d1, overlapFault: true }), file, { within: 1 });
    expect(r.ok).toBe(false);
    expect(r.violation!.property.name).toMatch(/^I12/);
    expect(r.violation!.property.message).toMatch(/403/);
    expect(r.violation!.deviations).toBe(1);
    expect(r.violation!.schedule.length).toBeLessThanOrEqual(r.violation!.originalLength);
    // The fix (read at EndChannel), explored around the same production run: nothing within one fault.
    const fixed = fromTrace(amberScenario({ ...d1, design: 'read-at-endchannel', overlapFault: true }), file, { within: 1, fit: 'follow' });
    expect(fixed.ok).toBe(true);
    expect(fixed.complete).toBe(true);
  });
});
