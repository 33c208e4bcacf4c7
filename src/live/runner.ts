// The live runner: the same `enabled`/`apply` driven by Node's event loop.
// Messages are delivered in arrival order (fair across channels), timers fire on
// real time (scaled), and external actors (live storage adapters) do real I/O whose
// replies come back as `input` steps. The schedule it records replays in simulation.
// rxjs's own subpath (in its exports map): the package index loads every operator.
import { Subject } from 'rxjs/internal/Subject';
import { apply, enabled, initialWorld, inputStep, isFailureEvent, tickStep } from '../actors/kernel.ts';
import { ScenarioError, type Scenario } from '../actors/scenario.ts';
import { deliverStep } from '../actors/steps.ts';
import type { Message, RecordedEvent, Step, TraceEvent, World } from '../actors/types.ts';
import { Inspection, type LiveInspectionEvent } from './inspection.ts';
import { withExternals } from '../actors/externals.ts';
import { LiveLog } from './log.ts';
import type { ExternalSpec, LiveOptions, LiveSystem, RecordedInput } from './types.ts';

export type { InspectOption, LiveInspectionEvent, InspectedActorRef } from './inspection.ts';
export type { LiveLogOptions } from './log.ts';
export type { ExternalHandler, ExternalSpec, LiveOptions, LiveRecording, LiveSystem, RecordedInput, Reply } from './types.ts';
export { withExternals } from '../actors/externals.ts';

/**
 * Runs a scenario live on Node's event loop, with the same step function the checker
 * uses: messages are delivered as they arrive, timers fire on real time (`timeScale`), and
 * actors named in `options.externals` are served by handlers doing real I/O, whose replies
 * come back as `input` steps. The run is recorded and replays on the model. See docs/live.md.
 */
