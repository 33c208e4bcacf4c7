// When is an exchange run over? Every shard is idle (nothing to expand) and no batch of
// worlds is on its way. No shard can see that at once: it reads the other shards' status
// files one after another, while they keep working. This is Mattern's four-counter
// method (F. Mattern, "Algorithms for distributed termination detection", 1987) over
// status files `{ idle, sent, received }` (batches renamed into the directory and
// batches consumed, both only growing).
//
// Rules every shard keeps:
//   R1. Before it consumes a batch while its status file says idle, it rewrites the file
//       as active. (A shard leaves idleness only by consuming a batch.)
//   R2. It writes an idle status only once its own outgoing batches are renamed into
//       the directory, with its exact counters.
// So a status file that says idle with (s, r) describes the shard exactly from the
// moment it was written until the shard writes another: idle, s sent, r received.
//
// Detection: wave 1 reads all n files (at times a_i), then, at least `waveGapMs` after
// wave 1 ended, wave 2 reads them again (at times b_i). The run has terminated if both
// waves read every file as idle and R1 (received, summed over wave 1) equals S2 (sent,
// summed over wave 2).
//
// Why that is sound. Let t be the end of wave 1, so a_i <= t < b_j for all i, j.
// Counters only grow, and a file read idle is exact at its read time (above), so
//   sent by t <= S2              (each s_i(t) <= s_i(b_i), exact at b_i)
//   received by t >= R1           (each r_i(t) >= r_i(a_i), exact at a_i)
// and no batch is received before it is sent, so received(t) <= sent(t). With R1 = S2
// all of these are equal: at t every batch sent was received (none in transit), and
// no shard received anything between a_i and t. A shard idle at a_i that received
// nothing since is still idle at t. So at t every shard is idle and nothing is in
// transit: nothing can ever happen again (termination is stable).
//
// Reads that may be stale (a network file system's attribute cache showing a file's
// older version for up to some delay d) move a read back in time by at most d; with
// waveGapMs >= d wave 2's effective read times still come after wave 1's, and the
// argument holds. Batches that appear late only delay detection (they are counted).
//
// A shard that dies stops writing. Every shard rewrites its status at least every
// `beatMs` (a beat counter, so no clocks are compared across hosts); a shard whose
// beat has not changed for `silentMs` on the reader's own clock, or whose file never
// appeared, is reported silent and the run stops, incomplete.
import { readJson, type DirIo } from './exchange-dir.ts';

/** One shard's status file. */
export interface ShardStatus {
  runId: string;
  shard: number;
  /** Rewrites so far (a heartbeat). */
  beat: number;
  idle: boolean;
  /** Batches renamed into the directory. */
  sent: number;
  /** Batches consumed. */
  received: number;
}

export interface TerminationTiming {
  /** The reader's clock, milliseconds. */
  now(): number;
  /** Pause between the two waves (at least the file system's staleness). */
  waveGapMs: number;
  /** A shard whose status does not change for this long is silent. */
  silentMs: number;
  /** Rewrite the status at least this often. */
  beatMs: number;
}

export const statusName = (i: number): string => `status-${i}.json`;

/** What `idle` found. */
export type Verdict = { kind: 'terminated' } | { kind: 'silent'; shard: number; ms: number; never: boolean } | undefined;

export class Termination {
  private beat = 0;
  /** What this shard's file says now. */
  private written: ShardStatus | undefined;
  private lastWrite = -Infinity;
  private wave1: { at: number; received: number } | undefined;
  /** Per shard: the last beat read and when (this clock) it was first read. */
  private readonly seen: { beat: number; at: number }[];
  /** Waves run (for tests and stats). */
  waves = 0;

  constructor(
    private readonly io: DirIo,
    private readonly runId: string,
    private readonly index: number,
    private readonly count: number,
    private readonly timing: TerminationTiming,
  ) {
    const t0 = timing.now();
    this.seen = Array.from({ length: count }, () => ({ beat: -1, at: t0 }));
  }

  private write(idle: boolean, sent: number, received: number): void {
    const st: ShardStatus = { runId: this.runId, shard: this.index, beat: ++this.beat, idle, sent, received };
    this.io.write(statusName(this.index), `${JSON.stringify(st)}\n`);
    this.written = st;
    this.lastWrite = this.timing.now();
  }

  /** R1: call before consuming a batch or doing work after being idle. */
  active(sent: number, received: number): void {
    this.wave1 = undefined;
    if (!this.written || this.written.idle) this.write(false, sent, received);
  }

  /** While active: a heartbeat with the counters so far. */
  tick(sent: number, received: number): void {
    if (this.timing.now() - this.lastWrite >= this.timing.beatMs) this.write(this.written?.idle ?? false, sent, received);
  }

  /**
   * R2: call when idle with every outgoing batch renamed and no batch waiting; writes
   * the idle status and runs (or continues) the detection.
   */
  idle(sent: number, received: number): Verdict {
    const w = this.written;
    const now = this.timing.now();
    if (!w || !w.idle || w.sent !== sent || w.received !== received) {
      this.wave1 = undefined;
      this.write(true, sent, received);
    } else if (now - this.lastWrite >= this.timing.beatMs) this.write(true, sent, received);
    if (this.wave1 && now - this.wave1.at < this.timing.waveGapMs) return undefined;
    const wave = this.readWave();
    this.waves++;
    if (!wave.allIdle) {
      this.wave1 = undefined;
      return this.silence(now);
    }
    if (this.wave1 && wave.sent === this.wave1.received) return { kind: 'terminated' };
    // This wave is the first of the next pair.
    this.wave1 = { at: this.timing.now(), received: wave.received };
    return this.silence(now);
  }

  private readWave(): { allIdle: boolean; sent: number; received: number } {
    let allIdle = true;
    let sent = 0;
    let received = 0;
    const now = this.timing.now();
    for (let i = 0; i < this.count; i++) {
      let st: ShardStatus | undefined;
      try {
        st = readJson<ShardStatus>(this.io, statusName(i));
      } catch {
        st = undefined; // written whole, so unreadable means foreign: treat as absent
      }
      if (!st || st.runId !== this.runId) {
        allIdle = false;
        continue;
      }
      const seen = this.seen[i]!;
      if (st.beat !== seen.beat) this.seen[i] = { beat: st.beat, at: now };
      if (!st.idle) allIdle = false;
      sent += st.sent;
      received += st.received;
    }
    return { allIdle, sent, received };
  }

  /** The shard silent longest past `silentMs`, if any (only other shards' files are read). */
  private silence(now: number): Verdict {
    let worst: Verdict;
    for (let i = 0; i < this.count; i++) {
      if (i === this.index) continue;
      const ms = now - this.seen[i]!.at;
      if (ms > this.timing.silentMs && (!worst || worst.kind !== 'silent' || ms > worst.ms)) worst = { kind: 'silent', shard: i, ms, never: this.seen[i]!.beat < 0 };
    }
    return worst;
  }

  /** While active, other shards' silence is checked every so often too (a dead peer may hold worlds this shard waits for only at the end, but an early stop saves a long run). */
  check(): Verdict {
    this.readWave();
    return this.silence(this.timing.now());
  }
}
