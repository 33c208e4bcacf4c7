// Reading a saved trace: every failure is a UsageError (exit 2) naming the file and
// field, or the limit it exceeds and how to raise it. The size is checked before
// the file is read, and the bytes (UTF-8, depth, string and item counts) before
// they are parsed, so a hostile file cannot exhaust memory.
import { readFileSync, statSync } from 'node:fs';
import { DEFAULT_TRACE_LIMITS, parseTraceBytes, parseTraceLimits, traceSizeProblem, type TraceFileData, type TraceLimits } from '../report/index.ts';
import { UsageError } from './errors.ts';

/** The environment variable with trace limits (`bytes=256M,depth=400`); `--trace-limit` flags override it. */
export const TRACE_LIMITS_ENV = 'INTERLEAVE_TRACE_LIMITS';

/** The limits for this command: the defaults, then the environment, then the flags. */
export function traceLimits(flags: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): TraceLimits {
  let limits = DEFAULT_TRACE_LIMITS;
  try {
    if (env[TRACE_LIMITS_ENV]) limits = parseTraceLimits(env[TRACE_LIMITS_ENV]!, limits);
  } catch (e) {
    throw new UsageError(`${TRACE_LIMITS_ENV}: ${(e as Error).message}`);
  }
  try {
    for (const f of flags) limits = parseTraceLimits(f, limits);
  } catch (e) {
    throw new UsageError(`--trace-limit: ${(e as Error).message}`);
  }
  return limits;
}

export function readTrace(path: string, limits: TraceLimits = traceLimits()): TraceFileData {
  let bytes: Buffer;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new UsageError(`${path} is a directory; give the trace .json file written by 'interleave check'`);
    const big = traceSizeProblem(st.size, path, limits);
    if (big) throw new UsageError(big);
    bytes = readFileSync(path);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as { code?: string }).code;
    throw new UsageError(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = parseTraceBytes(bytes, path, limits);
  if (!r.ok) throw new UsageError(r.error);
  return r.file;
}
