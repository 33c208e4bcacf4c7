// The schedule to a model error: a plain breadth-first walk from the initial world to the
// world where the error was raised (found by fingerprint), or to the first step that
// raises a model error itself, so the user can replay and look at it.
import { apply, enabled, initialWorld, isModelError, replay, type ModelError, type RecordedEvent, type Scenario, type World } from '../../actors/index.ts';
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
 * The trace events of a schedule, stepped by the kernel alone (the runtime's `replay`: no
 * property is evaluated), up to the step that raises: the trace of a schedule that ends at
 * a model error.
 */
export function replayEvents(sc: Scenario, schedule: readonly string[]): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  try {
    replay(sc, schedule, { record: false, onEvent: (e) => void out.push(e) });
  } catch {
    // The step that raised the model error (or one the model no longer takes): the events before it stand.
  }
  return out;
}
