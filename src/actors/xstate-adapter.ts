// The only module that knows how xstate steps a machine. Everything else sees
// `MachineStepper`: (snapshot, event) -> (snapshot', actions as data).
// Pinned to xstate ~5.33; test/actors/xstate-adapter.test.ts is the conformance and
// differential suite that must pass before an xstate upgrade lands.
import type { AnyStateMachine, AnyMachineSnapshot, EventObject } from 'xstate';
import type { Message } from './types.ts';

/** An action the machine asked for, as data. `exec` is the implementation, if any. */
export interface CollectedAction {
  readonly type: string;
  readonly params: any;
  readonly exec?: ((info: any, params: any) => void) | undefined;
  readonly info: any;
}

export interface StepResult {
  readonly snapshot: AnyMachineSnapshot;
  readonly actions: readonly CollectedAction[];
  /** True when no transition matched the event (xstate drops such events silently). */
  readonly unhandled: boolean;
}

/** Where a `sendTo` target stub points: an actor id of the world. */
export interface AddressStub {
  readonly id: string;
  readonly sessionId: string;
  readonly __interleaveAddress: true;
  readonly _parent?: AddressStub;
  send(): never;
  readonly system: never;
}

/** A machine uses an xstate feature the kernel cannot schedule (invoke, spawn). The kernel reports it as a `ScenarioError`. */
export class UnsupportedFeatureError extends Error {
  override name = 'UnsupportedFeatureError';
}

/** What to do instead of invoke/spawn, for error messages. */
export function spawnMessage(actorId: string, what = 'creates a child actor (invoke, spawnChild or spawn in assign)'): string {
  return (
    `actor '${actorId}' ${what}; the interleave kernel keeps every actor flat in the world and cannot schedule xstate children: ` +
    `declare the child as a scenario actor and address it with send(id, msg), and model promise-like effects as messages to a storage or effect actor whose reply is a step`
  );
}

const stubs = new Map<string, AddressStub>();

/** One stub per actor id, shared by every scope, so `sendTo` params compare by identity. */
export function addressOf(id: string, parent?: string): AddressStub {
  const key = parent === undefined ? id : `${id}\u0000${parent}`;
  let stub = stubs.get(key);
  if (!stub) {
    const base: AddressStub = {
      id,
      sessionId: id,
      __interleaveAddress: true,
      ...(parent === undefined ? {} : { _parent: addressOf(parent) }),
      send(): never {
        throw new Error(`actor '${id}' is an address under the interleave kernel: send messages with actions, not by calling ref.send()`);
      },
    } as Omit<AddressStub, 'system'> as AddressStub;
    // xstate reads `parent.system` only when it creates a child actor (invoke,
    // spawnChild, spawn inside assign): reject that with a useful message rather
    // than a TypeError from deep inside xstate. Not enumerable, so printing or
    // serializing a stub does not trip it.
    Object.defineProperty(base, 'system', {
      enumerable: false,
      get(): never {
        throw new UnsupportedFeatureError(spawnMessage(id));
      },
    });
    stub = base;
    stubs.set(key, stub);
  }
  return stub;
}

export function isAddressStub(x: unknown): x is AddressStub {
  return typeof x === 'object' && x !== null && (x as AddressStub).__interleaveAddress === true;
}

const NO_ACTIONS: readonly CollectedAction[] = Object.freeze([]);

/**
 * A cached actor scope whose action executor collects actions instead of running
 * them. `self` and `system.get` resolve to address stubs, so `sendParent` and
 * `sendTo(({system}) => system.get(id))` produce `xstate.sendTo` actions whose
 * target is a world actor id.
 */
export class MachineStepper {
  private collected: CollectedAction[] | undefined;
  private readonly scope: any;
  /** Per event type: the state nodes that may take it (see `surelyUnhandled`); undefined once too many types were seen. */
  private takers: Map<string, Set<unknown>> | undefined = new Map();
  /** Tests turn the shortcut off to compare with xstate's own answer. */
  static shortcut = true;

  constructor(
    readonly machine: AnyStateMachine,
    readonly actorId: string,
    parentId?: string,
  ) {
    const self = addressOf(actorId, parentId);
    const system = {
      get: (id: string) => addressOf(id),
      getAll: () => ({}),
      _sendInspectionEvent: () => {},
      _set: () => {},
      _unregister: () => {},
      _bookId: () => actorId,
      _register: () => actorId,
      _relay: () => {
        throw new Error(`actor '${actorId}': direct relay is not available under the interleave kernel`);
      },
      scheduler: {
        schedule: () => {},
        cancel: () => {},
        cancelAll: () => {},
      },
      inspect: () => ({ unsubscribe() {} }),
    };
    this.scope = {
      self,
      id: actorId,
      sessionId: actorId,
      logger: () => {},
      defer: () => {},
      system,
      stopChild: () => {},
      emit: () => {},
      actionExecutor: (action: CollectedAction) => {
        this.collected?.push(action);
      },
    };
  }

