// Local eslint rules for src/machines: the protocol actors are statecharts, so the
// control flow lives in the chart. Two shapes hide it and are forbidden:
// - a wildcard event handler (`on: { '*': … }` or `'foo.*'`), which takes every
//   message in every state, so a message the protocol does not expect is never
//   reported as unhandled by the kernel;
// - a transition whose guard only compares `context.phase` (or `context.state`,
//   `context.mode`) with its target, which makes the states a mirror of a field the
//   actions set instead of the protocol's phases.

const MIRRORED = new Set(['phase', 'state', 'mode', 'stage']);
const CONTEXTS = new Set(['context', 'ctx', 'c']);

function keyName(prop) {
  if (prop.type !== 'Property' || prop.computed) return undefined;
  if (prop.key.type === 'Identifier') return prop.key.name;
  if (prop.key.type === 'Literal') return String(prop.key.value);
  return undefined;
}

function propOf(obj, name) {
  return obj.properties.find((p) => keyName(p) === name);
}

/** True when `node` reads `<something>.phase` (or another mirrored field) of the context. */
function readsMirrored(node) {
  if (node.type !== 'MemberExpression' || node.computed || node.property.type !== 'Identifier') return false;
  if (!MIRRORED.has(node.property.name)) return false;
  const o = node.object;
  // context.phase (also ctx / c, the usual names of a context parameter) or <args>.context.phase; never event.phase
  return (o.type === 'Identifier' && CONTEXTS.has(o.name)) || (o.type === 'MemberExpression' && !o.computed && o.property.type === 'Identifier' && o.property.name === 'context');
}

/** The comparisons in a guard function's body that test a mirrored field. */
function mirrorComparison(fn) {
  if (fn.type !== 'ArrowFunctionExpression' && fn.type !== 'FunctionExpression') return undefined;
  let body = fn.body;
  if (body.type === 'BlockStatement') {
    if (body.body.length !== 1 || body.body[0].type !== 'ReturnStatement' || !body.body[0].argument) return undefined;
    body = body.body[0].argument;
  }
  const isCmp = (e) => e.type === 'BinaryExpression' && ['===', '!==', '==', '!='].includes(e.operator) && (readsMirrored(e.left) || readsMirrored(e.right));
  if (isCmp(body)) return body;
  // Also a conjunction or disjunction of such comparisons (`phase === 'a' || phase === 'b'`).
  const all = (e) => (e.type === 'LogicalExpression' ? all(e.left) && all(e.right) : isCmp(e));
  return body.type === 'LogicalExpression' && all(body) ? body : undefined;
}

const noWildcardOn = {
  meta: {
    type: 'problem',
    docs: { description: "forbid wildcard ('*') event handlers in machine `on` maps" },
    messages: {
      wildcard:
        "wildcard event handler '{{key}}' in `on`: every message is then handled in every state, so one the protocol does not expect is never reported as unhandled. Name the events each state accepts.",
    },
    schema: [],
  },
  create(context) {
    return {
      Property(node) {
        if (keyName(node) !== 'on' || node.value.type !== 'ObjectExpression') return;
        for (const p of node.value.properties) {
          const k = keyName(p);
          if (k !== undefined && (k === '*' || k.endsWith('.*'))) context.report({ node: p, messageId: 'wildcard', data: { key: k } });
        }
      },
    };
  },
};

const noPhaseMirroring = {
  meta: {
    type: 'problem',
    docs: { description: 'forbid transitions whose guard only compares context.phase (states mirroring a context field)' },
    messages: {
      mirror:
        'transition guarded only by `{{text}}`: the states mirror a context field the actions set. Move the control flow into the chart: transition on the named event to the state the protocol enters.',
    },
    schema: [],
  },
  create(context) {
    const source = context.sourceCode ?? context.getSourceCode();
    return {
      // A named guard (setup({ guards: { name: fn } })) that only compares a mirrored field.
      'CallExpression[callee.name="setup"] > ObjectExpression > Property[key.name="guards"] > ObjectExpression > Property'(node) {
        const cmp = mirrorComparison(node.value);
        if (cmp) context.report({ node, messageId: 'mirror', data: { text: source.getText(cmp) } });
      },
      ObjectExpression(node) {
        const guard = propOf(node, 'guard');
        if (!guard || !propOf(node, 'target')) return;
        const cmp = mirrorComparison(guard.value);
        if (cmp) context.report({ node: guard, messageId: 'mirror', data: { text: source.getText(cmp) } });
      },
    };
  },
};

export default {
  meta: { name: 'interleave-machines' },
  rules: { 'no-wildcard-on': noWildcardOn, 'no-phase-mirroring': noPhaseMirroring },
};
