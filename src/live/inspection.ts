// Events in the shapes of xstate's inspection protocol (`@xstate.actor`,
// `@xstate.event`, `@xstate.snapshot`), so a `@statelyai/inspect` inspector (or any
// `inspect` observer written for xstate) can watch a live system. We do not depend
// on @statelyai/inspect: an inspector's `inspect` observer is passed in by the user.
import type { Scenario } from '../actors/scenario.ts';
import type { Message, TraceEvent, World } from '../actors/types.ts';

/** What the inspector sees of an actor: the parts of an xstate ActorRef it reads. */
export interface InspectedActorRef {
  /** The actor's id in the scenario. */
  readonly id: string;
  /** A session id unique within the run. */
  readonly sessionId: string;
  /** The machine (its `config` is the definition the inspector draws), if the actor is one. */
  readonly logic?: unknown;
  /** The parent actor (its `parent` in the scenario), if any. */
  readonly _parent?: InspectedActorRef;
  /** The actor's current snapshot (reducers and externals get one shaped like xstate's). */
  getSnapshot(): unknown;
}

interface Base {
  readonly rootId: string;
  readonly actorRef: InspectedActorRef;
}

/** An xstate-style inspection event of a live run: an actor appeared, an event was delivered, or a snapshot changed. */
export type LiveInspectionEvent =
  | (Base & {
      /** An actor appeared (at the start, or on a restart). */
      readonly type: '@xstate.actor';
    })
  | (Base & {
      /** An event was delivered. */
      readonly type: '@xstate.event';
      /** The sender (undefined for `env`). */
      readonly sourceRef: InspectedActorRef | undefined;
      /** The event. */
      readonly event: Message;
    })
  | (Base & {
      /** An actor's snapshot changed. */
      readonly type: '@xstate.snapshot';
      /** The event that changed it. */
      readonly event: Message;
      /** The new snapshot. */
      readonly snapshot: unknown;
    });

/** An xstate-style `inspect` option: an observer or a plain callback. */
export type InspectOption =
  | ((e: LiveInspectionEvent) => void)
  | {
      /** Called with every inspection event. */
      next?: (e: LiveInspectionEvent) => void;
    };

/** Reducers and external actors get a snapshot shaped like an xstate one. */
function snapshotOf(sc: Scenario, i: number, w: World): unknown {
  const a = sc.actorList[i]!;
  const s = w.snaps[i];
  if (a.kind === 'machine') return s;
  const status = w.status[i] === 'error' ? 'error' : w.status[i] === 'crashed' ? 'stopped' : 'active';
  return { status, value: a.kind, context: s ?? null, output: undefined, error: undefined };
}

/**
 * Turns a live run's steps into inspection events. `session` makes session ids
 * unique per run (an inspector may watch several systems).
 */
export class Inspection {
  readonly refs: InspectedActorRef[];
  readonly envRef: InspectedActorRef;
  private world: World | undefined;

  constructor(
    private readonly sc: Scenario,
    private readonly emit: (e: LiveInspectionEvent) => void,
    session: string,
  ) {
    this.envRef = { id: 'env', sessionId: `${session}:env`, getSnapshot: () => ({ status: 'active', value: 'outside', context: null }) };
    this.refs = sc.actorList.map((a, i) => ({
      id: a.id,
      sessionId: `${session}:${a.id}`,
      ...(a.kind === 'machine' ? { logic: a.machine } : {}),
      _parent: this.envRef,
      getSnapshot: () => (this.world ? snapshotOf(sc, i, this.world) : undefined),
    }));
  }

  private ref(id: string): InspectedActorRef | undefined {
    if (id === 'env') return this.envRef;
    const i = this.sc.index.get(id);
    return i === undefined ? undefined : this.refs[i];
  }

  /** Announces every actor and its initial snapshot. */
  start(w: World): void {
    this.world = w;
    const rootId = this.envRef.sessionId;
    this.emit({ type: '@xstate.actor', rootId, actorRef: this.envRef });
    const init = { type: 'xstate.init' };
    for (let i = 0; i < this.refs.length; i++) {
      this.emit({ type: '@xstate.actor', rootId, actorRef: this.refs[i]! });
      this.emit({ type: '@xstate.snapshot', rootId, actorRef: this.refs[i]!, event: init, snapshot: snapshotOf(this.sc, i, w) });
    }
  }

  /** Reports one step: the events delivered, then every snapshot it changed. */
  step(prev: World, next: World, events: readonly TraceEvent[]): void {
    this.world = next;
    const rootId = this.envRef.sessionId;
    let cause: Message | undefined;
    for (const e of events) {
      if (e.kind === 'deliver') {
        cause = e.msg;
        const to = this.ref(e.to);
        if (to) this.emit({ type: '@xstate.event', rootId, actorRef: to, sourceRef: this.ref(e.from), event: e.msg });
      } else if (e.kind === 'timer-fire') {
        cause = e.msg;
        const to = this.ref(e.actor);
        if (to) this.emit({ type: '@xstate.event', rootId, actorRef: to, sourceRef: to, event: e.msg });
      }
    }
    if (prev.snaps === next.snaps && prev.status === next.status) return;
    for (let i = 0; i < this.refs.length; i++) {
      if (prev.snaps[i] === next.snaps[i] && prev.status[i] === next.status[i]) continue;
      this.emit({ type: '@xstate.snapshot', rootId, actorRef: this.refs[i]!, event: cause ?? { type: 'xstate.step' }, snapshot: snapshotOf(this.sc, i, next) });
    }
  }
}
