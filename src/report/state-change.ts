// What a step changed in an actor's state, in a few words. Trace files hold every
// actor's whole state value as text (`executing.{Src:running,LS:running,LE:running}`,
// the form of formatStateValue); a parallel chart with one region per operator makes
// that unreadable per step. Reports print only the regions that changed:
//   executing.{LS: running → done}
// and keep the whole value where a reader looks for it (the viewer's state table).

/** A parsed state value: a leaf, `key.child`, or parallel regions `{r:v,…}`. */
type Node = { readonly leaf: string } | { readonly key: string; readonly child: Node } | { readonly regions: readonly (readonly [string, Node])[] };

/** A whole value longer than this is shortened to its region count where it is entered. */
const SHORT = 40;

function parse(text: string): Node | undefined {
  let i = 0;
  const name = (): string => {
    const start = i;
    // State names: no separators, quotes or spaces (text with those is not a state value).
    while (i < text.length && !'.{},:" '.includes(text[i]!)) i++;
    return text.slice(start, i);
  };
  const value = (): Node | undefined => {
    if (text[i] === '{') {
      i++;
      const regions: [string, Node][] = [];
      for (;;) {
        const k = name();
        if (k === '' || text[i] !== ':') return undefined;
        i++;
        const v = value();
        if (v === undefined) return undefined;
        regions.push([k, v]);
        if (text[i] === ',') i++;
        else if (text[i] === '}') break;
        else return undefined;
      }
      i++;
      return { regions };
    }
    const k = name();
    if (k === '') return undefined;
    if (text[i] === '"' || text[i] === ' ') return undefined;
    if (text[i] !== '.') return { leaf: k };
    i++;
    const child = value();
    return child === undefined ? undefined : { key: k, child };
  };
  const v = value();
  return v !== undefined && i === text.length ? v : undefined;
}

function full(n: Node): string {
  if ('leaf' in n) return n.leaf;
  if ('key' in n) return `${n.key}.${full(n.child)}`;
  return `{${n.regions.map(([k, v]) => `${k}:${full(v)}`).join(',')}}`;
}

/** The value, with any parallel part longer than SHORT cut to `{N regions}`. */
function brief(n: Node): string {
  if ('leaf' in n) return n.leaf;
  if ('key' in n) return `${n.key}.${brief(n.child)}`;
  const text = full(n);
  return text.length <= SHORT ? text : `{${n.regions.length} regions}`;
}

function sameRegions(a: readonly (readonly [string, Node])[], b: readonly (readonly [string, Node])[]): boolean {
  return a.length === b.length && a.every(([k], i) => b[i]![0] === k);
}

function hasRegions(n: Node): boolean {
  return 'regions' in n || ('key' in n && hasRegions(n.child));
}

/** Where two values differ: down their common path to parallel regions, per changed region; else whole. */
type Diff = { readonly whole: readonly [Node, Node] } | { readonly key: string; readonly inner: Diff } | { readonly regions: readonly (readonly [string, Diff])[] };

function diff(a: Node, b: Node): Diff {
  if ('key' in a && 'key' in b && a.key === b.key && hasRegions(a.child) && hasRegions(b.child)) return { key: a.key, inner: diff(a.child, b.child) };
  if ('regions' in a && 'regions' in b && sameRegions(a.regions, b.regions)) {
    return { regions: a.regions.flatMap(([k, v], i) => (full(v) === full(b.regions[i]![1]) ? [] : [[k, diff(v, b.regions[i]![1])] as const])) };
  }
  return { whole: [a, b] };
}

/** A diff in words: `key.{region: from → to, …}` (`sep`/`leaf` say how a region and a whole change print). */
function render(d: Diff, leaf: (a: Node, b: Node) => string, sep: string, join: string): string {
  if ('whole' in d) return leaf(d.whole[0], d.whole[1]);
  if ('key' in d) return `${d.key}.${render(d.inner, leaf, sep, join)}`;
  return `{${d.regions.map(([k, r]) => `${k}${sep}${render(r, leaf, sep, join)}`).join(join)}}`;
}

/**
 * A state change in short: `ready → running.awaitingInput` as is, but the changed
 * regions only inside a parallel state (`executing.{LS: running → done}`), and a long
 * parallel value entered whole as its region count (`creatingPorts → executing.{3 regions}`).
 * Text that is not a state value (a reducer's own form) is printed as `from → to`.
 */
export function stateChange(from: string, to: string): string {
  const a = parse(from);
  const b = parse(to);
  if (a === undefined || b === undefined) return `${from} → ${to}`;
  return render(diff(a, b), (x, y) => `${brief(x)} → ${brief(y)}`, ': ', ', ');
}

/** The state after a change, shortened as in stateChange: only the regions the change touched (`executing.{LS:done}`). */
export function stateAfter(from: string, to: string): string {
  const a = parse(from);
  const b = parse(to);
  if (a === undefined || b === undefined) return to;
  return render(diff(a, b), (_x, y) => brief(y), ':', ',');
}
