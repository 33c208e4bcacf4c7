// Positions for a statechart drawing, computed with dagre (a layered graph layout,
// compound nodes for nested states). Dagre cannot attach an edge to a compound node,
// so each compound state gets an invisible anchor inside it and a title node on top;
// an edge to or from a compound state is routed to its anchor and cut at its border.
import { createRequire } from 'node:module';
import { allStates, type ChartState, type ChartTransition, type MachineChart } from './chart.ts';

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface LaidState extends Box {
  readonly path: string;
  readonly label: string;
  readonly type: ChartState['type'];
  /** A compound or parallel state (drawn as a frame around its children). */
  readonly cluster: boolean;
  /** A region of a parallel state (drawn dashed). */
  readonly region: boolean;
  /** Where a cluster's name is drawn (machine-level transitions start there). */
  readonly title?: Box;
}

export interface LaidEdge {
  /** Index of the (first) transition in the chart; -1 for an initial-state arrow. */
  readonly index: number;
  /** Every transition this arrow stands for (transitions between the same two states share one). */
  readonly indices?: readonly number[];
  /** The arrow; empty for an internal transition (drawn as its label inside the state's frame). */
  readonly points: readonly (readonly [number, number])[];
  readonly label?: Box & { readonly text: string };
}

export interface ChartLayout {
  readonly width: number;
  readonly height: number;
  readonly states: readonly LaidState[];
  /** Initial pseudo-states (the black dots), one per compound state with an initial child. */
  readonly starts: readonly (Box & { readonly of: string })[];
  readonly edges: readonly LaidEdge[];
}

/** Monospace 11px text: about 6.7 px a character. */
export const CHAR_W = 6.7;
const STATE_H = 28;
const TITLE_H = 16;
const LABEL_H = 14;

const nodeId = (path: string) => `s:${path}`;
const anchorId = (path: string) => `a:${path}`;
const titleId = (path: string) => `t:${path}`;
const startId = (path: string) => `i:${path}`;

/** Breaks a label into lines of about 40 characters, at ', '. */
function wrap(text: string, max = 40): string {
  const parts = text.split(', ');
  const lines: string[] = [];
  let line = '';
  for (const p of parts) {
    if (line && line.length + 2 + p.length > max) {
      lines.push(`${line},`);
      line = p;
    } else line = line ? `${line}, ${p}` : p;
  }
  lines.push(line);
  return lines.join('\n');
}

/** Cuts a polyline where it crosses a box's border, keeping the part outside (`end`: the tail). */
function clipAt(points: { x: number; y: number }[], b: Box, end: 'head' | 'tail'): { x: number; y: number }[] {
  const inside = (p: { x: number; y: number }) => p.x > b.x && p.x < b.x + b.w && p.y > b.y && p.y < b.y + b.h;
  const pts = end === 'head' ? [...points] : [...points].reverse();
  let k = 0;
  while (k < pts.length - 1 && inside(pts[k + 1]!)) k++;
  if (k === 0 && !inside(pts[0]!)) return points;
  const a = pts[k]!;
  const c = pts[k + 1] ?? a;
  // Walk from a (inside) to c (outside) and stop at the border.
  let t0 = 0;
  let t1 = 1;
  for (let i = 0; i < 30; i++) {
    const t = (t0 + t1) / 2;
    if (inside({ x: a.x + (c.x - a.x) * t, y: a.y + (c.y - a.y) * t })) t0 = t;
    else t1 = t;
  }
  const cut = { x: a.x + (c.x - a.x) * t1, y: a.y + (c.y - a.y) * t1 };
  const rest = [cut, ...pts.slice(k + 1)];
  return end === 'head' ? rest : rest.reverse();
}

/** How far a box is from a polyline (0: the line touches or crosses it). */
export function distance(b: Box, pts: readonly (readonly [number, number])[]): number {
  let best = Infinity;
  for (let i = 0; i + 1 < pts.length; i++) {
    const [x1, y1] = pts[i]!;
    const [x2, y2] = pts[i + 1]!;
    for (let k = 0; k <= 20; k++) {
      const x = x1 + ((x2 - x1) * k) / 20;
      const y = y1 + ((y2 - y1) * k) / 20;
      best = Math.min(best, Math.hypot(Math.max(b.x - x, 0, x - (b.x + b.w)), Math.max(b.y - y, 0, y - (b.y + b.h))));
    }
  }
  return best;
}

