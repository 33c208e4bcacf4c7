// Bounds on what a trace file may hold, checked on its bytes before they are
// parsed into objects: a file nested or widened far past any real trace, or with
// one huge string, would otherwise exhaust memory in JSON.parse, the validator or a
// renderer. The scan is one pass over the bytes (structural JSON characters are
// ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte character), keeping
// one counter per open level; it does not check JSON syntax (JSON.parse does).
import { isUtf8 } from 'node:buffer';

/** Bounds on a trace file read from disk, checked before parsing (`--trace-limit name=value` on the command line). */
export interface TraceLimits {
  /** Size of the file in bytes. */
  readonly maxBytes: number;
  /** Levels of nested arrays and objects. */
  readonly maxDepth: number;
  /** Bytes of one string (key or value) as written in the file, escapes included. */
  readonly maxStringBytes: number;
  /** Elements of one array, or members of one object. */
  readonly maxItems: number;
}

/** The defaults: far above any trace interleave writes, low enough that reading one stays within a few hundred MB. */
export const DEFAULT_TRACE_LIMITS: TraceLimits = Object.freeze({
  maxBytes: 64 * 1024 * 1024,
  maxDepth: 200,
  maxStringBytes: 16 * 1024 * 1024,
  maxItems: 1_000_000,
});

/** The names of the limits on the command line (`--trace-limit <name>=<n>`, INTERLEAVE_TRACE_LIMITS). */
export const TRACE_LIMIT_NAMES: Readonly<Record<string, keyof TraceLimits>> = Object.freeze({ bytes: 'maxBytes', depth: 'maxDepth', string: 'maxStringBytes', items: 'maxItems' });

function cliName(k: keyof TraceLimits): string {
  return Object.entries(TRACE_LIMIT_NAMES).find(([, v]) => v === k)![0];
}

/** How to raise limit `k`, for messages. */
export function raiseHint(k: keyof TraceLimits): string {
  return `raise it with --trace-limit ${cliName(k)}=<n> or INTERLEAVE_TRACE_LIMITS=${cliName(k)}=<n> (API: the ${k} option of the trace limits)`;
}

/**
 * Parses `name=value[,name=value…]` (names: bytes, depth, string, items; values are
 * positive integers, with an optional k/M/G suffix of powers of 1024 for bytes and
 * string) over `base`. Throws an Error naming the bad part.
 */
export function parseTraceLimits(spec: string, base: TraceLimits = DEFAULT_TRACE_LIMITS): TraceLimits {
  const out: Record<string, number> = { ...base };
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z]+)=(\d+)([kKmMgG]?)$/.exec(part);
    const key = m ? TRACE_LIMIT_NAMES[m[1]!] : undefined;
    if (!m || !key) throw new Error(`trace limit '${part}': expected <name>=<n> with name one of ${Object.keys(TRACE_LIMIT_NAMES).join(', ')} (for example bytes=256M or depth=400)`);
    const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[3]!.toLowerCase()]!;
    const n = Number(m[2]) * mult;
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`trace limit '${part}': the value must be a positive integer`);
    out[key] = n;
  }
  return out as unknown as TraceLimits;
}

/** Why a file of `size` bytes is over the size limit, or `undefined` (checked before reading it). */
export function traceSizeProblem(size: number, source: string, limits: TraceLimits = DEFAULT_TRACE_LIMITS): string | undefined {
  return size > limits.maxBytes ? `${source}: ${size} bytes, over the trace size limit of ${limits.maxBytes} bytes; ${raiseHint('maxBytes')}` : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * Why `bytes` exceeds a limit or is not UTF-8, or `undefined`. Memory: one counter
 * per open level (at most `maxDepth`).
 */
export function traceBytesProblem(bytes: Uint8Array, source: string, limits: TraceLimits = DEFAULT_TRACE_LIMITS): string | undefined {
  const size = traceSizeProblem(bytes.byteLength, source, limits);
  if (size) return size;
  if (!isUtf8(bytes)) return `${source}: not valid UTF-8 text; a trace file is UTF-8 JSON as written by 'interleave check' (was it edited or transcoded?)`;
  const items = new Int32Array(limits.maxDepth + 1);
  let depth = 0;
  const n = bytes.byteLength;
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      const start = i;
      for (i++; i < n; i++) {
        const d = bytes[i]!;
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      const len = i - start - 1;
      if (len > limits.maxStringBytes) {
        return `${source}: a string of ${len} bytes at byte ${start}, over the limit of ${limits.maxStringBytes} bytes per string; ${raiseHint('maxStringBytes')}`;
      }
    } else if (c === 0x5b || c === 0x7b) {
      // [ or {
      if (++depth > limits.maxDepth) return `${source}: nested more than ${limits.maxDepth} levels deep at byte ${i}; no interleave trace is (${raiseHint('maxDepth')})`;
      items[depth] = 0;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === COMMA && depth > 0) {
      // items = commas + 1, so the limit is passed at the maxItems-th comma
      if (++items[depth]! >= limits.maxItems) {
        return `${source}: an array or object with more than ${limits.maxItems} items (at byte ${i}, ${depth} levels deep); ${raiseHint('maxItems')}`;
      }
    }
  }
  return undefined;
}
