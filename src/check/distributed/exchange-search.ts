// The search loop of one shard of an exchange run (hash-partitioned, as Stern & Dill's
// parallel Murphi and distributed TLC): every world has one owner, its fingerprint's
// shard (`ownerOf`); a shard expands only the worlds it owns, each once (its visited
// set holds only its own), and sends each successor another shard owns to that shard,
// once per sender (`sentSet`). Why the shards together visit every reachable world:
// docs/sharding.md ("Exchange mode").
//
// One step function: worlds are stepped with the kernel's `enabled` / `apply`,
// fingerprinted by the session's hasher and checked with the same property code as
// search/explore.ts. A step's own violations (errors, unhandled messages, monitor failures)
// are checked where the step is taken; a world's (invariants, `eventually`, deadlock)
// by its owner. No partial-order reduction (its cycle proviso does not hold across
// shards) and no liveness (it needs the whole graph): index.ts turns them away.
import { checkerMemo } from '../search/memo-key.ts';
import { apply, initialWorld, type Scenario, type Step, type World } from '../../actors/index.ts';
import { readDone, readStop, writeDone, writeStop, type DirIo, type StopNote } from './exchange-dir.ts';
import { PathTable, extendPath, pathLength, scheduleOfPath } from './exchange-paths.ts';
import { Termination, type TerminationTiming } from './exchange-termination.ts';
import { Inbox, Outbox, runTag, type Arrival } from './exchange-transport.ts';
import type { Lanes } from '../fingerprint/fingerprint.ts';
import { invariantViolation, stepViolation } from '../properties.ts';
import { yieldToLoop, type Explorer, type Session } from '../search/session.ts';
import { VisitedSet } from '../search/visited.ts';
import { SegmentLink } from '../codec/segment-link.ts';
import type { CutBy, PropertyRef } from '../types.ts';

/** Exact world bytes (codec/world-codec.ts): what a shard sends and its owner explores. */
export interface WorldCodecLike {
  encode(world: World, link?: SegmentLink): Uint8Array;
  decode(bytes: Uint8Array, link?: SegmentLink): World;
}

/** Received worlds hashed again to check their fingerprint: all of the first ones, then one in this many. */
const VERIFY = { first: 256, every: 32 };

/** The shard that owns a fingerprint (bits independent of the visited set's slot). */
export function ownerOf(a: number, b: number, count: number): number {
  return ((Math.imul(a, 0xcc9e2d51) ^ Math.imul(b, 0x1b873593)) >>> 0) % count;
}

export interface ExchangeLink {
  readonly io: DirIo;
  /** The directory as the user named it (for messages). */
  readonly where: string;
  readonly runId: string;
  readonly index: number;
  readonly count: number;
  readonly codec: WorldCodecLike;
  readonly timing: TerminationTiming;
  /** Write a batch once it holds this many bytes (and every slice anyway). */
  readonly batchBytes: number;
  /** Local order: a FIFO (`bfs`) or a stack (`dfs`). */
  readonly order: 'bfs' | 'dfs';
  /** First sleep between polls while idle; it doubles while nothing arrives, up to `idleMaxMs`. */
  readonly idleMs: number;
  /** Longest sleep between polls while idle (default `idleMs`). */
  readonly idleMaxMs?: number;
  /** An idle shard writes its idle status and reads termination waves once it has been idle this long (ms, the timing clock; default 0). */
  readonly waveDelayMs?: number;
  /** While busy, a batch is written at the end of a slice once it holds this many worlds (default: no such bound)... */
  readonly flushWorlds?: number;
  /** ... or this many bytes (default 0: every slice)... */
  readonly flushBytes?: number;
  /** ... or once its first record is this old (ms, the timing clock; default 0)... */
  readonly flushAgeMs?: number;
  /** ... or once this shard expanded this many worlds since its first record (default: no such bound). */
  readonly flushAgeWork?: number;
  /** Received worlds hashed again to check the sender's fingerprint: the first `first`, then one in `every` (default 256 and 32). */
  readonly verify?: { first: number; every: number };
  /** Own worlds by this actor's snapshot hash instead of the fingerprint (distributed/exchange-owner.ts; never under symmetry). */
  readonly ownerActor?: number;
  /** Entries of each segment link (codec/segment-link.ts), one per peer and direction; 0 or absent: worlds are carried whole. */
  readonly linkLimit?: number;
}

