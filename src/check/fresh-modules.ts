// State shared between steps outside the snapshots, written once (a module-level Map one
// actor's action fills and another's guard reads), gives the same result on every
// re-step of purity.ts: once any explored branch has written it, every later step sees
// it. After a dfs/bfs of a scenario built from a module (`CheckOptions.source`: the CLI
// sets it), the short schedules from the initial world are replayed each in a fresh copy
// of that module (evaluated again, so its module-level state starts clean) and compared
// with the same schedules replayed here, where the search has run every step. A step
// that reads state some other branch wrote then reaches another world.
//
// Covers state kept in the scenario's own module; modules it imports are shared by the
// copies (Node evaluates a module once per URL), so state kept there is not seen (the
// lint rule in src/eslint covers both).
import { apply, enabled, initialWorld, type Scenario, type Step, type World } from '../actors/index.ts';
import { WorldHasher, fpHex } from './fingerprint/fingerprint.ts';
import { NondeterminismError } from './purity.ts';
import type { ScenarioSource } from './types.ts';

/** Schedules replayed in fresh copies at most (one copy each). */
export const FRESH_SCHEDULES = 16;

let copies = 0;

/** Throws a `NondeterminismError` when a short schedule reaches another world in a fresh copy of the scenario's module. */
export async function checkFreshModules(sc: Scenario, source: ScenarioSource, max = FRESH_SCHEDULES): Promise<void> {
  const { resolveSource } = await import('./resolve-source.ts');
  // Depth 1, then depth 2, in the order `enabled` lists steps.
  const here = new WorldHasher(sc, false);
  const init = initialWorld(sc, { detail: false }).world;
  const schedules: { ids: string[]; fp: string }[] = [];
  const level1: [string, World][] = [];
  for (const t of enabled(sc, init)) {
    if (schedules.length >= max) break;
    const w = tryApply(sc, init, t);
    if (!w) continue;
    schedules.push({ ids: [t.id], fp: fpHex(here.fp(w)) });
    level1.push([t.id, w]);
  }
  for (const [id, w1] of level1) {
    for (const t of enabled(sc, w1)) {
      if (schedules.length >= max) break;
      const w = tryApply(sc, w1, t);
      if (w) schedules.push({ ids: [id, t.id], fp: fpHex(here.fp(w)) });
    }
  }
  for (const s of schedules) {
    let copy: Scenario;
    try {
      copy = await resolveSource(source, String(++copies));
    } catch {
      return; // the module cannot be evaluated again (its top level refuses): nothing to compare
    }
    if (copy.name !== sc.name) return;
    let w = initialWorld(copy, { detail: false }).world;
    let last: Step | undefined;
    for (const id of s.ids) {
      last = enabled(copy, w).find((x) => x.id === id);
      const next = last && tryApply(copy, w, last);
      if (!next) break;
      w = next;
    }
    if (last && fpHex(new WorldHasher(copy, false).fp(w)) !== s.fp) {
      throw new NondeterminismError(
        `nondeterminism: the schedule [${s.ids.join(', ')}] reaches a different world in a fresh copy of module '${source.module}' than in the checker's process, after the search ran every step: a step reads state kept outside the snapshots that another step wrote (a module-level variable, Map or object shared between actors), so the search's verdict depends on the order it explored in. ` +
          `Keep such state in the machines' context and pass it in messages; the ESLint rule interleave/no-module-state (interleave/eslint) finds it. (\`determinism: false\` turns this check off.)`,
        sc.ids[last.kind === 'deliver' || last.kind === 'input' ? last.to : 0] ?? '?',
        '?',
        last.id,
      );
    }
  }
}

/** The world after `t`, or undefined when the step throws (the search reports that itself). */
function tryApply(sc: Scenario, w: World, t: Step): World | undefined {
  try {
    return apply(sc, w, t, { detail: false }).world;
  } catch {
    return undefined;
  }
}
