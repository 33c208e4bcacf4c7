// The only source of randomness: a small, version-stable PRNG whose whole state is
// four 32-bit words, so a run's randomness can be recorded and replayed exactly.
//
// Algorithm: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator), seeded
// by splitmix32 from one 32-bit seed. Both are fixed here; never change them
// without bumping the trace schema version, or recorded seeds stop replaying.

/** A seeded random number generator (sfc32): the only randomness machines and choosers use. */
export interface Rng {
  /** A uniform 32-bit unsigned integer. */
  nextU32(): number;
  /** A uniform float in [0, 1). */
  next(): number;
  /** A uniform integer in [0, n). */
  int(n: number): number;
  /** A uniform element of a non-empty array. */
  pick<T>(xs: readonly T[]): T;
  /** The generator's state, to resume it later. */
  state(): readonly [number, number, number, number];
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Resumes a generator from a recorded `state()`. */
export function rngFromState(st: readonly [number, number, number, number]): Rng {
  let [a, b, c, d] = st;
  // Methods on one object over the closure's state, never `this`, so a method taken off the
  // object still works; and no named closures to build (a sampled check makes one per run).
  const r: Rng = {
    nextU32() {
      const t = (((a + b) >>> 0) + d) >>> 0;
      d = (d + 1) >>> 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) >>> 0;
      c = ((c << 21) | (c >>> 11)) >>> 0;
      c = (c + t) >>> 0;
      return t;
    },
    next() {
      return r.nextU32() / 4294967296;
    },
    int(n) {
      if (!(n > 0)) throw new RangeError(`rng.int needs n > 0, got ${n}`);
      return Math.floor(r.next() * n);
    },
    pick(xs) {
      if (xs.length === 0) throw new RangeError('rng.pick needs a non-empty array');
      return xs[Math.floor(r.next() * xs.length)]!;
    },
    state() {
      return [a, b, c, d] as const;
    },
  };
  return r;
}

/** A generator from a seed (any integer; only its low 32 bits count). */
export function rng(seed: number): Rng {
  const sm = splitmix32(seed);
  const r = rngFromState([sm(), sm(), sm(), sm()]);
  for (let i = 0; i < 12; i++) r.nextU32();
  return r;
}

/** The seed of the i-th child of a root seed (swarm runs, shards): stable and well spread. */
export function deriveSeed(root: number, i: number): number {
  const sm = splitmix32((root ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
  sm();
  return sm();
}
