// A scenario: the actors of a system, what starts it, the faults it allows and the
// properties that must hold. `defineScenario` validates and compiles it once.
import type { AnyMachineSnapshot, AnyStateMachine, ContextFrom, EventFromLogic, InputFrom, SnapshotFrom, StateValue, StateValueFrom } from 'xstate';
import { MachineStepper, isStateMachine, spawnMessage, unsupportedFeature } from './xstate-adapter.ts';
import { ENV, type ActorId, type Message, type Step, type TraceEvent, type World } from './types.ts';
import { livenessProblem, type Fairness, type LivenessProperty } from './liveness.ts';
import { canonicalJson } from './serialize.ts';
import { legendProblem, type Legend } from './legend.ts';

/** The input was not a valid scenario, or the system did something no scenario allows. */
export class ScenarioError extends Error {
  /** Always `'ScenarioError'`. */
  override name = 'ScenarioError';
}

/**
 * Behaviour written as a reducer instead of a machine (storage models use this). `S` is
 * its state (what `q.context(id)` returns for it in a scenario's properties), `Msg` the
 * messages it handles (what `start`, `inputs` and a typed `send` may give it).
 */
export interface ReducerLogic<S = any, Msg = Message> {
  /** Marks the object as a reducer. */
  readonly kind: 'reducer';
  /** Creates the initial state from the actor's input. */
  init(input: unknown): S;
  /**
   * Outcomes this delivery may take instead of its normal one (for example `403`,
   * `503`, `ambiguous`). Each is a separate step the checker can choose, and costs
   * one unit of the fault budget. The normal outcome is `undefined`.
   */
  faultOutcomes?(state: S, msg: Msg, from: ActorId): readonly string[];
  /** Handles one delivered message: the next state, the messages to send, extra trace events. Must be pure. */
  receive(state: S, msg: Msg, ctx: ReducerContext): ReducerResult<S>;
}

/** What a reducer's `receive` knows besides the state and the message. */
export interface ReducerContext {
  /** This actor's id. */
  readonly self: ActorId;
  /** The sender of the message (`env` for the outside). */
  readonly from: ActorId;
  /** `undefined` for the normal outcome, else one of `faultOutcomes`. */
  readonly outcome: string | undefined;
  /** Virtual time, in milliseconds. */
  readonly now: number;
}

/** What a reducer's `receive` returns: the next state, the messages to send, extra trace events. */
export interface ReducerResult<S> {
  /** The next state (return the same object when nothing changed). */
  readonly state: S;
  /** Messages to send, in order; `to: 'env'` records an `output` event. */
  readonly send?: readonly {
    /** The receiver (`env`: an output). */
    readonly to: ActorId;
    /** The message. */
    readonly msg: Message;
  }[];
  /** Extra trace events (kinds `io` and `log`), for example one per storage operation. */
  readonly events?: readonly TraceEvent[];
  /** True when the reducer has no case for this message (flagged like an unmatched xstate event). */
  readonly unhandled?: boolean;
}

/**
 * An actor whose behaviour lives outside the kernel (live storage adapters). A
 * delivery to it only consumes the message; the live runner performs the work and
 * feeds replies back as `input` steps.
 */
export interface ExternalLogic {
  /** Marks the object as an external actor. */
  readonly kind: 'external';
  /** What the actor is, in words (shown in listings). */
  readonly describe?: string;
}

/** The behaviour of an actor: an xstate machine, a reducer, or an external actor (live only). */
export type ActorLogic = AnyStateMachine | ReducerLogic | ExternalLogic;

/** An actor with its input (passed to the machine's `context` factory or the reducer's `init`). */
export interface ActorSpec {
  /** The actor's behaviour. */
  readonly logic: ActorLogic;
  /** Passed to the machine's `context` factory (as `input`) or the reducer's `init`. */
  readonly input?: unknown;
  /** Where `sendParent` goes. */
  readonly parent?: ActorId;
}

/**
 * The faults a scenario allows. Every fault is a step of its own that the checker may
 * choose (and shrinking may remove); a run takes at most `budget` of them, so the
 * budget bounds the search. Restarts are free.
 *
 * @example
 * ```ts
 * faults: { budget: 1, crash: ['worker'], restart: ['worker'], drop: [['client', 'server']] }
 * ```
 */
export interface FaultSpec {
  /** How many fault steps one run may take in all (default 0: no faults). */
  readonly budget?: number;
  /** Actors that may crash (lose their state and mailbox). */
  readonly crash?: readonly ActorId[];
  /** Crashed actors that may come back with their initial state (a restart is free). */
  readonly restart?: readonly ActorId[];
  /** Channels whose head message may be lost. */
  readonly drop?: readonly (readonly [ActorId, ActorId])[];
  /** Reducer actors whose fault outcomes may be chosen (default: every reducer). */
  readonly outcomes?: readonly ActorId[];
}

/** The actors of a scenario: ids mapped to an xstate machine, a reducer, an external actor or `{ logic, input, parent }`. */
export type ActorMap = Readonly<Record<ActorId, ActorLogic | ActorSpec>>;

/**
 * True when `A` is erased (the default `any`, or an {@link ActorMap} where any string is an
 * id), false when its ids are known.
 */
type IsWide<A> = string extends keyof A ? true : false;

