// Exchange mode's default timings and sizes, apart from the mode itself: the package's entry
// points export them, and loading exchange.ts would load the whole exchange search and the
// world codec with them.

/** Exchange mode's defaults: silence timeout, wave gap and batch size (see `ExchangeOptions`), idle poll and heartbeat intervals (ms). */
export const EXCHANGE_DEFAULTS = {
  /** `ExchangeOptions.timeoutMs`. */
  timeoutMs: 120_000,
  /** `ExchangeOptions.waveGapMs`. */
  waveGapMs: 500,
  /** `ExchangeOptions.batchBytes`. */
  batchBytes: 1 << 20,
  /** First sleep between polls of the directory while a shard is idle (doubling while nothing arrives). */
  idleMs: 2,
  /** Longest sleep between polls while idle (a batch arriving wakes a shard sooner where the file system tells). */
  idleMaxMs: 200,
  /** A busy shard writes a batch at the end of a slice once it holds this many worlds... */
  flushWorlds: 128,
  /** ... or this many bytes... */
  flushBytes: 256 * 1024,
  /** ... or once it expanded this many worlds since the batch's first world... */
  flushAgeWork: 4096,
  /** ... or once its first world waited this long (ms). */
  flushAgeMs: 2000,
  /** An idle shard joins termination detection once it has been idle this long (ms). */
  waveDelayMs: 50,
  /** A shard rewrites its status file at least this often (its heartbeat). */
  beatMs: 1000,
} as const;
