// The lint half of the purity check: module-level state that machine code writes.
// The checker re-steps sampled transitions from the same world and compares, which
// sees a clock, randomness or a counter that changes between two runs; state shared
// between actors outside their snapshots and written once (a module-level Map one
// actor's action fills and another's guard reads) agrees on every re-step, and the
// fresh-copy replays see it only for the scenario's own module, short schedules, and a
// check that knows the module.
// A function that writes a module-level binding, or mutates the object one holds, is
// the mark of such state; this rule reports each such write.

/** The few ESTree node fields the rule reads. */
interface Node {
  readonly type: string;
  readonly parent?: Node;
  readonly [k: string]: unknown;
}

/** The parts of ESLint's scope manager the rule reads. */
interface Scope {
  readonly type: string;
  readonly block: Node;
  readonly variableScope: Scope;
  readonly variables: readonly Variable[];
  readonly childScopes: readonly Scope[];
}
interface Variable {
  readonly name: string;
  readonly defs: readonly { readonly type: string; readonly node: Node; readonly parent?: Node }[];
  readonly references: readonly Reference[];
}
interface Reference {
  readonly identifier: Node;
  readonly from: Scope;
  readonly init?: boolean;
  isWrite(): boolean;
}

/** What ESLint hands a rule's `create` (only what this rule uses). */
export interface RuleContext {
  /** The file's source: its scope manager. */
  readonly sourceCode: {
    /** The innermost scope around `node`. */
    getScope(node: unknown): unknown;
  };
  /** Reports a problem at a node. */
  report(problem: { node: unknown; messageId: string; data: Record<string, string> }): void;
}

/** A rule's metadata, as ESLint reads it. */
export interface LintRuleMeta {
  /** Always `'problem'`: the code is wrong, not merely unusual. */
  readonly type: 'problem';
  /** What the rule is for. */
  readonly docs: {
    /** One line. */
    readonly description: string;
  };
  /** The rule's options: none. */
  readonly schema: readonly unknown[];
  /** Its messages by id. */
  readonly messages: Readonly<Record<string, string>>;
}

/** An ESLint rule, typed structurally so the package needs no `eslint` types. */
export interface LintRule {
  /** The rule's metadata: its kind, docs and messages. */
  readonly meta: LintRuleMeta;
  /** The visitors for one file. */
  create(context: RuleContext): Record<string, (node: never) => void>;
}

/** Methods that change the Map, Set, array or object they are called on. */
const MUTATORS = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin', 'assign', 'defineProperty']);

const WRAPPERS = new Set(['TSAsExpression', 'TSNonNullExpression', 'TSTypeAssertion', 'TSSatisfiesExpression']);

/** How a reference changes what the module-level binding holds, or undefined for a plain read. */
function mutation(ref: Reference): string | undefined {
  if (ref.isWrite() && !ref.init) return 'assigned';
  let id = ref.identifier;
  // `(shared as Map<...>).set(...)`, `shared!.x = 1`: look through type-only wrappers.
  while (id.parent && WRAPPERS.has(id.parent.type)) id = id.parent;
  const p = id.parent;
  if (!p) return undefined;
  // Object.assign(shared, ...), Reflect.set(shared, ...): the binding as the first argument.
  if (p.type === 'CallExpression' && (p.arguments as Node[])[0] === id) {
    const callee = p.callee as Node;
    if (callee.type === 'MemberExpression' && (callee.object as Node).type === 'Identifier' && ['Object', 'Reflect'].includes((callee.object as Node).name as string)) {
      const prop = callee.property as Node;
      if (prop.type === 'Identifier' && ['assign', 'defineProperty', 'set', 'deleteProperty'].includes(prop.name as string)) return `changed by ${(callee.object as Node).name as string}.${prop.name as string}`;
    }
  }
  if (p.type !== 'MemberExpression' || p.object !== id) return undefined;
  let top: Node = p;
  while (top.parent && top.parent.type === 'MemberExpression' && top.parent.object === top) top = top.parent;
  const up = top.parent;
  if (!up) return undefined;
  if (up.type === 'AssignmentExpression' && up.left === top) return 'changed by an assignment to a property';
  if (up.type === 'UpdateExpression' && up.argument === top) return `changed by ${up.operator as string}`;
  if (up.type === 'UnaryExpression' && up.operator === 'delete') return 'changed by delete';
  if (up.type === 'CallExpression' && up.callee === top && top === p) {
    const prop = p.property as Node;
    const name = prop.type === 'Identifier' && !p.computed ? (prop.name as string) : undefined;
    if (name !== undefined && MUTATORS.has(name)) return `changed by .${name}()`;
  }
  return undefined;
}

/** True when the reference is inside a function (a guard, an action, a reducer), not at module level. */
function inFunction(ref: Reference, moduleScope: Scope): boolean {
  return ref.from.variableScope !== moduleScope.variableScope;
}

/**
 * `interleave/no-module-state`: reports every write, inside a function, to a binding
 * declared at module level (`let seen = 0` then `++seen` in a guard) and every change
 * of the object such a binding holds (`shared.set('x', 1)` in an action). Machines
 * must keep their state in their snapshot, where the checker sees it.
 */
export const noModuleState: LintRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Machine and reducer code must not keep state outside their snapshots: module-level state written inside a function is invisible to the checker' },
    schema: [],
    messages: {
      state:
        "'{{name}}' is module-level state {{how}} inside a function: actors that share it, or a step that reads it, make the checker's verdict depend on the order it explored steps in. Keep the state in the machine's context (or a reducer's state) and pass it between actors in messages.",
    },
  },
  create(context) {
    return {
      'Program:exit'(program: never) {
        const global = context.sourceCode.getScope(program) as Scope;
        // An ES module's bindings live in the module scope under the global one.
        const moduleScope = global.childScopes.find((s) => s.type === 'module') ?? global;
        for (const v of moduleScope.variables) {
          if (v.defs.some((d) => d.type === 'ImportBinding' || d.type === 'FunctionName' || d.type === 'ClassName' || d.type === 'Type')) continue;
          for (const ref of v.references) {
            if (!inFunction(ref, moduleScope)) continue;
            const how = mutation(ref);
            if (how !== undefined) context.report({ node: ref.identifier, messageId: 'state', data: { name: v.name, how } });
          }
        }
      },
    };
  },
};