// The erased types take `any` for the actor map (not `ActorMap`): a type argument `any`
// relates to every other, so `Scenario<{ bank }>` is a `Scenario` and an erased
// `Predicate` fits every scenario, whatever variance TypeScript measures for `A`.
type IsAny<T> = 0 extends 1 & T ? true : false;
type ActorsField<A> = IsAny<A> extends true ? ActorMap : A;

/**
 * The actor map a scenario is typed by: `A` when its ids are known, `any` (the erased
 * types) when they are not (`never`, or a map typed with `string` keys such as
 * `Record<string, ActorLogic>`, for actors whose ids are computed). Not inferred from:
 * the predicates follow the actors, never the other way round.
 */
export type Erased<A> = [A] extends [never] ? any : IsWide<A> extends true ? any : A;

/**
 * The actor ids of an actor map: its keys, or any string for the erased {@link ActorMap}.
 * `ActorIdOf<typeof actors>` is `'client' | 'bank'` for `{ client, bank }`.
 */
export type ActorIdOf<A> = IsWide<A> extends true ? ActorId : keyof A & string;

/** The behaviour of one entry of an actor map: the entry itself, or its `logic`. */
export type LogicOf<E> = E extends ActorSpec ? E['logic'] : E;

/** The context of an actor's logic: a machine's `context` type, a reducer's state, `unknown` for an external actor. */
export type ContextOf<L> = L extends AnyStateMachine ? ContextFrom<L> : L extends ReducerLogic<infer S, any> ? S : unknown;

/** What `q.snapshot(id)` gives for an actor's logic: a machine's snapshot, a reducer's state, `unknown` for an external actor. */
export type SnapshotOf<L> = L extends AnyStateMachine ? SnapshotFrom<L> : L extends ReducerLogic<infer S, any> ? S : unknown;

/**
 * The state values `q.matches(id, value)` accepts for an actor's logic: xstate's
 * `StateValueFrom` of a machine (`'paid'`, a parent state's key, or a nested
 * `{ running: 'reading' }`), `never` for reducers and external actors, which have no states.
 */
export type StateValueOf<L> = L extends AnyStateMachine ? StateValueFrom<L> : never;

/**
 * The messages an actor's logic accepts: a machine's events (`setup({ types: { events } })`),
 * a reducer's `Msg`, any {@link Message} for an external actor. `MessageOf<typeof bank>`
 * types a message before it is sent.
 */
export type MessageOf<L> = L extends AnyStateMachine ? EventFromLogic<L> : L extends ReducerLogic<any, infer M> ? M : Message;

/** The input an actor's logic takes: a machine's `input` type, `unknown` for reducers and external actors. */
export type InputOf<L> = L extends AnyStateMachine ? InputFrom<L> : unknown;

type At<A, K> = K extends keyof A ? LogicOf<A[K]> : never;

/**
 * An actor id as a query takes it: a literal must be one of `A`'s ids (a typo is a type
 * error), a computed `string` may be any (it is checked when the query runs).
 */
type IdArg<A, K extends string> = string extends K ? K : K extends ActorIdOf<A> ? K : ActorIdOf<A>;

/** The entry of a per-actor map for id `K`: the union over every actor when `K` is a computed `string`. */
type PerActor<M, A, K extends string> = string extends K ? M[ActorIdOf<A> & keyof M] : M[K & keyof M];

/** The state values `matches` takes for id `K` (any state value when none is known). */
type StateArg<A, K extends string> = PerActor<StateValues<A>, A, K> extends infer V ? ([V] extends [never] ? (string extends K ? StateValue : never) : V) : never;

// The per-actor types, as mapped types over the actor map.
type Contexts<A> = { readonly [K in keyof A]: ContextOf<LogicOf<A[K]>> };
type Snapshots<A> = { readonly [K in keyof A]: SnapshotOf<LogicOf<A[K]>> };
type Values<A> = { readonly [K in keyof A]: LogicOf<A[K]> extends AnyStateMachine ? SnapshotFrom<LogicOf<A[K]>>['value'] : undefined };
type StateValues<A> = { readonly [K in keyof A]: StateValueOf<LogicOf<A[K]>> };

/**
 * A read-only view of a world, for properties. `WorldQuery` (no argument) takes any actor
 * id and returns untyped contexts; `WorldQuery<A>` for an actor map `A` (what
 * `defineScenario` infers, or `WorldQueryOf<typeof actors>`) takes only `A`'s ids, and
 * gives each actor's own context, snapshot and state values.
 */
export interface WorldQuery<A extends ActorMap = any> {
  /** The world itself (prefer the methods: they take actor ids). */
  readonly world: World;
  /** Virtual time, in milliseconds. */
  readonly now: number;
  /** An xstate actor's snapshot (or a reducer's state). */
  snapshot<K extends string>(id: IdArg<A, K>): IsWide<A> extends true ? any : PerActor<Snapshots<A>, A, K>;
  /** An xstate actor's context (or a reducer's state). */
  context<K extends string>(id: IdArg<A, K>): IsWide<A> extends true ? any : PerActor<Contexts<A>, A, K>;
  /** An xstate actor's state value (`undefined` for a reducer). */
  value<K extends string>(id: IdArg<A, K>): IsWide<A> extends true ? unknown : PerActor<Values<A>, A, K>;
  /** xstate's `snapshot.matches(state)` for an actor (false for a reducer): `state` is one of the machine's state values. */
  matches<K extends string>(id: IdArg<A, K>, state: IsWide<A> extends true ? any : StateArg<A, K>): boolean;
  /** The actor's status: `up`, `crashed` or `error`. */
  status<K extends string>(id: IdArg<A, K>): World['status'][number];
  /** Messages waiting for `to` (from `from`, or from anyone). */
  pending<K extends string, F extends string = never>(to: IdArg<A, K>, from?: F extends 'env' ? F : IdArg<A, F>): readonly Message[];
  /** True when nothing is in flight to any actor and no timer is pending. */
  idle(): boolean;
}