interface Item {
  world: World;
  steps: Step[];
  entry: number;
  depth: number;
  lanes: Lanes | undefined;
}

/** Counts of one shard's traffic (`result.exchange`). */
export interface ExchangeCounts {
  /** Worlds written for other shards (each world at most once by this shard). */
  worldsSent: number;
  /** Batch files written. */
  batchesSent: number;
  /** Bytes of those batch files. */
  bytesSent: number;
  /** Worlds read from other shards' batches. */
  worldsReceived: number;
  /** Received worlds this shard had not visited yet. */
  worldsReceivedNew: number;
  /** Batch files read. */
  batchesReceived: number;
  /** Bytes of those batch files. */
  bytesReceived: number;
  /** Termination detection waves read. */
  waves: number;
  /** Snapshots, messages and monitor states sent as their number on a segment link (codec/segment-link.ts) instead of in full. */
  segmentsByNumber?: number;
  /**
   * Process start to this shard's first owned world (module load, scenario build, joining
   * the run, waiting for the first world): wall ms since the process started and the
   * process's CPU ms by then. Absent when the shard owned no world.
   */
  startup?: {
    /** Wall ms since the process started. */
    ms: number;
    /** The process's CPU ms (user + system) by then. */
    cpuMs: number;
  };
}

export class ExchangeSearch implements Explorer {
  private readonly sc: Scenario;
  private readonly memo = checkerMemo();
  private readonly paths = new PathTable();
  /** Worlds this shard sent (each crosses at most once per sender). */
  private readonly sentSet = new VisitedSet();
  private readonly outbox: Outbox;
  private readonly inbox: Inbox;
  private readonly term: Termination;
  private readonly checkRevisits: boolean;
  /** Per peer: the segments this shard carried to it, and those it carried here (undefined: no links). */
  private readonly sendLinks: SegmentLink[] | undefined;
  private readonly recvLinks: SegmentLink[] | undefined;
  private queue: Item[] = [];
  private head = 0;
  private started = false;
  private idleNow = false;
  /** The next idle sleep: grows while polls find nothing, so idle shards leave the CPU to busy ones. */
  private idleSleep = 0;
  private unwatch: (() => void) | undefined;
  private wake: (() => void) | undefined;
  private lastPeerCheck = 0;
  private depthCutNoted = false;
  worldsReceivedNew = 0;
  /** When this shard last ran dry with nothing arriving (the link's clock), while it stays so. */
  private idleSince: number | undefined;
  /** The link's clock when this slice began (the age of a batch is counted from the slice of its first record). */
  private sliceStart = 0;
  /** Worlds expanded so far (the work clock of batch ages). */
  private expanded = 0;
  /** Received worlds hashed here to check the sender's fingerprint. */
  private verified = 0;
  private startup: { ms: number; cpuMs: number } | undefined;
  /** How the run ended for this shard: complete (termination detected), or stopped and why. */
  outcome: { kind: 'complete' } | { kind: 'stopped'; note: StopNote } | undefined;

  constructor(
    private readonly s: Session,
    private readonly link: ExchangeLink,
  ) {
    this.sc = s.sc;
    const tag = runTag(link.runId);
    this.outbox = new Outbox(link.io, tag, link.index, link.count, link.batchBytes);
    this.inbox = new Inbox(link.io, tag, link.index, link.count);
    this.term = new Termination(link.io, link.runId, link.index, link.count, link.timing);
    this.checkRevisits = s.hasher.symmetric || s.opts.inspect?.violation !== undefined;
    const limit = link.linkLimit ?? 0;
    if (limit > 0) {
      this.sendLinks = Array.from({ length: link.count }, () => new SegmentLink(limit));
      this.recvLinks = Array.from({ length: link.count }, () => new SegmentLink(limit));
    }
  }

  get runId(): string {
    return this.link.runId;
  }

  counts(): ExchangeCounts {
    return { worldsSent: this.outbox.records, batchesSent: this.outbox.sent, bytesSent: this.outbox.bytes, worldsReceived: this.inbox.records, worldsReceivedNew: this.worldsReceivedNew, batchesReceived: this.inbox.received, bytesReceived: this.inbox.bytes, waves: this.term.waves, ...(this.sendLinks ? { segmentsByNumber: this.sendLinks.reduce((a, l) => a + l.refs, 0) } : {}), ...(this.startup ? { startup: this.startup } : {}) };
  }

