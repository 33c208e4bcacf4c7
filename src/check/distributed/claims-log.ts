// A shard's claims file in shared-visited mode (distributed/claims.ts, docs/sharding.md): an
// append-only log of the worlds the shard visited, each as its 64-bit fingerprint and the
// sleep-set mark it was first expanded with, written in batches, read by every other
// shard from where it last stopped.
//
// A batch: magic (u32), count (u32, 1..MAX_BATCH), checksum (u32) over the count and the
// payload, then count claims of three u32 (little-endian): lane a, lane b, mark (0..255;
// 0 when every step was expanded, por/sleep-sets.ts's `markOf` otherwise). A reader takes a batch only
// when all its bytes are there and the checksum holds: a read that sees part of an
// append (or, on a network file system, bytes not yet filled in) is taken as "not yet"
// and read again later from the same offset. A false claim would make other shards skip
// a world nobody explores, so a damaged batch is never taken; a batch never taken only
// costs duplicated work.
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeDir } from '../../actors/make-dir.ts';

// "ICL2": the second format (the first had no marks); a file of the first is damage.
const MAGIC = 0x324c4349;
/** u32 words a claim takes: lane a, lane b, mark. */
export const CLAIM_WORDS = 3;
const HEADER = 12;
/** The most fingerprints one batch holds (a larger count is damage, not a batch). */
export const MAX_BATCH = 1 << 20;

/** A 32-bit checksum of a batch's count and payload words (murmur-style mixing: zeros, shifts and swaps change it). */
function checksum(count: number, words: Uint32Array, from: number, n: number): number {
  let h = Math.imul(count ^ 0x9747b28c, 0x5bd1e995);
  for (let i = 0; i < n; i++) {
    let k = Math.imul(words[from + i]!, 0x5bd1e995);
    k ^= k >>> 24;
    h = Math.imul(h, 0x5bd1e995) ^ Math.imul(k, 0x5bd1e995);
    h ^= h >>> 13;
  }
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

/** True when every claim's mark fits in a byte (por/sleep-sets.ts's marks are 8 bits). */
function marksFit(claims: Uint32Array): boolean {
  for (let i = 2; i < claims.length; i += CLAIM_WORDS) if (claims[i]! > 0xff) return false;
  return true;
}

/** One batch's bytes: the claims (a, b, mark) in `claims[0 .. CLAIM_WORDS * count)`. */
export function encodeBatch(claims: Uint32Array, count: number): Uint8Array {
  if (count < 1 || count > MAX_BATCH) throw new Error(`internal: a claims batch holds 1..${MAX_BATCH} claims, got ${count}`);
  const words = count * CLAIM_WORDS;
  const out = new Uint8Array(HEADER + words * 4);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, count, true);
  dv.setUint32(8, checksum(count, claims, 0, words), true);
  for (let i = 0; i < words; i++) dv.setUint32(HEADER + i * 4, claims[i]!, true);
  return out;
}

/**
 * The whole batches at the start of `bytes`: their claims (a, b, mark; `CLAIM_WORDS`
 * words each), and how many bytes they span. Stops at the first batch that is incomplete
 * or does not check.
 */
export function decodeBatches(bytes: Uint8Array): { claims: Uint32Array; used: number; damaged: boolean } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Uint32Array[] = [];
  let at = 0;
  let total = 0;
  let damaged = false;
  while (bytes.length - at >= HEADER) {
    const count = dv.getUint32(at + 4, true);
    if (dv.getUint32(at, true) !== MAGIC || count < 1 || count > MAX_BATCH) {
      damaged = true;
      break;
    }
    const words = count * CLAIM_WORDS;
    const end = at + HEADER + words * 4;
    if (end > bytes.length) break;
    const lanes = new Uint32Array(words);
    for (let i = 0; i < words; i++) lanes[i] = dv.getUint32(at + HEADER + i * 4, true);
    if (checksum(count, lanes, 0, words) !== dv.getUint32(at + 8, true) || !marksFit(lanes)) {
      damaged = true;
      break;
    }
    parts.push(lanes);
    total += lanes.length;
    at = end;
  }
  const claims = parts.length === 1 ? parts[0]! : new Uint32Array(total);
  if (parts.length > 1) {
    let k = 0;
    for (const p of parts) {
      claims.set(p, k);
      k += p.length;
    }
  }
  return { claims, used: at, damaged };
}