/**
 * A property over a world: `true` when it holds, `false` or a message saying what is wrong
 * when not. `Predicate<A>` reads the typed {@link WorldQuery} of actor map `A`.
 */
export type Predicate<A extends ActorMap = any> = (q: WorldQuery<A>) => boolean | string;

/** The actor map of `T`: `T` itself, or the actors of a scenario (`Scenario<A>` or `ScenarioDef<A>`). */
export type ActorsOf<T> = T extends {
  /** A compiled scenario. */
  readonly compiled: true;
  /** Its actors. */
  readonly actors: infer A extends ActorMap;
}
  ? A
  : T extends ActorMap
    ? T
    : ActorMap;

/**
 * The typed world query of an actor map, or of a scenario: for a predicate written apart
 * from its scenario, `(q: WorldQueryOf<typeof actors>) => q.context('bank').balance >= 90`.
 */
export type WorldQueryOf<T> = WorldQuery<ActorsOf<T>>;

/** A predicate over the typed world query of an actor map, or of a scenario (see {@link WorldQueryOf}). */
export type PredicateOf<T> = Predicate<ActorsOf<T>>;

/**
 * Events the environment may send to one actor at any time: a user clicking, a
 * client sending any of its requests, an operator's command. The checker offers
 * each event as a step of its own in every world (no driver actor, no message in
 * flight): taking it hands the event straight to `to`. In a scenario with known actors
 * (`InputSpec<A>`), `events` are checked against the receiver's messages.
 */
export type InputSpec<A extends ActorMap = any> = IsWide<A> extends true ? InputSpecTo<ActorId, string | Message, A> : { [K in ActorIdOf<A>]: InputSpecTo<K, BareType<MessageOf<At<A, K>>> | (MessageOf<At<A, K>> & Message), A> }[ActorIdOf<A>];

/** The event types whose events carry nothing but their `type` (they may be given as a bare string). */
type BareType<E> = E extends { readonly type: infer T extends string } ? ({ type: T } extends E ? T : never) : never;

/** {@link InputSpec} for one receiver. */
export interface InputSpecTo<To extends ActorId, E, A extends ActorMap = any> {
  /** The actor that receives the events. */
  readonly to: To;
  /** The events: a type name (`'OPEN'`), or an event object for a payload choice (`{ type: 'SET', v: 2 }`). */
  readonly events: readonly E[];
  /** How many times one run may send each of these events (default: no limit). */
  readonly budget?: number;
  /** Offer the events only in worlds where this holds (default: always). */
  readonly when?: (q: WorldQuery<A>) => boolean;
}

/** One event the environment may send, compiled: its step and its budget. */
export interface CompiledInput {
  /** The `input` step that hands the event to its receiver. */
  readonly step: Step & {
    /** Always an input step. */
    readonly kind: 'input';
  };
  /** Remaining-use counter slot in `world.inputs`, or -1 when unbounded. */
  readonly slot: number;
  /** How many times one run may take it (Infinity: no limit). */
  readonly budget: number;
  /** Offered only in worlds where this holds. */
  readonly when?: (q: WorldQuery) => boolean;
}

/**
 * An observer of the trace, for ordering properties ("the marker is written after every
 * batch it covers"). `observe` gets every trace event in order with a view of the world,
 * and returns its next state or `{ fail: message }`. Its state is part of the world, so
 * every mode (check, replay, live) sees the same verdicts.
 */
export interface MonitorDef<S = any, A extends ActorMap = any> {
  /** The monitor's state at the start of a run. */
  readonly init: S;
  /** Returns the next state, or `{ fail }` with a message to report a violation. */
  observe(
    state: S,
    event: TraceEvent,
    q: WorldQuery<A>,
  ):
    | S
    | {
        /** What the monitor saw, in words: the run fails here. */
        readonly fail: string;
      };
  /**
   * Optional: the events this monitor may react to. Events it returns false for must
   * leave its state unchanged and never fail it. Lets the checker's partial-order
   * reduction commute steps the monitor cannot see (without it, POR is off).
   */
  readonly watches?: (event: TraceEvent) => boolean;
  /**
   * Optional: true when `observe` reads only its state and the event, never the world
   * query. Lets partial-order reduction commute a step this monitor watches with steps
   * it does not (without it, a watched step commutes with nothing).
   */
  readonly eventsOnly?: boolean;
  /**
   * Optional: the actors whose snapshot, context and status `observe` reads through
   * the world query (never their pending messages, nor `idle()`). Like `eventsOnly`
   * (which is `reads: []`), it lets partial-order reduction treat a monitor that
   * watches and reads one actor only as part of that actor. A wrong list makes the
   * check unsound; without it the monitor is assumed to read every actor.
   */
  readonly reads?: readonly string[];
}

