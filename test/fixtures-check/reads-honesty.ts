// Dynamic checks that a scenario's partial-order-reduction declarations are honest:
// - a predicate declared with `reads` gives the same answer on a world whose other
//   actors (snapshots, status, pending messages) come from another reachable world;
// - a `readsEach` conjunction holds on any mix of two worlds where it holds;
// - a `readsView` view is the same when actors outside its list (and every inbox and the
//   clock) come from another world;
// - a monitor declaring `reads` (or `eventsOnly`) observes the same on such a mixed world;
// - a monitor's `watches`: events it does not watch leave its state unchanged and never fail it.
// Worlds and steps come from seeded random walks, so a failure reproduces.
import { apply, enabled, initialWorld, queryOf, rng, type Scenario, type TraceEvent, type World } from '../../src/actors/index.ts';
import { sameView } from '../../src/check/por/views.ts';

interface Walked {
  readonly worlds: World[];
  readonly steps: { readonly before: World; readonly after: World; readonly events: readonly TraceEvent[] }[];
}

/** Worlds and steps of `walks` seeded random walks of at most `depth` steps. */
export function walk(sc: Scenario, seed: number, walks: number, depth: number): Walked {
  const r = rng(seed);
  const worlds: World[] = [];
  const steps: Walked['steps'] = [];
  for (let k = 0; k < walks; k++) {
    let w = initialWorld(sc, { detail: false }).world;
    worlds.push(w);
    for (let d = 0; d < depth; d++) {
      const all = enabled(sc, w);
      if (all.length === 0) break;
      const res = apply(sc, w, r.pick(all), { detail: false });
      steps.push({ before: w, after: res.world, events: res.events });
      w = res.world;
      worlds.push(w);
    }
  }
  return { worlds, steps };
}

/** `a` with the actors not in `keep` (and, unless `inboxes`, every inbox, and unless `clock`, the clock) taken from `b`. */
function mix(a: World, b: World, keep: readonly boolean[], opts: { inboxes: boolean; clock: boolean }): World {
  return {
    ...a,
    snaps: a.snaps.map((s, i) => (keep[i] ? s : b.snaps[i])),
    status: a.status.map((s, i) => (keep[i] ? s : b.status[i]!)),
    inbox: a.inbox.map((x, i) => (opts.inboxes && keep[i] ? x : b.inbox[i]!)),
    now: opts.clock ? a.now : b.now,
  };
}

/** What a predicate or an observer returned, or what it threw, as comparable data. */
function outcome(f: () => unknown): unknown {
  try {
    return { value: f() };
  } catch (e) {
    return { threw: String(e) };
  }
}

function mask(sc: Scenario, ids: readonly string[]): boolean[] {
  return sc.ids.map((id) => ids.includes(id));
}

/** Problems found (empty when every declaration held on the sampled worlds). */
export function dishonestDeclarations(sc: Scenario, w: Walked, pairs: number, seed: number): string[] {
  const r = rng(seed);
  const problems = new Set<string>();
  const pick = () => w.worlds[r.int(w.worlds.length)]!;
  const preds = [...Object.entries(sc.invariants ?? {}), ...Object.entries(sc.reachable ?? {})];
  for (const [name, p] of preds) {
    const d = p as { reads?: readonly string[]; readsEach?: boolean; view?: (q: unknown) => unknown };
    if (!Array.isArray(d.reads)) continue;
    const keep = mask(sc, d.reads);
    for (let k = 0; k < pairs && problems.size < 40; k++) {
      const a = pick(),
        b = pick();
      if (d.view) {
        const m = mix(a, b, keep, { inboxes: false, clock: false });
        if (!sameView(outcome(() => d.view!(queryOf(sc, a))), outcome(() => d.view!(queryOf(sc, m))))) problems.add(`${name}: view differs when actors outside [${d.reads.join(', ')}] change`);
      } else if (d.readsEach) {
        const m = mix(a, b, keep, { inboxes: false, clock: true });
        if (!sameView(outcome(() => p(queryOf(sc, a))), outcome(() => p(queryOf(sc, m))))) problems.add(`${name}: answer differs when actors outside [${d.reads.join(', ')}] change`);
        if (p(queryOf(sc, a)) === true && p(queryOf(sc, b)) === true) {
          const part = keep.map((x) => x && r.int(2) === 0);
          const m2 = mix(a, b, part, { inboxes: true, clock: true });
          if (p(queryOf(sc, m2)) !== true) problems.add(`${name}: not a conjunction of per-actor conditions (fails on a mix of two worlds where it holds)`);
        }
      } else {
        const m = mix(a, b, keep, { inboxes: true, clock: true });
        if (!sameView(outcome(() => p(queryOf(sc, a))), outcome(() => p(queryOf(sc, m))))) problems.add(`${name}: answer differs when actors outside [${d.reads.join(', ')}] change`);
      }
    }
  }
  for (let m = 0; m < sc.monitorDefs.length; m++) {
    const def = sc.monitorDefs[m]!;
    const name = sc.monitorNames[m]!;
    const reads = def.eventsOnly ? [] : def.reads;
    for (const st of w.steps) {
      if (problems.size >= 80) break;
      let s = st.before.monitors[m];
      const q = queryOf(sc, st.after);
      for (const e of st.events) {
        const got = outcome(() => def.observe(s, e, q));
        if (def.watches && !def.watches(e) && !sameView(got, { value: s })) problems.add(`${name}: reacts to ${e.kind} event it does not watch`);
        if (reads) {
          const other = mix(st.after, pick(), mask(sc, reads), { inboxes: false, clock: false });
          const alt = outcome(() => def.observe(s, e, queryOf(sc, other)));
          if (!sameView(got, alt)) problems.add(`${name}: observes ${e.kind} differently when actors outside [${reads.join(', ')}] change`);
        }
        const v = (got as { value?: unknown }).value;
        if (v === undefined || (typeof v === 'object' && v !== null && 'fail' in v)) break;
        s = v;
      }
    }
  }
  return [...problems];
}
