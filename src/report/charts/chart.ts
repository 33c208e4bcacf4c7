// A machine's statechart as plain data: its state tree and its transitions (event,
// guard, targets, `after` timers, eventless `always`). Mermaid, the SVG layout, the
// viewer's highlighting and the Stately JSON export all read this one model, so they
// agree on what a transition is.
import type { AnyStateMachine } from 'xstate';

/** The kind of a statechart node, as xstate names it. */
export type StateKind = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** One state of a statechart, with its children. */
export interface ChartState {
  /** Dotted path from the root ('' for the root itself): `running.fetching`. */
  readonly path: string;
  /** The state's own name (the last part of `path`). */
  readonly key: string;
  /** Its kind. */
  readonly type: StateKind;
  /** The initial child's path (compound states). */
  readonly initial?: string;
  /** The history kind, for history states. */
  readonly history?: 'shallow' | 'deep';
  /** Its xstate tags. */
  readonly tags: readonly string[];
  /** Its child states, in definition order. */
  readonly children: readonly ChartState[];
}

/** One transition of a statechart. */
export interface ChartTransition {
  /** Index in `MachineChart.transitions`. */
  readonly index: number;
  /** The path of the state it leaves from. */
  readonly source: string;
  /** Target state paths; empty for a targetless transition (actions only). */
  readonly targets: readonly string[];
  /** An event transition (`on`), a delayed one (`after`) or an eventless one (`always`). */
  readonly kind: 'on' | 'after' | 'always';
  /** The event type (`''` for `always`, the delay text for `after`). */
  readonly event: string;
  /** The guard's name or text, if guarded. */
  readonly guard?: string;
  /** `event [guard]`, `after 500ms [guard]`, `[guard]` for always. */
  readonly label: string;
}

/** A machine's statechart as plain data (`chartOf`): its state tree and transitions. */
export interface MachineChart {
  /** The machine's id. */
  readonly id: string;
  /** The root state. */
  readonly root: ChartState;
  /** Every transition, indexed by `ChartTransition.index`. */
  readonly transitions: readonly ChartTransition[];
  /** The machine's initial context, when its config gives one as an object (not a function of the input). */
  readonly context?: Readonly<Record<string, unknown>>;
}

type Node = AnyStateMachine['root'];

/** A guard as a reader would write it: `name`, `!name`, `a && b`, `a || b`, `in(#x)`. */
export function guardText(g: unknown): string | undefined {
  if (g === undefined || g === null) return undefined;
  if (typeof g === 'string') return g;
  if (typeof g === 'function') {
    const f = g as { guards?: unknown[]; check?: { name?: string }; stateValue?: unknown; name?: string };
    const check = f.check?.name ?? '';
    const parts = (f.guards ?? []).map((x) => guardText(x) ?? '?');
    if (/Not$/.test(check) && parts.length === 1) return `!${parts[0]}`;
    if (/And$/.test(check)) return parts.map((p) => (/[&|]/.test(p) ? `(${p})` : p)).join(' && ');
    if (/Or$/.test(check)) return parts.map((p) => (/[&|]/.test(p) ? `(${p})` : p)).join(' || ');
    if (/StateIn$/.test(check)) return `in(${typeof f.stateValue === 'string' ? f.stateValue : JSON.stringify(f.stateValue)})`;
    return f.name && f.name !== 'guard' ? f.name : 'guard';
  }
  if (typeof g === 'object' && typeof (g as { type?: unknown }).type === 'string') return (g as { type: string }).type;
  return 'guard';
}

function delayText(d: unknown): string {
  if (typeof d === 'number') return `${d}ms`;
  if (typeof d === 'string') return /^\d+$/.test(d) ? `${d}ms` : d;
  return 'delay';
}

const pathOf = (n: { path: readonly string[] }) => n.path.join('.');