export function runLive<In extends Message = Message>(scenario: Scenario, opts: LiveOptions = {}): LiveSystem<In> {
  const timeScale = opts.timeScale ?? 1;
  const slice = opts.slice ?? 64;
  const detail = opts.detail ?? true;
  const keepEvents = opts.record ?? true;
  if (!(timeScale >= 0)) throw new ScenarioError(`live run: timeScale must be a number >= 0 (real ms per virtual ms), got ${String(opts.timeScale)}`);
  if (!(slice >= 1)) throw new ScenarioError(`live run: slice must be >= 1, got ${String(opts.slice)}`);
  const specs = new Map<string, Required<ExternalSpec>>();
  for (const [id, h] of Object.entries(opts.externals ?? {})) {
    const spec = typeof h === 'function' ? { handle: h, concurrency: 1 } : { handle: h.handle, concurrency: h.concurrency ?? 1 };
    if (typeof spec.handle !== 'function' || !(spec.concurrency >= 1)) throw new ScenarioError(`live run: options.externals.${id} must be a function or { handle, concurrency >= 1 }`);
    specs.set(id, spec);
  }
  const sc = withExternals(scenario, [...specs.keys()]);
  for (const id of Object.keys(opts.initial ?? {})) {
    if (!sc.index.has(id)) throw new ScenarioError(`live run of '${sc.name}': options.initial names '${id}', which is not an actor; actors: ${sc.ids.join(', ')}`);
  }
  for (const a of sc.actorList) {
    if (a.kind === 'external' && !specs.has(a.id)) throw new ScenarioError(`live run of '${sc.name}': external actor '${a.id}' has no handler in options.externals`);
  }

  const log = opts.recordTo
    ? new LiveLog(opts.recordTo, { scenario: sc.name, params: sc.params ?? {}, externals: sc.actorList.filter((a) => a.kind === 'external').map((a) => a.id), ...(opts.initial ? { initial: opts.initial } : {}) })
    : undefined;
  const events$ = new Subject<RecordedEvent>();
  const inspection$ = new Subject<LiveInspectionEvent>();
  const inspectCb = typeof opts.inspect === 'function' ? opts.inspect : opts.inspect?.next?.bind(opts.inspect);
  const inspector = new Inspection(sc, (e) => {
    inspectCb?.(e);
    inspection$.next(e);
  }, `${sc.name}#${(runs++).toString(36)}`);
  const schedule: string[] = [];
  const inputs: RecordedInput[] = [];
  const recorded: RecordedEvent[] = [];
  const errors: Error[] = [];
  const failures: RecordedEvent[] = [];
  // Arrival order of messages not yet delivered, as [from, to] index pairs: a global
  // FIFO, so every channel is served in the order its messages arrived.
  const arrivals: [number, number][] = [];
  let arrivalHead = 0;
  // Per external actor: messages waiting for a free slot, and calls running.
  const ioQueue = new Map<string, { msg: Message; from: string }[]>();
  const ioRunning = new Map<string, number>();
  let pendingIo = 0;
  const ioSettled: (() => void)[] = [];
  const started = performance.now();
  let stopped = false;
  let fatal: Error | undefined;
  let scheduled = false;
  let timerHandle: ReturnType<typeof setTimeout> | undefined;
  let armedDue = -1;
  const waiters: { resolve: (w: World) => void; reject: (e: Error) => void }[] = [];
  let stepNo = 0;

  const publish = (evs: readonly TraceEvent[]): void => {
    for (const e of evs) {
      if (e.kind === 'send') arrivals.push([e.from === 'env' ? sc.envIndex : sc.index.get(e.from)!, sc.index.get(e.to)!]);
      const failed = isFailureEvent(e);
      // Events nobody keeps or watches are not copied (long live runs with record: false).
      if (keepEvents || failed || events$.observed) {
        const r = { ...e, step: stepNo } as RecordedEvent;
        if (keepEvents) recorded.push(r);
        if (failed) failures.push(r);
        events$.next(r);
      }
      if (e.kind === 'deliver') {
        const actor = sc.actorList[sc.index.get(e.to)!]!;
        if (actor.kind === 'external') enqueueIo(actor.id, e.msg, e.from);
      }
    }
    if (opts.stopOnFailure && failures.length > 0 && !fatal) fail(new Error(`live run of '${sc.name}' failed: ${describe(failures[0]!)}`));
  };

  const init = initialWorld(sc, { detail });
  let world = init.world;
  inspector.start(world);
  publish(init.events);

  function take(step: Step): void {
    stepNo++;
    const prev = world;
    const r = apply(sc, world, step, { detail });
    world = r.world;
    schedule.push(step.id);
    if (log) log.step(step.id, step.kind === 'input' ? { from: step.from === sc.envIndex ? 'env' : sc.ids[step.from]!, to: sc.ids[step.to]!, msg: step.msg } : undefined);
    if (inspectCb || inspection$.observed) inspector.step(prev, world, r.events);
    publish(r.events);
  }

  /** Virtual time now: real elapsed time over the scale (frozen at 0 when timeScale is 0). */
  function virtualNow(): number {
    return timeScale > 0 ? Math.floor((performance.now() - started) / timeScale) : world.now;
  }

  /** Moves the world's clock up to real time, so timers set next are relative to now. */
  function advance(): void {
    const v = virtualNow();
    if (v > world.now) take(tickStep(v));
  }

  function input(from: string, to: string, msg: Message): void {
    advance();
    inputs.push({ index: schedule.length, from, to, msg });
    take(inputStep(sc, from, to, msg));
  }

  function enqueueIo(id: string, msg: Message, from: string): void {
    pendingIo++;
    let q = ioQueue.get(id);
    if (!q) ioQueue.set(id, (q = []));
    q.push({ msg, from });
    pumpIo(id);
  }

  function pumpIo(id: string): void {
    const spec = specs.get(id)!;
    const q = ioQueue.get(id)!;
    while (q.length > 0 && (ioRunning.get(id) ?? 0) < spec.concurrency) {
      const { msg, from } = q.shift()!;
      ioRunning.set(id, (ioRunning.get(id) ?? 0) + 1);
      Promise.resolve()
        .then(() => spec.handle(msg, from))
        .then(
          (replies) => {
            if (stopped) return;
            if (!Array.isArray(replies)) throw new ScenarioError(`external '${id}' must return an array of { to, msg } replies for '${msg.type}', got ${typeof replies}`);
            for (const r of replies) input(id, r.to, r.msg);
          },
        )
        .catch((err: unknown) => {
          const e = err instanceof Error ? err : new Error(String(err));
          fail(new Error(`external '${id}' failed on '${msg.type}' from '${from}': ${e.message}`, { cause: e }));
        })
        .finally(() => {
          pendingIo--;
          ioRunning.set(id, ioRunning.get(id)! - 1);
          if (!stopped) pumpIo(id);
          if (pendingIo === 0) for (const f of ioSettled.splice(0)) f();
          wake();
        });
    }
  }

  function pending(): number {
    return arrivals.length - arrivalHead;
  }

  function quiescent(): boolean {
    return pending() === 0 && world.timers.length === 0 && pendingIo === 0;
  }

  function settleWaiters(): void {
    if (waiters.length === 0) return;
    if (fatal) {
      for (const w of waiters.splice(0)) w.reject(fatal);
    } else if (stopped || quiescent()) {
      for (const w of waiters.splice(0)) w.resolve(world);
    }
  }

  /** The run cannot go on: record why, tell subscribers, stop stepping. */
  function fail(e: Error): void {
    if (fatal) return;
    fatal = e;
    log?.flush();
    errors.push(e);
    halt();
    events$.error(e);
    inspection$.complete();
    settleWaiters();
  }

  function halt(): void {
    stopped = true;
    if (timerHandle !== undefined) clearTimeout(timerHandle);
    timerHandle = undefined;
    for (const q of ioQueue.values()) {
      pendingIo -= q.length;
      q.length = 0;
    }
  }

  /** Fires every timer due by now that the scenario lets fire. */
  function fireDueTimers(): void {
    for (;;) {
      const t = world.timers[0];
      if (!t || t.due > virtualNow() + (timeScale === 0 ? Infinity : 0)) return;
      const s = enabled(sc, world).find((x) => x.kind === 'timer');
      if (!s) return; // timers: 'quiescent' and messages in flight: later
      take(s);
    }
  }

  function loop(): void {
    scheduled = false;
    if (stopped) return;
    try {
      // At timeScale 0 a timer fires once nothing else can happen (no message, no I/O
      // in flight): I/O takes no virtual time, as in the simulator.
      if (timeScale > 0 || (pending() === 0 && pendingIo === 0)) fireDueTimers();
      for (let n = 0; n < slice && pending() > 0; n++) {
        const [from, to] = arrivals[arrivalHead++]!;
        if (arrivalHead > 1024 && arrivalHead * 2 > arrivals.length) {
          arrivals.splice(0, arrivalHead);
          arrivalHead = 0;
        }
        if (!world.inbox[to]!.some((c) => c.from === from)) continue; // dropped (the receiver crashed): nothing to deliver
        advance();
        // The step `enabled` offers for this channel's head, built directly (no scan of every channel).
        const head = world.inbox[to]!.find((c) => c.from === from)!.queue[0]!;
        take(deliverStep(sc, from, to, head.type));
        if (stopped) return;
      }
      armTimer();
    } catch (e) {
      fail(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    if (pending() > 0 || (timeScale === 0 && world.timers.length > 0 && pendingIo === 0)) wake();
    else settleWaiters();
  }

  function armTimer(): void {
    const next = world.timers[0];
    if (!next || timeScale === 0) {
      if (timerHandle !== undefined) clearTimeout(timerHandle);
      timerHandle = undefined;
      armedDue = -1;
      return;
    }
    if (timerHandle !== undefined && armedDue === next.due) return;
    if (timerHandle !== undefined) clearTimeout(timerHandle);
    armedDue = next.due;
    const wait = Math.max(0, next.due * timeScale - (performance.now() - started));
    timerHandle = setTimeout(() => {
      timerHandle = undefined;
      armedDue = -1;
      wake();
    }, Math.ceil(wait));
  }

  function wake(): void {
    if (scheduled || stopped) {
      if (stopped) settleWaiters();
      return;
    }
    scheduled = true;
    setImmediate(loop);
  }

  wake();
  return {
    scenario: sc,
    events$: events$.asObservable(),
    inspection$: inspection$.asObservable(),
    send(to, msg) {
      if (fatal) throw new ScenarioError(`the live system failed: ${fatal.message}`);
      if (stopped) throw new ScenarioError('the live system is stopped');
      input('env', to, msg);
      wake();
    },
    whenQuiescent() {
      return new Promise((resolve, reject) => {
        waiters.push({ resolve, reject });
        if (stopped) settleWaiters();
        else wake();
      });
    },
    async stop() {
      if (!stopped) {
        halt();
        events$.complete();
        inspection$.complete();
      }
      settleWaiters();
      if (pendingIo > 0) await new Promise<void>((r) => ioSettled.push(r));
      log?.close();
    },
    world: () => world,
    schedule: () => schedule,
    inputs: () => inputs,
    recording: () => ({
      scenario: sc.name,
      params: { ...(sc.params ?? {}) },
      externals: sc.actorList.filter((a) => a.kind === 'external').map((a) => a.id),
      schedule: schedule.slice(),
      inputs: inputs.slice(),
      events: recorded.slice(),
      ...(opts.initial ? { initial: opts.initial } : {}),
    }),
    errors,
    failures,
  };
}

let runs = 0;

function describe(e: RecordedEvent): string {
  if (e.kind === 'unhandled') return `actor '${e.actor}' in state '${e.state}' has no transition for '${e.msg.type}' from '${e.from}'`;
  return e.kind === 'error' ? `actor '${e.actor}': ${e.message}` : e.kind === 'monitor-fail' ? `monitor '${e.monitor}': ${e.message}` : e.kind;
}