const hits = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** A spot for `label` centred on the polyline, away from the `taken` boxes (which it joins); its old spot if none is free. */
function onLine(label: Box, pts: readonly (readonly [number, number])[], taken: Box[]): { x: number; y: number } {
  const len: number[] = [0];
  for (let i = 1; i < pts.length; i++) len.push(len[i - 1]! + Math.hypot(pts[i]![0] - pts[i - 1]![0], pts[i]![1] - pts[i - 1]![1]));
  const total = len[len.length - 1]!;
  const at = (t: number): [number, number] => {
    const d = t * total;
    let i = 1;
    while (i < len.length - 1 && len[i]! < d) i++;
    const seg = len[i]! - len[i - 1]! || 1;
    const u = (d - len[i - 1]!) / seg;
    return [pts[i - 1]![0] + (pts[i]![0] - pts[i - 1]![0]) * u, pts[i - 1]![1] + (pts[i]![1] - pts[i - 1]![1]) * u];
  };
  // Along the line from its middle outwards; then beside it, still touching it.
  const ts = Array.from({ length: 19 }, (_, k) => 0.5 + (k % 2 ? 1 : -1) * Math.ceil(k / 2) * 0.05);
  for (const [ox, oy] of [[0, 0], [label.w / 2 - 1, 0], [-label.w / 2 + 1, 0], [0, label.h / 2 - 1], [0, -label.h / 2 + 1]] as const) {
    for (const t of ts) {
      const [cx, cy] = at(t);
      const b = { x: cx + ox - label.w / 2, y: cy + oy - label.h / 2, w: label.w, h: label.h };
      if (!taken.some((o) => hits(b, o))) {
        taken.push(b);
        return { x: b.x, y: b.y };
      }
    }
  }
  taken.push(label);
  return { x: label.x, y: label.y };
}

