// `interleave show <trace.json>`: a saved trace as text, Mermaid, HTML or JSON.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { FORMATS, formatText, render, type Format } from '../../report/index.ts';
import { EXIT, UsageError } from '../errors.ts';
import type { Io } from '../io.ts';
import { readTrace } from './trace-file.ts';

const BY_EXT: Record<string, Format> = { '.html': 'html', '.htm': 'html', '.mmd': 'mermaid', '.mermaid': 'mermaid', '.json': 'json', '.txt': 'text' };

export function runShow(io: Io, path: string, flags: { format?: string; out?: string }): number {
  const ext = flags.out ? /\.[^./\\]+$/.exec(flags.out)?.[0]?.toLowerCase() : undefined;
  const format = (flags.format ?? (ext ? BY_EXT[ext] : undefined) ?? 'text') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`unknown format '${flags.format}'; formats: ${FORMATS.join(', ')}`);
  const file = readTrace(path);
  const text = format === 'text' && !flags.out ? formatText(file, io.style) : render(file, format);
  if (flags.out) {
    mkdirSync(dirname(resolve(flags.out)), { recursive: true });
    writeFileSync(flags.out, text);
    io.err(`wrote ${format} to ${flags.out}`);
  } else {
    io.out(text);
  }
  return EXIT.ok;
}
