// Shared-visited mode (`--shard i/n --share-visited DIR`, docs/sharding.md): the shards
// of one dfs/bfs tell each other, through a shared directory, the fingerprints of the
// worlds they visit ("claims"), never the worlds. Every shard runs the shared prefix
// (distributed/shard.ts) and gets the same frontier and deal; it starts from its own frontier worlds
// first, then from the other shards' in reverse order (so it meets their owners late),
// one at a time, skipping those some shard already visited. A world another shard
// claimed is added to the visited set and not expanded here.
//
// Why the shards together visit every reachable world when each ends complete: a shard
// claims only worlds it visited itself, and a complete shard expanded every world it
// visited. So every successor of a visited world is visited by some shard (by the one
// expanding it, or by the shard whose claim made it skip it); every frontier world is
// visited by some shard (every shard considers all of them); the prefix is expanded by
// every shard; induction along any path from the initial world. A claim must never be
// false (distributed/claims-log.ts checks each batch); a late or lost claim only costs duplicated
// work. No termination protocol: each shard ends when its own search is empty.
//
// Partial-order reduction: sleep sets stay on, the state reduction (stubborn sets) is off
// as in every sharded search (its learned relation and cycle proviso are per process). A
// claim carries the sleep-set mark the claiming shard first expanded the world with, and a
// shard keeps it for the world as its own visited set keeps its own marks: meeting a
// claimed world with a sleep set that leaves a marked step awake, the shard explores that
// step itself, exactly as one process does when it meets a world again (por/sleep-sets.ts). So every
// time any shard meets a world with sleep set S, every step of the world outside S is
// explored by some shard (the claimant took those outside its mark, this shard the rest),
// which is what the sleep-set argument needs; a frontier world is met with the empty sleep
// set, so one claimed with a mark is explored again for the marked steps.
import { ExchangeError, fsDirIo, joinRun, readStop, writeStop, type DirIo, type StopNote } from './exchange-dir.ts';
import { runKey } from './exchange.ts';
import { CLAIM_WORDS, ClaimsIn, ClaimsOut, fsClaimsFiles, type ClaimsFiles } from './claims-log.ts';
import { SHARE_VISITED_DEFAULTS } from './share-visited-defaults.ts';
import type { VisitHook } from '../search/explore.ts';
import type { Session } from '../search/session.ts';
import { DEFAULT_SHARD_PREFIX, type ShardRoot } from './shard.ts';
import { VisitedSet } from '../search/visited.ts';
import type { CheckOptions } from '../types.ts';

/** Shared-visited mode (`CheckOptions.shareVisited`): where the shards' claims files are and how often they are written and read. */
export interface ShareVisitedOptions {
  /** The run directory, shared by every shard of the run and empty at its start (one directory per run). */
  dir: string;
  /** Write this shard's claims once this many wait (default 4096; at every poll anyway). */
  batch?: number;
  /** Write this shard's claims and read the other shards' at most this often while busy (default 20 ms). */
  pollMs?: number;
}

/** What a shared-visited shard did (`CheckResult.shareVisited`). */
export interface ShareVisitedInfo {
  /** 0-based, as in `CheckOptions.shard`. */
  index: number;
  /** How many shards in all. */
  count: number;
  /** The run directory. */
  dir: string;
  /** The run's id (the same in every shard's result; `interleave merge` compares them). */
  runId: string;
  /** Distinct worlds this shard visited itself, the prefix included (its `stats.distinctStates`). */
  own: number;
  /** Claims this shard wrote to its claims file (every world it visited below the prefix). */
  claimsSent: number;
  /** Claims written with a sleep-set mark (the world was expanded with some steps asleep; 0 with POR off). */
  claimsMarked: number;
  /** Batches written. */
  batchesSent: number;
  /** Fingerprints read from the other shards' claims files. */
  claimsReceived: number;
  /** Received claims of worlds this shard had not visited: skipped when met, not counted as its own. */
  foreign: number;
  /** Received claims of worlds this shard already held: worlds visited by two shards (the claim came late), or claimed by two others. */
  duplicate: number;
  /** Frontier worlds this shard started from: its own (of `roots`), and other shards'. */
  rootsStarted: {
    /** This shard's own frontier worlds (dealt to it). */
    own: number;
    /** Other shards' frontier worlds no shard had visited yet when this one reached them. */
    others: number;
  };
  /** Frontier worlds skipped because a shard (this one, from another root, or another shard) had visited them with every step awake. */
  rootsSkipped: number;
  /** Frontier worlds a shard had visited with a sleep set, met again here with none: their asleep steps explored here. */
  rootsWoken: number;
  /** Reads of a claims file whose new bytes did not check (magic, count or checksum): read again later, never taken as claims. */
  tornReads: number;
  /** Why the run ended early, when a shard stopped it: which (0-based), why, and in words. */
  stoppedBy?: {
    /** The shard that stopped the run, 0-based. */
    shard: number;
    /** `violation`, `stopped` (Ctrl-C), `timeLimit`, `maxStates` or `error` (a shard failed). */
    reason: string;
    /** What happened, in words. */
    message: string;
  };
}