/** Reads a machine's state tree and transitions (document order) into a `MachineChart`. */
export function chartOf(machine: AnyStateMachine, id: string = machine.id): MachineChart {
  const transitions: ChartTransition[] = [];
  const add = (t: Omit<ChartTransition, 'index' | 'label'>) => {
    const g = t.guard ? ` [${t.guard}]` : '';
    const label = t.kind === 'always' ? (t.guard ? `[${t.guard}]` : 'always') : t.kind === 'after' ? `after ${t.event}${g}` : `${t.event}${g}`;
    transitions.push({ ...t, index: transitions.length, label });
  };
  const walk = (n: Node): ChartState => {
    const path = pathOf(n);
    const delays = new Map<string, unknown>(n.after.map((d) => [d.eventType, d.delay]));
    for (const [eventType, ts] of n.transitions) {
      for (const t of ts) {
        const targets = (t.target ?? []).map((x) => pathOf(x));
        const guard = guardText(t.guard);
        if (delays.has(eventType)) add({ source: path, targets, kind: 'after', event: delayText(delays.get(eventType)), ...(guard ? { guard } : {}) });
        else add({ source: path, targets, kind: 'on', event: eventType, ...(guard ? { guard } : {}) });
      }
    }
    for (const t of n.always ?? []) {
      const guard = guardText(t.guard);
      add({ source: path, targets: (t.target ?? []).map((x) => pathOf(x)), kind: 'always', event: '', ...(guard ? { guard } : {}) });
    }
    const children = Object.values(n.states).map((c) => walk(c));
    const init = n.type === 'compound' ? n.initial?.target?.[0] : undefined;
    return {
      path,
      key: n.key,
      type: n.type,
      ...(init ? { initial: pathOf(init) } : {}),
      ...(n.type === 'history' && n.history ? { history: n.history } : {}),
      tags: [...n.tags],
      children,
    };
  };
  const ctx = (machine.config as { context?: unknown }).context;
  const context = typeof ctx === 'object' && ctx !== null && !Array.isArray(ctx) ? (ctx as Record<string, unknown>) : undefined;
  return { id, root: walk(machine.root), transitions, ...(context ? { context } : {}) };
}

/** A machine with no states of its own: all it has is a context and the messages it answers. */
export function contextOnly(c: MachineChart): boolean {
  return c.root.children.length === 0;
}

/** A context's keys and values, one short line each (`key: value`, values cut at `width`). */
export function contextLines(context: unknown, width = 36): string[] {
  if (typeof context !== 'object' || context === null) return context === undefined ? [] : [cutText(jsonText(context), width)];
  return Object.entries(context as Record<string, unknown>).map(([k, v]) => cutText(`${k}: ${jsonText(v)}`, width));
}

function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function cutText(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** Every state of a chart, parents before children. */
export function allStates(c: MachineChart): ChartState[] {
  const out: ChartState[] = [];
  const go = (s: ChartState) => {
    out.push(s);
    s.children.forEach(go);
  };
  go(c.root);
  return out;
}

/**
 * The active state paths of a state's text as the trace records it (`a`, `a.b`,
 * `{a:b,c:d.e}`), with every ancestor: `a.b` → [`a`, `a.b`]. Unknown syntax gives [].
 */
export function activePaths(text: string): string[] {
  const out = new Set<string>();
  let i = 0;
  const name = (): string => {
    const m = /^[^.{},:]+/.exec(text.slice(i));
    if (!m) throw new Error('state text');
    i += m[0].length;
    return m[0];
  };
  // value := '{' key ':' value (',' key ':' value)* '}' | name ('.' value)?
  const value = (prefix: string): void => {
    if (text[i] === '{') {
      i++;
      for (;;) {
        const k = name();
        const p = prefix ? `${prefix}.${k}` : k;
        out.add(p);
        if (text[i] !== ':') throw new Error('state text');
        i++;
        value(p);
        if (text[i] === ',') i++;
        else break;
      }
      if (text[i] !== '}') throw new Error('state text');
      i++;
      return;
    }
    const k = name();
    const p = prefix ? `${prefix}.${k}` : k;
    out.add(p);
    if (text[i] === '.') {
      i++;
      value(p);
    }
  };
  try {
    value('');
    return i === text.length ? [...out] : [];
  } catch {
    return [];
  }
}

/**
 * The transitions a step most likely took for one actor: on `event` (a message type, a
 * timer's `after`, or none), from a state active before to targets active after. When
 * no event-named transition fits, eventless ones that fit are returned.
 */
export function takenTransitions(c: MachineChart, before: string, after: string, event: { readonly kind: 'on' | 'after' | 'none'; readonly type?: string }): number[] {
  const was = new Set(activePaths(before));
  const now = new Set(activePaths(after));
  const fits = (t: ChartTransition) => (t.source === '' || was.has(t.source)) && (t.targets.length === 0 ? before === after || now.has(t.source) || t.source === '' : t.targets.every((x) => now.has(x)));
  const named = c.transitions.filter((t) => fits(t) && ((event.kind === 'on' && t.kind === 'on' && (t.event === event.type || t.event === '*')) || (event.kind === 'after' && t.kind === 'after')));
  // A state change with no fitting named transition came through an eventless one.
  const pick = named.length ? named : before !== after ? c.transitions.filter((t) => t.kind === 'always' && t.targets.length > 0 && fits(t)) : [];
  // Prefer the transitions that moved somewhere over the ones that stayed.
  const moving = pick.filter((t) => t.targets.length > 0 && !t.targets.every((x) => was.has(x)));
  return (moving.length ? moving : pick).map((t) => t.index);
}