/** The claims files of a run: this shard appends to its own, reads the others'. Tests supply one that delivers late, torn or never. */
export interface ClaimsFiles {
  /** Appends bytes to this shard's claims file (one write: a reader sees a prefix of it, or all). */
  append(bytes: Uint8Array): void;
  /** The bytes of shard `j`'s claims file from `offset` on (as many as are visible now), or undefined if there are none yet. */
  readFrom(j: number, offset: number): Uint8Array | undefined;
  /** Releases what the files hold open. */
  close(): void;
}

/** The name of shard `j`'s claims file in the run directory. */
export const claimsName = (j: number): string => `claims-${j}.bin`;

/**
 * The claims files in `dir` (a directory every shard can write). A reader opens the
 * file at every read (a network file system's close-to-open consistency then shows
 * what the writer's last close flushed); the writer keeps its file open in append mode.
 */
export function fsClaimsFiles(dir: string, index: number): ClaimsFiles {
  makeDir(dir);
  let fd: number | undefined = openSync(join(dir, claimsName(index)), 'a');
  return {
    append(bytes) {
      let at = 0;
      while (at < bytes.length) at += writeSync(fd!, bytes, at, bytes.length - at);
    },
    readFrom(j, offset) {
      let rfd: number;
      try {
        rfd = openSync(join(dir, claimsName(j)), 'r');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
      try {
        const size = fstatSync(rfd).size;
        if (size <= offset) return undefined;
        const out = new Uint8Array(size - offset);
        let got = 0;
        while (got < out.length) {
          const n = readSync(rfd, out, got, out.length - got, offset + got);
          if (n === 0) break;
          got += n;
        }
        return out.subarray(0, got);
      } finally {
        closeSync(rfd);
      }
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** This shard's claims waiting to be written (a batch). */
export class ClaimsOut {
  private claims: Uint32Array;
  count = 0;
  /** Claims written, batches written, bytes written. */
  sent = 0;
  batches = 0;
  bytes = 0;

  constructor(
    private readonly files: ClaimsFiles,
    readonly batchSize: number,
  ) {
    this.claims = new Uint32Array(Math.min(batchSize, MAX_BATCH) * CLAIM_WORDS);
  }

  /** Adds one (a world's fingerprint and the sleep-set mark it was expanded with); writes the batch when full. */
  add(a: number, b: number, mark: number): void {
    const k = this.count * CLAIM_WORDS;
    this.claims[k] = a;
    this.claims[k + 1] = b;
    this.claims[k + 2] = mark;
    if (++this.count * CLAIM_WORDS === this.claims.length) this.flush();
  }

  flush(): void {
    if (this.count === 0) return;
    const bytes = encodeBatch(this.claims, this.count);
    this.files.append(bytes);
    this.sent += this.count;
    this.batches++;
    this.bytes += bytes.length;
    this.count = 0;
  }
}

/** What this shard has read of another shard's claims file. */
export class ClaimsIn {
  private offset = 0;
  /** Reads whose bytes did not (yet) form a whole, checked batch at the offset. */
  damaged = 0;

  constructor(
    private readonly files: ClaimsFiles,
    private readonly shard: number,
  ) {}

  /** The claims (a, b, mark: `CLAIM_WORDS` words each) of the whole, checked batches appended since the last call. */
  take(): Uint32Array | undefined {
    const bytes = this.files.readFrom(this.shard, this.offset);
    if (!bytes || bytes.length === 0) return undefined;
    const got = decodeBatches(bytes);
    if (got.damaged) this.damaged++;
    this.offset += got.used;
    return got.claims.length > 0 ? got.claims : undefined;
  }
}