/** Lays a chart out top to bottom. Deterministic: the same chart gives the same layout. */
export function layoutChart(chart: MachineChart, title = chart.id): ChartLayout {
  const dagre = loadDagre();
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 34, edgesep: 22, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const states = allStates(chart);
  const byPath = new Map(states.map((s) => [s.path, s]));
  const isCluster = (s: ChartState) => s.children.length > 0 || s === chart.root;
  const labelOf = (s: ChartState) => (s === chart.root ? title : s.type === 'history' ? (s.history === 'deep' ? 'H*' : 'H') : s.key);
  // The node an edge attaches to: the state itself, or the anchor inside a compound state.
  // A machine-level transition (`on` at the root: from any state) starts at the machine's title.
  const endOf = (path: string) => (path === '' ? titleId('') : isCluster(byPath.get(path)!) ? anchorId(path) : nodeId(path));
  // Compound states some transition starts or ends at (they need an anchor). The title
  // sits above everything in its frame (helper edges of weight 1: weight 0 trips dagre).
  // A compound state's transitions that stay in it (no target, or itself) are listed
  // inside its frame as internal transitions (`↻ Event`), each a box of its own.
  const internal = new Set(chart.transitions.filter((t) => isCluster(byPath.get(t.source)!) && t.targets.every((x) => x === t.source)).map((t) => t.index));
  const anchored = new Set<string>();
  for (const t of chart.transitions) if (!internal.has(t.index)) for (const p of [t.source, ...t.targets]) if (p !== '' && isCluster(byPath.get(p)!)) anchored.add(p);
  for (const s of states) if (s.initial !== undefined && isCluster(byPath.get(s.initial)!)) anchored.add(s.initial);
  for (const s of states) {
    const parent = s === chart.root ? undefined : nodeId(s.path.includes('.') ? s.path.slice(0, s.path.lastIndexOf('.')) : '');
    if (isCluster(s)) {
      g.setNode(nodeId(s.path), { width: 0, height: 0 });
      const label = labelOf(s);
      g.setNode(titleId(s.path), { width: Math.max(30, label.length * CHAR_W + 8), height: TITLE_H });
      g.setParent(titleId(s.path), nodeId(s.path));
      if (anchored.has(s.path)) {
        g.setNode(anchorId(s.path), { width: 1, height: 1 });
        g.setParent(anchorId(s.path), nodeId(s.path));
        g.setEdge(titleId(s.path), anchorId(s.path), { weight: 1, minlen: 1 }, 'title-anchor');
      }
      for (const c of s.children) if (!isCluster(c)) g.setEdge(titleId(s.path), nodeId(c.path), { weight: 1, minlen: 1 }, `title-${c.path}`);
      if (s.initial !== undefined) {
        g.setNode(startId(s.path), { width: 10, height: 10 });
        g.setParent(startId(s.path), nodeId(s.path));
        g.setEdge(titleId(s.path), startId(s.path), { weight: 1, minlen: 1 }, 'title-start');
        g.setEdge(startId(s.path), endOf(s.initial), { weight: 2, minlen: 1 }, 'initial');
      }
    } else {
      const label = labelOf(s);
      g.setNode(nodeId(s.path), { width: Math.max(s.type === 'history' ? 24 : 56, label.length * CHAR_W + 20), height: s.type === 'history' ? 24 : STATE_H });
    }
    if (parent !== undefined) g.setParent(nodeId(s.path), parent);
  }
  // Regions of a parallel state side by side make a wide thin strip (a region per
  // operator): each region's title is ranked below everything of the region before.
  for (const s of states) {
    if (s.type !== 'parallel') continue;
    const regions = s.children.filter(isCluster);
    for (let i = 1; i < regions.length; i++) {
      const prev = regions[i - 1]!;
      const depth = allStates({ id: '', root: prev, transitions: [] }).length;
      g.setEdge(titleId(prev.path), titleId(regions[i]!.path), { weight: 1, minlen: depth + 1 }, `stack-${regions[i]!.path}`);
    }
  }
  // Transitions between the same two boxes share one arrow (or, staying in a compound
  // state, one box of internal transitions under its title): one label, a line per few events.
  const groups = new Map<string, { from: string; to: string; internal: boolean; ts: ChartTransition[] }>();
  for (const t of chart.transitions) {
    const inner = internal.has(t.index);
    const from = inner ? t.source : endOf(t.source);
    const to = inner ? t.source : t.targets.length ? endOf(t.targets[0]!) : from;
    const key = `${inner ? 'i' : 'e'}|${from}|${to}`;
    const grp = groups.get(key) ?? { from, to, internal: inner, ts: [] };
    grp.ts.push(t);
    groups.set(key, grp);
  }
  const labelOfGroup = (ts: readonly ChartTransition[], inner: boolean) => wrap(`${inner ? '↻ ' : ''}${ts.map((t) => t.label).join(', ')}`);
  let k = 0;
  const named: { name: string; grp: { from: string; to: string; internal: boolean; ts: ChartTransition[] }; text: string }[] = [];
  for (const grp of groups.values()) {
    const name = `g${k++}`;
    const text = labelOfGroup(grp.ts, grp.internal);
    const lines = text.split('\n');
    const w = Math.max(...lines.map((l) => l.length)) * CHAR_W + 6;
    const h = lines.length * LABEL_H;
    named.push({ name, grp, text });
    if (grp.internal) {
      g.setNode(`l:${name}`, { width: w, height: h });
      g.setParent(`l:${name}`, nodeId(grp.from));
      g.setEdge(titleId(grp.from), `l:${name}`, { weight: 2, minlen: 1 }, 'internal');
    } else g.setEdge(grp.from, grp.to, { width: w, height: h, labelpos: 'c', minlen: 1, weight: 1 }, name);
  }
  dagre.layout(g);

  const boxOf = (id: string): Box => {
    const n = g.node(id) as { x: number; y: number; width: number; height: number };
    return { x: n.x - n.width / 2, y: n.y - n.height / 2, w: n.width, h: n.height };
  };
  const laid: LaidState[] = [];
  const frames = new Map<string, Box>();
  for (const s of states) {
    const b = boxOf(nodeId(s.path));
    frames.set(s.path, b);
    const parent = s.path === '' ? undefined : byPath.get(s.path.includes('.') ? s.path.slice(0, s.path.lastIndexOf('.')) : '');
    laid.push({ ...b, path: s.path, label: labelOf(s), type: s.type, cluster: isCluster(s), region: parent?.type === 'parallel', ...(isCluster(s) ? { title: boxOf(titleId(s.path)) } : {}) });
  }
  const starts = states.filter((s) => isCluster(s) && s.initial !== undefined).map((s) => ({ ...boxOf(startId(s.path)), of: s.path }));
  const edges: LaidEdge[] = [];
  const route = (name: string, v: string, w: string, sourcePath: string | undefined, targetPath: string | undefined) => {
    const e = g.edge({ v, w, name }) as { points: { x: number; y: number }[]; x?: number; y?: number; width?: number; height?: number } | undefined;
    if (!e) return undefined;
    let pts = e.points.map((p) => ({ ...p }));
    if (sourcePath !== undefined && v.startsWith('a:') && v !== w) pts = clipAt(pts, frames.get(sourcePath)!, 'head');
    if (targetPath !== undefined && w.startsWith('a:') && v !== w) pts = clipAt(pts, frames.get(targetPath)!, 'tail');
    return { e, pts: pts.map((p) => [p.x, p.y] as const) };
  };
  for (const s of starts) {
    const st = byPath.get(s.of)!;
    const r = route('initial', startId(s.of), endOf(st.initial!), undefined, st.initial);
    if (r) edges.push({ index: -1, points: r.pts });
  }
  // Labels placed so far and the atomic states: a label moved onto its clipped edge must miss them.
  const taken: Box[] = laid.filter((s) => !s.cluster).map((s) => ({ x: s.x, y: s.y, w: s.w, h: s.h }));
  const moved: (() => void)[] = [];
  for (const { name, grp, text } of named) {
    const indices = grp.ts.map((t) => t.index);
    if (grp.internal) {
      edges.push({ index: indices[0]!, indices, points: [], label: { ...boxOf(`l:${name}`), text } });
      continue;
    }
    const t0 = grp.ts[0]!;
    const r = route(name, grp.from, grp.to, t0.source, t0.targets[0] ?? t0.source);
    if (!r) continue;
    const { e } = r;
    let pts = r.pts;
    const lw = e.width ?? 10;
    const lh = e.height ?? LABEL_H;
    const label = { x: (e.x ?? pts[0]![0]) - lw / 2, y: (e.y ?? pts[0]![1]) - lh / 2, w: lw, h: lh, text };
    if (grp.from === grp.to && !grp.from.startsWith('a:')) {
      // A self-loop: out of the state's side to its label and back in, on the label's side.
      const b = boxOf(grp.from);
      const right = label.x >= b.x + b.w / 2;
      const sx = right ? b.x + b.w : b.x;
      const lx = right ? label.x + 1 : label.x + label.w - 1;
      const ly = label.y + label.h / 2;
      pts = [[sx, b.y + b.h * 0.25], [lx, ly - 5], [lx, ly + 5], [sx + (right ? 1 : -1), b.y + b.h * 0.75]];
    }
    const edge = { index: indices[0]!, indices, points: pts, label };
    edges.push(edge);
    // Cut at a compound state's frame, the edge may have left its label behind inside the
    // frame: such labels move onto what is left of the edge, once every label is known.
    if (pts.length > 1 && distance(label, pts) > 1) moved.push(() => (edge.label = { ...label, ...onLine(label, pts, taken) }));
    else taken.push(label);
  }
  for (const m of moved) m();
  const gg = g.graph() as { width?: number; height?: number };
  return { width: Math.ceil(gg.width ?? 100), height: Math.ceil(gg.height ?? 60), states: laid, starts, edges };
}

let dagreModule: typeof import('@dagrejs/dagre') | undefined;

/** dagre, loaded on the first drawing: a check that writes its viewer without charts never needs it. */
function loadDagre(): typeof import('@dagrejs/dagre') {
  return (dagreModule ??= createRequire(import.meta.url)('@dagrejs/dagre') as typeof import('@dagrejs/dagre'));
}