/** One message of a scenario's `start`: in a scenario with known actors, `msg` is checked against the receiver's messages. */
export type StartMessage<A extends ActorMap = any> = IsWide<A> extends true ? StartTo<ActorId, Message> : { [K in ActorIdOf<A>]: StartTo<K, MessageOf<At<A, K>> & Message, ActorIdOf<A>> }[ActorIdOf<A>];

/** {@link StartMessage} for one receiver. */
export interface StartTo<To extends ActorId, M, From extends ActorId = ActorId> {
  /** The receiver. */
  readonly to: To;
  /** The message. */
  readonly msg: M;
  /** The sender (default `env`). */
  readonly from?: From | 'env';
}

/**
 * The actor map `defineScenario` checks `actors` against: each `{ logic, input }` of a
 * machine takes the machine's input type.
 */
export type CheckedActors<A> = { readonly [K in keyof A]: A[K] extends ActorSpec ? (A[K]['logic'] extends AnyStateMachine ? CheckedSpec<A[K]['logic']> : A[K]) : A[K] };

/** An {@link ActorSpec} whose `input` is the machine's input type. */
interface CheckedSpec<L> {
  readonly logic: L;
  readonly input?: InputOf<L>;
  readonly parent?: ActorId;
}

/**
 * What `defineScenario` takes: the actors of a system, the messages that start it, the
 * faults it allows and the properties that must hold. See docs/guide.md.
 *
 * Properties are checked as follows (every mode: check, replay, simulate, live):
 * - `invariants` after every step; a predicate returns `true` when it holds, and
 *   `false` or a message when it does not;
 * - `monitors` observe every trace event in order and can fail;
 * - `atEnd` when the world is quiescent (nothing enabled but faults);
 * - a quiescent world is a **deadlock** unless `acceptEnd` accepts it (see there);
 * - `reachable` is not a check on one run: a complete exploration reports the ones no
 *   world satisfied (`CheckResult.unreached`), so a vacuous model shows up.
 *
 * `A` is the actor map. `defineScenario` infers it from `actors`, so the predicates
 * written in the scenario read each actor's own context and state values, and `start`
 * and `inputs` are checked against each receiver's messages. `ScenarioDef` without an
 * argument is the erased form: any id, untyped contexts.
 */
export interface ScenarioDef<A extends ActorMap = any> {
  /** Names the scenario in output, trace files and `interleave list`. */
  readonly name: string;
  /** One line on what the scenario is (shown by `interleave list`). */
  readonly description?: string;
  /**
   * Actor ids mapped to their behaviour: an xstate machine, a {@link ReducerLogic}, an
   * {@link ExternalLogic}, or `{ logic, input, parent }`. The id `env` is reserved for
   * the outside world: `send('env', msg)` records an `output` event.
   */
  readonly actors: ActorsField<A>;
  /** Messages in flight at the start, sent from `from` (default `env`). */
  readonly start?: readonly StartMessage<A>[];
  /** The faults a run may take; none by default. */
  readonly faults?: FaultSpec;
  /**
   * What an event that matches no transition does. xstate drops such events silently;
   * lost messages are exactly the bugs to find, so by default (`error`) the run fails
   * with an `unhandled` violation naming the actor, its state and the event. `trace`
   * only records an `unhandled` trace event.
   */
  readonly unhandled?: 'error' | 'trace';
  /** `any` (default): a due timer may fire before messages in flight arrive. `quiescent`: only when none are in flight (offered environment inputs do not hold it back). */
  readonly timers?: 'any' | 'quiescent';
  /** Checked after every step (and on the initial world), by name. */
  readonly invariants?: Readonly<Record<string, Predicate<A>>>;
  /** Observers of the trace (ordering properties), by name. */
  readonly monitors?: Readonly<Record<string, MonitorDef<any, A>>>;
  /**
   * Checked where a run ends: when the world is quiescent, nothing but faults enabled.
   * Runs that never end are not checked here; for "every run gets there", cycles
   * included, use `liveness` with `eventually(p)`.
   */
  readonly atEnd?: Readonly<Record<string, Predicate<A>>>;
  /**
   * The former name of {@link ScenarioDef.atEnd}, which it means.
   *
   * @deprecated Use `atEnd`: the liveness property `eventually(p)` is another thing
   * (every run, cycles included). `defineScenario` warns once per process
   * (`INTERLEAVE_EVENTUALLY_FIELD`).
   */
  readonly eventually?: Readonly<Record<string, Predicate<A>>>;
  /** Properties of whole runs, cycles included: `eventually(p)`, `leadsTo(p, q)`, `nonProgressCycles(p)` (docs/liveness.md). */
  readonly liveness?: Readonly<Record<string, LivenessProperty<A>>>;
  /** Which step classes runs must not starve (default: weak fairness on each actor's deliveries). */
  readonly fairness?: Fairness;
  /**
   * States some run should reach. A complete exploration lists those no world
   * satisfied in `CheckResult.unreached` (sampling strategies list the ones their runs
   * missed, which is not conclusive).
   */
  readonly reachable?: Readonly<Record<string, Predicate<A>>>;
  /**
   * Which quiescent worlds are accepted ends rather than deadlocks. Without it, a
   * quiescent world is a deadlock when some machine actor is **waiting**: up, not in a
   * final state, out of its initial state, and in a state with no `idle` or `end` tag
   * (`tags: ['idle']` in the machine config marks a state where waiting for nothing is
   * fine, such as a server between requests). Servers resting in their initial state,
   * reducers and crashed actors never wait. With `acceptEnd`, a quiescent world is a
   * deadlock exactly when the predicate fails.
   */
  readonly acceptEnd?: Predicate<A>;
  /** Events the environment may send at any time, explored as steps of their own (see `InputSpec`). */
  readonly inputs?: readonly InputSpec<A>[];
  /**
   * Groups of interchangeable actors (same logic, same role, ids differing only in
   * name). The fingerprint canonicalises each group, so worlds that differ only by a
   * permutation of a group count once; an invariant must not tell them apart.
   */
  readonly symmetry?: readonly (readonly ActorId[])[];
  /** Parameters the scenario was built with (recorded in traces). */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Actor roles, property lines and step notes, shown by the text report, Mermaid and the HTML viewer (see {@link Legend}). */
  readonly legend?: Legend;
}

