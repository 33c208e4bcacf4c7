// Weak-fairness classes of steps (see FairnessSpec in src/actors/liveness.ts): the
// normal deliveries to one actor, the normal deliveries on one channel, the timers
// of one actor. A step belongs to up to three classes; faults belong to none.
import { DEFAULT_FAIRNESS, actorName, isFault, type FairnessSpec, type Scenario, type Step, type World } from '../../actors/index.ts';

export class FairClasses {
  /** What each class is, for messages ('deliveries to pinger'). */
  readonly names: string[] = [];
  /** 32-bit words per class mask. */
  readonly words: number;
  readonly spec: FairnessSpec | 'none';
  private readonly toActor: number[];
  private readonly timerOf: number[];
  private readonly channel = new Map<number, number>();
  private readonly byId = new Map<string, readonly number[]>();

  constructor(private readonly sc: Scenario) {
    this.spec = sc.fairness ?? DEFAULT_FAIRNESS;
    const f = this.spec === 'none' ? {} : this.spec;
    const n = sc.ids.length;
    const pick = (v: FairnessSpec['actors']): boolean[] => Array.from({ length: n }, (_, i) => v === 'all' || (Array.isArray(v) && v.includes(sc.ids[i]!)));
    const actors = pick(f.actors);
    const timers = pick(f.timers);
    this.toActor = actors.map((on, i) => (on ? this.add(`deliveries to ${sc.ids[i]}`) : -1));
    this.timerOf = timers.map((on, i) => (on ? this.add(`timers of ${sc.ids[i]}`) : -1));
    for (const [from, to] of f.channels ?? []) {
      const a = from === 'env' ? sc.envIndex : sc.index.get(from)!;
      const b = sc.index.get(to)!;
      const key = a * (n + 1) + b;
      if (!this.channel.has(key)) this.channel.set(key, this.add(`deliveries on ${from} -> ${to}`));
    }
    this.words = Math.max(1, Math.ceil(this.names.length / 32));
  }

  private add(name: string): number {
    this.names.push(name);
    return this.names.length - 1;
  }

  get count(): number {
    return this.names.length;
  }

  /** The classes of a step enabled at `w` (its id decides them: the same id, the same classes). */
  of(step: Step, w: World): readonly number[] {
    let c = this.byId.get(step.id);
    if (c) return c;
    const out: number[] = [];
    if (!isFault(step)) {
      if (step.kind === 'deliver') {
        const a = this.toActor[step.to] ?? -1;
        if (a >= 0) out.push(a);
        const ch = this.channel.get(step.from * (this.sc.ids.length + 1) + step.to);
        if (ch !== undefined) out.push(ch);
      } else if (step.kind === 'timer') {
        const t = this.timerOf[w.timers[step.timer]!.owner] ?? -1;
        if (t >= 0) out.push(t);
      }
    }
    this.byId.set(step.id, (c = out));
    return c;
  }

  /** ORs the classes of `steps` into `mask` at word offset `o`. */
  orInto(mask: Uint32Array, o: number, classes: readonly number[]): void {
    for (const c of classes) mask[o + (c >>> 5)]! |= 1 << (c & 31);
  }

  /** A readable summary for `result.options`. */
  describe(): string {
    if (this.count === 0) return this.spec === 'none' ? 'none' : 'none (no class declared)';
    return `weak: ${this.names.join(', ')}`;
  }

  /** The id of the actor index (env included). */
  name(i: number): string {
    return actorName(this.sc, i);
  }
}