  /** Initial snapshot plus the entry actions of the initial configuration. */
  initial(input?: unknown): StepResult {
    const actions: CollectedAction[] = [];
    this.collected = actions;
    let snapshot: AnyMachineSnapshot;
    try {
      snapshot = this.machine.getInitialSnapshot(this.scope, input) as AnyMachineSnapshot;
    } finally {
      this.collected = undefined;
    }
    return { snapshot, actions, unhandled: false };
  }

  /**
   * One macrostep. Throws whatever a guard, assign or context function throws.
   *
   * Unhandled detection: xstate returns the same snapshot and no actions when no
   * transition matches, so only then do we ask `getTransitionData` (which would
   * evaluate the guards a second time on every step). A machine that is no longer
   * active (reached a final state) takes no events: xstate's own runtime stops it,
   * so a message to it is lost and reported as unhandled.
   */
  step(snapshot: AnyMachineSnapshot, event: Message): StepResult {
    if (snapshot.status !== 'active') return { snapshot, actions: NO_ACTIONS, unhandled: true };
    if (this.surelyUnhandled(snapshot, event.type)) return { snapshot, actions: NO_ACTIONS, unhandled: true };
    const actions: CollectedAction[] = [];
    this.collected = actions;
    let next: AnyMachineSnapshot;
    try {
      next = this.machine.transition(snapshot, event as EventObject, this.scope) as AnyMachineSnapshot;
    } finally {
      this.collected = undefined;
    }
    if (next === snapshot && actions.length === 0 && this.machine.getTransitionData(snapshot, event as EventObject).length === 0) {
      return { snapshot, actions: NO_ACTIONS, unhandled: true };
    }
    return { snapshot: next, actions, unhandled: false };
  }
  /**
   * True when no active state node has a transition for `type` (by name or wildcard) nor
   * an eventless one (whose guard could read the event): xstate's macrostep then selects
   * nothing and returns the snapshot as it was, with no actions, so the step need not
   * run. Most events offered to a machine in most states are of this kind. xstate's own
   * events (stop, errors) are left to xstate.
   */
  private surelyUnhandled(snapshot: AnyMachineSnapshot, type: string): boolean {
    const takers = this.takers;
    if (takers === undefined || !MachineStepper.shortcut || type.startsWith('xstate.')) return false;
    let set = takers.get(type);
    if (set === undefined) {
      // Event types are the model's own, a handful; stop caching if a model makes them up as it goes.
      if (takers.size >= 1024) {
        this.takers = undefined;
        return false;
      }
      set = new Set();
      for (const node of stateNodeIndex(this.machine).list as any[]) {
        const always = node.always as readonly unknown[] | undefined;
        if ((always !== undefined && always.length > 0) || [...(node.transitions as Map<string, readonly unknown[]>)].some(([d, ts]) => ts.length > 0 && matchesDescriptor(type, d))) set.add(node);
      }
      takers.set(type, set);
    }
    for (const node of (snapshot as AnyMachineSnapshot & { _nodes: readonly unknown[] })._nodes) if (set.has(node)) return false;
    return true;
  }

  /**
   * A snapshot of this actor's machine rebuilt from its parts (see `snapshotParts`) through
   * xstate's own persistence API (`machine.restoreSnapshot`), so stepping it behaves as
   * stepping the original. The active state nodes keep the original's order: xstate visits
   * them in that order when it selects transitions, which orders the actions of parallel regions.
   */
  restore(parts: SnapshotParts): AnyMachineSnapshot {
    const { list } = stateNodeIndex(this.machine);
    const historyValue: Record<string, { id: string }[]> = {};
    for (const [key, ids] of parts.history) historyValue[key] = ids.map((id) => ({ id }));
    const persisted = { status: parts.status, output: parts.output, error: parts.error, context: parts.context, value: parts.value, historyValue, children: {} };
    const restored = this.machine.restoreSnapshot(persisted as never, this.scope) as AnyMachineSnapshot & { _nodes: readonly unknown[] };
    const nodes = parts.nodes.map((k) => list[k]);
    let same = nodes.length === restored._nodes.length;
    for (let k = 0; same && k < nodes.length; k++) same = nodes[k] === restored._nodes[k];
    if (same) return restored;
    const want = new Set(nodes);
    if (want.size !== restored._nodes.length || restored._nodes.some((n) => !want.has(n))) {
      throw new Error(`actor '${this.actorId}': the state value does not give the snapshot's active state nodes (corrupt snapshot parts)`);
    }
    return { ...restored, _nodes: nodes, tags: new Set(nodes.flatMap((n) => (n as { tags: string[] }).tags)) } as AnyMachineSnapshot;
  }
}

