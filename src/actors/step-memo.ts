// Reuse of machine steps within one exploration. Machines are pure, so the same
// snapshot object receiving the same message object steps to the same result; a
// model checker delivers the same (snapshot, message) pair in many interleavings
// (about half of its machine steps on the protocol models). Opt-in through
// `apply(..., { memo })`; only the checker's exhaustive search passes one.
import type { StepResult } from './xstate-adapter.ts';

interface Entry {
  readonly actor: number;
  readonly msg: unknown;
  readonly res: StepResult;
}

/**
 * Step results by (actor, snapshot, message) identity. Strong references, so it is
 * bounded: cleared whenever it holds `limit` snapshots (results otherwise keep
 * every snapshot they lead to alive).
 */
export class StepMemo {
  private map = new Map<object, Entry[]>();

  constructor(private readonly limit = 1 << 16) {}

  get(actor: number, snapshot: object, msg: unknown): StepResult | undefined {
    const es = this.map.get(snapshot);
    if (es === undefined) return undefined;
    for (const e of es) if (e.msg === msg && e.actor === actor) return e.res;
    return undefined;
  }

  set(actor: number, snapshot: object, msg: unknown, res: StepResult): void {
    const es = this.map.get(snapshot);
    if (es !== undefined) {
      es.push({ actor, msg, res });
      return;
    }
    if (this.map.size >= this.limit) this.map = new Map();
    this.map.set(snapshot, [{ actor, msg, res }]);
  }
}
