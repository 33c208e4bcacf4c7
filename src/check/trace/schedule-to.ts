// The schedule to a model error: a plain breadth-first walk from the initial world to the
// world where the error was raised (found by fingerprint), or to the first step that
// raises a model error itself, so the user can replay and look at it.
import { apply, enabled, initialWorld, isModelError, type ModelError, type RecordedEvent, type Scenario, type World } from '../../actors/index.ts';
import { WorldHasher } from '../fingerprint/fingerprint.ts';
import { VisitedSet } from '../search/visited.ts';

interface Node {
  readonly world: World;
  readonly parent: Node | undefined;
  readonly step: string | undefined;
}

function path(n: Node | undefined, last?: string): string[] {
  const out: string[] = last === undefined ? [] : [last];
  for (let x = n; x?.step !== undefined; x = x.parent) out.push(x.step);
  return out.reverse();
}

/**
 * Fills in `e.schedule`: the shortest schedule to the world where `e` was raised (plus
 * its step, when it was raised inside one). A step on the way that raises a model error
 * of its own is the one reported instead: it is met first. Gives up (leaving `schedule`
 * undefined) after `maxStates` worlds.
 */
export function placeOnSchedule(sc: Scenario, e: ModelError, maxStates = 1_000_000): ModelError {
  if (e.schedule !== undefined) return e;
  if (e.world === undefined) {
    e.schedule = [];
    return e;
  }
  const hasher = new WorldHasher(sc, false);
  const target = hasher.fp(e.world);
  let init: World;
  try {
    init = initialWorld(sc, { detail: false }).world;
  } catch (x) {
    if (isModelError(x)) {
      x.schedule = [];
      return x;
    }
    throw x;
  }
  const visited = new VisitedSet();
  hasher.world(init);
  visited.add(hasher.ha, hasher.hb);
  let level: Node[] = [{ world: init, parent: undefined, step: undefined }];
  while (level.length > 0 && visited.size < maxStates) {
    const next: Node[] = [];
    for (const n of level) {
      hasher.world(n.world);
      if (hasher.ha === target.a && hasher.hb === target.b) {
        e.schedule = path(n, e.step);
        return e;
      }
      for (const st of enabled(sc, n.world)) {
        let w: World;
        try {
          w = apply(sc, n.world, st, { detail: false }).world;
        } catch (x) {
          if (!isModelError(x)) throw x;
          x.schedule = path(n, st.id);
          return x;
        }
        hasher.world(w);
        if (visited.add(hasher.ha, hasher.hb)) next.push({ world: w, parent: n, step: st.id });
      }
    }
    level = next;
  }
  return e;
}

/**
 * The trace events of a schedule, stepped by the kernel alone (no property is evaluated),
 * up to the first step that does not apply: the trace of a schedule that ends at a model error.
 */
export function replayEvents(sc: Scenario, schedule: readonly string[]): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  let world: World;
  try {
    const init = initialWorld(sc, { detail: true });
    world = init.world;
    for (const e of init.events) out.push({ ...e, step: 0 });
  } catch {
    return out;
  }
  for (let i = 0; i < schedule.length; i++) {
    const st = enabled(sc, world).find((x) => x.id === schedule[i]);
    if (!st) break;
    try {
      const r = apply(sc, world, st, { detail: true });
      world = r.world;
      for (const e of r.events) out.push({ ...e, step: i + 1 });
    } catch {
      break;
    }
  }
  return out;
}