/** One actor after `defineScenario`: its id, index and behaviour (a machine with its stepper, a reducer or an external actor). */
export type CompiledActor =
  | {
      /** An xstate machine. */
      readonly kind: 'machine';
      /** The actor's id. */
      readonly id: ActorId;
      /** Its index in the world's arrays. */
      readonly index: number;
      /** The machine. */
      readonly machine: AnyStateMachine;
      /** Steps the machine purely: (snapshot, event) to (next snapshot, its actions as data). */
      readonly stepper: MachineStepper;
      /** The machine's input. */
      readonly input: unknown;
    }
  | {
      /** A reducer. */
      readonly kind: 'reducer';
      /** The actor's id. */
      readonly id: ActorId;
      /** Its index in the world's arrays. */
      readonly index: number;
      /** The reducer. */
      readonly logic: ReducerLogic;
      /** The reducer's `init` input. */
      readonly input: unknown;
    }
  | {
      /** An external actor (live runs answer for it). */
      readonly kind: 'external';
      /** The actor's id. */
      readonly id: ActorId;
      /** Its index in the world's arrays. */
      readonly index: number;
      /** Its description. */
      readonly logic: ExternalLogic;
    };

/**
 * A compiled scenario: what `defineScenario` returns, and what `check`, `replay`,
 * `simulate` and the live runner take. The fields past `ScenarioDef`'s are indexes the
 * kernel reads. `Scenario<A>` keeps the actor map's types (for `queryOf`); every
 * `Scenario<A>` is a `Scenario`.
 */
export interface Scenario<A extends ActorMap = any> extends ScenarioDef<A> {
  /** Marks a compiled scenario. */
  readonly compiled: true;
  /** Actor ids in index order; `env` is index `ids.length`. */
  readonly ids: readonly ActorId[];
  /** Actor id → its index. */
  readonly index: ReadonlyMap<ActorId, number>;
  /** The compiled actors, by index. */
  readonly actorList: readonly CompiledActor[];
  /** The index standing for `env` (= `ids.length`). */
  readonly envIndex: number;
  /** The fault budget (`faults.budget`, default 0). */
  readonly budget: number;
  /** Per actor index: may it crash. */
  readonly crashable: readonly boolean[];
  /** Per actor index: may it restart after a crash. */
  readonly restartable: readonly boolean[];
  /** droppable[to] holds the senders whose channel to `to` may lose its head. */
  readonly droppable: readonly (readonly number[])[];
  /** Per actor index: may its deliveries take a reducer's fault outcomes. */
  readonly faultyOutcomes: readonly boolean[];
  /** The monitors' names, in the order of `world.monitors`. */
  readonly monitorNames: readonly string[];
  /** The monitors, in the same order. */
  readonly monitorDefs: readonly MonitorDef[];
  /** The environment's events (from `inputs`), in declaration order. */
  readonly inputList: readonly CompiledInput[];
  /** How many of them have a budget (the length of `world.inputs`). */
  readonly inputSlots: number;
}

