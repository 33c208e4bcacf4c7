// Reading a saved trace: every failure is a UsageError (exit 2) naming the file and field.
import { readFileSync, statSync } from 'node:fs';
import { parseTraceText, type TraceFileData } from '../../report/index.ts';
import { UsageError } from '../errors.ts';

const MAX_BYTES = 512 * 1024 * 1024;

export function readTrace(path: string): TraceFileData {
  let text: string;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new UsageError(`${path} is a directory; give the trace .json file written by 'interleave check'`);
    if (st.size > MAX_BYTES) throw new UsageError(`${path} is ${st.size} bytes, larger than any trace interleave writes (limit ${MAX_BYTES})`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as { code?: string }).code;
    throw new UsageError(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = parseTraceText(text, path);
  if (!r.ok) throw new UsageError(r.error);
  return r.file;
}
