// How a shard of an exchange run knows the path from the initial world to each world it
// explores, at about 6 bytes a world: an entry is its parent entry and the position of
// its step among the parent's enabled steps; a world received from another shard is a
// root entry whose whole path (from the initial world, as the sender knew it) is kept
// in one byte log. A path is a list of step positions as varints (one byte each while
// a world enables fewer than 128 steps): compact on disk and in memory, and a
// schedule of step ids again by replaying it (`scheduleOfPath`, only for a violation).
import { apply, enabled, initialWorld, type Scenario } from '../../actors/index.ts';

const MAX_VIA = 0xffff;

/** Appends `x` as a varint to `out` at `at`; returns the new end. */
function putVarint(out: Uint8Array, at: number, x: number): number {
  while (x >= 0x80) {
    out[at++] = (x & 0x7f) | 0x80;
    x >>>= 7;
  }
  out[at++] = x;
  return at;
}

const varintLength = (x: number): number => (x < 0x80 ? 1 : x < 0x4000 ? 2 : 3);

/** The number of steps in a path (its varints). */
export function pathLength(path: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path[i]! < 0x80) n++;
  return n;
}

/** The step positions of a path. */
export function pathSteps(path: Uint8Array): number[] {
  const out: number[] = [];
  let x = 0;
  let shift = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    x += (c & 0x7f) * 2 ** shift;
    if (c < 0x80) {
      out.push(x);
      x = 0;
      shift = 0;
    } else shift += 7;
  }
  return out;
}

/** `path` followed by one more step position. */
export function extendPath(path: Uint8Array, via: number): Uint8Array {
  const out = new Uint8Array(path.length + varintLength(via));
  out.set(path);
  putVarint(out, path.length, via);
  return out;
}

/** Entries of the worlds a shard explores (see the module comment). */
export class PathTable {
  private parent = new Int32Array(1 << 12);
  private via = new Uint16Array(1 << 12);
  private rootStart = new Int32Array(256);
  private log = new Uint8Array(1 << 12);
  private logLength = 0;
  private roots = 0;
  count = 0;

  /** Bytes held. */
  get bytes(): number {
    return this.parent.byteLength + this.via.byteLength + this.rootStart.byteLength + this.log.byteLength;
  }

  private entry(parent: number, via: number): number {
    if (this.count === this.parent.length) {
      const p = new Int32Array(this.count * 2);
      p.set(this.parent);
      this.parent = p;
      const v = new Uint16Array(this.count * 2);
      v.set(this.via);
      this.via = v;
    }
    this.parent[this.count] = parent;
    this.via[this.count] = via;
    return this.count++;
  }

  /** A world reached from another shard (or the initial world, path empty). */
  root(path: Uint8Array): number {
    if (this.roots + 2 > this.rootStart.length) {
      const r = new Int32Array(this.rootStart.length * 2);
      r.set(this.rootStart);
      this.rootStart = r;
    }
    if (this.logLength + path.length > this.log.length) {
      let cap = this.log.length * 2;
      while (cap < this.logLength + path.length) cap *= 2;
      const l = new Uint8Array(cap);
      l.set(this.log.subarray(0, this.logLength));
      this.log = l;
    }
    this.rootStart[this.roots] = this.logLength;
    this.log.set(path, this.logLength);
    this.logLength += path.length;
    this.rootStart[this.roots + 1] = this.logLength;
    return this.entry(-1 - this.roots++, 0);
  }

  /** The world reached from entry `parent` by its `via`-th enabled step. */
  child(parent: number, via: number): number {
    if (via > MAX_VIA) throw new Error(`internal: a world enables more than ${MAX_VIA + 1} steps; exchange paths keep a step's position in 16 bits`);
    return this.entry(parent, via);
  }

  /** The path of entry `e` from the initial world. */
  path(e: number): Uint8Array {
    const vias: number[] = [];
    let x = e;
    while (this.parent[x]! >= 0) {
      vias.push(this.via[x]!);
      x = this.parent[x]!;
    }
    const r = -1 - this.parent[x]!;
    const start = this.rootStart[r]!;
    const end = this.rootStart[r + 1]!;
    let size = end - start;
    for (const v of vias) size += varintLength(v);
    const out = new Uint8Array(size);
    out.set(this.log.subarray(start, end));
    let at = end - start;
    for (let k = vias.length - 1; k >= 0; k--) at = putVarint(out, at, vias[k]!);
    return out;
  }
}

/**
 * The step ids of a path, by replaying it from the initial world (the enabled steps of a
 * world are listed in the same order in every process). Throws when a position is past
 * the world's steps: the path was made by another model.
 */
export function scheduleOfPath(sc: Scenario, path: Uint8Array): string[] {
  let w = initialWorld(sc, { detail: false }).world;
  const out: string[] = [];
  for (const k of pathSteps(path)) {
    const all = enabled(sc, w);
    const t = all[k];
    if (!t) throw new Error(`internal: an exchange path takes step ${k + 1} of a world with ${all.length} steps (after ${out.join(', ') || 'the start'})`);
    out.push(t.id);
    w = apply(sc, w, t, { detail: false }).world;
  }
  return out;
}