const ID_RE = /^[A-Za-z0-9_.:@#-]+$/;
const FAULT_KEYS: readonly string[] = ['budget', 'crash', 'restart', 'drop', 'outcomes'];

function isReducer(x: unknown): x is ReducerLogic {
  return typeof x === 'object' && x !== null && (x as ReducerLogic).kind === 'reducer' && typeof (x as ReducerLogic).receive === 'function';
}
function isExternal(x: unknown): x is ExternalLogic {
  return typeof x === 'object' && x !== null && (x as ExternalLogic).kind === 'external';
}
function isLogic(x: unknown): x is ActorLogic {
  return isStateMachine(x) || isReducer(x) || isExternal(x);
}

/**
 * What `defineScenario` takes, for actor map `A`, start list `S` and inputs `I`. `A` is
 * inferred from `actors` only (the predicates are then typed by it, never the other way
 * round); `S` and `I` from `start` and `inputs`, so that an entry whose receiver is a
 * literal id is checked against that receiver's messages, while one built apart with a
 * computed id (a `string`) is taken as it is and checked when the scenario is compiled.
 */
export type ScenarioInput<A extends ActorMap, S extends readonly LooseStart[] = readonly LooseStart[], I extends readonly LooseInput<NoInfer<Erased<A>>>[] = readonly LooseInput<NoInfer<Erased<A>>>[]> = Omit<ScenarioDef<NoInfer<Erased<A>>>, 'actors' | 'start' | 'inputs'> & {
  /** See {@link ScenarioDef.actors}; a machine's `{ logic, input }` takes the machine's input type. */
  readonly actors: A & CheckedActors<A>;
  /** See {@link ScenarioDef.start}. */
  readonly start?: StartValid<NoInfer<Erased<A>>, S> extends true ? S : CheckedStart<NoInfer<Erased<A>>, S>;
  /** See {@link ScenarioDef.inputs}. */
  readonly inputs?: InputsValid<NoInfer<Erased<A>>, I> extends true ? I : CheckedInputs<NoInfer<Erased<A>>, I>;
};

/** An environment input before its receiver is checked. */
export interface LooseInput<A extends ActorMap = any> {
  /** The receiver. */
  readonly to: ActorId;
  /** The events. */
  readonly events: readonly (string | object)[];
  /** See {@link InputSpecTo.budget}. */
  readonly budget?: number;
  /** See {@link InputSpecTo.when}. */
  readonly when?: (q: WorldQuery<A>) => boolean;
}

/** Each input of `I` as `defineScenario` checks it: one with a literal receiver takes that receiver's events. */
export type CheckedInputs<A, I> = {
  readonly [K in keyof I]: I[K] extends {
    /** The receiver. */
    readonly to: infer T;
  }
    ? string extends T
      ? I[K]
      : T extends ActorIdOf<A>
        ? InputSpecTo<T, BareType<MessageOf<At<A, T>>> | (MessageOf<At<A, T>> & Message), A & ActorMap>
        : InputSpecTo<ActorIdOf<A>, string | Message, A & ActorMap>
    : I[K];
};
type InputsValid<A, I> = I extends CheckedInputs<A, I> ? true : false;

/** A start message before its receiver is checked. */
export interface LooseStart {
  /** The receiver. */
  readonly to: ActorId;
  /** The message. */
  readonly msg: object;
  /** The sender (default `env`). */
  readonly from?: ActorId;
}

/** Each start message of `S` as `defineScenario` checks it: one with a literal receiver takes that receiver's messages. */
export type CheckedStart<A, S> = {
  readonly [I in keyof S]: S[I] extends {
    /** The receiver. */
    readonly to: infer T;
  }
    ? string extends T
      ? S[I]
      : T extends ActorIdOf<A>
        ? StartTo<T, MessageOf<At<A, T>> & Message, ActorIdOf<A>>
        : StartTo<ActorIdOf<A>, Message, ActorIdOf<A>>
    : S[I];
};
type StartValid<A, S> = S extends CheckedStart<A, S> ? true : false;

let warnedEventually = false;

/**
 * Validates a scenario definition and compiles it. Throws a `ScenarioError` naming the problem.
 *
 * The actor map's types flow into the scenario: in the predicates written inline
 * (`invariants`, `atEnd`, `reachable`, `acceptEnd`, `liveness`, monitors, `inputs[].when`)
 * `q.context(id)` has that actor's context type, `q.matches(id, value)` takes only its
 * state values and an unknown id is a type error; `start[].msg` and `inputs[].events` are
 * checked against the receiver's messages, and `{ logic, input }` against the machine's input.
 */
export function defineScenario<A extends ActorMap, const S extends readonly LooseStart[] = [], const I extends readonly LooseInput<NoInfer<Erased<A>>>[] = []>(scenario: ScenarioInput<A, S, I>): Scenario<Erased<A>> {
  const def = scenario as unknown as ScenarioDef;
  const where = `scenario '${def?.name ?? '?'}'`;
  if (typeof def !== 'object' || def === null) throw new ScenarioError('a scenario must be an object: defineScenario({ name, actors, start, ... })');
  if (typeof def.name !== 'string' || def.name.length === 0) throw new ScenarioError('a scenario needs a non-empty string `name`');
  if (typeof def.actors !== 'object' || def.actors === null || Array.isArray(def.actors)) throw new ScenarioError(`${where}: \`actors\` must be an object mapping actor ids to machines`);
  const ids = Object.keys(def.actors);
  if (ids.length === 0) throw new ScenarioError(`${where}: \`actors\` is empty; declare at least one actor`);
  const index = new Map<ActorId, number>();
  const actorList: CompiledActor[] = [];
  for (const id of ids) {
    if (id === ENV) throw new ScenarioError(`${where}: actor id '${ENV}' is reserved for the outside world; rename the actor`);
    if (!ID_RE.test(id)) throw new ScenarioError(`${where}: actor id '${id}' has characters other than letters, digits and _ . : @ # -`);
    const raw = def.actors[id] as unknown;
    const spec: ActorSpec = isLogic(raw) ? { logic: raw } : (raw as ActorSpec);
    if (typeof spec !== 'object' || spec === null || !isLogic(spec.logic)) {
      throw new ScenarioError(`${where}: actor '${id}' is not a machine: give an xstate machine (createMachine/setup().createMachine), a reducer ({ kind: 'reducer', init, receive }) or { logic, input }`);
    }
    const i = actorList.length;
    index.set(id, i);
    if (isStateMachine(spec.logic)) {
      const unsupported = unsupportedFeature(spec.logic);
      if (unsupported) throw new ScenarioError(`${where}: ${spawnMessage(id, unsupported)}`);
      actorList.push({ kind: 'machine', id, index: i, machine: spec.logic, stepper: new MachineStepper(spec.logic, id, spec.parent), input: spec.input });
    } else if (isReducer(spec.logic)) {
      actorList.push({ kind: 'reducer', id, index: i, logic: spec.logic, input: spec.input });
    } else {
      actorList.push({ kind: 'external', id, index: i, logic: spec.logic });
    }
  }
  for (const id of ids) {
    const raw = def.actors[id] as ActorSpec;
    if (!isLogic(raw) && raw.parent !== undefined && !index.has(raw.parent) && raw.parent !== ENV) {
      throw new ScenarioError(`${where}: actor '${id}' names parent '${raw.parent}', which is not an actor; known actors: ${ids.join(', ')}`);
    }
  }
  const known = (what: string, id: unknown): number => {
    if (id === ENV) return ids.length;
    const i = typeof id === 'string' ? index.get(id) : undefined;
    if (i === undefined) throw new ScenarioError(`${where}: ${what} names unknown actor '${String(id)}'; known actors: ${ids.join(', ')}`);
    return i;
  };
  if (def.start !== undefined && !Array.isArray(def.start)) throw new ScenarioError(`${where}: \`start\` must be an array of { to, msg, from? }`);
  for (const [n, s] of (def.start ?? []).entries()) {
    if (typeof s !== 'object' || s === null) throw new ScenarioError(`${where}: start[${n}] must be { to, msg }`);
    if (s.to === ENV) throw new ScenarioError(`${where}: start[${n}].to is '${ENV}', the outside world, which receives no messages; name an actor`);
    known(`start[${n}].to`, s.to);
    if (s.from !== undefined) known(`start[${n}].from`, s.from);
    if (typeof s.msg !== 'object' || s.msg === null || typeof s.msg.type !== 'string') {
      throw new ScenarioError(`${where}: start[${n}].msg must be an event object with a string \`type\``);
    }
  }
  const f = def.faults ?? {};
  if (typeof f !== 'object' || f === null || Array.isArray(f)) throw new ScenarioError(`${where}: \`faults\` must be an object { budget, crash, restart, drop, outcomes }`);
  for (const k of Object.keys(f)) {
    if (!FAULT_KEYS.includes(k)) throw new ScenarioError(`${where}: faults.${k} is not a fault setting; use ${FAULT_KEYS.join(', ')}`);
  }
  for (const k of ['crash', 'restart', 'drop', 'outcomes'] as const) {
    if (f[k] !== undefined && !Array.isArray(f[k])) throw new ScenarioError(`${where}: faults.${k} must be an array${k === 'drop' ? ' of [from, to] pairs' : ' of actor ids'}`);
  }
  const actorOnly = (what: string, id: unknown): number => {
    if (id === ENV) throw new ScenarioError(`${where}: ${what} names '${ENV}', the outside world, which cannot fail; name an actor`);
    return known(what, id);
  };
  const budget = f.budget ?? 0;
  if (!Number.isInteger(budget) || budget < 0) throw new ScenarioError(`${where}: faults.budget must be a whole number >= 0, got ${String(f.budget)}`);
  const n = ids.length;
  const crashable = new Array<boolean>(n).fill(false);
  const restartable = new Array<boolean>(n).fill(false);
  for (const id of f.crash ?? []) crashable[actorOnly('faults.crash', id)] = true;
  for (const id of f.restart ?? []) restartable[actorOnly('faults.restart', id)] = true;
  const droppable: number[][] = Array.from({ length: n }, () => []);
  for (const [k, pair] of (f.drop ?? []).entries()) {
    if (!Array.isArray(pair) || pair.length !== 2) throw new ScenarioError(`${where}: faults.drop[${k}] must be a [from, to] pair of actor ids`);
    const from = known(`faults.drop[${k}]`, pair[0]);
    const to = actorOnly(`faults.drop[${k}] (receiver)`, pair[1]);
    if (!droppable[to]!.includes(from)) droppable[to]!.push(from);
  }
  const faultyOutcomes = actorList.map((a) => a.kind === 'reducer' && (f.outcomes === undefined || f.outcomes.includes(a.id)));
  for (const id of f.outcomes ?? []) {
    const i = known('faults.outcomes', id);
    if (actorList[i]?.kind !== 'reducer') throw new ScenarioError(`${where}: faults.outcomes names '${id}', which is not a reducer actor`);
  }
  for (const group of def.symmetry ?? []) for (const id of group) known('symmetry', id);
  const badLegend = legendProblem(def.legend);
  if (badLegend) throw new ScenarioError(`${where}: ${badLegend}`);
  if (def.unhandled !== undefined && def.unhandled !== 'error' && def.unhandled !== 'trace') {
    throw new ScenarioError(`${where}: unhandled must be 'error' or 'trace', got '${String(def.unhandled)}'`);
  }
  if (def.timers !== undefined && def.timers !== 'any' && def.timers !== 'quiescent') {
    throw new ScenarioError(`${where}: timers must be 'any' or 'quiescent', got '${String(def.timers)}'`);
  }
  if (def.eventually !== undefined && def.atEnd !== undefined && def.eventually !== def.atEnd) {
    throw new ScenarioError(`${where}: give the properties checked where runs end as \`atEnd\` only (\`eventually\` is its deprecated name)`);
  }
  const atEnd = def.atEnd ?? def.eventually;
  if (def.eventually !== undefined && def.atEnd === undefined && !warnedEventually) {
    warnedEventually = true;
    if (typeof process !== 'undefined' && typeof process.emitWarning === 'function') {
      process.emitWarning(`${where}: the scenario field \`eventually\` is now \`atEnd\` (checked where runs end); the liveness property eventually(p) is another thing`, { type: 'DeprecationWarning', code: 'INTERLEAVE_EVENTUALLY_FIELD' });
    }
  }
  for (const group of ['invariants', 'atEnd', 'reachable'] as const) {
    for (const [name, p] of Object.entries((group === 'atEnd' ? atEnd : def[group]) ?? {})) {
      const field = group === 'atEnd' && def.atEnd === undefined ? 'eventually' : group;
      if (typeof p !== 'function') throw new ScenarioError(`${where}: ${field}.${name} must be a function (q) => boolean | string`);
    }
  }
  const live = livenessProblem(def.liveness, def.fairness, ids);
  if (live) throw new ScenarioError(`${where}: ${live}`);
  const monitorNames = Object.keys(def.monitors ?? {});
  const monitorDefs = monitorNames.map((m) => {
    const d = def.monitors![m]!;
    if (typeof d !== 'object' || d === null || typeof d.observe !== 'function') {
      throw new ScenarioError(`${where}: monitors.${m} must be { init, observe(state, event, q) }`);
    }
    return d;
  });
  const { inputList, inputSlots } = compileInputs(def, where, known, n);
  const sc: Scenario = Object.freeze({
    ...def,
    // Both names, for readers of either; the engine reads `atEnd`.
    ...(atEnd !== undefined ? { atEnd, eventually: atEnd } : {}),
    compiled: true as const,
    ids,
    index,
    actorList,
    envIndex: n,
    budget,
    crashable,
    restartable,
    droppable,
    faultyOutcomes,
    monitorNames,
    monitorDefs,
    inputList,
    inputSlots,
  });
  return sc as unknown as Scenario<Erased<A>>;
}

/** Validates `inputs` and gives each event its step (ids are unique per receiver). */
function compileInputs(def: ScenarioDef, where: string, known: (what: string, id: unknown) => number, n: number): { inputList: CompiledInput[]; inputSlots: number } {
  const inputList: CompiledInput[] = [];
  let inputSlots = 0;
  if (def.inputs === undefined) return { inputList, inputSlots };
  if (!Array.isArray(def.inputs)) throw new ScenarioError(`${where}: \`inputs\` must be an array of { to, events, budget?, when? }`);
  const symmetric = new Set((def.symmetry ?? []).flat());
  const ids = new Set<string>();
  for (const [k, spec] of (def.inputs as readonly InputSpec[]).entries()) {
    const at = `${where}: inputs[${k}]`;
    if (typeof spec !== 'object' || spec === null) throw new ScenarioError(`${at} must be { to, events, budget?, when? }`);
    if (spec.to === ENV) throw new ScenarioError(`${at}.to is '${ENV}', the outside world itself; name the actor that receives the events`);
    const to = known(`inputs[${k}].to`, spec.to);
    if (symmetric.has(spec.to)) {
      throw new ScenarioError(`${at} sends to '${spec.to}', which is in a symmetry group: inputs to one member break the symmetry; drop the actor from \`symmetry\``);
    }
    if (!Array.isArray(spec.events) || spec.events.length === 0) throw new ScenarioError(`${at}.events must be a non-empty array of event types or event objects`);
    const budget = spec.budget ?? Infinity;
    if (budget !== Infinity && (!Number.isInteger(budget) || budget < 1)) throw new ScenarioError(`${at}.budget must be a whole number >= 1 (or left out for no limit), got ${String(spec.budget)}`);
    if (spec.when !== undefined && typeof spec.when !== 'function') throw new ScenarioError(`${at}.when must be a function (q) => boolean`);
    const msgs = spec.events.map((e: string | Message, j: number): Message => {
      const m = typeof e === 'string' ? { type: e } : e;
      if (typeof m !== 'object' || m === null || typeof m.type !== 'string' || m.type.length === 0) {
        throw new ScenarioError(`${at}.events[${j}] must be an event type (a string) or an event object with a string \`type\``);
      }
      return m;
    });
    for (const msg of msgs) {
      // The type alone names the step unless two choices share it; then the payload does too.
      const { type, ...payload } = msg;
      const plain = `input:${ENV}->${spec.to}:${type}`;
      const shared = msgs.filter((x: Message) => x.type === type).length > 1;
      const id = shared ? `${plain}${canonicalJson(payload)}` : plain;
      if (ids.has(id)) throw new ScenarioError(`${at}: the environment already sends ${id.slice(id.indexOf(':', 6) + 1)} to '${spec.to}'; list each event once`);
      ids.add(id);
      const step = { kind: 'input' as const, id, from: n, to, msg, offered: inputList.length };
      inputList.push({ step, slot: budget === Infinity ? -1 : inputSlots++, budget, when: spec.when });
    }
  }
  return { inputList, inputSlots };
}

/** The id of actor index `i` (`env` for the outside). */
export function actorName(sc: Scenario, i: number): ActorId {
  return i === sc.envIndex ? ENV : sc.ids[i]!;
}

/** True when a value is an xstate machine snapshot (a reducer's state is not). */
export function isMachineSnapshot(x: unknown): x is AnyMachineSnapshot {
  return typeof x === 'object' && x !== null && 'machine' in x && 'value' in x;
}
