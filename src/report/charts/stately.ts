// A machine's definition as the JSON config Stately's tools import (and `createMachine`
// takes): states, `on`, `after`, `always`, targets as `#id` references, guards and
// actions by name. Inline functions have no name to carry, so an inline guard is
// exported as the string "guard", and inline actions and xstate's built-in actions
// (assign, sendTo, raise) are left out: the chart's shape
// (states, events, guards by name, targets) round-trips, the implementations do not.
import type { AnyStateMachine } from 'xstate';
import { guardText } from './chart.ts';

/** A JSON value (what `statelyJson` returns is made of these). */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Node = AnyStateMachine['root'];
interface TransitionLike {
  readonly target?: readonly Node[] | undefined;
  readonly guard?: unknown;
  readonly actions?: readonly unknown[];
  readonly reenter?: boolean;
}

function actionName(x: unknown): string | undefined {
  if (typeof x === 'string') return x;
  if (typeof x === 'object' && x !== null && typeof (x as { type?: unknown }).type === 'string') return (x as { type: string }).type;
  // xstate's built-in action creators (assign, sendTo, raise…) are functions with a `type`.
  if (typeof x === 'function' && typeof (x as unknown as { type?: unknown }).type === 'string') return (x as unknown as { type: string }).type;
  return undefined;
}

/** Named actions only: inline functions and xstate's built-ins (assign, sendTo…) have no name to import by. */
function names(xs: readonly unknown[] | undefined): string[] {
  return (xs ?? []).map(actionName).filter((n): n is string => n !== undefined && !n.startsWith('xstate.'));
}

function transitionJson(t: TransitionLike): { [k: string]: Json } {
  const o: { [k: string]: Json } = {};
  const targets = (t.target ?? []).map((n) => `#${n.id}`);
  if (targets.length === 1) o.target = targets[0]!;
  else if (targets.length > 1) o.target = targets;
  const g = guardText(t.guard);
  if (g !== undefined) o.guard = g;
  const acts = names(t.actions);
  if (acts.length) o.actions = acts;
  if (t.reenter) o.reenter = true;
  return o;
}

function nodeJson(n: Node): { [k: string]: Json } {
  const o: { [k: string]: Json } = { id: n.id };
  if (n.type === 'parallel' || n.type === 'final' || n.type === 'history') o.type = n.type;
  if (n.type === 'history' && n.history) o.history = n.history;
  if (n.type === 'compound') {
    const init = n.initial?.target?.[0];
    if (init) o.initial = init.key;
  }
  const delays = new Map<string, unknown>(n.after.map((d) => [d.eventType, d.delay]));
  const on: { [k: string]: Json } = {};
  const after: { [k: string]: Json } = {};
  for (const [eventType, ts] of n.transitions) {
    const list = ts.map((t) => transitionJson(t as TransitionLike));
    if (delays.has(eventType)) {
      const d = delays.get(eventType);
      after[typeof d === 'number' || typeof d === 'string' ? String(d) : 'delay'] = list;
    } else on[eventType] = list;
  }
  if (Object.keys(on).length) o.on = on;
  if (Object.keys(after).length) o.after = after;
  if (n.always?.length) o.always = n.always.map((t) => transitionJson(t as TransitionLike));
  const entry = names(n.entry);
  const exit = names(n.exit);
  if (entry.length) o.entry = entry;
  if (exit.length) o.exit = exit;
  if (n.tags.length) o.tags = [...n.tags];
  if (n.description) o.description = n.description;
  const children = Object.entries(n.states);
  if (children.length) o.states = Object.fromEntries(children.map(([k, c]) => [k, nodeJson(c)]));
  return o;
}

/** The machine's config as JSON: `createMachine(stately(m))` has the same states and transitions. */
export function statelyJson(machine: AnyStateMachine): { [k: string]: Json } {
  return nodeJson(machine.root);
}
