// One step's scratch copy of the world: arrays are copied on first write and
// everything else is shared, so a step costs only what it changes. The hot path
// of `apply`; hand-written because immer's produce costs far more here, per step
// (docs/measurements.md).
import { ScenarioError, actorName, type Scenario } from './scenario.ts';
import type { ActorStatus, Channel, Message, Timer, TraceEvent, World } from './types.ts';
import type { StepMemo } from './step-memo.ts';

/** The shared empty inbox (no channel has messages). */
export const EMPTY: readonly Channel[] = Object.freeze([]);

/** Mutable scratch for one step: copies arrays on first write, shares the rest. */
export class Draft {
  snaps: unknown[] | undefined;
  status: ActorStatus[] | undefined;
  inbox: (readonly Channel[])[] | undefined;
  timers: Timer[] | undefined;
  now: number;
  faults: number;
  anon: number;
  private inputs: number[] | undefined;
  readonly events: TraceEvent[] = [];
  /** Machine step results to reuse (the checker's exhaustive search sets one). */
  memo: StepMemo | undefined = undefined;

  constructor(
    readonly sc: Scenario,
    readonly base: World,
    readonly detail: boolean,
  ) {
    this.now = base.now;
    this.faults = base.faults;
    this.anon = base.anon;
  }

  snap(i: number): unknown {
    return (this.snaps ?? this.base.snaps)[i];
  }
  setSnap(i: number, s: unknown): void {
    (this.snaps ??= this.base.snaps.slice())[i] = s;
  }
  stat(i: number): ActorStatus {
    return (this.status ?? this.base.status)[i]!;
  }
  setStat(i: number, s: ActorStatus): void {
    (this.status ??= this.base.status.slice())[i] = s;
  }
  channels(to: number): readonly Channel[] {
    return (this.inbox ?? this.base.inbox)[to]!;
  }
  setChannels(to: number, chs: readonly Channel[]): void {
    (this.inbox ??= this.base.inbox.slice())[to] = chs.length === 0 ? EMPTY : chs;
  }
  timerList(): readonly Timer[] {
    return this.timers ?? this.base.timers;
  }
  setTimers(t: Timer[]): void {
    this.timers = t;
  }

  /** Appends to channel from -> to, keeping channels sorted by sender. Copies by hand (no slice+splice: this is the hot path). */
  enqueue(from: number, to: number, msg: Message): void {
    const chs = this.channels(to);
    const n = chs.length;
    if (n === 0) {
      this.setChannels(to, [{ from, queue: [msg] }]);
      return;
    }
    let lo = 0;
    while (lo < n && chs[lo]!.from < from) lo++;
    const found = lo < n && chs[lo]!.from === from;
    const next: Channel[] = new Array(found ? n : n + 1);
    for (let k = 0; k < lo; k++) next[k] = chs[k]!;
    if (found) {
      const q = chs[lo]!.queue;
      const queue: Message[] = new Array(q.length + 1);
      for (let k = 0; k < q.length; k++) queue[k] = q[k]!;
      queue[q.length] = msg;
      next[lo] = { from, queue };
      for (let k = lo + 1; k < n; k++) next[k] = chs[k]!;
    } else {
      next[lo] = { from, queue: [msg] };
      for (let k = lo; k < n; k++) next[k + 1] = chs[k]!;
    }
    this.setChannels(to, next);
  }

  /** Removes and returns the head of channel from -> to. */
  dequeue(from: number, to: number): Message {
    const chs = this.channels(to);
    const n = chs.length;
    let k = 0;
    while (k < n && chs[k]!.from !== from) k++;
    if (k === n) throw new ScenarioError(`no message in flight from '${actorName(this.sc, from)}' to '${actorName(this.sc, to)}'`);
    const ch = chs[k]!;
    if (ch.queue.length === 1) {
      if (n === 1) this.setChannels(to, EMPTY);
      else {
        const next: Channel[] = new Array(n - 1);
        for (let j = 0, o = 0; j < n; j++) if (j !== k) next[o++] = chs[j]!;
        this.setChannels(to, next);
      }
    } else {
      const next = chs.slice();
      next[k] = { from, queue: ch.queue.slice(1) };
      this.setChannels(to, next);
    }
    return ch.queue[0]!;
  }

  /** One more use of budgeted environment input `slot`. */
  countInput(slot: number): void {
    const next = (this.inputs ?? this.base.inputs ?? []).slice();
    next[slot] = (next[slot] ?? 0) + 1;
    this.inputs = next;
  }

  finish(monitors: readonly unknown[], failure: World['failure']): World {
    const b = this.base;
    const inputs = this.inputs ?? b.inputs;
    const w: { -readonly [K in keyof World]: World[K] } = {
      snaps: this.snaps ?? b.snaps,
      status: this.status ?? b.status,
      inbox: this.inbox ?? b.inbox,
      now: this.now,
      timers: this.timers ?? b.timers,
      faults: this.faults,
      monitors,
      failure,
      anon: this.anon,
    };
    // Set only when the scenario has budgeted inputs (a world without them has no such key).
    if (inputs) w.inputs = inputs;
    return w;
  }
}

function timerOrder(a: Timer, b: Timer): number {
  return a.due - b.due || a.owner - b.owner || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function addTimer(d: Draft, t: Timer): void {
  const list = d.timerList().filter((x) => !(x.owner === t.owner && x.id === t.id));
  let k = 0;
  while (k < list.length && timerOrder(list[k]!, t) <= 0) k++;
  list.splice(k, 0, t);
  d.setTimers(list);
}

export function cancelTimer(d: Draft, owner: number, id: string): boolean {
  const list = d.timerList();
  const k = list.findIndex((x) => x.owner === owner && x.id === id);
  if (k < 0) return false;
  const next = list.slice();
  next.splice(k, 1);
  d.setTimers(next);
  return true;
}