  /** Sleeps while idle (the drive loop's pause between slices), until the next poll or a batch arrives, where the file system tells. */
  pause(): Promise<void> {
    if (!this.idleNow) return yieldToLoop();
    if (this.unwatch === undefined && this.link.io.watch && !this.outcome) this.unwatch = this.link.io.watch(`in-${this.link.index}`, (name) => {
        // Only a batch still to read wakes the shard (not a sender's temporary file, nor a batch this shard deleted).
        if (name === undefined || this.inbox.awaits(name)) this.wake?.();
      });
    return new Promise((r) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        r();
      }, this.idleSleep);
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        r();
      };
    });
  }

  /** Stops watching the inbox (the run is over for this shard). */
  private close(): void {
    this.unwatch?.();
    this.unwatch = () => undefined;
    this.wake?.();
  }

  private get size(): number {
    return this.queue.length - this.head;
  }

  private next(): Item | undefined {
    if (this.link.order === 'dfs') {
      const it = this.queue.pop();
      return it;
    }
    const it = this.queue[this.head];
    if (!it) return undefined;
    this.queue[this.head++] = undefined as unknown as Item;
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return it;
  }

  /** Records a violation; true when exploration stops (unless an inspector asks to go on). */
  private report(property: PropertyRef, path: () => Uint8Array): boolean {
    const schedule = scheduleOfPath(this.sc, path());
    if (this.s.opts.inspect?.violation?.(property, schedule)) return false;
    this.s.found = { property, schedule };
    return true;
  }

  /** A world this shard owns, met for the first time: the checks of search/explore.ts's `arrive`, then queue it. */
  private arrive(world: World, entry: number, depth: number, lanes: Lanes | undefined): void {
    const s = this.s;
    this.startup ??= processClock();
    const { all, end } = s.firstVisit(world, depth);
    if (end && this.report(end, () => this.paths.path(entry))) return;
    if (all.length === 0) return;
    if (depth >= s.maxDepthBudget) {
      s.cutBy ??= 'maxDepth';
      return;
    }
    this.queue.push({ world, steps: all, entry, depth, lanes: Array.isArray(lanes) ? Int32Array.from(lanes) : lanes });
  }

  private begin(): void {
    const s = this.s;
    const init = initialWorld(this.sc, { detail: false });
    s.determinism?.checkInitial(init.world);
    s.hasher.world(init.world);
    if (this.ownerNow() !== this.link.index) return;
    s.states++;
    s.visited.add(s.hasher.ha, s.hasher.hb);
    const lanes = s.hasher.lastLanes;
    const entry = this.paths.root(new Uint8Array(0));
    const v = stepViolation(this.sc, init.world, init.events);
    if (v && this.report(v, () => new Uint8Array(0))) return;
    this.arrive(init.world, entry, 0, lanes);
  }

  /** The owner of the world the session's hasher hashed last. */
  private ownerNow(): number {
    const h = this.s.hasher;
    const k = this.link.ownerActor;
    if (k === undefined) return ownerOf(h.ha, h.hb, this.link.count);
    const a = h.snapshotLane(k, 0);
    if (a === undefined) throw new Error('internal: exchange mode owns worlds by an actor snapshot, but the world was hashed under symmetry');
    return ownerOf(a, h.snapshotLane(k, 1)!, this.link.count);
  }

  /** Expands one owned world: every enabled step, each successor kept, sent or dropped. */
  private expand(it: Item): void {
    const s = this.s;
    const sc = this.sc;
    const { index } = this.link;
    let myPath: Uint8Array | undefined;
    const pathTo = (via: number) => extendPath((myPath ??= this.paths.path(it.entry)), via);
    for (let j = 0; j < it.steps.length; j++) {
      const t = it.steps[j]!;
      const r = apply(sc, it.world, t, { detail: false, memo: this.memo });
      s.determinism?.check(it.world, t, r.world, r.events);
      s.transitions++;
      s.states++;
      s.hasher.world(r.world, it.world, it.lanes);
      const a = s.hasher.ha;
      const b = s.hasher.hb;
      const owner = this.ownerNow();
      if (owner !== index) {
        // The step's own violations are checked here; the world's invariants by its owner.
        const v = stepViolation(sc, r.world, r.events, false);
        if (v && this.report(v, () => pathTo(j))) return;
        if (this.sentSet.add(a, b)) this.outbox.add(owner, a, b, this.link.codec.encode(r.world, this.sendLinks?.[owner]), pathTo(j), s.hasher.lastLanes, this.sliceStart, this.expanded);
        continue;
      }
      const fresh = s.visited.add(a, b);
      const v = stepViolation(sc, r.world, r.events, fresh || this.checkRevisits);
      if (v && this.report(v, () => pathTo(j))) return;
      if (!fresh) continue;
      const lanes = s.hasher.lastLanes;
      this.arrive(r.world, this.paths.child(it.entry, j), it.depth + 1, lanes);
      if (s.found) return;
      if (s.visited.size >= s.maxStates) {
        s.cutBy ??= 'maxStates';
        return;
      }
    }
  }

  /** A world sent by its finder: explored if new here. */
  private receive(x: Arrival): void {
    const s = this.s;
    const fresh = s.visited.add(x.a, x.b);
    const link = this.recvLinks?.[x.from];
    if (!fresh && !this.checkRevisits) {
      // The link numbers the segments this world carries in full: decode it to keep in step with the sender.
      if (link) this.link.codec.decode(x.world, link);
      return;
    }
    const world = this.link.codec.decode(x.world, link);
    // The sender's lanes spare hashing the world again; a sample of worlds is hashed anyway, to catch a codec that is not exact.
    const { first, every } = this.link.verify ?? VERIFY;
    const verify = !x.lanes || this.verified++ < first || this.verified % every === 0;
    if (verify) {
      s.hasher.world(world);
      if (s.hasher.ha >>> 0 !== x.a || s.hasher.hb >>> 0 !== x.b) throw new Error('internal: a world received from another shard has another fingerprint here (the world codec is not exact for this scenario)');
    }
    if (!fresh) {
      // Under symmetry a permuted world may break an invariant its first visit kept.
      const v = invariantViolation(this.sc, world);
      if (v) this.report(v, () => x.path.slice());
      return;
    }
    this.worldsReceivedNew++;
    const v = invariantViolation(this.sc, world);
    if (v && this.report(v, () => x.path.slice())) return;
    this.arrive(world, this.paths.root(x.path), pathLength(x.path), x.lanes ?? s.hasher.lastLanes);
  }

  /** Consumes every waiting batch; true when one was consumed. */
  private poll(): boolean {
    let got = false;
    while (!this.s.found && this.inbox.peek()) {
      this.term.active(this.outbox.sent, this.inbox.received);
      for (const x of this.inbox.take()) {
        this.receive(x);
        if (this.s.found) break;
      }
      got = true;
    }
    return got;
  }

  /** This shard ends the run for everyone: a violation, a budget or Ctrl-C. */
  private stopAll(reason: StopNote['reason'], message: string): void {
    const note: StopNote = { runId: this.link.runId, by: this.link.index, reason, message };
    writeStop(this.link.io, note);
    this.outcome = { kind: 'stopped', note };
  }

  /** Another shard ended the run (or the run is complete): true when this shard must end. */
  private ended(): boolean {
    if (readDone(this.link.io, this.link.runId)) return this.complete();
    const stop = readStop(this.link.io, this.link.runId);
    if (!stop) return false;
    this.outcome = { kind: 'stopped', note: stop };
    this.s.cutBy ??= 'stopped';
    return true;
  }

  private localEnd(): boolean {
    const s = this.s;
    if (s.found) {
      this.stopAll('violation', `shard ${this.link.index + 1}/${this.link.count} found a violation of ${s.found.property.kind} '${s.found.property.name}'`);
      return true;
    }
    // The depth bound only leaves worlds unexpanded (each shard says so in a file): the search goes on.
    if (s.cutBy === 'maxDepth' && !this.depthCutNoted) {
      this.depthCutNoted = true;
      this.link.io.create(`cut-${this.link.index}`, 'maxDepth\n');
    }
    if (s.cutBy && s.cutBy !== 'maxDepth') {
      this.stopAll(s.cutBy as StopNote['reason'], `shard ${this.link.index + 1}/${this.link.count} was ${cutText(s.cutBy)}`);
      return true;
    }
    return false;
  }

  step(until: number): boolean {
    try {
      const end = this.stepOn(until);
      if (end) this.close();
      return end;
    } catch (e) {
      this.close();
      // A shard that fails must not leave the others waiting for its worlds until they time out.
      if (!this.outcome) this.stopAll('error', `shard ${this.link.index + 1}/${this.link.count} failed: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
  }

  private stepOn(until: number): boolean {
    const s = this.s;
    this.idleNow = false;
    this.sliceStart = this.link.timing.now();
    if (!this.started) {
      this.started = true;
      if (this.ended()) return true;
      this.term.active(0, 0);
      this.begin();
      if (this.localEnd()) return true;
    }
    let k = 0;
    for (;;) {
      if ((++k & 15) === 0) {
        const now = performance.now();
        if (s.outOfBudget(now)) return this.localEnd();
        if (now > until) return this.endSlice(now);
      }
      const it = this.next();
      if (!it) return this.whenEmpty();
      this.expand(it);
      this.expanded++;
      if (this.localEnd()) return true;
    }
  }

  /** End of a busy slice: send what is ready, take what came, say this shard is alive. */
  private endSlice(now: number): boolean {
    const s = this.s;
    // Busy: only full or old batches (an idle shard sends all it has, in whenEmpty).
    this.outbox.flushReady(this.link.timing.now(), this.link.flushBytes ?? 0, this.link.flushAgeMs ?? 0, this.link.flushWorlds ?? Infinity, this.expanded, this.link.flushAgeWork ?? Infinity);
    this.poll();
    if (this.localEnd()) return true;
    this.term.tick(this.outbox.sent, this.inbox.received);
    s.queue = this.size;
    if (now - this.lastPeerCheck > 1000) {
      this.lastPeerCheck = now;
      if (this.ended()) return true;
      const v = this.term.check();
      if (v?.kind === 'silent') return this.silent(v.shard, v.ms, v.never);
    }
    return false;
  }

  /** Nothing to expand: send, receive, or (idle) detect termination. */
  private whenEmpty(): boolean {
    const s = this.s;
    s.queue = 0;
    this.outbox.flushAll();
    if (this.poll()) {
      this.idleSleep = this.link.idleMs;
      this.idleSince = undefined;
      return this.localEnd();
    }
    if (this.ended()) return true;
    // A shard that just ran dry usually gets work soon: it says idle and reads status waves only once it stayed idle a while.
    const now = this.link.timing.now();
    this.idleSince ??= now;
    if (now - this.idleSince >= (this.link.waveDelayMs ?? 0)) {
      const v = this.term.idle(this.outbox.sent, this.inbox.received);
      if (v?.kind === 'terminated') {
        writeDone(this.link.io, this.link.runId, this.link.index);
        return this.complete();
      }
      if (v?.kind === 'silent') return this.silent(v.shard, v.ms, v.never);
    }
    if (s.outOfBudget(performance.now())) return this.localEnd();
    this.idleNow = true;
    this.idleSleep = Math.min(Math.max(this.link.idleMs, this.idleSleep * 2), this.link.idleMaxMs ?? this.link.idleMs);
    return false;
  }

  /** Termination: complete unless some shard left worlds unexpanded at the depth bound. */
  private complete(): boolean {
    this.outcome = { kind: 'complete' };
    for (let i = 0; i < this.link.count; i++) if (this.link.io.read(`cut-${i}`)) this.s.cutBy ??= 'maxDepth';
    return true;
  }

  private silent(shard: number, ms: number, never: boolean): boolean {
    const { count, where } = this.link;
    const what = never ? `has not started in ${where}` : `has not updated its status in ${where}`;
    this.s.cutBy ??= 'stopped';
    this.stopAll('silent', `shard ${shard + 1}/${count} ${what} for ${Math.round(ms / 1000)} s (it may have died or never been scheduled); the run is incomplete: start all ${count} shards again with an empty directory, or raise the exchange timeout if shards start far apart`);
    return true;
  }
}

/** Wall ms since the process started and its CPU ms so far (zeros where there is no process, e.g. a browser). */
function processClock(): { ms: number; cpuMs: number } {
  const cpu = typeof process !== 'undefined' && typeof process.cpuUsage === 'function' ? process.cpuUsage() : { user: 0, system: 0 };
  return { ms: Math.round(performance.now()), cpuMs: Math.round((cpu.user + cpu.system) / 1000) };
}

function cutText(c: CutBy): string {
  return { maxStates: 'out of its state budget', maxDepth: 'cut by the depth bound', timeLimit: 'out of time', runs: 'out of runs', stopped: 'stopped (Ctrl-C)' }[c];
}
