// The only module that knows how xstate steps a machine. Everything else sees
// `MachineStepper`: (snapshot, event) -> (snapshot', actions as data).
// Pinned to xstate ~5.33; test/xstate-adapter.test.ts is the conformance and
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
    };
    stub = base;
    stubs.set(key, stub);
  }
  return stub;
}

export function isAddressStub(x: unknown): x is AddressStub {
  return typeof x === 'object' && x !== null && (x as AddressStub).__interleaveAddress === true;
}

/**
 * A cached actor scope whose action executor collects actions instead of running
 * them. `self` and `system.get` resolve to address stubs, so `sendParent` and
 * `sendTo(({system}) => system.get(id))` produce `xstate.sendTo` actions whose
 * target is a world actor id.
 */
export class MachineStepper {
  private collected: CollectedAction[] = [];
  private readonly scope: any;

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
        this.collected.push(action);
      },
    };
  }

  /** Initial snapshot plus the entry actions of the initial configuration. */
  initial(input?: unknown): StepResult {
    this.collected = [];
    const snapshot = this.machine.getInitialSnapshot(this.scope, input) as AnyMachineSnapshot;
    const actions = this.collected;
    this.collected = [];
    return { snapshot, actions, unhandled: false };
  }

  /** One macrostep. Throws whatever a guard, assign or context function throws. */
  step(snapshot: AnyMachineSnapshot, event: Message): StepResult {
    const unhandled = this.machine.getTransitionData(snapshot, event as EventObject).length === 0;
    if (unhandled) return { snapshot, actions: [], unhandled: true };
    this.collected = [];
    const next = this.machine.transition(snapshot, event as EventObject, this.scope) as AnyMachineSnapshot;
    const actions = this.collected;
    this.collected = [];
    return { snapshot: next, actions, unhandled: false };
  }
}

/** The xstate state value, as plain data, for traces and projections. */
export function stateValueOf(snapshot: AnyMachineSnapshot): unknown {
  return snapshot.value;
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