/** The parts of an xstate snapshot that decide its future, as data (to move it between processes). */
export interface SnapshotParts {
  readonly status: string;
  readonly value: unknown;
  readonly context: unknown;
  readonly output: unknown;
  readonly error: unknown;
  /** `historyValue` as (history node id, remembered state node ids), in its key order. */
  readonly history: readonly (readonly [string, readonly string[]])[];
  /** The active state nodes (`_nodes`) in their order, as positions in the machine's node list. */
  readonly nodes: readonly number[];
}

/** xstate's match of an event type against a transition's event descriptor (`a`, `*`, `a.*`). */
function matchesDescriptor(type: string, descriptor: string): boolean {
  if (descriptor === type || descriptor === '*') return true;
  if (!descriptor.endsWith('.*')) return false;
  const want = descriptor.split('.');
  const got = type.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '*') return i === want.length - 1;
    if (want[i] !== got[i]) return false;
  }
  return true;
}

const SNAPSHOT_KEYS = 'status,output,error,machine,context,_nodes,value,tags,children,historyValue,matches,hasTag,can,getMeta,toJSON';

interface NodeIndex {
  readonly list: readonly unknown[];
  readonly index: ReadonlyMap<unknown, number>;
}
const nodeIndexes = new WeakMap<AnyStateMachine, NodeIndex>();

/** Every state node of a machine, in document order (a stable numbering per machine). */
function stateNodeIndex(machine: AnyStateMachine): NodeIndex {
  let ni = nodeIndexes.get(machine);
  if (!ni) {
    const list: unknown[] = [];
    const visit = (node: any): void => {
      list.push(node);
      for (const child of Object.values(node.states as Record<string, unknown>)) visit(child);
    };
    visit(machine.root);
    ni = { list, index: new Map(list.map((n, k) => [n, k])) };
    nodeIndexes.set(machine, ni);
  }
  return ni;
}

/**
 * The parts of `snapshot` (a snapshot of `machine`) that `MachineStepper.restore` rebuilds it
 * from. Throws when the snapshot holds something the parts cannot carry: children (the
 * kernel forbids spawn), another machine's snapshot, or fields this xstate version does not have.
 */
export function snapshotParts(snapshot: AnyMachineSnapshot, machine: AnyStateMachine): SnapshotParts {
  const s = snapshot as AnyMachineSnapshot & { _nodes: readonly unknown[] };
  if (s.machine !== machine) throw new Error("it is a snapshot of another machine than the actor's");
  const keys = Object.keys(s).join(',');
  if (keys !== SNAPSHOT_KEYS) throw new Error(`its fields (${keys}) are not those of an xstate ~5.33 machine snapshot (${SNAPSHOT_KEYS})`);
  if (Object.keys(s.children).length > 0) throw new Error(`it has child actors (${Object.keys(s.children).join(', ')}); the kernel keeps every actor flat in the world`);
  const { index } = stateNodeIndex(machine);
  const history: [string, string[]][] = [];
  for (const key of Object.keys(s.historyValue ?? {})) {
    const nodes = (s.historyValue as Record<string, readonly { id: string }[]>)[key]!;
    history.push([key, nodes.map((n) => n.id)]);
  }
  const nodes = s._nodes.map((n) => {
    const k = index.get(n);
    if (k === undefined) throw new Error("an active state node is not one of the machine's");
    return k;
  });
  return { status: s.status, value: s.value, context: s.context, output: s.output, error: s.error, history, nodes };
}

/**
 * Names the first xstate feature of `machine` the kernel cannot run (an `invoke`,
 * or a `spawnChild` action in a state's entry, exit or transitions), or returns
 * undefined. Spawns hidden inside `assign` or `enqueueActions` are caught when
 * they run (see `AddressStub.system`).
 */
