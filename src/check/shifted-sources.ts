// The clock and the random source as a re-step sees them: shifted and reseeded on
// purpose, so a step that reads them gives another result every time it is re-stepped,
// not only when a millisecond happens to pass between two runs (purity.ts).
//
// Re-step 0 draws low values, re-step 1 high ones (and so on, alternating): a guard
// `Math.random() < p` then differs from at least one run for any p in (0.01, 0.99),
// and `Math.floor(Math.random() * n)` gives 0 and n - 1. After many draws in one
// re-step the values spread over [0, 1), so a rejection loop still ends.
import { rng, type Rng } from '../actors/index.ts';

/** How far the clocks move in re-step k: a year and k + 1 odd milliseconds, times k + 1. */
function clockShift(k: number): number {
  return (k + 1) * 31_556_952_001 + 2 * k + 1;
}

/** The parts of Web Crypto a re-step replaces. */
interface RandomSource {
  randomUUID?: () => string;
  getRandomValues?: (a: ArrayBufferView | null) => ArrayBufferView | null;
}

/** Draws before a re-step's random values spread over [0, 1). */
const BANDED_DRAWS = 1024;

/** The re-step in progress: what the replacements read (one set of them, made once). */
/** `r` is made at the re-step's first draw from `seed`: most steps draw nothing. */
const cur: { shift: number; high: boolean; draws: number; seed: number; r: Rng | undefined } = { shift: 0, high: false, draws: 0, seed: 1, r: undefined };

/**
 * Runs `f` with `Date.now`, `new Date()`, `performance.now`, `Math.random`,
 * `crypto.randomUUID` and `crypto.getRandomValues` replaced by re-step `k`'s
 * versions, and puts the originals back before returning (or throwing).
 */
export function withShiftedSources<T>(k: number, f: () => T): T {
  const fakes = (made ??= makeFakes());
  const g = globalThis as { Date: DateConstructor };
  cur.shift = clockShift(k);
  cur.high = k % 2 === 1;
  cur.draws = 0;
  cur.seed = (0x9e3779b9 * (k + 1)) >>> 0;
  cur.r = undefined;
  const { real } = fakes;
  g.Date = fakes.Date;
  Math.random = fakes.random;
  if (fakes.perfHome) fakes.perfHome.now = fakes.perfNow;
  if (fakes.uuidHome) fakes.uuidHome.randomUUID = fakes.randomUUID;
  if (fakes.fillHome) fakes.fillHome.getRandomValues = fakes.getRandomValues;
  try {
    return f();
  } finally {
    g.Date = real.Date;
    Math.random = real.random;
    if (fakes.perfHome) fakes.perfHome.now = real.perfNow;
    if (fakes.uuidHome) fakes.uuidHome.randomUUID = real.randomUUID;
    if (fakes.fillHome) fakes.fillHome.getRandomValues = real.getRandomValues;
  }
}

let made: ReturnType<typeof makeFakes> | undefined;

/**
 * The replacements and the originals, taken once (the first re-step). The methods are
 * patched where they live (the prototypes): adding and deleting own properties would
 * change the objects' shapes, which slows every later call.
 */
function makeFakes() {
  const RealDate = (globalThis as { Date: DateConstructor }).Date;
  const realNow = RealDate.now;
  const perf = globalThis.performance;
  const realPerfNow = perf.now;
  const cr = (globalThis as { crypto?: RandomSource }).crypto;
  const real = { Date: RealDate, random: Math.random, perfNow: realPerfNow, randomUUID: cr?.randomUUID, getRandomValues: cr?.getRandomValues };
  const random = (): number => {
    const u = (cur.r ??= rng(cur.seed)).next();
    if (++cur.draws > BANDED_DRAWS) return u;
    return cur.high ? 0.99 + u * 0.01 : u * 0.01;
  };
  const byte = (): number => Math.floor(random() * 256);
  const now = (): number => realNow.call(RealDate) + cur.shift;
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(now());
      else super(...(args as [string | number | Date]));
    }
    static override now(): number {
      return now();
    }
    // A Date made before the re-step (kept in a context) is still a Date.
    static override [Symbol.hasInstance](x: unknown): boolean {
      return x instanceof RealDate;
    }
  }
  return {
    real,
    Date: ShiftedDate as DateConstructor,
    random,
    perfHome: ownerOf(perf, 'now'),
    perfNow: (): number => realPerfNow.call(perf) + cur.shift,
    uuidHome: cr && real.randomUUID ? ownerOf(cr, 'randomUUID') : undefined,
    randomUUID: (): string => {
      const h = Array.from({ length: 32 }, () => (byte() & 15).toString(16));
      h[12] = '4';
      h[16] = (8 | (byte() & 3)).toString(16);
      const s = h.join('');
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
    },
    fillHome: cr && real.getRandomValues ? ownerOf(cr, 'getRandomValues') : undefined,
    getRandomValues: (a: ArrayBufferView | null): ArrayBufferView | null => {
      if (a) {
        const b = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
        for (let i = 0; i < b.length; i++) b[i] = byte();
      }
      return a;
    },
  };
}

/** The object on `o`'s prototype chain that holds `key` (writable), or undefined. */
function ownerOf<K extends string>(o: object, key: K): Record<K, unknown> | undefined {
  for (let p: object | null = o; p; p = Object.getPrototypeOf(p) as object | null) {
    const d = Object.getOwnPropertyDescriptor(p, key);
    if (d) return d.writable ? (p as Record<K, unknown>) : undefined;
  }
  return undefined;
}