/** How a shard reaches the others: the run directory (stop notes) and the claims files. Tests supply both in memory. */
export interface ClaimsLink {
  readonly io: DirIo;
  readonly files: ClaimsFiles;
  /** The directory as the user named it (for messages). */
  readonly where: string;
  readonly runId: string;
  readonly index: number;
  readonly count: number;
  readonly batch: number;
  readonly pollMs: number;
  readonly now: () => number;
}

/** Joins the run in `opts.shareVisited.dir` as shard `opts.shard` (before the prefix, so a wrong directory is refused at once). Throws ExchangeError for a directory of another run or a shard started twice. */
export function joinShared(s: Session, opts: CheckOptions): ClaimsLink {
  const x = opts.shareVisited!;
  const { index, count } = opts.shard!;
  if (typeof x.dir !== 'string' || x.dir === '') throw new ExchangeError('shareVisited.dir must name the run directory shared by every shard');
  try {
    const io = fsDirIo(x.dir);
    const runId = joinRun(io, x.dir, index, count, runKey(s.sc, s, opts, count, 'share-visited', { shardPrefix: opts.shardPrefix ?? DEFAULT_SHARD_PREFIX }));
    return { io, files: fsClaimsFiles(x.dir, index), where: x.dir, runId, index, count, batch: x.batch ?? SHARE_VISITED_DEFAULTS.batch, pollMs: x.pollMs ?? SHARE_VISITED_DEFAULTS.pollMs, now: () => performance.now() };
  } catch (e) {
    if (e instanceof ExchangeError) throw e;
    throw new ExchangeError(`cannot use ${x.dir} as the shared-visited directory: ${e instanceof Error ? e.message : String(e)}; give a directory every shard can create files in`);
  }
}

/** The search's side of shared-visited mode (search/explore.ts's `VisitHook`). */
export class SharedVisited implements VisitHook {
  private readonly out: ClaimsOut;
  private readonly ins: ClaimsIn[] = [];
  /** Own frontier worlds first, then the other shards' in reverse order. */
  private readonly queue: ShardRoot[];
  private readonly ownRoots: number;
  private taken = 0;
  private lastPoll = -Infinity;
  /** Worlds other shards claimed that this shard had not visited (left out of its states and digest). */
  readonly foreign = new VisitedSet();
  received = 0;
  duplicate = 0;
  /** Claims sent with a sleep-set mark (steps this shard left asleep). */
  marked = 0;
  /** Frontier worlds met again with the empty sleep set because a visit with a mark came first. */
  rootsWoken = 0;
  started = { own: 0, others: 0 };
  skipped = 0;
  /** Set when the run was stopped early (by this shard or another). */
  stop: StopNote | undefined;

  /** After the prefix (s.shard set): the frontier leaves the visited set, to be claimed by whichever shard starts it. */
  constructor(
    private readonly s: Session,
    private readonly link: ClaimsLink,
  ) {
    const plan = s.shard!;
    this.out = new ClaimsOut(link.files, link.batch);
    for (let j = 0; j < link.count; j++) if (j !== link.index) this.ins.push(new ClaimsIn(link.files, j));
    this.queue = [...plan.roots, ...[...plan.others].reverse()];
    this.ownRoots = plan.roots.length;
    const frontier = new VisitedSet();
    for (const r of this.queue) {
      s.hasher.world(r.world);
      frontier.add(s.hasher.ha, s.hasher.hb);
    }
    const prefix = s.visited;
    s.resetVisited();
    prefix.forEach((a, b) => {
      if (!frontier.has(a, b)) s.visited.add(a, b);
    });
    s.shard = { ...plan, foreign: this.foreign };
  }

