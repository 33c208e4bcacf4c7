// Structural equality of world values, for the step memo's content lookups
// (step-memo.ts): exact and conservative. Plain objects compare by their own keys
// (in any order) and values, arrays element by element, primitives by ===; any
// other object (a Map, a class instance, an Arrow table, a state node) only by
// identity. An xstate snapshot compares by every field its next step reads, its
// active state nodes in order (they order the actions of parallel regions).

/** True when two world values are equal as data (see above); false may mean "not known equal". */
export function sameContent(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameContent(a[i], b[i])) return false;
    return true;
  }
  const pa = Object.getPrototypeOf(a);
  if ((pa !== Object.prototype && pa !== null) || Object.getPrototypeOf(b) !== pa || Array.isArray(b)) return false;
  const x = a as Record<string, unknown>,
    y = b as Record<string, unknown>;
  const own = Object.prototype.hasOwnProperty;
  let n = 0;
  for (const k in x) {
    if (!own.call(x, k)) continue;
    // `tags` of an xstate snapshot: a Set derived from its state nodes, compared below.
    if (k === 'tags' && 'machine' in x) continue;
    if (!own.call(y, k) || !sameContent(x[k], y[k])) return false;
    n++;
  }
  for (const k in y) if (own.call(y, k) && !(k === 'tags' && 'machine' in y)) n--;
  return n === 0;
}
