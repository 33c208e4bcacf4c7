// Whether a state value names states a machine has: `q.matches(id, 'bookd')` on a machine
// without `bookd` is a mistake in the property, which would otherwise be silently false.
import type { AnyStateMachine } from 'xstate';

interface NodeLike {
  readonly states: Readonly<Record<string, NodeLike>>;
}

const known = new WeakMap<object, Map<string, string | undefined>>();

function walk(node: NodeLike, value: unknown, path: string): string | undefined {
  if (typeof value === 'string') {
    let n = node;
    let at = path;
    for (const seg of value.split('.')) {
      const next = n.states[seg];
      if (!next) return `'${at ? `${at}.` : ''}${seg}' is not a state (${Object.keys(n.states).length ? `${at ? `'${at}' has` : 'the machine has'} ${Object.keys(n.states).map((k) => `'${k}'`).join(', ')}` : `'${at}' has no child states`})`;
      n = next;
      at = at ? `${at}.${seg}` : seg;
    }
    return undefined;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      const child = node.states[k];
      if (!child) return walk(node, k, path);
      const p = walk(child, v, path ? `${path}.${k}` : k);
      if (p) return p;
    }
    return undefined;
  }
  return `${JSON.stringify(value) ?? String(value)} is not a state value (a state name, a dotted path or an object of them)`;
}

/** Why `value` does not name states of `machine`, or undefined when it does. */
export function stateValueProblem(machine: AnyStateMachine, value: unknown): string | undefined {
  const root = machine.root as unknown as NodeLike;
  if (typeof value !== 'string') return walk(root, value, '');
  let byValue = known.get(machine);
  if (!byValue) known.set(machine, (byValue = new Map()));
  if (!byValue.has(value)) byValue.set(value, walk(root, value, ''));
  return byValue.get(value);
}
