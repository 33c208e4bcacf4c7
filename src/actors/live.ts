// The live runner: the same `enabled`/`apply` driven by Node's event loop.
// Messages are delivered in arrival order (fair across channels), timers fire on
// real time (scaled), and external actors (live storage adapters) do real I/O whose
// replies come back as `input` steps. The schedule it records replays in simulation.
import { Subject, type Observable } from 'rxjs';
import { apply, enabled, initialWorld, inputStep } from './kernel.ts';
import { ScenarioError, type Scenario } from './scenario.ts';
import type { Message, RecordedEvent, Step, TraceEvent, World } from './types.ts';

/** Does the work of an external actor: gets each message delivered to it, returns the replies. */
export type ExternalHandler = (msg: Message, from: string) => Promise<readonly { readonly to: string; readonly msg: Message }[]> | readonly { readonly to: string; readonly msg: Message }[];

export interface LiveOptions {
  /** Real milliseconds per virtual millisecond for timers (default 1; 0 fires timers as soon as they are next). */
  readonly timeScale?: number;
  /** Handlers for the scenario's external actors, by actor id. */
  readonly externals?: Readonly<Record<string, ExternalHandler>>;
  /** Deliveries per macrotask before yielding to I/O (default 64). */
  readonly slice?: number;
  /** Record context changes on state events (default true). */
  readonly detail?: boolean;
}

export interface LiveSystem {
  readonly events$: Observable<RecordedEvent>;
  /** Puts a message from outside (`env`) on the channel to `to`. */
  send(to: string, msg: Message): void;
  /** Resolves when no message is in flight, no timer is pending and no external call is running. */
  whenQuiescent(): Promise<World>;
  stop(): void;
  world(): World;
  /** The steps taken so far, as ids (replayable with `replay`, inputs included). */
  schedule(): readonly string[];
  /** Input steps taken so far, with their payloads, in schedule order. */
  inputs(): readonly { readonly index: number; readonly from: string; readonly to: string; readonly msg: Message }[];
  readonly errors: readonly Error[];
}

export function runLive(sc: Scenario, opts: LiveOptions = {}): LiveSystem {
  const timeScale = opts.timeScale ?? 1;
  const slice = opts.slice ?? 64;
  const detail = opts.detail ?? true;
  const externals = opts.externals ?? {};
  for (const a of sc.actorList) {
    if (a.kind === 'external' && !externals[a.id]) throw new ScenarioError(`live run of '${sc.name}': external actor '${a.id}' has no handler in options.externals`);
  }
  for (const id of Object.keys(externals)) {
    const i = sc.index.get(id);
    if (i === undefined || sc.actorList[i]!.kind !== 'external') throw new ScenarioError(`live run of '${sc.name}': options.externals names '${id}', which is not an external actor`);
  }
  const events$ = new Subject<RecordedEvent>();
  const schedule: string[] = [];
  const inputs: { index: number; from: string; to: string; msg: Message }[] = [];
  const errors: Error[] = [];
  // Arrival order of messages not yet delivered: [from, to] index pairs.
  const arrivals: [number, number][] = [];
  const started = performance.now();
  let pendingIo = 0;
  let stopped = false;
  let scheduled = false;
  let timerHandle: ReturnType<typeof setTimeout> | undefined;
  let waiters: ((w: World) => void)[] = [];
  let stepNo = 0;

  const publish = (evs: readonly TraceEvent[]): void => {
    for (const e of evs) {
      if (e.kind === 'send') arrivals.push([e.from === 'env' ? sc.envIndex : sc.index.get(e.from)!, sc.index.get(e.to)!]);
      events$.next({ ...e, step: stepNo } as RecordedEvent);
      if (e.kind === 'deliver') {
        const to = sc.index.get(e.to)!;
        const actor = sc.actorList[to]!;
        if (actor.kind === 'external') callExternal(actor.id, e.msg, e.from);
      }
    }
  };

  const init = initialWorld(sc, { detail });
  let world = init.world;
  publish(init.events);

  function take(step: Step): void {
    stepNo++;
    const r = apply(sc, world, step, { detail });
    world = r.world;
    schedule.push(step.id);
    publish(r.events);
  }

  function callExternal(id: string, msg: Message, from: string): void {
    pendingIo++;
    Promise.resolve()
      .then(() => externals[id]!(msg, from))
      .then(
        (replies) => {
          pendingIo--;
          if (stopped) return;
          for (const r of replies) {
            inputs.push({ index: schedule.length, from: id, to: r.to, msg: r.msg });
            take(inputStep(sc, id, r.to, r.msg));
          }
          wake();
        },
        (err) => {
          pendingIo--;
          errors.push(err instanceof Error ? err : new Error(String(err)));
          wake();
        },
      );
  }

  function quiescent(): boolean {
    return arrivals.length === 0 && world.timers.length === 0 && pendingIo === 0;
  }

  function settleWaiters(): void {
    if (!quiescent() || waiters.length === 0) return;
    const ws = waiters;
    waiters = [];
    for (const w of ws) w(world);
  }

  function loop(): void {
    scheduled = false;
    if (stopped) return;
    try {
      for (let n = 0; n < slice && arrivals.length > 0; n++) {
        const [from, to] = arrivals.shift()!;
        const steps = enabled(sc, world);
        const s = steps.find((x) => x.kind === 'deliver' && x.outcome === undefined && x.from === from && x.to === to);
        if (!s) continue; // dropped by a crash: nothing to deliver
        take(s);
      }
      armTimer();
    } catch (e) {
      errors.push(e instanceof Error ? e : new Error(String(e)));
      stopped = true;
      events$.error(e);
      return;
    }
    if (arrivals.length > 0) wake();
    else settleWaiters();
  }

  function armTimer(): void {
    if (timerHandle !== undefined || world.timers.length === 0) return;
    const due = world.timers[0]!.due;
    const wait = Math.max(0, due * timeScale - (performance.now() - started));
    timerHandle = setTimeout(() => {
      timerHandle = undefined;
      if (stopped) return;
      const s = enabled(sc, world).find((x) => x.kind === 'timer');
      if (s) take(s);
      wake();
    }, wait);
  }

  function wake(): void {
    if (scheduled || stopped) return;
    scheduled = true;
    setImmediate(loop);
  }

  wake();
  return {
    events$: events$.asObservable(),
    send(to, msg) {
      if (stopped) throw new ScenarioError('the live system is stopped');
      inputs.push({ index: schedule.length, from: 'env', to, msg });
      take(inputStep(sc, 'env', to, msg));
      wake();
    },
    whenQuiescent() {
      return new Promise((resolve) => {
        waiters.push(resolve);
        wake();
      });
    },
    stop() {
      stopped = true;
      if (timerHandle !== undefined) clearTimeout(timerHandle);
      events$.complete();
      const ws = waiters;
      waiters = [];
      for (const w of ws) w(world);
    },
    world: () => world,
    schedule: () => schedule,
    inputs: () => inputs,
    errors,
  };
}
