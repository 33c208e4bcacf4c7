// Which steps can change a `readsView` predicate's view, for the stubborn-set reduction
// (stubborn.ts). The declarations themselves (`reads`, `readsEach`, `readsView`) are the
// runtime's (actors/reads.ts).
//
// A predicate over several actors can be false only in an intermediate world the
// reduced search skips; a step t taken early (it commutes with the path to the bad
// world) must not turn the predicate back to true there. A step that does not change
// what the predicate reads cannot, so only steps that may change it are *visible*
// (never in a stubborn set). `reads([...], p)` makes every step of the listed actors
// visible. `readsView(actors, view, check)` splits the predicate into the part of the
// world it looks at (`view`, over the listed actors' snapshots, contexts and status)
// and a check of that view; only steps that change the view are visible.
//
// Which steps change a view is learned like the may-send relation: per step kind
// (actor, what it handles), from the steps the search takes, with a restart when a
// new kind shows up. "This step changes the view" is a step property (the view reads
// actors' snapshots and a step changes only its own actor's), so the restart argument
// of stubborn.ts applies.
import { queryOf, type Scenario, type World, type WorldQuery } from '../../actors/index.ts';
export type { Reads } from '../../actors/reads.ts';

/** Structural equality of plain data (views). */
export function sameView(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a),
    kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !sameView((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/** Steps that may change a view predicate's view, learned per step kind. */
export class ViewVisibility {
  /** Step keys (actor * K + handled-from) that changed some view. */
  readonly visible: Uint8Array;
  private readonly views: { readonly view: (q: WorldQuery) => unknown; readonly reads: Uint8Array }[] = [];

  constructor(
    private readonly sc: Scenario,
    private readonly n: number,
    private readonly K: number,
    private readonly swaps: readonly Int32Array[],
  ) {
    this.visible = new Uint8Array(n * K);
  }

  /** Registers a view predicate over the actors `mask` (closed under the symmetry swaps). */
  add(view: (q: WorldQuery) => unknown, mask: Uint8Array): void {
    for (const p of this.swaps) for (let i = 0; i < this.n; i++) if (mask[i]) mask[p[i]!] = 1;
    this.views.push({ view, reads: mask });
  }

  get any(): boolean {
    return this.views.length > 0;
  }

  /** Records whether a step of kind `key` changed a view; true when the relation grew. */
  learn(key: number, from: World, to: World): boolean {
    if (this.visible[key] !== 0 || this.views.length === 0) return false;
    const a = (key / this.K) | 0;
    let qa: WorldQuery | undefined, qb: WorldQuery | undefined;
    for (const v of this.views) {
      if (!v.reads[a]) continue; // a step changes only its own actor's snapshot and status
      qa ??= queryOf(this.sc, from);
      qb ??= queryOf(this.sc, to);
      if (!sameView(v.view(qa), v.view(qb))) return this.mark(key);
    }
    return false;
  }

  private mark(key: number): boolean {
    const K = this.K;
    const todo = [key];
    while (todo.length > 0) {
      const x = todo.pop()!;
      if (this.visible[x] !== 0) continue;
      this.visible[x] = 1;
      const a = (x / K) | 0,
        k = x - a * K;
      for (const p of this.swaps) todo.push(p[a]! * K + p[k]!);
    }
    return true;
  }
}