  get runId(): string {
    return this.link.runId;
  }

  visited(a: number, b: number, mark: number): void {
    if (mark !== 0) this.marked++;
    this.out.add(a, b, mark);
  }

  poll(force: boolean): boolean {
    if (this.stop) return true;
    const now = this.link.now();
    if (!force && now - this.lastPoll < this.link.pollMs) return false;
    this.lastPoll = now;
    this.out.flush();
    const s = this.s;
    for (const x of this.ins) {
      const claims = x.take();
      if (!claims) continue;
      for (let i = 0; i < claims.length; i += CLAIM_WORDS) {
        this.received++;
        const a = claims[i]!,
          b = claims[i + 1]!,
          mark = claims[i + 2]!;
        if (s.visited.add(a, b)) {
          // The claimant's mark: steps it left asleep, which a later meeting may wake here.
          if (mark !== 0 && s.withMarks) s.visited.setMark(mark);
          this.foreign.add(a, b);
          // Held in the visited set, counted by the shard that visited it.
          s.extraDistinct--;
        } else this.duplicate++;
      }
    }
    const note = readStop(this.link.io, this.link.runId);
    if (!note) return false;
    this.stop = note;
    s.cutBy ??= 'stopped';
    return true;
  }

  nextRoot(): { root: ShardRoot; fresh: boolean } | undefined {
    const s = this.s;
    while (this.taken < this.queue.length) {
      if (this.poll(true)) return undefined;
      const k = this.taken++;
      const r = this.queue[k]!;
      s.hasher.world(r.world);
      const fresh = s.visited.add(s.hasher.ha, s.hasher.hb);
      // Met before (here or by a claim) with a sleep set: met now with none, so the marked steps wake.
      if (!fresh && !(s.withMarks && s.visited.mark() !== 0)) {
        this.skipped++;
        continue;
      }
      if (!fresh) this.rootsWoken++;
      else if (k < this.ownRoots) this.started.own++;
      else this.started.others++;
      return { root: r, fresh };
    }
    return undefined;
  }

  /** The search ended (or failed): writes the last claims, and stops the other shards when this one ended early. */
  end(error?: unknown): void {
    const s = this.s;
    const { index, count } = this.link;
    try {
      this.out.flush();
    } finally {
      this.link.files.close();
    }
    if (this.stop) return;
    const who = `shard ${index + 1}/${count}`;
    let note: StopNote | undefined;
    if (error !== undefined) note = { runId: this.link.runId, by: index, reason: 'error', message: `${who} failed: ${error instanceof Error ? error.message : String(error)}` };
    else if (s.found) note = { runId: this.link.runId, by: index, reason: 'violation', message: `${who} found a violation of ${s.found.property.kind} '${s.found.property.name}'` };
    // The depth bound only leaves worlds unexpanded (this shard's result says so): the others go on.
    else if (s.cutBy && s.cutBy !== 'maxDepth') note = { runId: this.link.runId, by: index, reason: s.cutBy as StopNote['reason'], message: `${who} ended early (${s.cutBy})` };
    if (!note) return;
    writeStop(this.link.io, note);
    this.stop = note;
  }

  /** The result's `shareVisited` part. */
  info(dir: string): ShareVisitedInfo {
    const stop = this.stop;
    return {
      index: this.link.index,
      count: this.link.count,
      dir,
      runId: this.link.runId,
      own: this.s.distinct,
      claimsSent: this.out.sent,
      claimsMarked: this.marked,
      batchesSent: this.out.batches,
      claimsReceived: this.received,
      foreign: this.foreign.size,
      duplicate: this.duplicate,
      rootsStarted: { ...this.started },
      rootsSkipped: this.skipped,
      rootsWoken: this.rootsWoken,
      tornReads: this.ins.reduce((a, x) => a + x.damaged, 0),
      ...(stop ? { stoppedBy: { shard: stop.by, reason: stop.reason, message: stop.message } } : {}),
    };
  }
}
