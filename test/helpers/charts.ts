// Helpers of the statechart tests: deliver a message no protocol step sends, and
// find a world of a fault-free run where something holds.
import { expect } from 'vitest';
import { apply, enabled, inputStep } from 'interleave/kernel';
import { drive, type Scenario, type World } from 'interleave';

/** Sends `msg` from `from` to `to` in world `w` and delivers it at once. */
export function strayDelivery(sc: Scenario, w: World, from: string, to: string, msg: { type: string; [k: string]: unknown }) {
  const queued = apply(sc, w, inputStep(sc, from, to, msg)).world;
  const step = enabled(sc, queued).find((s) => s.id === `deliver:${from}->${to}:${msg.type}`)!;
  return apply(sc, queued, step);
}

/** The first world of a fault-free run where `at` holds. */
export function worldWhere(sc: Scenario, at: (w: World) => boolean): World {
  const r = drive(sc, (w, steps) => (at(w) ? undefined : steps.find((s) => s.kind === 'timer' || (s.kind === 'deliver' && s.outcome === undefined))), { detail: false });
  expect(at(r.world)).toBe(true);
  return r.world;
}