export function unsupportedFeature(machine: AnyStateMachine): string | undefined {
  const impls = (machine.implementations?.actions ?? {}) as Record<string, unknown>;
  const isSpawn = (a: unknown): boolean => {
    const impl = typeof a === 'string' ? impls[a] : a;
    return (typeof impl === 'function' || (typeof impl === 'object' && impl !== null)) && (impl as { type?: unknown }).type === XS.spawnChild;
  };
  const visit = (node: any): string | undefined => {
    const inv = node.invoke as readonly { src: unknown; id: string }[];
    if (inv.length > 0) return `invokes '${String(inv[0]!.src)}' in state '${node.id}'`;
    const transitions = [...(node.transitions as Map<string, readonly { actions: readonly unknown[] }[]>).values()].flat();
    const actions = [...node.entry, ...node.exit, ...transitions.flatMap((t) => t.actions), ...((node.always ?? []) as readonly { actions: readonly unknown[] }[]).flatMap((t) => t.actions)];
    if (actions.some(isSpawn)) return `spawns a child actor (spawnChild) in state '${node.id}'`;
    for (const child of Object.values(node.states as Record<string, unknown>)) {
      const found = visit(child);
      if (found) return found;
    }
    return undefined;
  };
  return visit(machine.root);
}

// Formatted state values of snapshots, by their active state nodes (snapshots are
// never mutated, and a snapshot's value is a function of its `_nodes`): the kernel
// formats each snapshot's value as `to` in one step and again as `from` in the next,
// and most snapshots share their configuration with many others. A trie on the nodes
// in order, per machine, so no snapshot needs an identity hash (as a WeakMap key would).
interface TextTrie {
  text?: string;
  next?: Map<unknown, TextTrie>;
}
const formatted = new WeakMap<object, TextTrie>();

// The last two `_nodes` arrays formatted and their texts. xstate gives a step that changes
// only the context the `_nodes` array of the snapshot it stepped from, and a search steps
// one snapshot with every event in turn: most lookups are of one of the last two arrays,
// and comparing them costs less than the trie's map lookups per node. Arrays of snapshots
// are never changed once made, so the text of one is always the same.
let lastNodes0: unknown = undefined,
  lastText0 = '',
  lastNodes1: unknown = undefined,
  lastText1 = '';

/** `formatStateValue(snapshot.value)`, computed once per configuration of active state nodes. */
export function snapshotStateText(snapshot: AnyMachineSnapshot): string {
  const v = snapshot.value;
  if (typeof v === 'string') return v;
  const nodes = (snapshot as { _nodes?: unknown })._nodes;
  const machine = snapshot.machine as object | undefined;
  if (!Array.isArray(nodes) || typeof machine !== 'object' || machine === null) return formatStateValue(v);
  if (nodes === lastNodes0) return lastText0;
  if (nodes === lastNodes1) return lastText1;
  let t = formatted.get(machine);
  if (t === undefined) formatted.set(machine, (t = {}));
  for (const n of nodes) {
    const next: Map<unknown, TextTrie> = (t.next ??= new Map());
    let u = next.get(n);
    if (u === undefined) next.set(n, (u = {}));
    t = u;
  }
  const text = (t.text ??= formatStateValue(v));
  lastNodes1 = lastNodes0;
  lastText1 = lastText0;
  lastNodes0 = nodes;
  lastText0 = text;
  return text;
}

/** A short printable form of a state value: `a`, `a.b`, `{a:b,c:d}`. */
export function formatStateValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [k, v] = entries[0]!;
    return `${k}.${formatStateValue(v)}`;
  }
  return `{${entries.map(([k, v]) => `${k}:${formatStateValue(v)}`).join(',')}}`;
}

/** True when a value is an xstate machine (the only behaviour the kernel steps besides reducers). */
export function isStateMachine(x: unknown): x is AnyStateMachine {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as AnyStateMachine).transition === 'function' &&
    typeof (x as AnyStateMachine).getInitialSnapshot === 'function' &&
    typeof (x as AnyStateMachine).getTransitionData === 'function' &&
    (x as AnyStateMachine).root !== undefined
  );
}

/** Names xstate gives its built-in actions (some are missing from its public action types). */
export const XS = {
  sendTo: 'xstate.sendTo',
  raise: 'xstate.raise',
  cancel: 'xstate.cancel',
  emit: 'xstate.emit',
  spawnChild: 'xstate.spawnChild',
  stopChild: 'xstate.stopChild',
  log: 'xstate.log',
  assign: 'xstate.assign',
} as const;
