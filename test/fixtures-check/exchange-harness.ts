// For exchange-mode shards in one test process that share nothing but a run directory:
// an in-memory directory whose readers see files late (a network file system's caches,
// modelled on a virtual clock).
import type { DirIo } from '../../src/check/distributed/exchange-dir.ts';
import { rng } from '../../src/actors/index.ts';

interface Version {
  at: number;
  data: Uint8Array | undefined;
}

/**
 * The shared store behind every shard's view. A reader at time `now` sees, for each
 * file, the newest version written at or before `now - lag`, where the lag is drawn per
 * read in [0, maxLag] (so a write may stay invisible, or an older version be read, for
 * up to maxLag). Creating a file only if absent is decided on the store (as O_EXCL).
 */
export class DelayedStore {
  clock = 0;
  private files = new Map<string, Version[]>();
  private readonly r: ReturnType<typeof rng>;

  constructor(
    seed: number,
    readonly maxLag: number,
  ) {
    this.r = rng(seed);
  }

  private put(name: string, data: Uint8Array | undefined): void {
    const vs = this.files.get(name) ?? [];
    vs.push({ at: this.clock, data });
    this.files.set(name, vs);
  }

  /** The newest version, whatever the lag (what the file system holds now). */
  latest(name: string): Uint8Array | undefined {
    return this.files.get(name)?.at(-1)?.data;
  }

  /** Names whose newest version exists. */
  names(): string[] {
    return [...this.files.keys()].filter((n) => this.latest(n) !== undefined);
  }

  view(): DirIo {
    return {
      write: (name, data) => this.put(name, typeof data === 'string' ? new TextEncoder().encode(data) : data.slice()),
      read: (name) => {
        const vs = this.files.get(name);
        if (!vs) return undefined;
        const lag = this.maxLag === 0 ? 0 : this.r.int(this.maxLag + 1);
        let seen: Version | undefined;
        for (const v of vs) if (v.at <= this.clock - lag) seen = v;
        return seen?.data;
      },
      create: (name, data) => {
        if (this.latest(name) !== undefined) return false;
        this.put(name, new TextEncoder().encode(data));
        return true;
      },
      remove: (name) => {
        if (this.latest(name) !== undefined) this.put(name, undefined);
      },
    };
  }
}
