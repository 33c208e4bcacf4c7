// The clock and the random source as a re-step sees them: shifted and reseeded on
// purpose, so a step that reads them gives another result every time it is re-stepped,
// not only when a millisecond happens to pass between two runs (purity.ts).
//
// Re-step 0 draws low values, re-step 1 high ones (and so on, alternating): a guard
// `Math.random() < p` then differs from at least one run for any p in (0.01, 0.99),
// and `Math.floor(Math.random() * n)` gives 0 and n - 1. After many draws in one
// re-step the values spread over [0, 1), so a rejection loop still ends.
import { rng } from '../actors/index.ts';

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

/**
 * Runs `f` with `Date.now`, `new Date()`, `performance.now`, `Math.random`,
 * `crypto.randomUUID` and `crypto.getRandomValues` replaced by re-step `k`'s
 * versions, and puts the originals back before returning (or throwing).
 */
export function withShiftedSources<T>(k: number, f: () => T): T {
  const g = globalThis as { Date: DateConstructor };
  const RealDate = g.Date;
  const realNow = RealDate.now;
  const perf = globalThis.performance;
  const realPerfNow = perf.now;
  const realRandom = Math.random;
  const cr = (globalThis as { crypto?: RandomSource }).crypto;
  const realUuid = cr?.randomUUID;
  const realFill = cr?.getRandomValues;
  const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
  // perf.now and the crypto methods live on prototypes: put back by deleting the own copy.
  const perfOwn = own(perf, 'now');
  const uuidOwn = cr !== undefined && own(cr, 'randomUUID');
  const fillOwn = cr !== undefined && own(cr, 'getRandomValues');
  const shift = clockShift(k);
  const high = k % 2 === 1;
  const r = rng((0x9e3779b9 * (k + 1)) >>> 0);
  let draws = 0;
  const random = (): number => {
    const u = r.next();
    if (++draws > BANDED_DRAWS) return u;
    return high ? 0.99 + u * 0.01 : u * 0.01;
  };
  const byte = (): number => Math.floor(random() * 256);
  const shiftedNow = (): number => realNow.call(RealDate) + shift;
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(shiftedNow());
      else super(...(args as [string | number | Date]));
    }
    static override now(): number {
      return shiftedNow();
    }
    // A Date made before the re-step (kept in a context) is still a Date.
    static override [Symbol.hasInstance](x: unknown): boolean {
      return x instanceof RealDate;
    }
  }
  g.Date = ShiftedDate as DateConstructor;
  perf.now = () => realPerfNow.call(perf) + shift;
  Math.random = random;
  if (cr && realUuid) {
    cr.randomUUID = (): string => {
      const h = Array.from({ length: 32 }, () => (byte() & 15).toString(16));
      h[12] = '4';
      h[16] = (8 | (byte() & 3)).toString(16);
      const s = h.join('');
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
    };
  }
  if (cr && realFill) {
    cr.getRandomValues = (a: ArrayBufferView | null): ArrayBufferView | null => {
      if (a) {
        const b = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
        for (let i = 0; i < b.length; i++) b[i] = byte();
      }
      return a;
    };
  }
  try {
    return f();
  } finally {
    g.Date = RealDate;
    Math.random = realRandom;
    restore(perf, 'now', realPerfNow, perfOwn);
    if (cr && realUuid) restore(cr, 'randomUUID', realUuid, uuidOwn);
    if (cr && realFill) restore(cr, 'getRandomValues', realFill, fillOwn);
  }
}

function restore(o: object, key: string, value: unknown, wasOwn: boolean): void {
  if (wasOwn) (o as Record<string, unknown>)[key] = value;
  else delete (o as Record<string, unknown>)[key];
}
