// Shared-visited shards (src/check/claims.ts) in one test process, over an adversarial
// channel for their claims files: appends become visible late (a per-read lag on a virtual
// clock), a read may show part of the next append (torn), or its full length with wrong
// bytes (a network file system's not-yet-filled pages), and chosen shards never receive,
// or are never heard. The shards' stop notes go through a DelayedStore.
import { rng, type Scenario } from '../../src/actors/index.ts';
import type { ClaimsFiles } from '../../src/check/distributed/claims-log.ts';
import { SharedVisited } from '../../src/check/distributed/claims.ts';
import { joinRun } from '../../src/check/distributed/exchange-dir.ts';
import { Bfs, Dfs, type Search } from '../../src/check/search/explore.ts';
import { porContext } from '../../src/check/por/sleep-sets.ts';
import { Session } from '../../src/check/search/session.ts';
import { runPrefix, shardFingerprints } from '../../src/check/distributed/shard.ts';
import type { CheckOptions } from '../../src/check/types.ts';
import { DelayedStore } from './exchange-harness.ts';

/** How the channel misbehaves. */
export interface Adversary {
  /** A read sees appends at least this many ticks old, drawn per read in [0, maxLag]. */
  maxLag: number;
  /** A read may also see a prefix of the next append. */
  tear: boolean;
  /** A read may see the next append's full length with some bytes wrong. */
  garble: boolean;
  /** Shards that never see another shard's claims. */
  deaf: readonly number[];
  /** Shards whose claims nobody ever sees. */
  mute: readonly number[];
}

interface Chunk {
  at: number;
  bytes: Uint8Array;
}

/** The claims files of every shard, shared in memory, read through the adversary. */
export class ClaimsNetwork {
  clock = 0;
  private readonly logs: Chunk[][];
  private readonly r: ReturnType<typeof rng>;
  /** Reads that showed a torn or garbled append. */
  tricks = 0;

  constructor(
    seed: number,
    count: number,
    private readonly adv: Adversary,
  ) {
    this.r = rng(seed);
    this.logs = Array.from({ length: count }, () => []);
  }

  files(index: number): ClaimsFiles {
    return {
      append: (bytes) => void this.logs[index]!.push({ at: this.clock, bytes: bytes.slice() }),
      readFrom: (j, offset) => {
        if (this.adv.deaf.includes(index) || this.adv.mute.includes(j)) return undefined;
        const lag = this.adv.maxLag === 0 ? 0 : this.r.int(this.adv.maxLag + 1);
        const parts: Uint8Array[] = [];
        let next: Chunk | undefined;
        for (const c of this.logs[j]!) {
          if (c.at <= this.clock - lag) parts.push(c.bytes);
          else {
            next = c;
            break;
          }
        }
        if (next && this.adv.tear && this.r.int(3) === 0) {
          this.tricks++;
          parts.push(next.bytes.subarray(0, this.r.int(next.bytes.length)));
        } else if (next && this.adv.garble && this.r.int(3) === 0) {
          this.tricks++;
          const bad = next.bytes.slice();
          const from = this.r.int(bad.length);
          const n = 1 + this.r.int(Math.min(16, bad.length - from));
          for (let k = from; k < from + n; k++) bad[k] = this.r.int(2) === 0 ? 0 : this.r.int(256);
          // A garble that changes nothing is no trick; make sure one byte differs.
          if (bad.every((x, k) => x === next!.bytes[k])) bad[from] = bad[from]! ^ 0xff;
          parts.push(bad);
        }
        const total = parts.reduce((a, p) => a + p.length, 0);
        if (total <= offset) return undefined;
        const all = new Uint8Array(total);
        let k = 0;
        for (const p of parts) {
          all.set(p, k);
          k += p.length;
        }
        return all.subarray(offset);
      },
      close: () => undefined,
    };
  }

  /** Appends made up by the test (a lying shard), visible at once. */
  forge(index: number, bytes: Uint8Array): void {
    this.logs[index]!.push({ at: -Infinity, bytes });
  }
}

/** One shard: its session, search and claims hook. */
export interface ClaimsShard {
  s: Session;
  search: Search;
  sv: SharedVisited;
  done: boolean;
}

export interface ClaimsRunOptions {
  count: number;
  seed: number;
  order: 'dfs' | 'bfs';
  /** Frontier worlds per shard the prefix waits for. */
  prefix: number;
  adv: Adversary;
  /** Claims per batch, and polls at most every this many ticks. */
  batch: number;
  pollMs: number;
  check?: CheckOptions;
  /** Shards that never run (their claims may still be forged). */
  dead?: readonly number[];
  /** Called with the network before the shards start. */
  before?: (net: ClaimsNetwork) => void;
  /** Sleep sets on (as `check` runs shared-visited shards by default); off when false or absent. */
  por?: boolean;
}

/** Runs the shards to the end, interleaving slices of 64 steps in a seeded order. */
export function runClaimsShards(sc: Scenario, o: ClaimsRunOptions): { shards: ClaimsShard[]; net: ClaimsNetwork; own: BigUint64Array[] } {
  const net = new ClaimsNetwork(o.seed, o.count, o.adv);
  // Stop notes are seen at once (their delay is exchange mode's concern; the claims are what is tested here).
  const store = new DelayedStore(o.seed + 7, 0);
  const r = rng(o.seed + 99);
  o.before?.(net);
  const shards: ClaimsShard[] = Array.from({ length: o.count }, (_, index) => {
    const io = store.view();
    const runId = joinRun(io, '/shared/run', index, o.count, { scenario: sc.name, count: o.count });
    const por = porContext(sc, o.por === true);
    const s = new Session(sc, { strategy: o.order, por: por.enabled, determinism: false, shard: { index, count: o.count }, ...o.check }, por.enabled);
    s.shard = runPrefix(s, index, o.count, o.prefix);
    const sv = new SharedVisited(s, { io, files: net.files(index), where: '/shared/run', runId, index, count: o.count, batch: o.batch, pollMs: o.pollMs, now: () => net.clock });
    const search = o.order === 'dfs' ? new Dfs(s, por) : new Bfs(s, por);
    search.hook = sv;
    const dead = o.dead?.includes(index) ?? false;
    // A shard whose prefix found a violation or hit a bound has nothing to explore (as index.ts's drive).
    const done = dead || s.found !== undefined || s.cutBy !== undefined;
    if (done && !dead) sv.end();
    return { s, search, sv, done };
  });
  for (;;) {
    const live = shards.filter((x) => !x.done);
    if (live.length === 0) break;
    net.clock++;
    store.clock = net.clock;
    if (net.clock > 5_000_000) throw new Error('shards did not end');
    const x = live[r.int(live.length)]!;
    if (x.search.step(-Infinity)) {
      x.done = true;
      x.sv.end();
    }
  }
  return { shards, net, own: shards.map((x) => shardFingerprints(x.s, x.sv.foreign)) };
}
